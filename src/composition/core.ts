/**
 * Entry of the core bundle (dist/core.js), `require`d by the entry bundle on the first
 * command that needs it. It holds the API client (undici, zod) and the features, so none
 * of that loads at activation.
 */
import * as vscode from 'vscode';
import { AnswerPanels } from '../answer/answerPanel';
import { ConnectionTester } from '../service/connection';
import { EmulatorCommand } from '../service/emulator';
import { FilterCommands } from '../search/filterCommands';
import { KeyCommands } from '../service/keyCommands';
import { keyTag } from '../service/keyTag';
import { PaperCommands } from '../search/paperCommands';
import { SearchCommands } from '../search/searchCommands';
import { ThreadCommands } from '../threads/threadCommands';
import { threadFilters } from '../threads/threadSender';
import { ThreadsViewCommands } from '../threads/threadsViewCommands';
import { Commands, Views, type CommandId } from '../platform/ids';
import { FilterStore } from '../search/filterStore';
import { SearchSession } from '../search/searchSession';
import { PaperExporter } from '../search/table/exportPapers';
import { TablePanel } from '../search/table/tablePanel';
import { BriefCodeLensProvider } from '../threads/briefDocument';
import { ThreadsModel } from '../threads/threadsModel';
import { ThreadWatcher } from '../threads/threadWatcher';
import { describeError, ErrorPresenter } from '../platform/errorPresenter';
import { showWarning } from '../platform/notify';
import { UsageStatusBar } from '../usage/statusBar';
import { UsageLedger } from '../usage/usageLedger';
import { UsageMenu } from '../usage/usageMenu';
import { Disposable } from '../shared/disposable';
import { errorLine } from '../shared/plainText';
import { CitationCommands } from '../citations/citationCommands';
import { AnswerCitations } from '../citations/insertAnswer';
import { PaperLookup } from '../citations/lookup';
import { Inserter } from '../citations/insert';
import { ClientProvider } from '../service/clientProvider';
import { ResearchTools } from '../chat/researchTools';
import { ResearchParticipant } from '../chat/participant';
import type { CitationCommandResult } from '../citations/commandSupport';
import type { CitePaper } from '../citations/types';
import type { Bibliographies } from '../citations/bibliography';
import type { CiteCompletion } from '../citations/completion';
import type { CiteHover } from '../citations/hover';
import type { RecentPapersList } from '../citations/recentPapers';
import type { ToolName } from '../platform/ids';
import type { Core, CoreServices } from './contract';
import { commandTable, type Handlers } from './commandTable';
import { SerialMemento } from '../shared/serialMemento';

class CoreImpl extends Disposable implements Core {
  private readonly presenter: ErrorPresenter;
  private readonly handlers: Handlers;
  /** Active search filters of this workspace. */
  readonly filters: FilterStore;
  /** Calls spent this month on this machine. */
  readonly usage: UsageLedger;
  /** Filter commands and the editor (tests drive `filterCommands.editor.active`). */
  readonly filterCommands: FilterCommands;
  /** The status-bar item of the monthly calls. */
  readonly usageStatus: UsageStatusBar;
  /** The status-bar item's menu (tests drive `usageMenu.active`). */
  readonly usageMenu: UsageMenu;
  /** The search session. */
  readonly search: SearchSession;
  /** The answer view: show(threadId), refresh(threadId). */
  readonly answers: AnswerPanels;
  /** Running research-agent threads: polling, resume after reload, notifications. */
  readonly threadWatcher: ThreadWatcher;
  /** Starting threads and follow-ups. */
  readonly threads: ThreadCommands;
  /** The Threads view's data. */
  readonly threadsModel: ThreadsModel;
  /** Citations: a document's bibliographies, read and extended. */
  readonly bibliographies: Bibliographies;
  /** Citations: papers → citation at the cursor + bibliography entries, applied together. */
  readonly citations: Inserter;
  /** Citations: papers seen this session (results view, answer citations). */
  readonly recentPapers: RecentPapersList;
  /** Cite-key completion and Add to Bibliography. */
  readonly citeCompletion: CiteCompletion;
  /** Cite-key hover and links. */
  readonly citeHover: CiteHover;
  /** Citations: the commands; `targetEditor()` is the editor citations go to, `active` the Quick Pick. */
  readonly citationCommands: CitationCommands;
  /** Citations: the answer view's citation actions and Insert Answer (`last` for tests). */
  readonly answerCitations: AnswerCitations;
  /**
   * Completing an answer's citations (authors, DOI) from a search, with the writer's consent (`ask`/`last` for tests).
   */
  readonly paperLookup: PaperLookup;
  /** The language model tools (search, paper details, citing, the research agent, calls left). */
  readonly tools: ResearchTools;
  /** The @research chat participant. */
  readonly participant: ResearchParticipant;
  /** Export Papers (BibTeX, RIS, CSL-JSON) from the results view and the evidence table. */
  readonly exporter: PaperExporter;
  /** The evidence table: the results as rows to screen, sort, filter and act on. */
  readonly table: TablePanel;
  /** Milliseconds spent in each construction step (test API; the benchmark reports what loading the core costs). */
  readonly steps: Record<string, number> = {};

