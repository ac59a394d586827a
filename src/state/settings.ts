import * as vscode from 'vscode';
import { Settings as Ids, Urls } from '../ids';
import { Disposable } from '../util/disposable';
import { isLoopbackHttpUrl, normalizeBaseUrl, parseServiceUrl } from '../util/url';
import type { LogSink } from './logger';

export type AuthScheme = 'x-api-key' | 'bearer';

/** Where requests go and how the key travels. Read from user settings only. */
export interface ServiceSettings {
  /** Base URL without trailing slash, as configured (may be invalid: see `problem`). */
  baseUrl: string;
  /** `new URL(baseUrl).origin` when valid. */
  origin: string | undefined;
  /** Why the base URL cannot be used, as one sentence; undefined when it can. */
  problem: string | undefined;
  authScheme: AuthScheme;
  timeoutMs: number;
  /** VS Code's `http.proxy`, when set. */
  proxy: string | undefined;
}

const DEFAULT_TIMEOUT_SECONDS = 30;

/**
 * Reads Research Desk's settings. The settings that decide where the key is sent
 * (`baseUrl`, `authScheme`) are honoured from USER settings only (`inspect().globalValue`
 * ?? default): a cloned repository's `.vscode/settings.json` must never redirect the key,
 * trusted workspace or not. A workspace value that is present and ignored is logged once.
 */
export class SettingsStore extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires when any setting read here changes (including `http.proxy`). */
  readonly onDidChange = this.changed.event;
  private readonly warned = new Set<string>();

  constructor(private readonly log: LogSink) {
    super();
    this.register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(Ids.section) || e.affectsConfiguration('http.proxy')) this.changed.fire();
      }),
    );
  }

  get service(): ServiceSettings {
    const baseUrl = normalizeBaseUrl(this.userOnly<string>(Ids.baseUrl) ?? Urls.defaultBaseUrl);
    const scheme = this.userOnly<string>(Ids.authScheme);
    const timeoutSeconds = this.number(Ids.requestTimeoutSeconds) ?? DEFAULT_TIMEOUT_SECONDS;
    const proxy = vscode.workspace.getConfiguration('http').get<string>('proxy')?.trim() || undefined;
    const parsed = parseServiceUrl(baseUrl);
    let problem: string | undefined;
    if (!parsed) {
      problem = vscode.l10n.t('The service address "{0}" in the setting {1} is not a valid http(s) URL.', baseUrl, Ids.baseUrl);
    } else if (parsed.protocol === 'http:' && !isLoopbackHttpUrl(baseUrl)) {
      problem = vscode.l10n.t(
        'The service address {0} uses plain http, which would send your key unencrypted: use https (plain http is allowed only for this computer).',
        baseUrl,
      );
    }
    return {
      baseUrl,
      origin: parsed?.origin,
      problem,
      authScheme: scheme === 'bearer' ? 'bearer' : 'x-api-key',
      timeoutMs: Math.round(Math.min(Math.max(timeoutSeconds, 1), 600) * 1000),
      proxy,
    };
  }

  /** User (global) value, else the default; workspace and folder values are ignored (and logged). */
  private userOnly<T>(id: string): T | undefined {
    const info = vscode.workspace.getConfiguration().inspect<T>(id);
    if (!info) return undefined;
    const ignored = [info.workspaceValue, info.workspaceFolderValue].filter((v) => v !== undefined);
    for (const value of ignored) {
      const note = `${id}=${JSON.stringify(value)}`;
      if (!this.warned.has(note)) {
        this.warned.add(note);
        this.log.warn(`Ignoring the workspace setting ${note}: settings that decide where your API key is sent are read from user settings only.`);
      }
    }
    return info.globalValue ?? info.defaultValue;
  }

  private number(id: string): number | undefined {
    const v = vscode.workspace.getConfiguration().get<unknown>(id);
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  }
}
