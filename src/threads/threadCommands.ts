/**
 * Starting research-agent threads: from the palette (a brief), from an editor selection, from
 * papers selected in the Research view; follow-ups; Retry of a failed run. Every brief is checked
 * before sending (nothing invalid is paid for), deep mode is explained on a free plan instead of
 * sent, and a brief that is not sent is kept as a draft and offered again. A brief is sent once
 * however often Send is clicked while it is on its way (every thread is billed).
 */
import * as vscode from 'vscode';
import { validateThreadRequest, type Client, type Paper, type ThreadDispatch, type ThreadRequest } from '../api/index';
import { Commands, Views } from '../platform/ids';
import { safeHttpsUrl } from '../render/links';
import type { Logger } from '../platform/logger';
import type { ServiceSettings } from '../platform/settings';
import { briefText, isBriefDocument, openBriefDocument } from './briefDocument';
import { DraftStore, NEW_THREAD } from './drafts';
import type { RunningThread, SentRequest, ThreadModeName } from './persisted';
import type { ThreadsModel } from './threadsModel';
import type { ThreadWatcher } from './threadWatcher';
import { isApiError, type ErrorPresenter } from '../platform/errorPresenter';
import { showInfo, showWarning, statusMessage } from '../platform/notify';

export const MAX_ATTACHED_PAPERS = 50;
export const MAX_BRIEF = 10_000;

/** Filter fields a thread accepts (the spec's thread filters; no paging, scores or excerpts). */
export const THREAD_FILTER_KEYS = [
  'year_min', 'year_max', 'month_min', 'month_max', 'study_types', 'human', 'controlled', 'sample_size_min', 'sjr_min', 'sjr_max',
  'citation_min', 'duration_min', 'duration_max', 'exclude_preprints', 'open_access', 'publisher_name', 'domain', 'country',
  'journal_name', 'clinical_guideline', 'medical_mode',
] as const;

/** What `researchDesk.askAgent` and the other thread commands accept from keybindings, other extensions and tests. */
export interface AskArg {
  message?: string;
  mode?: ThreadModeName;
  /** true: the papers selected in the Research view; or explicit paper ids. */
  attachPapers?: boolean | readonly string[];
  /** Send the current search filters with the thread. */
  useFilters?: boolean;
  /** For Ask about Selection: instructions placed before the selection. */
  instructions?: string;
}

/** `busy`: another follow-up to the same thread was being sent; this one was not sent. */
export type AskOutcomeKind = 'opened' | 'sent' | 'invalid' | 'refused' | 'cancelled' | 'error' | 'uncertain' | 'conflict' | 'busy';

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

export interface ThreadCommandsDeps {
  clients: { get(): { client: Client; service: ServiceSettings } };
  watcher: ThreadWatcher;
  state: vscode.Memento;
  filters: { readonly current: object; describe(): string };
  isFreePlan: () => boolean;
  selectedPapers: () => Paper[];
  presenter: ErrorPresenter;
  log: Logger;
  usage?: { recordError(err: unknown): void };
}

/** Paper id: a `paper_id` field when present, else the last path segment of the paper's url. */
export function paperIdOf(p: { url?: string | null; paper_id?: unknown }): string | undefined {
  if (typeof p.paper_id === 'string' && p.paper_id.trim()) return p.paper_id.trim();
  if (!p.url) return undefined;
  try {
    const seg = new URL(p.url).pathname.split('/').filter(Boolean).at(-1);
    return seg ? decodeURIComponent(seg) : undefined;
  } catch {
    return undefined;
  }
}

/** The thread filters out of the search filters (paging, scores and excerpts dropped). */
export function threadFilters(current: object): Record<string, unknown> | undefined {
  const src = current as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of THREAD_FILTER_KEYS) if (src[k] !== undefined && src[k] !== null) out[k] = src[k];
  return Object.keys(out).length ? out : undefined;
}

export function selectionBrief(selection: string, instructions?: string): string {
  const quoted = selection.trim();
  const ask = instructions?.trim();
  return ask
    ? `${ask}\n\nThe passage from my draft:\n"""\n${quoted}\n"""`
    : `What does the research say about this passage from my draft? Say which claims the evidence supports, which it contradicts, and how strong the evidence is.\n\n"""\n${quoted}\n"""`;
}

