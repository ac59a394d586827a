import * as vscode from 'vscode';
import { Settings as Ids, Urls } from './ids';
import { Disposable } from '../shared/disposable';
import { isLoopbackHttpUrl, normalizeBaseUrl, parseServiceUrl } from '../shared/url';
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
const DEFAULT_CACHE_MINUTES = 30;

/**
 * A setting's user (global) value, else its default, and the workspace or folder values that were present and
 * ignored. For the settings that decide where the key goes or what is spent: package.json already keeps them out
 * of workspaces (scope, restrictedConfigurations), and reading only the user value keeps that true even when a
 * workspace value reaches the configuration anyway (a window-scope setting in a trusted workspace, a VS Code
 * that does not honour the scope).
 */
export function userSetting<T>(id: string): { value: T | undefined; ignored: unknown[] } {
  const info = vscode.workspace.getConfiguration().inspect<T>(id);
  if (!info) return { value: undefined, ignored: [] };
  const ignored = [info.workspaceValue, info.workspaceFolderValue].filter((v) => v !== undefined);
  return { value: info.globalValue ?? info.defaultValue, ignored };
}

/**
 * For the settings a workspace may set once trusted (restrictedConfigurations): the value VS Code resolves in a
 * trusted workspace; in Restricted Mode the user value, else the default, whatever the workspace says.
 */
export function trustedWorkspaceSetting<T>(id: string): T | undefined {
  return vscode.workspace.isTrusted ? vscode.workspace.getConfiguration().get<T>(id) : userSetting<T>(id).value;
}

/**
 * Reads Research Desk's settings. The settings that decide where the key is sent
 * (`baseUrl`, `authScheme`) or what calls are spent (`plan`, `search.cacheMinutes`,
 * `requestTimeoutSeconds`) are honoured from USER settings only (`inspect().globalValue`
 * ?? default): a cloned repository's `.vscode/settings.json` must never redirect the key
 * or spend the writer's calls, trusted workspace or not. A workspace value that is present
 * and ignored is logged once.
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
    const timeoutSeconds = finite(this.userOnly<unknown>(Ids.requestTimeoutSeconds)) ?? DEFAULT_TIMEOUT_SECONDS;
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

  /** Minutes an identical search is answered from the session cache (0 = off), from user settings only. */
  get searchCacheMinutes(): number {
    const minutes = finite(this.userOnly<unknown>(Ids.searchCacheMinutes)) ?? DEFAULT_CACHE_MINUTES;
    return Math.min(Math.max(minutes, 0), 1440);
  }

  /** The `researchDesk.plan` value from user settings only (validated by the usage ledger). */
  get plan(): unknown {
    return this.userOnly<unknown>(Ids.plan);
  }

  /** User (global) value, else the default; workspace and folder values are ignored (and logged once each). */
  userOnly<T>(id: string): T | undefined {
    const { value, ignored } = userSetting<T>(id);
    for (const v of ignored) {
      const note = `${id}=${JSON.stringify(v)}`;
      if (!this.warned.has(note)) {
        this.warned.add(note);
        this.log.warn(`Ignoring the workspace setting ${note}: settings that decide where your API key is sent or what your calls are spent on are read from user settings only.`);
      }
    }
    return value;
  }
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
