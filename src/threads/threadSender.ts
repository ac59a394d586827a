/**
 * Sending briefs to the research agent. Every brief goes through here: a new thread (the Ask commands in
 * threadCommands.ts), a follow-up to a thread (the answer view's follow-up box) and Retry of a failed run (the
 * ThreadWatcher's button). A brief is checked before sending (nothing invalid is paid for), deep mode is explained on a
 * free plan instead of sent, a brief that is not sent is kept as a draft, a send that may have reached the service is
 * not repeated behind the writer's back, and a brief is sent once however often Send is clicked while it is on its way
 * (every thread is billed). What was sent is handed to the ThreadWatcher, which follows the run.
 */
import * as vscode from 'vscode';
import { validateThreadRequest, type Client, type ThreadDispatch, type ThreadRequest } from '../api/index';
import { Commands, Views } from '../platform/ids';
import type { Logger } from '../platform/logger';
import type { ServiceSettings } from '../platform/settings';
import { isApiError, type ErrorPresenter } from '../platform/errorPresenter';
import { showWarning, statusMessage } from '../platform/notify';
import { DraftStore, NEW_THREAD } from './drafts';
import type { RunningThread, SentRequest, ThreadModeName } from './persisted';
import type { ThreadWatcher } from './threadWatcher';

export const MAX_BRIEF = 10_000;

/** Filter fields a thread accepts (the spec's thread filters; no paging, scores or excerpts). */
export const THREAD_FILTER_KEYS = [
  'year_min',
  'year_max',
  'month_min',
  'month_max',
  'study_types',
  'human',
  'controlled',
  'sample_size_min',
  'sjr_min',
  'sjr_max',
  'citation_min',
  'duration_min',
  'duration_max',
  'exclude_preprints',
  'open_access',
  'publisher_name',
  'domain',
  'country',
  'journal_name',
  'clinical_guideline',
  'medical_mode',
] as const;

/** `busy`: another follow-up to the same thread was being sent; this one was not sent. */
export type AskOutcomeKind =
  'opened' | 'sent' | 'invalid' | 'refused' | 'cancelled' | 'error' | 'uncertain' | 'conflict' | 'busy';

export interface AskOutcome {
  outcome: AskOutcomeKind;
  threadId?: string;
  interactionId?: string;
  /** The sentence shown to the person (invalid, refused, error). */
  message?: string;
  /** True when the brief was kept as a draft. */
  draftKept?: boolean;
  /** The brief document opened (outcome 'opened'). */
  uri?: string;
  /** What was (or would have been) sent. */
  request?: ThreadRequest;
}

export interface ThreadSenderDeps {
  clients: { get(): { client: Client; service: ServiceSettings } };
  watcher: ThreadWatcher;
  state: vscode.Memento;
  filters: { readonly current: object };
  isFreePlan: () => boolean;
  presenter: ErrorPresenter;
  log: Logger;
  usage?: { recordError(err: unknown): void };
}

/** The thread filters out of the search filters (paging, scores and excerpts dropped). */
export function threadFilters(current: object): Record<string, unknown> | undefined {
  const src = current as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of THREAD_FILTER_KEYS) if (src[k] !== undefined && src[k] !== null) out[k] = src[k];
  return Object.keys(out).length ? out : undefined;
}

export class ThreadSender {
  readonly drafts: DraftStore;
  /**
   * Sends on their way: a new thread per brief text, a follow-up per thread. A second click on the same brief gets
   * the first click's outcome (one billed thread); a different follow-up to a thread whose follow-up is on its way
   * is not sent (the service would refuse it with 409).
   */
  private readonly sending = new Map<string, { message: string; promise: Promise<AskOutcome> }>();

  constructor(private readonly deps: ThreadSenderDeps) {
    this.drafts = new DraftStore(deps.state);
    deps.watcher.retry = (run) => this.retry(run);
  }

