/**
 * ThreadsModel: the data of the Threads view. Lists the caller's threads with `GET /v1/threads`
 * (20 per page, offset paging while `has_more`, an optional title search), within the client's
 * 1 request/second list class; fills a missing status from the single-thread poll (a few at a
 * time, in the background, and for any thread the person expands) and keeps the polled
 * interactions. Running threads the watcher follows show as running.
 */
import * as vscode from 'vscode';
import type { Client, Thread, ThreadSummary } from '../api/index';
import type { Logger } from '../platform/logger';
import type { ServiceSettings } from '../platform/settings';
import { Disposable } from '../shared/disposable';
import { plainText } from '../shared/plainText';
import { threadLabel } from './briefGist';
import { describeThreadFilters, type SentLog } from './sentLog';
import { uniqueThreads } from './threadList';
import type { InteractionRow, ThreadRow, ThreadsSource, ThreadStatusName } from './threadsTree';

export const THREADS_PAGE = 20;
/** Missing statuses resolved in the background after a listing (the rest when expanded). */
export const RESOLVE_AT_ONCE = 3;

export interface ThreadsModelDeps {
  clients: { get(): { client: Client; service: ServiceSettings } };
  watcher: {
    isRunning(threadId: string): boolean;
    running(): readonly { threadId: string; gist?: string }[];
    readonly onDidChange: vscode.Event<void>;
    readonly onDidFinish: vscode.Event<unknown>;
  };
  log: Logger;
  describeError: (err: unknown) => string;
  /** What was sent from here per turn: a thread's gist and filters, a turn's question. */
  sent?: Pick<SentLog, 'first' | 'latest' | 'turn'>;
}

export class ThreadsModel extends Disposable implements ThreadsSource {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange: vscode.Event<void> = this.changed.event;
  private items: ThreadSummary[] = [];
  private more = false;
  private message: string | undefined;
  private generation = 0;
  /** The newest load of the first page, which an overtaken one waits for. */
  private latestLoad: Promise<void> | undefined;
  query = '';
  loaded = false;
  /** Threads polled (status, title, interactions), by id. */
  private readonly polled = new Map<string, Thread>();
  private readonly resolving = new Set<string>();
  /** List requests sent (tests). */
  listRequests = 0;

  constructor(private readonly deps: ThreadsModelDeps) {
    super();
    this.register(
      deps.watcher.onDidChange(() => {
        // A thread started here that the list does not show yet: list again (first page, 1/s class).
        const listed = new Set(this.items.map((t) => t.thread_id));
        if (this.loaded && !this.query && deps.watcher.running().some((r) => !listed.has(r.threadId))) void this.load();
        else this.changed.fire();
      }),
    );
    this.register(
      deps.watcher.onDidFinish((e) => {
        const id = (e as { threadId?: string }).threadId;
        if (id) this.polled.delete(id);
        if (this.loaded) void this.load();
      }),
    );
  }

  /**
   * First page (with the current title search). A load that a newer one overtook resolves with the newer one, so that
   * whoever awaits a search or a refresh reads the list it asked for, not the one before.
   */
  load(): Promise<void> {
    const latest = this.loadPage(++this.generation);
    this.latestLoad = latest;
    return latest;
  }

