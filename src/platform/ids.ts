/**
 * Every id Research Desk contributes or stores, in one place. `test/extension` checks this
 * module against package.json, so a contribution cannot be declared and never registered.
 * Pure constants only: both bundles (entry and core) may import it.
 */

export const EXTENSION_ID = 'research-desk.research-desk';

export const Commands = {
  setApiKey: 'researchDesk.setApiKey',
  clearApiKey: 'researchDesk.clearApiKey',
  testConnection: 'researchDesk.testConnection',
  useEmulator: 'researchDesk.useEmulator',
  getKey: 'researchDesk.getKey',
  showLog: 'researchDesk.showLog',
  showIconLegend: 'researchDesk.showIconLegend',
  // Search
  searchPapers: 'researchDesk.searchPapers',
  searchSelection: 'researchDesk.searchSelection',
  loadMore: 'researchDesk.loadMore',
  refreshResults: 'researchDesk.refreshResults',
  clearResults: 'researchDesk.clearResults',
  openPaper: 'researchDesk.openPaper',
  openDoi: 'researchDesk.openDoi',
  copyDoi: 'researchDesk.copyDoi',
  copyTitle: 'researchDesk.copyTitle',
  showAbstract: 'researchDesk.showAbstract',
  findSimilar: 'researchDesk.findSimilar',
  // The evidence table, and exporting papers (the table's rows, the results view's papers)
  showEvidenceTable: 'researchDesk.showEvidenceTable',
  exportPapers: 'researchDesk.exportPapers',
  // Filters and monthly calls
  editFilters: 'researchDesk.editFilters',
  clearFilters: 'researchDesk.clearFilters',
  applyFilterPreset: 'researchDesk.applyFilterPreset',
  showUsage: 'researchDesk.showUsage',
  setPlan: 'researchDesk.setPlan',
  correctUsageCount: 'researchDesk.correctUsageCount',
  // Threads
  askAgent: 'researchDesk.askAgent',
  sendBrief: 'researchDesk.sendBrief',
  askAboutSelection: 'researchDesk.askAboutSelection',
  askAboutPapers: 'researchDesk.askAboutPapers',
  refreshThreads: 'researchDesk.refreshThreads',
  searchThreads: 'researchDesk.searchThreads',
  loadMoreThreads: 'researchDesk.loadMoreThreads',
  openThread: 'researchDesk.openThread',
  openThreadInBrowser: 'researchDesk.openThreadInBrowser',
  copyThreadLink: 'researchDesk.copyThreadLink',
  exportAnswer: 'researchDesk.exportAnswer',
  // Citations: run by a completion item that adds a recent paper's entry
  addToBibliography: 'researchDesk.addToBibliography',
  // Citations
  insertCitation: 'researchDesk.insertCitation',
  /** The Insert Citation picker with ticks, for several papers at once. */
  insertCitations: 'researchDesk.insertCitations',
  /** The declaration offered after Insert Citation wrote to a bibliography the document does not declare. */
  declareBibliography: 'researchDesk.declareBibliography',
  copyBibtex: 'researchDesk.copyBibtex',
  copyReference: 'researchDesk.copyReference',
  tidyBibliography: 'researchDesk.tidyBibliography',
  // Citations: the answer shown, into the last active editor with its citations
  insertAnswer: 'researchDesk.insertAnswer',
} as const;
export type CommandId = (typeof Commands)[keyof typeof Commands];

/** Language model tools (`contributes.languageModelTools`): names models see, so letters, digits and `_` only. */
export const Tools = {
  searchPapers: 'researchDesk_searchPapers',
  paperDetails: 'researchDesk_paperDetails',
  insertCitations: 'researchDesk_insertCitations',
  askAgent: 'researchDesk_askResearchAgent',
  readThread: 'researchDesk_readThread',
  listThreads: 'researchDesk_listThreads',
  monthlyCalls: 'researchDesk_monthlyCalls',
} as const;
export type ToolName = (typeof Tools)[keyof typeof Tools];

/** Chat participants (`contributes.chatParticipants`). */
export const ChatParticipants = {
  research: 'researchDesk.research',
} as const;

/** MCP server definition providers (`contributes.mcpServerDefinitionProviders`). */
export const McpProviders = {
  research: 'researchDesk.mcp',
} as const;

/** Webview panel types (the answer view has an `onWebviewPanel:` activation event and a serializer). */
export const WebviewTypes = {
  answer: 'researchDesk.answer',
  /** The evidence table (no serializer: the results it shows are not kept across a reload). */
  evidenceTable: 'researchDesk.evidenceTable',
} as const;

export const ViewContainers = {
  researchDesk: 'researchDesk',
} as const;

export const Views = {
  results: 'researchDesk.results',
  /** The caller's research-agent threads. */
  threads: 'researchDesk.threads',
} as const;

