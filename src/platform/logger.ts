import * as vscode from 'vscode';
import { LOG_CHANNEL_NAME } from './ids';

/** The shape the API client and the core bundle log through. */
export interface LogSink {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string | Error): void;
}

const REDACTED = '[redacted]';

/**
 * The one "Research Desk" LogOutputChannel. Every line passes through `redact`, which
 * removes any secret the key store has seen (defence in depth: nobody should log a key).
 */
export class Logger implements LogSink, vscode.Disposable {
  private created: vscode.LogOutputChannel | undefined;
  private readonly secrets = new Set<string>();

  /** Created on the first line or show(), not at activation. */
  private get channel(): vscode.LogOutputChannel {
    return (this.created ??= vscode.window.createOutputChannel(LOG_CHANNEL_NAME, { log: true }));
  }

  /** Remember a secret so it never reaches the log, even by mistake. */
  addSecret(secret: string | undefined): void {
    if (secret && secret.length >= 4) this.secrets.add(secret);
  }

  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join(REDACTED);
    return out;
  }

  trace(message: string): void {
    this.channel.trace(this.redact(message));
  }
  debug(message: string): void {
    this.channel.debug(this.redact(message));
  }
  info(message: string): void {
    this.channel.info(this.redact(message));
  }
  warn(message: string): void {
    this.channel.warn(this.redact(message));
  }
  error(message: string | Error): void {
    const text = message instanceof Error ? `${message.name}: ${message.message}\n${message.stack ?? ''}` : message;
    this.channel.error(this.redact(text));
  }

  show(): void {
    this.channel.show(true);
  }

  dispose(): void {
    this.created?.dispose();
    this.created = undefined;
  }
}
