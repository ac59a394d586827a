import * as vscode from 'vscode';
import { Settings as Ids, Urls } from './ids';
import { Disposable } from '../shared/disposable';
import { isLoopbackHttpUrl, normalizeBaseUrl, parseServiceUrl } from '../shared/url';
import type { LogSink } from './logger';
import type { TitleProtection } from '../bib/bibtex';

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

  /**
   * The service's MCP server: the user's URL (a repository's would route the key), checked by the same rules as the
   * service address; `problem` says why it is unusable.
   */
  get mcp(): { url: string; origin: string | undefined; problem: string | undefined } {
    const url = this.userOnly<string>(Ids.mcpUrl)?.trim() || Urls.defaultMcpUrl;
    const parsed = parseServiceUrl(url);
    if (!parsed || (parsed.protocol === 'http:' && !isLoopbackHttpUrl(url)))
      return {
        url,
        origin: undefined,
        problem: vscode.l10n.t(
          'The MCP server address "{0}" in the setting {1} must be an https URL (plain http only for this computer).',
          url,
          Ids.mcpUrl,
        ),
      };
    return { url, origin: parsed.origin, problem: undefined };
  }

  get service(): ServiceSettings {
    const baseUrl = normalizeBaseUrl(this.userOnly<string>(Ids.baseUrl) ?? Urls.defaultBaseUrl);
    const scheme = this.userOnly<string>(Ids.authScheme);
    const timeoutSeconds = finite(this.userOnly<unknown>(Ids.requestTimeoutSeconds)) ?? DEFAULT_TIMEOUT_SECONDS;
    const proxy = vscode.workspace.getConfiguration('http').get<string>('proxy')?.trim() || undefined;
    const parsed = parseServiceUrl(baseUrl);
    let problem: string | undefined;
    if (!parsed) {
      problem = vscode.l10n.t(
        'The service address "{0}" in the setting {1} is not a valid http(s) URL.',
        baseUrl,
        Ids.baseUrl,
      );
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

  /** Sets the plan in user settings ('auto' removes the value, so the plan is inferred again). */
  async setPlan(plan: string): Promise<void> {
    await vscode.workspace
      .getConfiguration()
      .update(Ids.plan, plan === 'auto' ? undefined : plan, vscode.ConfigurationTarget.Global);
  }

  /** Points requests at `url` in user settings (the emulator command; a workspace never chooses this). */
  async setBaseUrl(url: string): Promise<void> {
    await vscode.workspace.getConfiguration().update(Ids.baseUrl, url, vscode.ConfigurationTarget.Global);
  }

  async setMcpUrl(url: string): Promise<void> {
    await vscode.workspace.getConfiguration().update(Ids.mcpUrl, url, vscode.ConfigurationTarget.Global);
  }

  /** User (global) value, else the default; workspace and folder values are ignored (and logged once each). */
  userOnly<T>(id: string): T | undefined {
    const { value, ignored } = userSetting<T>(id);
    for (const v of ignored) {
      const note = `${id}=${JSON.stringify(v)}`;
      if (!this.warned.has(note)) {
        this.warned.add(note);
        this.log.warn(
          `Ignoring the workspace setting ${note}: settings that decide where your API key is sent or what your calls are spent on are read from user settings only.`,
        );
      }
    }
    return value;
  }
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The `researchDesk.citations.*` settings a write uses, read for the document's resource scope. */
export interface CitationSettings {
  defaultBibliography: string;
  /** Whether the default bibliography comes from the workspace's settings (a repository's), not the writer's. */
  defaultFromWorkspace: boolean;
  /** The writer's key scheme when it is a usable one; undefined for the default (bib/keys.ts's, not loaded here). */
  keyScheme: string | undefined;
  titleProtection: TitleProtection;
  latexCommand: string;
  askLocator: boolean;
}

/**
 * The citation settings for a document, each checked (a LaTeX command of letters only, a key scheme of at most 200
 * characters with a placeholder), and whether the default bibliography's path came from the workspace's settings.
 */
export function citationSettings(scope?: vscode.Uri): CitationSettings {
  const c = vscode.workspace.getConfiguration(undefined, scope);
  const scheme = c.get<string>(Ids.citationsKeyScheme);
  const protection = c.get<string>(Ids.citationsTitleProtection, 'capitals');
  const command = (c.get<string>(Ids.citationsLatexCommand, 'cite') ?? 'cite').trim().replace(/^\\/u, '');
  const defaultBibliography = (c.get<string>(Ids.citationsDefaultBibliography, 'references.bib') ?? '').trim();
  // VS Code withholds a restricted setting's workspace value in Restricted Mode; where it applies, the writer is told
  // that the path came from the repository.
  const inspected = c.inspect<string>(Ids.citationsDefaultBibliography);
  const fromWorkspace = [inspected?.workspaceFolderValue, inspected?.workspaceValue].some(
    (v) => typeof v === 'string' && v.trim() === defaultBibliography,
  );
  return {
    defaultBibliography,
    defaultFromWorkspace: fromWorkspace && inspected?.globalValue?.trim() !== defaultBibliography,
    keyScheme: typeof scheme === 'string' && scheme.length <= 200 && /\{[A-Za-z]+\}/u.test(scheme) ? scheme : undefined,
    titleProtection:
      protection === 'all' || protection === 'none' || protection === 'acronyms' ? protection : 'capitals',
    latexCommand: /^[A-Za-z]+\*?$/u.test(command) ? command : 'cite',
    askLocator: c.get<boolean>(Ids.citationsAskLocator, false) === true,
  };
}

/** Whether Insert Answer writes the answer's quotes as footnotes in this document. */
export function quotesAsFootnotes(scope?: vscode.Uri): boolean {
  return (
    vscode.workspace.getConfiguration(undefined, scope).get<boolean>(Ids.citationsQuotesAsFootnotes, false) === true
  );
}

export type LookupPolicy = 'ask' | 'always' | 'never';
const LOOKUP_POLICIES: readonly LookupPolicy[] = ['ask', 'always', 'never'];

/** Whether an answer's incomplete citations are completed by a search (a paid call each): ask, always or never. */
export function lookUpMissingMetadata(scope?: vscode.Uri): LookupPolicy {
  const v = vscode.workspace.getConfiguration(undefined, scope).get<string>(Ids.citationsLookUpMissingMetadata, 'ask');
  return (LOOKUP_POLICIES as readonly unknown[]).includes(v) ? (v as LookupPolicy) : 'ask';
}

/** The encoding `files.encoding` names for a .bib file (VS Code's own setting; "utf8" when unset). */
export function bibFileEncoding(uri: vscode.Uri): string {
  const v = vscode.workspace.getConfiguration('files', { uri, languageId: 'bibtex' }).get<string>('encoding', 'utf8');
  return typeof v === 'string' ? v : 'utf8';
}