export class ThreadCommands {
  readonly drafts: DraftStore;
  /**
   * Sends on their way: a new thread per brief text, a follow-up per thread. A second click on the same brief gets
   * the first click's outcome (one billed thread); a different follow-up to a thread whose follow-up is on its way
   * is not sent (the service would refuse it with 409).
   */
  private readonly sending = new Map<string, { message: string; promise: Promise<AskOutcome> }>();
  /** Send Brief per brief document: the second click waits for the first, so the brief is sent and closed once. */
  private readonly briefSends = new Map<string, Promise<AskOutcome>>();

  constructor(private readonly deps: ThreadCommandsDeps) {
    this.drafts = new DraftStore(deps.state);
    deps.watcher.retry = (run) => this.retry(run);
  }

  /** Ask the Research Agent: a brief from the argument, or asked for (the saved draft is offered first). */
  async askAgent(arg?: unknown): Promise<AskOutcome> {
    const a = asArg(arg);
    if (a?.message !== undefined) {
      const paperIds = a.attachPapers === true ? this.selectedIds() : Array.isArray(a.attachPapers) ? [...(a.attachPapers as string[])] : undefined;
      return this.send(NEW_THREAD, { message: a.message, mode: a.mode ?? 'pro', paperIds, useFilters: a.useFilters === true });
    }
    // A multi-line brief: an untitled Markdown document (the unsent draft restored into it).
    const draft = this.drafts.get(NEW_THREAD);
    const editor = await openBriefDocument(draft?.input_message);
    if (draft) void statusMessage(vscode.l10n.t('Your unsent brief is restored{0}.', draft.reason ? ` (${draft.reason})` : ''), 8000);
    return { outcome: 'opened', uri: editor.document.uri.toString() };
  }

