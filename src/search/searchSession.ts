/**
 * The search session: runs a search or a Load More, keeps the buffer of fetched papers and how many are shown,
 * publishes them to the results view, shows progress with cancel and reports errors. Where a page comes from (the
 * cache, a request on its way, the service) and what answers taught about the account are `SearchPages`'
 * (searchPages.ts), so this file holds the orchestration only.
 */
import * as vscode from 'vscode';
import type { Client, Paper, SearchParams } from '../api/index';
import { Commands, ContextKeys, Views } from '../platform/ids';
import type { Logger } from '../platform/logger';
import type { ServiceSettings } from '../platform/settings';
import { isApiError, type ErrorPresenter } from '../platform/errorPresenter';
import { showInfo, statusMessage } from '../platform/notify';
import { Disposable } from '../shared/disposable';
import { clip, plainText } from '../shared/plainText';
import type { SearchFilters } from './filterModel';
import { displayStep, fetchPageSize, planLoadMore, type PagingState } from './paging';
import type { ResultsDisplay, ResultsModel } from './resultsModel';
import { SearchPages, type FetchedPage, type UsageSink } from './searchPages';

/** Search filters: every search parameter but query and paging (the FilterStore's type). */
export type Filters = SearchFilters;

/** What the session needs from the FilterStore: the current filters, their description, and changes. */
export interface FilterSource {
  readonly current: Filters;
  describe(): string;
  readonly onDidChange: vscode.Event<unknown>;
}

export interface SearchSessionDeps {
  clients: { get(): { client: Client; service: ServiceSettings } };
  /** The key for an origin (hashed into the cache scope, never kept). */
  keyFor: (origin: string | undefined) => Promise<string | undefined>;
  /** Fires when the stored key changes (the cache and what was learnt of the plan are dropped). */
  onKeyChange?: vscode.Event<unknown>;
  filters?: FilterSource;
  usage?: UsageSink;
  /** The plan's maximum page_size when a setting says it (undefined = unknown). */
  planMaxPageSize?: () => number | undefined;
  presenter: ErrorPresenter;
  log: Logger;
  /** Where results are shown (the Research view's tree). */
  view: ResultsDisplay;
  /** Minutes an identical search is answered from the cache (the settings store's user-only value). */
  cacheMinutes: () => number;
  /** Milliseconds before a running search also shows a cancellable notification (default 800). */
  notifyAfterMs?: number;
}

export type SearchOutcomeKind = 'shown' | 'empty' | 'cancelled' | 'error' | 'none';

/** What a search command returns (for keybindings, other extensions and tests). */
export interface SearchOutcome {
  outcome: SearchOutcomeKind;
  query?: string;
  /** Papers the view shows now. */
  shown: number;
  /** Papers fetched so far for this query. */
  fetched: number;
  /** Requests this command sent to the service (0 when served from the buffer or the cache). */
  requests: number;
  /** Whether a Load More node follows. */
  more: boolean;
  /** The sentence shown for an error or an empty result, or a note (excerpts withheld, selection cut). */
  message?: string;
  errorKind?: string;
}

interface Run {
  query: string;
  filters: Filters;
  scope: string;
  papers: Paper[];
  shown: number;
  pageSize: number;
  serviceHasMore: boolean;
  generation: number;
  note?: string;
}

/**
 * One search at a time: query, the filters it ran with, the buffer of fetched papers and how
 * many the view shows, the paging plan (100 per request, 20 per Load More), the session cache,
 * progress with cancel, and errors through the ErrorPresenter. Every request is reported to
 * the usage ledger; cache and buffer hits are not requests. A search is paid for, so the same
 * search asked again while it runs (a second click on Search, Refresh, Find Similar) waits for
 * the one on its way instead of cancelling it and asking again, and an identical request on its
 * way (a lookup, Load More) is shared rather than sent twice.
 */
export class SearchSession extends Disposable {
  private run: Run | undefined;
  private generation = 0;
  private busy: AbortController | undefined;
  /** The session cache, requests on their way and what answers taught, per account. */
  private readonly pages: SearchPages;
  private lastScope: string | undefined;
  private filtersChanged = false;
  /** The search on its way (query and filters), which an identical search joins. */
  private pending: { key: string; promise: Promise<SearchOutcome> } | undefined;