  private async loadPage(gen: number): Promise<void> {
    try {
      const page = await this.list(0);
      if (gen !== this.generation) return this.latestLoad;
      // One entry per thread id: the tree's item ids are thread ids, and VS Code refuses a tree that repeats one.
      this.items = uniqueThreads(page.threads);
      this.more = page.has_more;
      this.message = page.threads.length
        ? undefined
        : this.query
          ? vscode.l10n.t('No thread title contains “{0}”.', plainText(this.query, 80))
          : vscode.l10n.t(
              'No threads yet: select a passage in a draft and run Ask the Research Agent about Selection.',
            );
    } catch (err) {
      if (gen !== this.generation) return this.latestLoad;
      this.message = plainText(vscode.l10n.t('The threads could not be listed: {0}', this.deps.describeError(err)));
      this.deps.log.warn(`Listing threads failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.loaded = true;
    this.changed.fire();
    this.resolveMissing();
  }

  async loadMore(): Promise<void> {
    if (!this.more) return;
    const gen = this.generation;
    try {
      const page = await this.list(this.items.length);
      if (gen !== this.generation) return;
      this.items = [...this.items, ...uniqueThreads(page.threads, new Set(this.items.map((t) => t.thread_id)))];
      this.more = page.has_more;
    } catch (err) {
      this.message = plainText(vscode.l10n.t('More threads could not be listed: {0}', this.deps.describeError(err)));
    }
    this.changed.fire();
    this.resolveMissing();
  }

  async search(query: string): Promise<void> {
    this.query = query.replace(/\s+/g, ' ').trim();
    await this.load();
  }

  private list(offset: number): ReturnType<Client['listThreads']> {
    this.listRequests++;
    return this.deps.clients.get().client.listThreads({ limit: THREADS_PAGE, offset, query: this.query || undefined });
  }

  snapshot(): { threads: ThreadRow[]; more: boolean; query: string; message?: string } {
    return { threads: this.items.map((t) => this.row(t)), more: this.more, query: this.query, message: this.message };
  }

  row(t: ThreadSummary): ThreadRow {
    const p = this.polled.get(t.thread_id);
    const status: ThreadStatusName | undefined = this.deps.watcher.isRunning(t.thread_id)
      ? 'running'
      : (p?.status ?? t.status ?? undefined);
    const gist =
      this.deps.watcher.running().find((r) => r.threadId === t.thread_id)?.gist ??
      this.deps.sent?.first(t.thread_id)?.gist;
    const latest = this.deps.sent?.latest(t.thread_id);
    return {
      threadId: t.thread_id,
      title: threadLabel(p?.title ?? t.title, gist),
      url: p?.url ?? t.url ?? undefined,
      status,
      preview: t.preview ?? undefined,
      interactionCount: p ? p.interactions.length : (t.interaction_count ?? undefined),
      lastActivity: t.last_activity_at ?? undefined,
      filters: latest ? describeThreadFilters(latest.filters) : undefined,
    };
  }

  /** Looks a listed thread up (for commands on a node). */
  find(threadId: string): ThreadRow | undefined {
    const t = this.items.find((x) => x.thread_id === threadId);
    return t ? this.row(t) : undefined;
  }

  async interactions(threadId: string): Promise<InteractionRow[]> {
    const thread = await this.poll(threadId);
    return thread.interactions.map((i, index) => {
      const sent = this.deps.sent?.turn(threadId, i.interaction_id);
      return {
        threadId,
        interactionId: i.interaction_id,
        index,
        status: i.status,
        mode: i.mode ?? undefined,
        input: typeof i.input_message === 'string' ? i.input_message : sent?.question,
        filters: sent ? describeThreadFilters(sent.filters) : undefined,
        stats: i.stats ?? undefined,
        url: thread.url ?? undefined,
      };
    });
  }

  private async poll(threadId: string): Promise<Thread> {
    const thread = await this.deps.clients.get().client.getThread(threadId);
    const before = this.polled.get(threadId)?.status;
    this.polled.set(threadId, thread);
    const listed = this.items.find((t) => t.thread_id === threadId);
    if (listed && (listed.status ?? undefined) !== thread.status && before !== thread.status) this.changed.fire();
    return thread;
  }

  /** Polls a few listed threads whose status the list left out (the poll class allows 3/s). */
  private resolveMissing(): void {
    const missing = this.items
      .filter((t) => !t.status && !this.polled.has(t.thread_id) && !this.resolving.has(t.thread_id))
      .slice(0, RESOLVE_AT_ONCE);
    for (const t of missing) {
      this.resolving.add(t.thread_id);
      void this.poll(t.thread_id)
        .then(() => this.changed.fire())
        .catch((err: unknown) =>
          this.deps.log.debug(
            `Status of ${t.thread_id} not resolved: ${err instanceof Error ? err.message : String(err)}`,
          ),
        )
        .finally(() => this.resolving.delete(t.thread_id));
    }
  }

  /** How many listed threads still have no status (tests). */
  unresolvedCount(): number {
    return this.snapshot().threads.filter((t) => !t.status).length;
  }
}