  /** Send Brief to the Research Agent: the brief document (CodeLens arguments, or the active editor). */
  async sendBrief(arg?: unknown): Promise<AskOutcome> {
    const a = (arg && typeof arg === 'object' ? arg : {}) as { uri?: unknown; mode?: ThreadModeName; useFilters?: boolean };
    const doc =
      typeof a.uri === 'string' ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === a.uri) : vscode.window.activeTextEditor?.document;
    if (!doc || !isBriefDocument(doc)) {
      const message = vscode.l10n.t('Open a research brief first: Ask the Research Agent opens one.');
      void showInfo(message);
      return { outcome: 'invalid', message };
    }
    const key = doc.uri.toString();
    const pending = this.briefSends.get(key);
    if (pending) {
      void statusMessage(vscode.l10n.t('This brief is already being sent; it is sent once.'), 4000);
      return pending;
    }
    const sending = this.sendBriefDocument(doc, a);
    this.briefSends.set(key, sending);
    const done = (): void => void (this.briefSends.get(key) === sending && this.briefSends.delete(key));
    sending.then(done, done);
    return sending;
  }

  private async sendBriefDocument(doc: vscode.TextDocument, a: { mode?: ThreadModeName; useFilters?: boolean }): Promise<AskOutcome> {
    const message = briefText(doc.getText());
    let mode = a.mode;
    let useFilters = a.useFilters === true;
    if (!mode) {
      const choice = await this.askModeAndFilters();
      if (!choice) return { outcome: 'cancelled' };
      mode = choice.mode;
      useFilters = choice.useFilters;
    }
    const outcome = await this.send(NEW_THREAD, { message, mode, useFilters });
    if (outcome.outcome === 'sent' && !doc.isClosed) {
      // Sent: the brief document has done its job (it is untitled, so close it without a save prompt). The command
      // reverts whatever editor is active, so it runs only while that is the brief, never the writer's own document.
      await vscode.window.showTextDocument(doc);
      if (vscode.window.activeTextEditor?.document === doc) await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    return outcome;
  }

  /** Ask about Selection: the editor's selection (plus optional instructions) becomes the brief. */
  async askAboutSelection(arg?: unknown): Promise<AskOutcome> {
    const a = asArg(arg);
    const editor = vscode.window.activeTextEditor;
    const text = editor ? editor.selections.filter((s) => !s.isEmpty).map((s) => editor.document.getText(s)).join('\n…\n') : '';
    if (!text.trim()) {
      const message = vscode.l10n.t('Select a passage in an editor first: the selection becomes the research agent\'s brief.');
      void showInfo(message);
      return { outcome: 'invalid', message };
    }
    let instructions = a?.instructions;
    if (!a) {
      instructions = await vscode.window.showInputBox({
        title: vscode.l10n.t('Ask the Research Agent about the Selection'),
        prompt: vscode.l10n.t('Optional: what should the agent do with the selected passage? Leave empty to ask what the research says about it.'),
        placeHolder: vscode.l10n.t('e.g. Find randomized trials that test this claim'),
        ignoreFocusOut: true,
      });
      if (instructions === undefined) return { outcome: 'cancelled' };
    }
    let mode = a?.mode;
    let useFilters = a?.useFilters === true;
    if (!a) {
      const choice = await this.askModeAndFilters();
      if (!choice) return { outcome: 'cancelled' };
      mode = choice.mode;
      useFilters = choice.useFilters;
    }
    return this.send(NEW_THREAD, { message: selectionBrief(text, instructions), mode: mode ?? 'pro', useFilters });
  }

  /**
   * Ask about Selected Papers (Research view context menu): VS Code passes the clicked node and
   * the selected nodes; other callers pass `{ attachPapers: [...ids], message }`.
   */
  async askAboutPapers(...args: unknown[]): Promise<AskOutcome> {
    const a = asArg(args[0]);
    let ids: string[];
    if (a && Array.isArray(a.attachPapers)) ids = [...(a.attachPapers as string[])];
    else {
      const nodes = [...(Array.isArray(args[1]) ? (args[1] as unknown[]) : []), args[0]];
      const fromNodes = nodes.flatMap((n) => {
        const p = (n as { paper?: Paper } | undefined)?.paper;
        return p ? [p] : [];
      });
      const papers = fromNodes.length ? fromNodes : this.deps.selectedPapers();
      ids = papers.map(paperIdOf).filter((x): x is string => !!x);
    }
    ids = [...new Set(ids)];
    if (!ids.length) {
      const message = vscode.l10n.t('Select one or more papers in the Research view first: they are attached to the thread.');
      void showInfo(message);
      return { outcome: 'invalid', message };
    }
    if (ids.length > MAX_ATTACHED_PAPERS) {
      const message = vscode.l10n.t('A thread can read at most {0} attached papers, and {1} are selected: select {2} fewer, then ask again. Nothing was sent.', MAX_ATTACHED_PAPERS, ids.length, ids.length - MAX_ATTACHED_PAPERS);
      void showWarning(message);
      return { outcome: 'invalid', message };
    }
    let message = a?.message;
    let mode = a?.mode;
    let useFilters = a?.useFilters === true;
    if (message === undefined) {
      message = await this.askBrief(
        ids.length === 1 ? vscode.l10n.t('Ask the Research Agent about 1 paper') : vscode.l10n.t('Ask the Research Agent about {0} papers', ids.length),
        this.drafts.get(NEW_THREAD)?.input_message,
      );
      if (message === undefined) return { outcome: 'cancelled' };
      const choice = await this.askModeAndFilters();
      if (!choice) return { outcome: 'cancelled' };
      mode = choice.mode;
      useFilters = choice.useFilters;
    }
    return this.send(NEW_THREAD, { message, mode: mode ?? 'pro', paperIds: ids, useFilters });
  }

  /**
   * A follow-up to a thread (also for the answer view): 409 while the previous answer is being
   * written is explained and the draft kept; an uncertain 5xx never sends twice.
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

  /** The draft kept for a target ('new' or a thread id), if any. */
  draft(target: string = NEW_THREAD): SentRequest | undefined {
    return this.drafts.get(target);
  }

  private selectedIds(): string[] {
    return this.deps.selectedPapers().map(paperIdOf).filter((x): x is string => !!x);
  }

  private async send(target: string, o: { message: string; mode: ThreadModeName; paperIds?: string[]; useFilters?: boolean }): Promise<AskOutcome> {
    const request: ThreadRequest = { input_message: o.message, mode: o.mode };
    if (o.useFilters) {
      const f = threadFilters(this.deps.filters.current);
      if (f) request.filters = f;
    }
    if (o.paperIds?.length) request.attachments = { paper_ids: o.paperIds };
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
      const message = vscode.l10n.t('A follow-up to this thread is already being sent, so this one was not sent; send it when the answer is ready.');
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
          ? vscode.l10n.t('The brief has {0} characters; the service accepts at most {1}. Shorten it by {2}; your draft is kept and nothing was sent.', len, MAX_BRIEF, len - MAX_BRIEF)
          : vscode.l10n.t('The thread cannot be sent: {0}. Your draft is kept.', issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; '));
      if (request.input_message.trim()) await keep(vscode.l10n.t('it was not valid'));
      void showWarning(message);
      return { outcome: 'invalid', message, draftKept: !!request.input_message.trim(), request };
    }
    if (request.mode === 'deep' && this.deps.isFreePlan()) {
      await keep(vscode.l10n.t('deep mode needs a paid plan'));
      const message = vscode.l10n.t('Deep research needs a paid plan, and this key is on the free plan, so nothing was sent. Your draft is kept: send it in pro mode (about 20 papers), or upgrade.');
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
      dispatch = target === NEW_THREAD ? await client.createThread(request) : await client.addInteraction(target, request);
    } catch (err) {
      this.deps.usage?.recordError(err);
      if (isApiError(err) && err.mayHaveTakenEffect) {
        // The client could not tell whether the service took it: sending again could bill a second thread, not
        // sending could lose the brief. The brief is kept and the writer decides, with the Threads list at hand.
        await keep(vscode.l10n.t('the service may have received it'));
        const message =
          target === NEW_THREAD
            ? vscode.l10n.t('Sending the brief failed after the service may have received it, so it was not sent again (no duplicate thread, no second charge). Check the Threads list for it before sending it again; your brief is kept.')
            : vscode.l10n.t('Sending the follow-up failed after the service may have received it, so it was not sent again (no second charge). Check the thread in the Threads list before sending it again; your text is kept.');
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
        const message = vscode.l10n.t('The previous answer is still being written (409), so the follow-up was not sent; your draft is kept. Send it again when the answer is ready.');
        void showWarning(message);
        return { outcome: 'conflict', message, draftKept: true, request };
      }
      await keep(vscode.l10n.t('sending failed'));
      const report = this.deps.presenter.show(err, { context: 'thread', retry: () => this.dispatch(target, request) });
      return { outcome: report ? 'error' : 'cancelled', message: report?.message, draftKept: true, request };
    }
    await this.drafts.clear(target);
    if (dispatch.reconciled) this.deps.log.info(`Thread ${dispatch.thread_id}: found after an ambiguous failure; not sent again.`);
    this.deps.watcher.watch(dispatch, request, target !== NEW_THREAD);
    const note = vscode.l10n.t('The research agent is working on it ({0} mode); you can keep writing, Research Desk tells you when the answer is ready.', dispatch.mode);
    void statusMessage(note, 5000);
    return { outcome: 'sent', threadId: dispatch.thread_id, interactionId: dispatch.interaction_id, request };
  }

  /** Check Threads: the Threads view, listed again (a thread the service created despite the failure shows there). */
  private async checkThreads(): Promise<void> {
    await vscode.commands.executeCommand(`${Views.threads}.focus`);
    await vscode.commands.executeCommand(Commands.refreshThreads);
  }

  /** An input box for a brief (the saved draft is offered as its value). */
  private async askBrief(title: string, draft?: string, reason?: string): Promise<string | undefined> {
    const value = await vscode.window.showInputBox({
      title,
      value: draft ?? '',
      prompt: draft
        ? vscode.l10n.t('Your unsent draft is restored{0}. The agent works on its own and asks no questions: say everything it needs.', reason ? ` (${reason})` : '')
        : vscode.l10n.t('The whole research brief (1 to {0} characters): the agent works on its own and asks no questions. For a longer brief, select it in an editor and use Ask the Research Agent about Selection.', MAX_BRIEF),
      placeHolder: vscode.l10n.t('e.g. Does creatine supplementation improve memory in healthy adults?'),
      ignoreFocusOut: true,
      validateInput: (v) => {
        const n = [...v].length;
        if (n > MAX_BRIEF) return vscode.l10n.t('{0} characters: the service accepts at most {1}.', n, MAX_BRIEF);
        return undefined;
      },
    });
    if (value === undefined && draft === undefined) return undefined;
    return value;
  }

  private async askModeAndFilters(current?: ThreadModeName): Promise<{ mode: ThreadModeName; useFilters: boolean } | undefined> {
    const free = this.deps.isFreePlan();
    const filters = threadFilters(this.deps.filters.current) ? this.deps.filters.describe() : '';
    type Item = vscode.QuickPickItem & { mode: ThreadModeName; useFilters: boolean };
    const items: Item[] = [];
    const proLabel = vscode.l10n.t('Pro: reads about 20 papers');
    const deepLabel = vscode.l10n.t('Deep: reads about 50 papers and writes a structured report');
    const deepNote = free ? vscode.l10n.t('needs a paid plan (this key is on the free plan)') : vscode.l10n.t('costs more calls than pro');
    for (const useFilters of filters ? [true, false] : [false]) {
      const suffix = useFilters ? vscode.l10n.t(' · filters: {0}', filters) : filters ? vscode.l10n.t(' · no filters') : '';
      items.push({ label: proLabel, description: suffix.replace(/^ · /, ''), mode: 'pro', useFilters });
      items.push({ label: deepLabel, description: `${deepNote}${suffix}`, mode: 'deep', useFilters });
    }
    if (current === 'deep' && !free) items.sort((x, y) => (x.mode === 'deep' ? -1 : 0) - (y.mode === 'deep' ? -1 : 0));
    const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Research agent mode'), ignoreFocusOut: true });
    return pick ? { mode: pick.mode, useFilters: pick.useFilters } : undefined;
  }
}

