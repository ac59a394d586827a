import * as vscode from 'vscode';
import { registerResearchParticipant, registerResearchTools } from '../chat/chatProviders';
import { ResearchMcpServers } from '../chat/mcpProvider';
import { citeLoader, coreLoader, DeferredLoader, firstListLoader, type BundleLoader } from './coreLoader';
import type { FirstList, FirstListModule } from '../citations/firstList';
import type { CiteCore, CiteModule } from './cite';
import type { CoreInternals } from './core';
import type { Core, CoreModule } from './contract';
import { Commands, McpProviders, Urls, Views, WebviewTypes, type CommandId } from '../platform/ids';
import { HasKeyContext } from '../service/hasKeyContext';
import { KeyStore } from '../service/keyStore';
import { Logger } from '../platform/logger';
import { SettingsStore } from '../platform/settings';
import { Disposable } from '../shared/disposable';
import { queryArg } from '../search/query';
import type { QueryPick } from '../search/queryPick';
import { ResultsTreeProvider, type ResultNode } from '../search/resultsTree';
import { ThreadsTreeProvider, type ThreadNode } from '../threads/threadsTree';

/**
 * What activate() returns in development and test runs only (never to other extensions
 * in production: it reaches the key store). The extension-host suite drives it.
 */
export interface ResearchDeskTestApi {
  keys: KeyStore;
  settings: SettingsStore;
  hasKey: HasKeyContext;
  /**
   * Resolves when the work started after activation (cite providers, the answer panels' serializer, demo hand-off,
   * context key) is done.
   */
  ready: Promise<void>;
  /** Whether dist/core.js (client + features) has been loaded. */
  isCoreLoaded(): boolean;
  /** How long loading dist/core.js took on the first command that needed it (ms). */
  coreLoadMs(): number | undefined;
  /** The same in its parts: requiring the bundle, and building the core (ms). */
  coreLoadSteps(): { require: number; create: number } | undefined;
  /** The Research view's tree provider (search results as tree items). */
  results: ResultsTreeProvider;
  /** The Threads view's tree provider. */
  threads: ThreadsTreeProvider;
  /** Command ids this extension registered. */
  registeredCommands: readonly string[];
  /** The same for dist/cite.js (cite-key completion, hover and links), loaded by the first citation request. */
  isCiteLoaded(): boolean;
  citeLoadMs(): number | undefined;
  citeLoadSteps(): { require: number; create: number } | undefined;
  /** dist/cite.js's V8 code cache: its folder, whether the load took it, and its save when it did not. */
  citeCodeCache(): { dir: string | undefined; fromCache: boolean; saved: Promise<void> | undefined };
  /** dist/firstList.js (the first list of a large .bib before dist/cite.js loads): loaded, how long it took, cached. */
  firstList(): {
    loaded: boolean;
    loadMs: number | undefined;
    fromCache: boolean;
    saved: Promise<void> | undefined;
    /** How long its last list took in the extension host (ms). */
    provideMs: number | undefined;
    /** Its service, loaded if need be. */
    get(): FirstList;
  };
  /** The commands the entry bundle runs itself (the rest go to the core's table). */
  localCommands: readonly string[];
  /** Search Papers' Quick Pick if the entry bundle showed it (Search Papers run before the core loaded). */
  entrySearchPick(): QueryPick | undefined;
  /** Tree view ids this extension created. */
  registeredViews: readonly string[];
  /** The MCP server definition provider (tests ask it for definitions as VS Code does). */
  mcpServers: ResearchMcpServers;
  /** Result of the demo hand-off at activation. */
  demoKey: Promise<string>;
  /** Runs the demo hand-off again with the given environment (what activation does with process.env). */
  demoHandOff(env: NodeJS.ProcessEnv): Promise<string>;
  /**
   * Loads the core (as the first command would) and returns it; tests reach its services (filters, usage) through it.
   */
  core(): CoreInternals;
  /** Duration of the synchronous part of activate(), in ms. */
  activationMs: number;
  /** The same, per step of the composition root. */
  activationSteps: Readonly<Record<string, number>>;
}

/** Commands the entry bundle handles itself (they need nothing from the core). */
type LocalHandlers = Partial<Record<CommandId, () => unknown>>;

/**
 * The composition root: builds the services in dependency order, registers every command
 * and view, and hands the services to the core bundle when it is first needed.
 */