  /**
   * A follow-up to a thread: 409 while the previous answer is being written is explained and the draft kept; an
   * uncertain 5xx never sends twice.
   */
  followUp(threadId: string, message: string, mode: ThreadModeName = 'pro'): Promise<AskOutcome> {
    return this.send(threadId, { message, mode });
  }

  /** Retry of a failed run: the same brief again (a new thread, or the same follow-up). */
  async retry(run: RunningThread): Promise<AskOutcome> {
    const r = run.request;
    if (!r) return { outcome: 'invalid' };
    const request: ThreadRequest = toRequest(r);
    return this.dispatch(run.followUp ? run.threadId : NEW_THREAD, request);
  }

  /** A brief (or follow-up) as a request: filters given, or the current search filters when asked; attached papers. */
  async send(
    target: string,
    o: {
      message: string;
      mode: ThreadModeName;
      paperIds?: readonly string[];
      useFilters?: boolean;
      filters?: ThreadRequest['filters'];
    },
  ): Promise<AskOutcome> {
    const request: ThreadRequest = { input_message: o.message, mode: o.mode };
    if (o.filters) request.filters = o.filters;
    else if (o.useFilters) {
      const f = threadFilters(this.deps.filters.current);
      if (f) request.filters = f;
    }
    if (o.paperIds?.length) request.attachments = { paper_ids: [...o.paperIds] };
    return this.dispatch(target, request);
  }

  /** Sends once per brief (and one follow-up per thread) while a send is on its way; see `sending`. */
  private dispatch(target: string, request: ThreadRequest): Promise<AskOutcome> {
    const key = target === NEW_THREAD ? `${NEW_THREAD}\u0000${request.input_message}` : target;
    const pending = this.sending.get(key);
    if (pending?.message === request.input_message) {
      void statusMessage(vscode.l10n.t('This brief is already being sent; it is sent once.'), 4000);
      return pending.promise;
    }
    if (pending) {
      const message = vscode.l10n.t(
        'A follow-up to this thread is already being sent, so this one was not sent; send it when the answer is ready.',
      );
      void showWarning(message);
      return Promise.resolve({ outcome: 'busy', message, draftKept: false, request });
    }
    const promise = this.dispatchNow(target, request);
    this.sending.set(key, { message: request.input_message, promise });
    const done = (): void => void (this.sending.get(key)?.promise === promise && this.sending.delete(key));
    promise.then(done, done);
    return promise;
  }