  constructor(private readonly services: CoreServices) {
    super();
    let mark = performance.now();
    const step = (name: string): void => {
      const now = performance.now();
      this.steps[name] = now - mark;
      mark = now;
    };
    const { log, settings, keys } = services;
    // Every write to globalState goes through one queue (serialMemento.ts says why).
    const globalState = new SerialMemento(services.context.globalState);
    this.presenter = new ErrorPresenter(log, () => settings.service.baseUrl);
    const clients = this.register(new ClientProvider(settings, keys, log));
    this.usage = this.register(
      new UsageLedger({ state: globalState, origin: () => settings.service.origin, settings }),
    );
    this.filters = this.register(
      new FilterStore({
        state: services.context.workspaceState,
        planIsFree: () => this.usage.isFreePlan(),
        warn: (m) => log.warn(m),
      }),
    );
    this.usageStatus = this.register(
      new UsageStatusBar(this.usage, Commands.showUsage, services.takeUsageStatusItem?.(), globalState),
    );
    this.filterCommands = new FilterCommands(this.filters, () => this.usage.isFreePlan(), {
      shownQuery: () => services.results.current?.query,
      rerun: () => this.search.rerun(),
    });
    this.usageMenu = new UsageMenu(this.usage, settings);
    if (this.filters.defaultsProblem) void showWarning(this.filters.defaultsProblem);
    step('usage');
    const tester = new ConnectionTester(clients, keys, log, this.presenter);
    const keyCommands = new KeyCommands(keys, settings, log, this.presenter, tester);
    const emulator = new EmulatorCommand(keys, settings, log, tester);
    step('service');
    // Search: session, its commands, paper actions.
    this.search = this.register(
      new SearchSession({
        clients,
        keyFor: (origin) => (origin ? keys.get(origin) : Promise.resolve(undefined)),
        onKeyChange: keys.onDidChange,
        filters: this.filters,
        usage: this.usage,
        // Only a plan the user set: a cap inferred from answers is learnt by the session per key
        // (the ledger's inference is per service origin and would outlive a key switch).
        planMaxPageSize: () =>
          this.usage.snapshot().planSource === 'setting' ? this.usage.planMaxPageSize() : undefined,
        presenter: this.presenter,
        log,
        view: services.results,
        cacheMinutes: () => settings.searchCacheMinutes,
      }),
    );
    const search = new SearchCommands(this.search, globalState, () => this.filters.describe());
    step('search');
    this.threadWatcher = this.register(
      new ThreadWatcher({
        clients,
        state: globalState,
        log,
        answers: () => this.answers,
        statusCommand: `${Views.threads}.focus`,
        keyTag: async () => {
          const key = await keys.get();
          return key === undefined ? undefined : keyTag(key);
        },
      }),
    );
    this.threads = new ThreadCommands({
      clients,
      watcher: this.threadWatcher,
      state: globalState,
      filters: this.filters,
      isFreePlan: () => this.usage.isFreePlan(),
      selectedPapers: () => services.results.selectedPapers(),
      presenter: this.presenter,
      log,
      usage: this.usage,
    });
    step('threads');
    // The answer view's follow-ups go through ThreadCommands like every brief (its watcher refreshes the view).
    this.answers = this.register(
      new AnswerPanels({
        citations: () => this.answerCitations,
        extensionUri: services.context.extensionUri,
        client: () => clients.get().client,
        log,
        showError: (err, context, retry) => void this.presenter.show(err, { context, retry }),
        onKeyChange: keys.onDidChange,
        sendFollowUp: (threadId, text, mode) => this.threads.followUp(threadId, text, mode),
        sent: this.threads.sent,
      }),
    );
    this.threadsModel = this.register(
      new ThreadsModel({
        clients,
        watcher: this.threadWatcher,
        log,
        describeError: (err) => describeError(err, { baseUrl: settings.service.baseUrl })?.message ?? '',
        sent: this.threads.sent,
      }),
    );
    this.register(
      vscode.languages.registerCodeLensProvider(
        { language: 'markdown', scheme: 'untitled' },
        new BriefCodeLensProvider(
          () => (threadFilters(this.filters.current) ? this.filters.describe() : ''),
          () => this.usage.isFreePlan(),
        ),
      ),
    );
    const threadsView = new ThreadsViewCommands(this.threadsModel, () => this.answers);
    if (services.threadsView) this.register(services.threadsView.attach(this.threadsModel));
    // Runs that were running when the window closed (globalState, per service origin) are followed again.
    this.threadWatcher.resume();
    // A paused run (no key, a revoked key) is followed again once the key changes.
    this.register(keys.onDidChange(() => void this.threadWatcher.resume()));
    step('answers');
    // Citations: the bibliographies, recent papers, completion and hover are the citation bundle's (dist/cite.js,
    // which the entry bundle's providers load on their own); the commands build on the same instances.
    const cite = services.cite();
    this.bibliographies = cite.bibliographies;
    this.recentPapers = cite.recentPapers;
    this.citeCompletion = cite.citeCompletion;
    this.citeHover = cite.citeHover;
    this.citations = new Inserter(this.bibliographies, this.recentPapers, (m) => log.warn(m));
    this.citationCommands = this.register(
      new CitationCommands({
        bibliographies: this.bibliographies,
        citations: this.citations,
        recent: this.recentPapers,
        shownPapers: () => services.results.current?.papers ?? [],
        search: (query) => search.searchPapers(query),
        prepareBibliographies: (document) => this.citeCompletion.prepare(document),
        log,
      }),
    );
    step('citations');
    // As the answer view cites: a paper known only from an answer is completed first (a paid lookup, asked).
    const citeWithLookup = async (papers: CitePaper[]): Promise<CitationCommandResult> => {
      const target = (await this.citationCommands.targetEditor())?.document.uri;
      const completed = await this.paperLookup.complete(papers, target);
      return completed ? this.citationCommands.insertCitation(completed) : { done: false, message: 'cancelled' };
    };
    this.tools = new ResearchTools({
      search: (params) => this.search.searchOnce(params),
      usage: () => this.usage.snapshot(),
      isFreePlan: () => this.usage.isFreePlan(),
      recent: this.recentPapers,
      shownPapers: () => services.results.current?.papers ?? [],
      insertCitation: (papers) => citeWithLookup(papers),
      citeTarget: async () => (await this.citationCommands.targetEditor())?.document,
      ask: (request, useSearchFilters) => this.threads.sendRequest(request, useSearchFilters),
      searchFilters: () => (threadFilters(this.filters.current) ? this.filters.describe() : ''),
      watcher: this.threadWatcher,
      getThread: (threadId, interactionId) =>
        clients.get().client.getThread(threadId, interactionId ? { interactionId } : {}),
      listThreads: (query, limit) => clients.get().client.listThreads(query ? { query, limit } : { limit }),
      describeError: (err) => describeError(err, { baseUrl: settings.service.baseUrl })?.message ?? errorLine(err),
    });
    this.participant = new ResearchParticipant({
      tools: this.tools,
      searchFilters: () => {
        const params = threadFilters(this.filters.current);
        return params ? { params, words: this.filters.describe() } : { params: {}, words: '' };
      },
      followUp: (threadId, message, mode) => this.threads.followUp(threadId, message, mode),
      usage: () => this.usage.snapshot(),
      insertCitation: (papers) => citeWithLookup(papers),
      log,
    });
    this.paperLookup = new PaperLookup({
      search: (params) => this.search.searchOnce(params),
      recent: this.recentPapers,
      baseUrl: () => settings.service.baseUrl,
      log: (m) => log.warn(m),
    });
    this.answerCitations = new AnswerCitations({
      bibliographies: this.bibliographies,
      recent: this.recentPapers,
      lookup: this.paperLookup,
      shown: (threadId) => this.answers.shown(threadId),
      getThread: (threadId) => clients.get().client.getThread(threadId),
      targetEditor: () => this.citationCommands.targetEditor(),
      log,
    });
    step('chat');
    const papers = this.register(new PaperCommands(services.results, log, (title) => search.searchPapers(title)));
    this.exporter = new PaperExporter({
      shown: () => services.results.current,
      selected: () => services.results.selectedPapers(),
    });
    this.table = this.register(
      new TablePanel({
        extensionUri: services.context.extensionUri,
        results: services.results,
        state: globalState,
        exporter: this.exporter,
        log,
        showError: (err, context) => void this.presenter.show(err, { context }),
      }),
    );
    this.handlers = commandTable(this, { keyCommands, tester, emulator, search, papers, threadsView });
    step('papers');
  }