/** Setting ids, full dotted names. */
export const Settings = {
  section: 'researchDesk',
  baseUrl: 'researchDesk.baseUrl',
  mcpUrl: 'researchDesk.mcpUrl',
  authScheme: 'researchDesk.authScheme',
  requestTimeoutSeconds: 'researchDesk.requestTimeoutSeconds',
  /** Minutes an identical search is answered from the session cache (0 = off). */
  searchCacheMinutes: 'researchDesk.search.cacheMinutes',
  /** Named filter presets: [{ name, filters }] (filters may use lastYears: N). */
  searchPresets: 'researchDesk.search.presets',
  /** Filter set applied in a workspace whose filters were never edited. */
  searchDefaultFilters: 'researchDesk.search.defaultFilters',
  /** 'auto' (inferred from the page size the service applies) or the plan's id. */
  plan: 'researchDesk.plan',
  /** Citations: the bibliography used when a document declares none ("" = ask). */
  citationsDefaultBibliography: 'researchDesk.citations.defaultBibliography',
  /** Citations: ask for a page/locator on Insert Citation. */
  citationsAskLocator: 'researchDesk.citations.askLocator',
  /** Citations: the LaTeX cite command (cite, citep, autocite…). */
  citationsLatexCommand: 'researchDesk.citations.latexCommand',
  /** Citations: the key scheme of new entries (KEY_SCHEMES). */
  citationsKeyScheme: 'researchDesk.citations.keyScheme',
  /** Citations: which capitals of a title are braced (acronyms | all | none). */
  citationsTitleProtection: 'researchDesk.citations.titleProtection',
  /** Citations: Insert Answer puts an answer's quotes in footnotes (Pandoc documents). */
  citationsQuotesAsFootnotes: 'researchDesk.citations.quotesAsFootnotes',
  /**
   * Citations from an answer lack authors/DOI: 'ask' | 'always' | 'never' look them up with a search (a paid call
   * each). User settings only.
   */
  citationsLookUpMissingMetadata: 'researchDesk.citations.lookUpMissingMetadata',
} as const;

/** Settings that decide where the key is sent: read from user settings only. */
export const KEY_ROUTING_SETTINGS = [Settings.baseUrl, Settings.authScheme, Settings.mcpUrl] as const;
/**
 * Settings that choose where files are written: restricted in Restricted Mode (a repository's value is not applied
 * there).
 */
export const WRITE_LOCATION_SETTINGS = [Settings.citationsDefaultBibliography] as const;

/**
 * Settings that decide what calls are spent (the plan shrinks pages and refuses deep mode, the cache saves calls, a
 * short timeout fails searches that were charged, lookups search per citation): application or machine scope in
 * package.json, and read from user settings only, so a cloned repository cannot spend the writer's calls.
 */
export const COST_SETTINGS = [
  Settings.plan,
  Settings.searchCacheMinutes,
  Settings.requestTimeoutSeconds,
  Settings.citationsLookUpMissingMetadata,
] as const;

/**
 * Settings a workspace may set only once it is trusted (restrictedConfigurations; Restricted Mode reads the user
 * value): the filters searches run under. A project may share them, but an untrusted one must not silently narrow
 * what the writer is shown.
 */
export const TRUSTED_WORKSPACE_SETTINGS = [Settings.searchDefaultFilters, Settings.searchPresets] as const;

/** Keys of what is kept in globalState / workspaceState (`…/` ones are prefixes completed by a service origin). */
export const StorageKeys = {
  /** The monthly-calls status item as last shown, restored at start before the core loads (globalState). */
  usageStatus: 'researchDesk.usage.status',
  /** Calls spent this month on this machine, per key origin (globalState). */
  usagePrefix: 'researchDesk.usage/',
  /** The search filters edited in this workspace (workspaceState). */
  filters: 'researchDesk.filters',
  /** Recent search queries, newest first (globalState). */
  recentQueries: 'researchDesk.search.recentQueries',
  /** Research-agent runs still running, per service origin (globalState). */
  runningThreadsPrefix: 'researchDesk.threads.running/',
  /** Unsent briefs and follow-ups, per target (globalState). */
  threadDrafts: 'researchDesk.threads.drafts',
  /** The evidence table's hidden columns (globalState). */
  tableColumns: 'researchDesk.table.hiddenColumns',
  /** The evidence table's last sort, or null for the search's order (globalState). */
  tableSort: 'researchDesk.table.sort',
  /** What was sent per thread turn (question, gist, filters), newest last, bounded (globalState). */
  sentTurns: 'researchDesk.threads.sent',
} as const;

/** Status bar item ids (VS Code lists them by id in the status bar's context menu). */
export const StatusItems = {
  usage: 'researchDesk.usage',
  threads: 'researchDesk.threads',
  /** The bibliography the active document should declare (Declare It, kept reachable). */
  declareBibliography: 'researchDesk.declareBibliography',
} as const;

export const ContextKeys = {
  hasKey: 'researchDesk.hasKey',
  /** Whether a key is set has been read: until then the views show no welcome (not a false "Set API Key"). */
  keyKnown: 'researchDesk.keyKnown',
  /** The Research view shows search results. */
  hasResults: 'researchDesk.hasResults',
} as const;

/** SecretStorage names. One key per service origin: `apiKey/<origin>`. */
export const Secrets = {
  apiKeyPrefix: 'researchDesk.apiKey/',
} as const;

export const EnvVars = {
  /** Demo hand-off: stored as the key at activation, only for a loopback http base URL. */
  demoKey: 'RESEARCH_DESK_DEMO_KEY',
  /** An emulator address the "Use the local emulator" command offers first. */
  emulatorUrl: 'RESEARCH_DESK_EMULATOR_URL',
} as const;

export const Urls = {
  defaultBaseUrl: 'https://api.consensus.app',
  /** The service's MCP server (Streamable HTTP at `{mcp_url}/mcp`). */
  defaultMcpUrl: 'https://mcp.consensus.app/mcp',
  /** Account dashboard where keys are created (API and MCP dashboard, Keys and clients). */
  dashboard: 'https://consensus.app/home/api/',
  /** Billing and plans (a past-due account or a used-up monthly pool is resolved here). */
  billing: 'https://consensus.app/home/api/billing/',
  defaultEmulator: 'http://127.0.0.1:8787',
} as const;

export const LOG_CHANNEL_NAME = 'Research Desk';