  constructor(private readonly deps: SearchSessionDeps) {
    super();
    const { clients, keyFor, usage, planMaxPageSize, cacheMinutes, log } = deps;
    this.pages = new SearchPages({ clients, keyFor, usage, planMaxPageSize, cacheMinutes, log });
    if (deps.onKeyChange) this.register(deps.onKeyChange(() => this.pages.forget()));
    if (deps.filters)
      this.register(
        deps.filters.onDidChange(() => {
          if (!this.run) return;
          this.filtersChanged = true;
          this.publish();
        }),
      );
    this.register({ dispose: () => this.busy?.abort() });
  }

  /** True when what this session learnt says the plan is free (no excerpts, page size 10). */
  get planLooksFree(): boolean {
    return this.lastScope !== undefined && this.pages.facts(this.lastScope).noExcerpts === true;
  }

  get current(): { query: string; shown: number; fetched: number; more: boolean } | undefined {
    const r = this.run;
    return r ? { query: r.query, shown: r.shown, fetched: r.papers.length, more: this.hasMore(r) } : undefined;
  }

  /** Cancels a running search or Load More (the request is aborted). */
  cancel(): void {
    this.busy?.abort();
  }

  /**
   * Runs a new search. `filters` replaces the active filters for this search only. The same query under the same
   * filters while that search is on its way gets its outcome (one request); another search cancels it.
   */
  search(
    query: string,
    options: { filters?: Filters; bypassCache?: boolean; note?: string } = {},
  ): Promise<SearchOutcome> {
    const q = query.replace(/\s+/g, ' ').trim();
    if (!q) return Promise.resolve({ outcome: 'none', shown: 0, fetched: 0, requests: 0, more: false });
    const filters: Filters = { ...(options.filters ?? this.deps.filters?.current ?? {}) };
    const key = JSON.stringify([q, filters]);
    if (this.pending?.key === key) {
      void statusMessage(
        vscode.l10n.t('Already searching for “{0}”: the search is sent once.', plainText(q, 60)),
        4000,
      );
      return this.pending.promise;
    }
    const promise = this.runSearch(q, filters, options);
    this.pending = { key, promise };
    const done = (): void => {
      if (this.pending?.promise === promise) this.pending = undefined;
    };
    promise.then(done, done);
    return promise;
  }

  private async runSearch(
    q: string,
    requested: Filters,
    options: { bypassCache?: boolean; note?: string },
  ): Promise<SearchOutcome> {
    this.busy?.abort();
    const ctrl = new AbortController();
    this.busy = ctrl;
    let filters: Filters = requested;
    const notes: string[] = options.note ? [options.note] : [];
    let requests = 0;
    try {
      const { service } = this.deps.clients.get();
      const scope = await this.pages.scope(service);
      this.lastScope = scope;
      if (filters.include_full_text_chunks && this.pages.facts(scope).noExcerpts) {
        delete filters.include_full_text_chunks;
        notes.push(vscode.l10n.t('Full-text excerpts need a paid plan, so this search ran without them.'));
      }
      const pageSize = fetchPageSize(this.pages.maxPageSize(scope));
      let answer: FetchedPage;
      try {
        answer = await this.withProgress(q, ctrl, () =>
          this.pages.fetch(scope, q, filters, 0, pageSize, !!options.bypassCache, ctrl.signal),
        );
      } catch (err) {
        // 403 for excerpts (a free plan not known yet): nothing was charged; ask again without them.
        if (!(isApiError(err) && err.kind === 'feature_not_allowed' && filters.include_full_text_chunks)) throw err;
        this.pages.learn(scope, { noExcerpts: true });
        this.deps.log.info('Search: the plan does not include full-text excerpts (403); searching again without them.');
        filters = { ...filters };
        delete filters.include_full_text_chunks;
        notes.push(vscode.l10n.t('Full-text excerpts need a paid plan, so this search ran without them.'));
        answer = await this.withProgress(q, ctrl, () =>
          this.pages.fetch(scope, q, filters, 0, pageSize, !!options.bypassCache, ctrl.signal),
        );
      }
      if (answer.sent) requests++;
      const r = answer.response;
      const applied = r.page_size > 0 ? r.page_size : pageSize;
      const run: Run = {
        query: q,
        filters,
        scope,
        papers: [...r.results],
        shown: 0,
        pageSize: Math.min(applied, pageSize),
        serviceHasMore: !r.is_end && r.next_page !== null && r.next_page !== undefined,
        generation: ++this.generation,
        note: notes.join(' ') || undefined,
      };
      run.shown = Math.min(displayStep(run.pageSize), run.papers.length);
      this.run = run;
      this.filtersChanged = false;
      this.publish();
      if (run.papers.length === 0) {
        const message = this.emptyMessage(q, filters);
        this.offerLoosening(message, filters);
        return { outcome: 'empty', query: q, shown: 0, fetched: 0, requests, more: false, message };
      }
      if (run.note) void showInfo(run.note);
      return { outcome: 'shown', query: q, ...this.counts(run), requests, message: run.note };
    } catch (err) {
      return { ...this.failed(err, q, () => this.search(q, { ...options, filters: requested })), requests };
    } finally {
      if (this.busy === ctrl) this.busy = undefined;
    }
  }

