/**
 * ThreadWatcher: polls running threads until their run ends, within the published poll rate
 * (the one client's scheduler allows 3 polls per second across every thread), remembers them in
 * globalState per service origin so polling resumes after a reload, shows them in the status bar,
 * and tells the person when an answer is ready (Open Answer) or a run failed (Retry).
 */
import * as vscode from 'vscode';
import type { Client, Thread, ThreadDispatch, ThreadRequest } from '../api/index';
import type { Logger } from '../platform/logger';
import type { ServiceSettings } from '../platform/settings';
import { showError, showInfo, showWarning } from '../platform/notify';
import { Disposable } from '../shared/disposable';
import { errorLine } from '../shared/plainText';
import { boundedSeconds, MAX_WAIT_BOUNDS, POLL_AFTER_BOUNDS, sleepUnlessAborted } from '../shared/timing';
import { readRunning, writeRunning, type RunningThread, type SentRequest } from './persisted';
import { Commands } from '../platform/ids';
import { RunningStatusItem, shown } from './runningStatus';

/** What the watcher needs of the answer view (src/answer/answerPanel.ts, AnswerPanels). */
export interface AnswerViewer {
  show(threadId: string, opts?: { interactionId?: string; preserveFocus?: boolean }): Promise<void>;
  refresh(threadId: string): Promise<void>;
}

export interface ThreadFinished {
  threadId: string;
  status: 'idle' | 'failed';
}

/** The last notification the watcher showed (tests read it; the person sees the toast). */
export interface ThreadNotice {
  kind: 'ready' | 'failed' | 'stillRunning' | 'lost' | 'paused';
  threadId: string;
  message: string;
  actions: string[];
  /** The run concerned (Retry and Keep Waiting act on it). */
  run?: RunningThread;
}

export interface ThreadWatcherDeps {
  /** `service()`, when there, gives the settings without making a client (resume() at start-up needs no client). */
  clients: { get(): { client: Client; service: ServiceSettings }; service?(): ServiceSettings };
  /** context.globalState */
  state: vscode.Memento;
  log: Logger;
  answers?: () => AnswerViewer | undefined;
  /** Re-sends the brief of a failed run (set by ThreadSender). */
  retry?: (run: RunningThread) => Promise<unknown>;
  /** Command the status-bar item runs (the Threads view). */
  statusCommand: string;
  /** Shows notifications (default true; tests read `lastNotice`). */
  notify?: boolean;
  /** The tag of the API key set now (src/service/keyTag.ts), undefined without a key. */
  keyTag?: () => Promise<string | undefined>;
}

interface Watched {
  run: RunningThread;
  origin: string | undefined;
  abort: AbortController;
  /** Followed again from globalState (a reload, a key change), not since it was sent or last followed. */
  resumed: boolean;
}

const TRANSIENT = new Set(['server', 'network', 'timeout', 'rate_limited', 'invalid_response']);

export class ThreadWatcher extends Disposable {
  private readonly watched = new Map<string, Watched>();
  private readonly finished = this.register(new vscode.EventEmitter<ThreadFinished>());
  /** Fires when a watched run ends (idle or failed). */
  readonly onDidFinish: vscode.Event<ThreadFinished> = this.finished.event;
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  /** Fires when the set of running threads changes. */
  readonly onDidChange: vscode.Event<void> = this.changed.event;
  private readonly item: RunningStatusItem;
  /** Polls sent by this watcher, per thread id (for the benchmark and tests). */
  readonly polls = new Map<string, number>();
  lastNotice: ThreadNotice | undefined;
  retry: ((run: RunningThread) => Promise<unknown>) | undefined;

  constructor(private readonly deps: ThreadWatcherDeps) {
    super();
    this.retry = deps.retry;
    this.item = this.register(new RunningStatusItem(deps.statusCommand));
    this.register({ dispose: () => this.stopAll() });
  }

  private get origin(): string | undefined {
    return (this.deps.clients.service?.() ?? this.deps.clients.get().service).origin;
  }