export class ResearchDesk extends Disposable {
  readonly log: Logger;
  readonly settings: SettingsStore;
  readonly keys: KeyStore;
  private readonly mcpServers: ResearchMcpServers;
  readonly hasKey: HasKeyContext;
  readonly ready: Promise<void>;
  readonly demoKey: Promise<string>;
  /** The Research view's tree (filled by the core's search session). */
  readonly results: ResultsTreeProvider;
  /** The Threads view's tree (filled by the core's ThreadsModel when shown). */
  readonly threads: ThreadsTreeProvider;
  private readonly core: BundleLoader<Core, CoreModule>;
  /** dist/cite.js: cite-key completion, hover and links, loaded by the first citation request or by the core. */
  private readonly cite: BundleLoader<CiteCore, CiteModule>;
  /** dist/firstList.js: the first list of a large .bib, before dist/cite.js is loaded. */
  private readonly firstList: BundleLoader<FirstList, FirstListModule>;
  /** dist/deferred.js: what runs after activation (rows, cite providers, demo key…), loaded on first use. */
  private readonly deferred = new DeferredLoader();
  /** Where the bundles' V8 code cache is kept (none outside a local folder); asked when a bundle loads. */
  private readonly codeCacheDir: () => string | undefined;
  /** The monthly-calls status item restored at start, until the core takes it over. */
  private restoredUsageItem: vscode.StatusBarItem | undefined;
  private readonly commandIds: string[] = [];
  private readonly localCommandIds: string[] = [];
  private readonly viewIds: string[] = [];
  /** Search Papers' Quick Pick when the entry bundle showed it (the first command; tests drive it). */
  private entrySearchPick: QueryPick | undefined;

  /** Milliseconds spent in each activation step (test API; for finding what activation costs). */
  readonly steps: Record<string, number> = {};