function asArg(arg: unknown): AskArg | undefined {
  if (typeof arg === 'string') return { message: arg };
  if (!arg || typeof arg !== 'object' || Array.isArray(arg)) return undefined;
  // A tree node (from a view's context menu) is not an argument object.
  if ('kind' in arg && 'paper' in arg) return undefined;
  return arg;
}

function toSentRequest(r: ThreadRequest): SentRequest {
  return {
    input_message: r.input_message,
    mode: r.mode,
    filters: r.filters ? ({ ...r.filters }) : undefined,
    attachments: r.attachments?.paper_ids ? { paper_ids: [...r.attachments.paper_ids] } : undefined,
  };
}

function toRequest(r: SentRequest): ThreadRequest {
  const out: ThreadRequest = { input_message: r.input_message, mode: r.mode ?? 'pro' };
  if (r.filters) out.filters = r.filters;
  if (r.attachments?.paper_ids?.length) out.attachments = { paper_ids: r.attachments.paper_ids };
  return out;
}

/** A thread id from a tree node (thread or interaction), a `{ threadId }` object or a string. */
function threadTarget(arg: unknown): { threadId: string; interactionId?: string; url?: string } | undefined {
  if (typeof arg === 'string') return { threadId: arg };
  const n = arg as { kind?: string; row?: { threadId?: unknown; interactionId?: unknown; url?: unknown }; threadId?: unknown } | undefined;
  const row = n?.row ?? n;
  if (!row || typeof row.threadId !== 'string') return undefined;
  return {
    threadId: row.threadId,
    interactionId: n?.kind === 'interaction' && typeof (row as { interactionId?: unknown }).interactionId === 'string' ? (row as { interactionId: string }).interactionId : undefined,
    url: typeof (row as { url?: unknown }).url === 'string' ? (row as { url: string }).url : undefined,
  };
}