  /** Whether the core's table has a handler for `command` (the contributions test checks every command has one). */
  handles(command: CommandId): boolean {
    return command in this.handlers;
  }

  prepareTool(name: ToolName, input: unknown): vscode.PreparedToolInvocation {
    return this.tools.prepare(name, input);
  }

  invokeTool(name: ToolName, input: unknown, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    return this.tools.invoke(name, input, token);
  }

  handleChat(
    request: vscode.ChatRequest,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult> {
    return this.participant.handle(request, context, stream, token);
  }

  chatFollowups(result: vscode.ChatResult): vscode.ChatFollowup[] {
    return this.participant.followups(result);
  }

  restoreAnswerPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    return this.answers.restore(panel, state);
  }

  describeFilters(): string {
    return this.filters.describe();
  }

  /** The command boundary: any error is logged and shown as one sentence with its buttons. */
  async run(command: CommandId, args: readonly unknown[]): Promise<unknown> {
    const handler = this.handlers[command];
    if (!handler) throw new Error(`No core handler for ${command}.`);
    try {
      return await handler(...args);
    } catch (err) {
      this.presenter.show(err, { context: command, retry: () => this.run(command, args) });
      return undefined;
    }
  }
}

export function createCore(services: CoreServices): Core {
  return new CoreImpl(services);
}

/**
 * The core with its services, as the extension-host tests reach it through the test API (a type: no code of the core).
 */
export type { CoreImpl as CoreInternals };