  /** Start watching a dispatched run (a new thread or a follow-up). Already watched: the newer interaction wins. */
  watch(dispatch: ThreadDispatch, request?: ThreadRequest, followUp = false, gist?: string): void {
    const run: RunningThread = {
      threadId: dispatch.thread_id,
      interactionId: dispatch.interaction_id,
      title: dispatch.title ?? undefined,
      mode: dispatch.mode,
      url: dispatch.url ?? undefined,
      // Service hints, kept within sane bounds (an overflowing delay would make setTimeout fire at once).
      pollAfterSeconds: boundedSeconds(dispatch.poll_after_seconds, POLL_AFTER_BOUNDS),
      maxWaitSeconds: boundedSeconds(dispatch.max_wait_seconds, MAX_WAIT_BOUNDS),
      startedAt: Date.now(),
      request: request ? toSent(request) : undefined,
      followUp,
      gist,
    };
    this.start(run, this.origin, false);
    void this.persist();
    // Tagged with the key it was sent with, read now: the request read the key a moment ago.
    void this.currentTag().then((tag) => {
      if (!tag || run.keyTag !== undefined) return;
      run.keyTag = tag;
      return this.persist();
    });
  }

  private currentTag(): Promise<string | undefined> {
    return this.deps.keyTag?.().catch(() => undefined) ?? Promise.resolve(undefined);
  }

  isRunning(threadId: string): boolean {
    return this.watched.has(threadId);
  }

  /** The runs being watched now. */
  running(): RunningThread[] {
    return [...this.watched.values()].map((w) => w.run);
  }

  /**
   * Resumes polling of the threads remembered for the current service origin (after a reload or
   * a restart). Returns how many were resumed.
   */
  resume(): number {
    const origin = this.origin;
    let n = 0;
    for (const run of readRunning(this.deps.state, origin)) {
      if (this.watched.has(run.threadId)) continue;
      this.start({ ...run, startedAt: Date.now() }, origin, true);
      n++;
    }
    if (n) this.deps.log.info(`Resumed polling of ${n} running ${n === 1 ? 'thread' : 'threads'}.`);
    return n;
  }

  /** The runs remembered in globalState for the current service origin. */
  remembered(): RunningThread[] {
    return readRunning(this.deps.state, this.origin);
  }

  /** Stops polling every thread without forgetting them (dispose / a simulated reload). */
  stopAll(): void {
    for (const w of this.watched.values()) w.abort.abort();
    this.watched.clear();
  }

  private start(run: RunningThread, origin: string | undefined, immediately: boolean): void {
    this.watched.get(run.threadId)?.abort.abort();
    const w: Watched = { run, origin, abort: new AbortController(), resumed: immediately };
    this.watched.set(run.threadId, w);
    this.updateStatus();
    this.changed.fire();
    void this.loop(w, immediately);
  }

  private async persist(): Promise<void> {
    if (this.isDisposed) return;
    // Keep runs of other origins; rewrite this origin's list from what is watched.
    const byOrigin = new Map<string | undefined, RunningThread[]>();
    for (const w of this.watched.values()) byOrigin.set(w.origin, [...(byOrigin.get(w.origin) ?? []), w.run]);
    const origins = new Set<string | undefined>([this.origin, ...byOrigin.keys()]);
    for (const o of origins) await writeRunning(this.deps.state, o, byOrigin.get(o) ?? []);
  }

  /** Stops following a run (the current watch of it only), keeping it remembered. */
  private unwatch(w: Watched): void {
    if (this.watched.get(w.run.threadId) === w) this.watched.delete(w.run.threadId);
    this.updateStatus();
    this.changed.fire();
  }

  private async forget(w: Watched): Promise<void> {
    this.unwatch(w);
    if (this.isDisposed) return;
    const rest = readRunning(this.deps.state, w.origin).filter(
      (r) => !(r.threadId === w.run.threadId && r.interactionId === w.run.interactionId),
    );
    await writeRunning(this.deps.state, w.origin, rest);
  }