/** Commands of the Threads view: Refresh, Search Titles, Load More, Open, Open in Browser, Copy Link. */
export class ThreadsViewCommands {
  constructor(
    private readonly model: ThreadsModel,
    private readonly answers: () => { show(threadId: string, opts?: { interactionId?: string }): Promise<void> } | undefined,
  ) {}

  async refresh(): Promise<number> {
    await this.model.load();
    return this.model.snapshot().threads.length;
  }

  async loadMore(): Promise<number> {
    await this.model.loadMore();
    return this.model.snapshot().threads.length;
  }

  /** Title search; a string argument sets it directly ('' clears it). */
  async search(arg?: unknown): Promise<number> {
    let q = typeof arg === 'string' ? arg : undefined;
    if (q === undefined) {
      q = await vscode.window.showInputBox({
        title: vscode.l10n.t('Search Thread Titles'),
        prompt: vscode.l10n.t('Part of a thread title (case does not matter); empty shows every thread.'),
        value: this.model.query,
      });
      if (q === undefined) return this.model.snapshot().threads.length;
    }
    await this.model.search(q);
    return this.model.snapshot().threads.length;
  }

  async open(arg?: unknown): Promise<boolean> {
    const t = threadTarget(arg);
    const answers = this.answers();
    if (!t || !answers) return false;
    await answers.show(t.threadId, t.interactionId ? { interactionId: t.interactionId } : {});
    return true;
  }

  private link(arg: unknown): string | undefined {
    const t = threadTarget(arg);
    if (!t) return undefined;
    const safe = safeHttpsUrl(t.url ?? this.model.find(t.threadId)?.url);
    if (!safe) void showWarning(vscode.l10n.t('This thread has no https link to open or copy (the service sent none, or one that is not https).'));
    return safe;
  }

  async openInBrowser(arg?: unknown): Promise<string | undefined> {
    const url = this.link(arg);
    if (url) await vscode.env.openExternal(vscode.Uri.parse(url, true));
    return url;
  }

  async copyLink(arg?: unknown): Promise<string | undefined> {
    const url = this.link(arg);
    if (url) {
      await vscode.env.clipboard.writeText(url);
      void statusMessage(vscode.l10n.t('Thread link copied.'), 3000);
    }
    return url;
  }
}