  /** Shows the next step: from the buffer when it has papers left, else one more page. */
  async loadMore(): Promise<SearchOutcome> {
    const run = this.run;
    if (!run) return { outcome: 'none', shown: 0, fetched: 0, requests: 0, more: false };
    if (this.busy) {
      void statusMessage(vscode.l10n.t('Research Desk is already loading results; Load More waits for them.'), 4000);
      return { outcome: 'none', query: run.query, ...this.counts(run), requests: 0 };
    }
    const step = planLoadMore(this.paging(run));
    if (step.kind === 'none') return { outcome: 'none', query: run.query, ...this.counts(run), requests: 0 };
    if (step.kind === 'show') {
      run.shown += step.count;
      this.publish();
      return { outcome: 'shown', query: run.query, ...this.counts(run), requests: 0 };
    }
    const ctrl = new AbortController();
    this.busy = ctrl;
    try {
      const answer = await this.withProgress(run.query, ctrl, () =>
        this.pages.fetch(run.scope, run.query, run.filters, step.page, step.pageSize, false, ctrl.signal),
      );
      if (this.run !== run)
        return {
          outcome: 'cancelled',
          query: run.query,
          shown: 0,
          fetched: 0,
          requests: answer.sent ? 1 : 0,
          more: false,
        };
      const r = answer.response;
      run.papers.push(...r.results);
      run.serviceHasMore = !r.is_end && r.next_page !== null && r.next_page !== undefined && r.results.length > 0;
      run.shown = Math.min(run.papers.length, run.shown + step.thenShow);
      this.publish();
      return { outcome: 'shown', query: run.query, ...this.counts(run), requests: answer.sent ? 1 : 0 };
    } catch (err) {
      return this.failed(err, run.query, () => this.loadMore());
    } finally {
      if (this.busy === ctrl) this.busy = undefined;
    }
  }

  /** Runs the current query again with the active filters, asking the service (not the cache). */
  /** The shown search again under the current filters (new filters: new results; the session cache may answer). */
  async rerun(): Promise<SearchOutcome> {
    const run = this.run;
    if (!run) return { outcome: 'none', shown: 0, fetched: 0, requests: 0, more: false };
    return this.search(run.query);
  }

  async refresh(): Promise<SearchOutcome> {
    const run = this.run;
    if (!run) return { outcome: 'none', shown: 0, fetched: 0, requests: 0, more: false };
    return this.search(run.query, { bypassCache: true });
  }

  clear(): void {
    this.busy?.abort();
    this.run = undefined;
    this.filtersChanged = false;
    this.publish();
  }

  // ------------------------------------------------------------------ internals

  /**
   * One search outside the results view (the citation lookup): the session cache, the monthly-calls ledger and the
   * plan learning apply as for the view's pages; nothing is shown. `sent` is false when the cache answered (no call).
   */
  async searchOnce(params: SearchParams): Promise<FetchedPage> {
    const { query, page = 0, page_size: pageSize = 10, ...filters } = params;
    const scope = await this.pages.scope(this.deps.clients.get().service);
    return this.pages.fetch(scope, query, filters, page, pageSize, false, new AbortController().signal);
  }