  private async loop(w: Watched, immediately: boolean): Promise<void> {
    const { run } = w;
    const signal = w.abort.signal;
    // Bounded again here: a run remembered by an older version (globalState) carries the service's raw values.
    run.pollAfterSeconds = boundedSeconds(run.pollAfterSeconds, POLL_AFTER_BOUNDS);
    run.maxWaitSeconds = boundedSeconds(run.maxWaitSeconds, MAX_WAIT_BOUNDS);
    const deadline = Date.now() + run.maxWaitSeconds * 1000;
    let wait = immediately ? 0 : run.pollAfterSeconds * 1000;
    for (;;) {
      const remaining = deadline - Date.now();
      if (!(await sleepUnlessAborted(Math.min(wait, remaining), signal))) return;
      wait = run.pollAfterSeconds * 1000;
      if (this.origin !== w.origin) {
        // The service address changed: this run belongs to the other service; it stays remembered there.
        this.deps.log.info(`Thread ${run.threadId}: paused (the service address changed).`);
        this.unwatch(w);
        return;
      }
      let thread: Thread | undefined;
      try {
        this.polls.set(run.threadId, (this.polls.get(run.threadId) ?? 0) + 1);
        thread = await this.deps.clients.get().client.getThread(run.threadId, { signal });
      } catch (err) {
        if (signal.aborted) return;
        const kind = (err as { kind?: string }).kind ?? '';
        if (kind === 'not_found' && (await this.askedWithAnotherKey(w))) return;
        if (kind === 'not_found') {
          // The service does not know it under the key it was asked with (deleted): nothing left to follow.
          this.deps.log.warn(`Thread ${run.threadId}: polling stopped (not_found).`);
          await this.forget(w);
          this.notice(
            {
              kind: 'lost',
              threadId: run.threadId,
              run,
              actions: [],
              message: vscode.l10n.t(
                'Research Desk stopped following "{0}": the service no longer knows this thread.',
                shown(run),
              ),
            },
            'warning',
          );
          return;
        }
        if (!TRANSIENT.has(kind)) {
          // No key, a revoked key, billing...: pause, but keep it remembered; a key change or the next start resumes
          // it.
          this.deps.log.warn(`Thread ${run.threadId}: polling paused (${kind || 'error'}); it stays remembered.`);
          this.unwatch(w);
          const setKey = vscode.l10n.t('Set API Key');
          this.notice(
            {
              kind: 'paused',
              threadId: run.threadId,
              run,
              actions: kind === 'unauthorized' ? [setKey] : [],
              message: vscode.l10n.t(
                'Research Desk paused following "{0}" ({1}); it resumes when the key changes or VS Code starts again.',
                shown(run),
                errorLine(err).replace(/[.)\s]+$/, (m) => m.replace(/\./g, '')),
              ),
            },
            'warning',
            (choice) => (choice === setKey ? vscode.commands.executeCommand(Commands.setApiKey) : undefined),
          );
          return;
        }
        this.deps.log.warn(`Thread ${run.threadId}: poll failed (${kind}); polling on.`);
      }
      if (signal.aborted) return;
      if (thread) {
        // The service knows it under the key set now: a key of the same account (a new one after a revoked one) from
        // now on.
        const tag = await this.currentTag();
        if (tag && tag !== run.keyTag) {
          run.keyTag = tag;
          void this.persist();
        }
        if (thread.title && thread.title !== run.title) run.title = thread.title;
        const mine = thread.interactions.find((i) => i.interaction_id === run.interactionId);
        const known = !thread.interactions.length || mine !== undefined;
        const status = mine?.status ?? thread.status;
        if (known && status !== 'running') {
          await this.finish(w, status === 'failed' ? 'failed' : 'idle');
          return;
        }
      }
      if (Date.now() >= deadline) {
        await this.forget(w);
        this.stillRunning(run);
        return;
      }
    }
  }

  /**
   * After a 404: whether the run was asked with a key other than the one set now. The service keeps a thread in the
   * account of the key that asked it, so another account's key cannot see it: the run stays remembered and is
   * followed again when its key is set (a key change resumes every remembered run). Said once, when it was being
   * followed; a run resumed under the other key again pauses quietly.
   */
  private async askedWithAnotherKey(w: Watched): Promise<boolean> {
    const { run } = w;
    const tag = await this.currentTag();
    if (!run.keyTag || !tag || tag === run.keyTag) return false;
    this.deps.log.info(`Thread ${run.threadId}: paused (it was asked with another API key); it stays remembered.`);
    this.unwatch(w);
    if (!w.resumed)
      this.notice(
        {
          kind: 'paused',
          threadId: run.threadId,
          run,
          actions: [],
          message: vscode.l10n.t(
            'Research Desk paused following "{0}": it was asked with another API key, and the service shows a thread only to its own account. It resumes when that key is set again.',
            shown(run),
          ),
        },
        'info',
      );
    return true;
  }

  private async finish(w: Watched, status: 'idle' | 'failed'): Promise<void> {
    const { run } = w;
    await this.forget(w);
    const polls = this.polls.get(run.threadId) ?? 0;
    this.deps.log.info(
      `Thread ${run.threadId}: run ${run.interactionId} ended ${status} after ${polls} ${polls === 1 ? 'poll' : 'polls'}.`,
    );
    this.finished.fire({ threadId: run.threadId, status });
    const answers = this.deps.answers?.();
    void answers
      ?.refresh(run.threadId)
      .catch((err: unknown) => this.deps.log.warn(`Refreshing the answer view failed: ${errorLine(err)}`));
    const open = vscode.l10n.t('Open Answer');
    if (status === 'idle') {
      this.notice(
        {
          kind: 'ready',
          threadId: run.threadId,
          run,
          actions: [open],
          message: vscode.l10n.t('The research agent has answered "{0}".', shown(run)),
        },
        'info',
        (choice) => (choice === open ? this.open(run) : undefined),
      );
    } else {
      const retry = vscode.l10n.t('Retry');
      const actions = run.request && this.retry ? [retry, open] : [open];
      this.notice(
        {
          kind: 'failed',
          threadId: run.threadId,
          run,
          actions,
          message: vscode.l10n.t(
            'The research agent\'s run for "{0}" failed. A failed run costs nothing; Retry sends the same brief again.',
            shown(run),
          ),
        },
        'error',
        (choice) => (choice === retry ? this.retryRun(run) : choice === open ? this.open(run) : undefined),
      );
    }
  }

  /** Re-sends the brief of a failed run (the Retry button). */
  async retryRun(run: RunningThread): Promise<unknown> {
    if (!this.retry) return undefined;
    return this.retry(run);
  }

  private stillRunning(run: RunningThread): void {
    const keep = vscode.l10n.t('Keep Waiting');
    const view = vscode.l10n.t('Open Threads View');
    this.notice(
      {
        kind: 'stillRunning',
        threadId: run.threadId,
        run,
        actions: [keep, view],
        message: vscode.l10n.t(
          '"{0}" is still running after {1} seconds, the suggested polling ceiling. It keeps running on the service; Keep Waiting follows it again.',
          shown(run),
          run.maxWaitSeconds,
        ),
      },
      'info',
      (choice) => {
        if (choice === keep) this.keepWaiting(run);
        else if (choice === view) void vscode.commands.executeCommand(this.deps.statusCommand);
      },
    );
  }

  /** Follows a run again after the polling ceiling (the Keep Waiting button). */
  keepWaiting(run: RunningThread): void {
    this.start({ ...run, startedAt: Date.now() }, this.origin, true);
    void this.persist();
  }

  private open(run: RunningThread): void {
    const answers = this.deps.answers?.();
    if (!answers) return;
    answers
      .show(run.threadId, { interactionId: run.interactionId })
      .catch((err: unknown) => this.deps.log.warn(`Opening the answer failed: ${errorLine(err)}`));
  }

  private notice(
    n: ThreadNotice,
    severity: 'info' | 'warning' | 'error',
    act?: (choice: string | undefined) => unknown,
  ): void {
    this.lastNotice = n;
    if (this.deps.notify === false) return;
    const show = severity === 'error' ? showError : severity === 'warning' ? showWarning : showInfo;
    show(n.message, ...n.actions).then(
      (choice) => act?.(choice),
      () => undefined,
    );
  }

  private updateStatus(): void {
    if (!this.isDisposed) this.item.update(this.running());
  }

  /** Status-bar text and tooltip as shown (tests). */
  statusItem(): { visible: boolean; text: string; tooltip: string } {
    return this.item.shown();
  }
}

function toSent(r: ThreadRequest): SentRequest {
  return {
    input_message: r.input_message,
    mode: r.mode,
    filters: r.filters ? { ...r.filters } : r.filters,
    attachments: r.attachments
      ? { paper_ids: r.attachments.paper_ids ? [...r.attachments.paper_ids] : r.attachments.paper_ids }
      : r.attachments,
  };
}