  private async dispatchNow(target: string, request: ThreadRequest): Promise<AskOutcome> {
    const sent = toSentRequest(request);
    const keep = async (reason: string): Promise<void> => this.drafts.keep(target, sent, reason);
    const issues = validateThreadRequest(request);
    if (issues.length) {
      const len = [...request.input_message].length;
      const message = !request.input_message.trim()
        ? vscode.l10n.t('The brief is empty: write what the research agent should find out. Nothing was sent.')
        : len > MAX_BRIEF
          ? vscode.l10n.t(
              'The brief has {0} characters; the service accepts at most {1}. Shorten it by {2}; your draft is kept and nothing was sent.',
              len,
              MAX_BRIEF,
              len - MAX_BRIEF,
            )
          : vscode.l10n.t(
              'The thread cannot be sent: {0}. Your draft is kept.',
              issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; '),
            );
      if (request.input_message.trim()) await keep(vscode.l10n.t('it was not valid'));
      void showWarning(message);
      return { outcome: 'invalid', message, draftKept: !!request.input_message.trim(), request };
    }
    if (request.mode === 'deep' && this.deps.isFreePlan()) {
      await keep(vscode.l10n.t('deep mode needs a paid plan'));
      const message = vscode.l10n.t(
        'Deep research needs a paid plan, and this key is on the free plan, so nothing was sent. Your draft is kept: send it in pro mode (about 20 papers), or upgrade.',
      );
      const pro = vscode.l10n.t('Send in Pro Mode');
      const billing = vscode.l10n.t('Open Billing');
      void showWarning(message, pro, billing).then((choice) => {
        if (choice === pro) void this.dispatch(target, { ...request, mode: 'pro' });
        else if (choice === billing) void this.deps.presenter.perform('openBilling');
      });
      return { outcome: 'refused', message, draftKept: true, request };
    }
    const client = this.deps.clients.get().client;
    let dispatch: ThreadDispatch;
    try {
      dispatch =
        target === NEW_THREAD ? await client.createThread(request) : await client.addInteraction(target, request);
    } catch (err) {
      this.deps.usage?.recordError(err);
      if (isApiError(err) && err.mayHaveTakenEffect) {
        // The client could not tell whether the service took it: sending again could bill a second thread, not
        // sending could lose the brief. The brief is kept and the writer decides, with the Threads list at hand.
        await keep(vscode.l10n.t('the service may have received it'));
        const message =
          target === NEW_THREAD
            ? vscode.l10n.t(
                'Sending the brief failed after the service may have received it, so it was not sent again (no duplicate thread, no second charge). Check the Threads list for it before sending it again; your brief is kept.',
              )
            : vscode.l10n.t(
                'Sending the follow-up failed after the service may have received it, so it was not sent again (no second charge). Check the thread in the Threads list before sending it again; your text is kept.',
              );
        const check = vscode.l10n.t('Check Threads');
        const anyway = vscode.l10n.t('Send Anyway (may cost a call)');
        void showWarning(message, check, anyway).then((c) => {
          if (c === check) void this.checkThreads();
          else if (c === anyway) void this.dispatch(target, request);
        });
        this.deps.log.warn(`Thread dispatch uncertain: ${err.message}`);
        return { outcome: 'uncertain', message, draftKept: true, request };
      }
      if (isApiError(err) && err.kind === 'conflict') {
        await keep(vscode.l10n.t('the previous answer was still being written'));
        const message = vscode.l10n.t(
          'The previous answer is still being written (409), so the follow-up was not sent; your draft is kept. Send it again when the answer is ready.',
        );
        void showWarning(message);
        return { outcome: 'conflict', message, draftKept: true, request };
      }
      await keep(vscode.l10n.t('sending failed'));
      const report = this.deps.presenter.show(err, { context: 'thread', retry: () => this.dispatch(target, request) });
      return { outcome: report ? 'error' : 'cancelled', message: report?.message, draftKept: true, request };
    }
    await this.drafts.clear(target);
    if (dispatch.reconciled)
      this.deps.log.info(`Thread ${dispatch.thread_id}: found after an ambiguous failure; not sent again.`);
    this.deps.watcher.watch(dispatch, request, target !== NEW_THREAD);
    const note = vscode.l10n.t(
      'The research agent is working on it ({0} mode); you can keep writing, Research Desk tells you when the answer is ready.',
      dispatch.mode,
    );
    void statusMessage(note, 5000);
    return { outcome: 'sent', threadId: dispatch.thread_id, interactionId: dispatch.interaction_id, request };
  }

  /** Check Threads: the Threads view, listed again (a thread the service created despite the failure shows there). */
  private async checkThreads(): Promise<void> {
    await vscode.commands.executeCommand(`${Views.threads}.focus`);
    await vscode.commands.executeCommand(Commands.refreshThreads);
  }
}

function toSentRequest(r: ThreadRequest): SentRequest {
  return {
    input_message: r.input_message,
    mode: r.mode,
    filters: r.filters ? { ...r.filters } : undefined,
    attachments: r.attachments?.paper_ids ? { paper_ids: [...r.attachments.paper_ids] } : undefined,
  };
}

function toRequest(r: SentRequest): ThreadRequest {
  const out: ThreadRequest = { input_message: r.input_message, mode: r.mode ?? 'pro' };
  if (r.filters) out.filters = r.filters;
  if (r.attachments?.paper_ids?.length) out.attachments = { paper_ids: r.attachments.paper_ids };
  return out;
}
