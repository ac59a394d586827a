import * as vscode from 'vscode';
import { Secrets } from '../platform/ids';
import { Disposable } from '../shared/disposable';
import type { Logger } from '../platform/logger';
import type { SettingsStore } from '../platform/settings';

export interface KeyChange {
  /** The origin whose key changed (the current service origin). */
  origin: string | undefined;
}

/**
 * The API key, kept only in `context.secrets`, one per service origin
 * (`researchDesk.apiKey/https://api.consensus.app`): switching to the local emulator never
 * overwrites the real key, and a key saved for one service is never sent to another.
 * `onDidChange` follows changes from other windows (`secrets.onDidChange`) and changes of
 * the configured service address.
 */
export class KeyStore extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<KeyChange>());
  readonly onDidChange = this.changed.event;
  /** The origin last reported (null until first read: activation reads no settings). */
  private lastOrigin: string | undefined | null = null;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly settings: SettingsStore,
    private readonly log: Logger,
  ) {
    super();
    this.register(
      secrets.onDidChange((e) => {
        const origin = this.origin;
        if (origin && e.key === secretName(origin)) this.changed.fire({ origin });
      }),
    );
    this.register(
      settings.onDidChange(() => {
        const before = this.lastOrigin;
        const origin = this.origin;
        if (origin !== before) this.changed.fire({ origin });
      }),
    );
  }

  /** The origin keys are read for: the configured (user-level) service address. */
  get origin(): string | undefined {
    const origin = this.settings.service.origin;
    this.lastOrigin = origin;
    return origin;
  }

  async get(origin = this.origin): Promise<string | undefined> {
    if (!origin) return undefined;
    const key = (await this.secrets.get(secretName(origin)))?.trim();
    this.log.addSecret(key);
    return key || undefined;
  }

  async has(origin = this.origin): Promise<boolean> {
    return (await this.get(origin)) !== undefined;
  }

  async set(key: string, origin = this.origin): Promise<void> {
    const value = key.trim();
    if (!origin) throw new Error('No valid service address is configured.');
    if (!value) throw new Error('An empty API key cannot be stored.');
    this.log.addSecret(value);
    await this.secrets.store(secretName(origin), value);
    this.log.info(`API key saved for ${origin}.`);
  }

  async delete(origin = this.origin): Promise<void> {
    if (!origin) return;
    await this.secrets.delete(secretName(origin));
    this.log.info(`API key cleared for ${origin}.`);
  }
}

export function secretName(origin: string): string {
  return `${Secrets.apiKeyPrefix}${origin}`;
}