  private async withProgress<T>(query: string, ctrl: AbortController, work: () => Promise<T>): Promise<T> {
    let settled = false;
    const pending = work().finally(() => (settled = true));
    // A notification with Cancel only when the search takes a while (a fast one does not flash).
    const timer = setTimeout(() => {
      if (settled) return;
      void vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Searching papers for “{0}”…', plainText(query, 60)),
          cancellable: true,
        },
        (_progress, token) => {
          token.onCancellationRequested(() => ctrl.abort());
          return pending.then(
            () => undefined,
            () => undefined,
          );
        },
      );
    }, this.deps.notifyAfterMs ?? 800);
    try {
      return await vscode.window.withProgress({ location: { viewId: Views.results } }, () => pending);
    } finally {
      clearTimeout(timer);
    }
  }

  private failed(err: unknown, query: string, retry: () => unknown): SearchOutcome {
    const run = this.run;
    const base = {
      query,
      shown: run?.shown ?? 0,
      fetched: run?.papers.length ?? 0,
      requests: 0,
      more: run ? this.hasMore(run) : false,
    };
    if (isApiError(err) && err.kind === 'aborted') {
      this.deps.log.info(`Search: cancelled (“${clip(query, 60)}”).`);
      return { ...base, outcome: 'cancelled' };
    }
    const report = this.deps.presenter.show(err, { context: 'search', retry });
    return { ...base, outcome: 'error', message: report?.message, errorKind: report?.kind };
  }

  private paging(run: Run): PagingState {
    return { fetched: run.papers.length, shown: run.shown, pageSize: run.pageSize, serviceHasMore: run.serviceHasMore };
  }

  private hasMore(run: Run): boolean {
    return planLoadMore(this.paging(run)).kind !== 'none';
  }

  private counts(run: Run): { shown: number; fetched: number; more: boolean } {
    return { shown: run.shown, fetched: run.papers.length, more: this.hasMore(run) };
  }

  private describeFilters(): string {
    try {
      return this.deps.filters?.describe() ?? '';
    } catch {
      return '';
    }
  }

  private publish(): void {
    const run = this.run;
    void vscode.commands.executeCommand('setContext', ContextKeys.hasResults, !!run);
    if (!run) {
      this.deps.view.show(undefined);
      return;
    }
    const count =
      run.papers.length === 0
        ? vscode.l10n.t('no results')
        : this.hasMore(run)
          ? vscode.l10n.t('{0} shown, more available', run.shown)
          : run.shown === 1
            ? vscode.l10n.t('1 result')
            : vscode.l10n.t('{0} results', run.shown);
    const parts = [`“${plainText(run.query, 50)}”`, count];
    const filters = this.describeFilters();
    if (filters) parts.push(filters);
    if (this.filtersChanged) parts.push(vscode.l10n.t('filters changed: Refresh to apply'));
    const model: ResultsModel = {
      query: run.query,
      papers: run.papers.slice(0, run.shown),
      more: this.hasMore(run),
      fetched: run.papers.length,
      description: parts.join(' · '),
      // Above the tree only what the header does not say already: why nothing was found, or a note on the run.
      message: run.papers.length === 0 ? this.emptyMessage(run.query, run.filters) : run.note,
      openAccess: run.filters.open_access === true,
      generation: run.generation,
    };
    this.deps.view.show(model);
  }

  private emptyMessage(query: string, filters: Filters): string {
    return hasActiveFilters(filters)
      ? vscode.l10n.t(
          'No papers match “{0}” with the active filters. Loosen or clear the filters, or rephrase the query.',
          plainText(query, 80),
        )
      : vscode.l10n.t('No papers match “{0}”. Try fewer or more general words.', plainText(query, 80));
  }

  private offerLoosening(message: string, filters: Filters): void {
    const ids = Commands as Record<string, string>;
    const actions: [string, string][] = [];
    if (hasActiveFilters(filters)) {
      if (ids.editFilters) actions.push([vscode.l10n.t('Edit Search Filters'), ids.editFilters]);
      if (ids.clearFilters) actions.push([vscode.l10n.t('Clear Filters'), ids.clearFilters]);
    }
    void showInfo(message, ...actions.map(([label]) => label)).then((choice) => {
      const command = actions.find(([label]) => label === choice)?.[1];
      if (command) void vscode.commands.executeCommand(command);
    });
  }
}

/** Whether any filter that narrows results is set (the include_* options do not narrow). */
export function hasActiveFilters(filters: Filters): boolean {
  return Object.entries(filters).some(
    ([k, v]) =>
      k !== 'include_semantic_score' &&
      k !== 'include_full_text_chunks' &&
      k !== 'journal_name' &&
      v !== undefined &&
      v !== null &&
      v !== false &&
      v !== '' &&
      !(Array.isArray(v) && v.length === 0),
  );
}