  constructor(context: vscode.ExtensionContext) {
    super();
    let mark = performance.now();
    const step = (name: string): void => {
      const now = performance.now();
      this.steps[name] = now - mark;
      mark = now;
    };
    this.log = this.register(new Logger());
    step('logger');
    this.settings = this.register(new SettingsStore(this.log));
    step('settings');
    this.keys = this.register(new KeyStore(context.secrets, this.settings, this.log));
    step('keys');
    this.hasKey = this.register(new HasKeyContext(this.keys));
    step('hasKey');
    this.results = this.register(new ResultsTreeProvider(() => this.deferred.get()));
    step('resultsTree');
    this.threads = this.register(
      new ThreadsTreeProvider(
        () => this.deferred.get(),
        () => void this.core.get(),
        // After the activation-time refresh: without a key the view shows its welcome content.
        () => this.ready.then(() => this.hasKey.value === true),
        this.hasKey.onDidChange,
      ),
    );
    // V8's code cache of the bundles loaded after activation, in the extension's own storage (a local folder).
    const codeCacheDir = (this.codeCacheDir = () =>
      context.globalStorageUri.scheme === 'file'
        ? vscode.Uri.joinPath(context.globalStorageUri, 'code-cache').fsPath
        : undefined);
    // Recent papers: the citation bundle's list once it is loaded, else the papers the Research view shows (which it
    // takes when it loads).
    const hasRecentPapers = (): boolean =>
      this.cite.loaded
        ? this.cite.get().recentPapers.list().length > 0
        : (this.results.current?.papers.length ?? 0) > 0;
    this.firstList = this.register(firstListLoader(this.log, hasRecentPapers, undefined, { codeCacheDir }));
    // dist/cite.js requires dist/firstList.js: loaded first through its own loader, it comes from its code cache too.
    this.cite = this.register(
      citeLoader({ log: this.log, results: this.results }, undefined, {
        codeCacheDir,
        before: () => void this.firstList.get(),
      }),
    );
    this.core = this.register(
      coreLoader(
        {
          context,
          log: this.log,
          settings: this.settings,
          keys: this.keys,
          results: this.results,
          threadsView: this.threads,
          takeUsageStatusItem: () => {
            const item = this.restoredUsageItem;
            this.restoredUsageItem = undefined;
            return item;
          },
          cite: () => this.cite.get(),
        },
        undefined,
        // dist/core.js requires dist/cite.js: loaded first through its own loader, it comes from its code cache too.
        { codeCacheDir, before: () => void this.cite.get() },
      ),
    );
    step('services');

    const view = this.register(
      vscode.window.createTreeView<ResultNode>(Views.results, {
        treeDataProvider: this.results,
        showCollapseAll: true,
        canSelectMany: true,
      }),
    );
    this.results.bindView(view);
    this.viewIds.push(Views.results);
    step('resultsView');
    const threadsView = this.register(
      vscode.window.createTreeView<ThreadNode>(Views.threads, {
        treeDataProvider: this.threads,
        showCollapseAll: true,
      }),
    );
    this.threads.bindView(threadsView);
    this.viewIds.push(Views.threads);
    step('views');

    const local: LocalHandlers = {
      [Commands.showLog]: () => this.log.show(),
      [Commands.showIconLegend]: () => this.deferred.get().showIconLegend(),
      [Commands.getKey]: () => vscode.env.openExternal(vscode.Uri.parse(Urls.dashboard)),
    };
    for (const id of Object.values(Commands)) {
      const handler = local[id];
      this.register(
        vscode.commands.registerCommand(id, (...args: unknown[]) =>
          handler
            ? this.runLocal(id, handler)
            : id === Commands.searchPapers && !this.core.loaded && !queryArg(args[0])
              ? this.runLocal(id, () => this.searchBeforeCore(context.globalState))
              : this.runCore(id, args),
        ),
      );
      this.commandIds.push(id);
    }
    this.localCommandIds.push(...Object.keys(local));
    step('commands');

    // Cite-key completion, hover and links, right after activation (no command needs them, and VS Code asks a
    // provider registered later as soon as it appears); the citation bundle loads only near a citation. The tools, the
    // chat participant and the MCP provider stay here: VS Code invokes them right after the activation they cause.
    const citeProviders = afterActivation(() => {
      if (this.isDisposed) return;
      const deferred = this.deferred.get();
      this.register(deferred.registerCiteProviders(this.cite, this.log, this.firstList));
      this.register(deferred.warmFirstList(this.firstList, this.cite, this.log));
    });
    // Answer panels come back after a reload; the core loads only when one is restored. Registered after activation:
    // VS Code holds a panel it could not revive yet and revives it when the serializer arrives, and the first such
    // registration in an extension host costs about a millisecond (VS Code compiles its version-range pattern to read
    // our engines.vscode).
    const serializer = afterActivation(() => {
      if (!this.isDisposed)
        this.register(
          vscode.window.registerWebviewPanelSerializer(WebviewTypes.answer, {
            deserializeWebviewPanel: (panel, state: unknown) => this.core.get().restoreAnswerPanel(panel, state),
          }),
        );
    });
    this.register(registerResearchTools(this.core));
    step('tools');
    this.register(registerResearchParticipant(this.core, context.extensionUri));
    step('participant');
    this.mcpServers = this.register(new ResearchMcpServers(this.settings, this.keys, this.log));
    this.register(vscode.lm.registerMcpServerDefinitionProvider(McpProviders.research, this.mcpServers));
    step('mcp');

    // Not awaited, and started after activate() has returned (a macrotask later): reading
    // settings and secrets costs milliseconds that activation should not pay. The welcome
    // view updates when this lands.
    this.demoKey = afterActivation(() =>
      this.deferred.get().applyDemoKey(process.env, this.settings, this.keys, this.log),
    ).catch((err: unknown) => {
      this.log.error(`Demo key hand-off failed: ${err instanceof Error ? err.message : String(err)}`);
      return 'failed';
    });
    this.ready = Promise.all([citeProviders, serializer, this.demoKey.then(() => this.hasKey.refresh())]).then(
      () => undefined,
    );
    step('demoKey');

    // The monthly-calls status item from one cached globalState value, after activation too
    // (the core takes the item over when it loads; nothing of the client is loaded here).
    void afterActivation(() => {
      if (!this.core.loaded && !this.isDisposed)
        this.restoredUsageItem = this.deferred
          .get()
          .restoreUsageStatusItem(context.globalState, this.settings.service.origin, Commands.showUsage);
    }).catch((err: unknown) =>
      this.log.warn(
        `Could not restore the monthly-calls status item: ${err instanceof Error ? err.message : String(err)}`,
      ),
    );
    this.register({ dispose: () => this.restoredUsageItem?.dispose() });

    // Research-agent runs that were running when the window closed: read from globalState after
    // activation (one Memento read); only when there is one does the core load (its ThreadWatcher
    // resumes polling in its constructor).
    void afterActivation(() => {
      if (
        !this.isDisposed &&
        !this.core.loaded &&
        this.deferred.get().readRunning(context.globalState, this.settings.service.origin).length
      )
        this.core.get();
    }).catch((err: unknown) =>
      this.log.warn(`Could not resume the running threads: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  testApi(activationMs: number): ResearchDeskTestApi {
    return {
      keys: this.keys,
      settings: this.settings,
      hasKey: this.hasKey,
      ready: this.ready,
      isCoreLoaded: () => this.core.loaded,
      coreLoadMs: () => this.core.loadMs,
      coreLoadSteps: () => this.core.loadSteps,
      isCiteLoaded: () => this.cite.loaded,
      citeLoadMs: () => this.cite.loadMs,
      citeLoadSteps: () => this.cite.loadSteps,
      citeCodeCache: () => ({
        dir: this.codeCacheDir(),
        fromCache: this.cite.fromCodeCache,
        saved: this.cite.codeCacheSaved,
      }),
      firstList: () => ({
        loaded: this.firstList.loaded,
        loadMs: this.firstList.loadMs,
        fromCache: this.firstList.fromCodeCache,
        saved: this.firstList.codeCacheSaved,
        provideMs: this.firstList.loaded ? this.firstList.get().provideMs : undefined,
        get: () => this.firstList.get(),
      }),
      results: this.results,
      threads: this.threads,
      registeredCommands: this.commandIds,
      localCommands: this.localCommandIds,
      entrySearchPick: () => this.entrySearchPick,
      registeredViews: this.viewIds,
      mcpServers: this.mcpServers,
      demoKey: this.demoKey,
      demoHandOff: (env) => this.deferred.get().applyDemoKey(env, this.settings, this.keys, this.log),
      // dist/core.js's createCore builds a CoreImpl; the loader sees it as the entry bundle's Core.
      core: () => this.core.get() as CoreInternals,
      activationMs,
      activationSteps: this.steps,
    };
  }

  private async runLocal(id: CommandId, handler: () => unknown): Promise<unknown> {
    try {
      return await handler();
    } catch (err) {
      this.reportFailure(id, err);
      return undefined;
    }
  }

  /** Loads the core on first use; the core's own boundary shows command errors. */
  private async runCore(id: CommandId, args: readonly unknown[]): Promise<unknown> {
    // A command run right at start-up must see the demo key the hand-off is storing.
    await this.demoKey;
    let core;
    try {
      core = this.core.get();
    } catch (err) {
      this.reportFailure(id, err);
      return undefined;
    }
    return core.run(id, args);
  }

  /**
   * Search Papers as the first command: its Quick Pick shows from the entry bundle at once, and the core (some 50 ms)
   * loads a little later, while the person types, then names the active filters in the title. The query goes to the
   * core's Search Papers as its argument, as a keybinding's would.
   */
  private async searchBeforeCore(globalState: vscode.Memento): Promise<unknown> {
    const deferred = this.deferred.get();
    const asked = (this.entrySearchPick = deferred.askSearchQuery(deferred.recentQueries(globalState)));
    setTimeout(() => {
      if (this.isDisposed) return;
      try {
        asked.showFilters(this.core.get().describeFilters());
      } catch (err) {
        // Reported when the query is accepted: the core's Search Papers loads it again then.
        this.log.debug(
          `The core did not load behind Search Papers: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }, LOAD_CORE_BEHIND_PICK_MS);
    const query = await asked.query;
    return this.runCore(Commands.searchPapers, [query ?? '']);
  }

  private reportFailure(id: string, err: unknown): void {
    this.log.error(`${id} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    const showLog = vscode.l10n.t('Show Log');
    void vscode.window
      .showErrorMessage(vscode.l10n.t('Research Desk could not run this command; the log has the details.'), showLog)
      .then((choice) => {
        if (choice === showLog) this.log.show();
      });
  }
}

/**
 * How long after Search Papers' Quick Pick is shown the core starts loading behind it: long enough for the workbench
 * to have drawn the pick (loading right away held its showing back by up to 50 ms), short against typing a query.
 */
const LOAD_CORE_BEHIND_PICK_MS = 100;

/** Runs `work` in a macrotask after activate() returns; a throw rejects the promise, as a rejection does. */
function afterActivation<T>(work: () => T | PromiseLike<T>): Promise<T> {
  return new Promise<void>((resolve) => setTimeout(resolve, 0)).then(work);
}
