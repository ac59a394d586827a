/**
 * The answer view: one WebviewPanel per thread, its lifecycle (open, reveal, restore after a reload, repaint when a
 * run ends) and the webview's messages, validated (protocol.ts) before anything is done. Its HTML is built in
 * page.ts, the follow-up box's sending in followUp.ts, Export as Markdown in export.ts. The service's text is
 * untrusted: it only ever reaches the page through `renderAnswerDetailed` (raw HTML off, https links only, no
 * images) or `escapeHtml`.
 */
import * as vscode from 'vscode';
import { isApiError, type Interaction, type Thread } from '../api/index';
import { renderAnswerDetailed, safeHttpsUrl, type ReferenceEntry, type RenderedAnswer } from '../render/answer';
import type { ResearchClient } from '../service/clientProvider';
import type { LogSink } from '../platform/logger';
import { WebviewTypes } from '../platform/ids';
import { showWarning, statusMessage } from '../platform/notify';
import { Disposable } from '../shared/disposable';
import type { SentLog } from '../threads/sentLog';
import { exportAnswer } from './export';
import { sendFollowUp, type SendFollowUp } from './followUp';
import { answerBody, answerLabels, answerPage, notePage, turnTexts } from './page';
import { randomNonce } from '../platform/webviewPage';
import { uiFixture } from './uiFixture';
import {
  parseViewState,
  parseWebviewMessage,
  type AnswerViewState,
  type CiteAction,
  type FollowUpMode,
  type HostMessage,
  type WebviewMessage,
} from './protocol';

export const ANSWER_VIEW_TYPE = WebviewTypes.answer;

/**
 * The citations issue's side of the view (src/citations/insertAnswer.ts): per-reference actions and Insert Answer.
 * Without it the view renders no citation buttons.
 */
export interface AnswerCitationActions {
  /** An answer's references were shown (they become recent papers for the Quick Pick and completion). */
  shown(references: readonly ReferenceEntry[]): void;
  /** Insert Citation / Copy BibTeX / Copy Reference for one reference of the answer shown. */
  run(action: CiteAction, reference: ReferenceEntry): Promise<unknown>;
  /** Insert Answer: the interaction shown in the thread's panel, into the last active text editor. */
  insertAnswer(threadId: string): Promise<unknown>;
}

/** What a panel shows (Insert Answer reads the interaction from here). */
export interface ShownAnswer {
  thread: Thread;
  interaction: Interaction | undefined;
  references: readonly ReferenceEntry[];
  /** The name shown for the thread. */
  title?: string;
}

export interface AnswerPanelsOptions {
  extensionUri: vscode.Uri;
  client: () => ResearchClient;
  log: LogSink;
  /** Shows an error as one sentence with its buttons (the ErrorPresenter). */
  showError: (err: unknown, context: string, retry?: () => unknown) => void;
  /** Fires when the API key changes: a panel that waited for a key loads then. */
  onKeyChange?: vscode.Event<unknown>;
  /** The citation actions; absent = no citation buttons. */
  citations?: () => AnswerCitationActions | undefined;
  /**
   * Sends a follow-up the way every brief is sent (ThreadCommands.followUp, whose ThreadWatcher refreshes the panel
   * when the run ends). The view has no other way to send one.
   */
  sendFollowUp: SendFollowUp;
  /** What was sent from this machine per turn (ThreadCommands.sent): the thread's gist, a turn's question and filters. */
  sent?: Pick<SentLog, 'first' | 'turn'>;
}

interface PanelEntry {
  panel: vscode.WebviewPanel;
  threadId: string;
  interactionId: string | undefined;
  trace: boolean;
  thread: Thread | undefined;
  /** The name shown (title bar, heading, the exported file's name). */
  title?: string;
  rendered: RenderedAnswer | undefined;
  interaction: Interaction | undefined;
  nonce: string;
  /** State the webview last saved (draft, mode) seeded into a fresh page. */
  seed: AnswerViewState | undefined;
  /** The last load found no key to send: the panel loads again when one is set. */
  waitingForKey?: boolean;
  disposables: vscode.Disposable[];
  disposed: boolean;
}

const t = (s: string, ...args: (string | number)[]): string => vscode.l10n.t(s, ...args);

export class AnswerPanels extends Disposable {
  private readonly panels = new Map<string, PanelEntry>();
  /** Test hook: every message refused by the validator, with its reason. */
  readonly refused: string[] = [];
  /** When each panel's script last reported ready (Date.now(); for the bench: open → painted). */
  readonly readyAt = new Map<string, number>();
  /** Test hook: the host's messages to the webviews (latest 50). */
  readonly posted: { threadId: string; message: HostMessage }[] = [];

  constructor(private readonly o: AnswerPanelsOptions) {
    super();
    this.register({
      dispose: () => {
        for (const e of [...this.panels.values()]) e.panel.dispose();
      },
    });
    // Panels restored before a key was set (a fresh window, a cleared key) load once one is.
    if (o.onKeyChange)
      this.register(
        o.onKeyChange(() => {
          for (const e of this.panels.values()) if (!e.thread && e.waitingForKey) void this.load(e);
        }),
      );
    void uiFixture(o.log).then((thread) => thread && this.showThreadObject(thread));
  }

  /** Opens (or reveals) the thread's panel, fetches the thread with getThread and renders it. */
  async show(threadId: string, opts: { interactionId?: string; preserveFocus?: boolean } = {}): Promise<void> {
    let entry = this.panels.get(threadId);
    if (entry) {
      entry.panel.reveal(undefined, opts.preserveFocus ?? true);
      if (opts.interactionId) entry.interactionId = opts.interactionId;
    } else {
      const panel = vscode.window.createWebviewPanel(
        ANSWER_VIEW_TYPE,
        t('Research Answer'),
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: opts.preserveFocus ?? true },
        this.webviewOptions(),
      );
      entry = this.adopt(panel, { threadId, interactionId: opts.interactionId });
    }
    await this.load(entry);
  }

  /** Re-renders the thread's panel when open (called when a run ends). */
  async refresh(threadId: string): Promise<void> {
    const entry = this.panels.get(threadId);
    if (entry) await this.load(entry);
  }

  /** Restores a panel after a reload (the WebviewPanelSerializer calls this). */
  async restore(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const s = parseViewState(state);
    panel.webview.options = this.webviewOptions();
    if (!s) {
      panel.webview.html = notePage(
        panel.webview,
        this.o.extensionUri,
        randomNonce(),
        t('This answer could not be restored. Open it again from the Threads view.'),
      );
      return;
    }
    const existing = this.panels.get(s.threadId);
    if (existing) {
      panel.dispose();
      return;
    }
    await this.load(this.adopt(panel, s));
  }

  /** Test-only: renders a Thread object directly (hostile-content tests). */
  showThreadObject(thread: Thread): void {
    let entry = this.panels.get(thread.thread_id);
    if (!entry) {
      const panel = vscode.window.createWebviewPanel(
        ANSWER_VIEW_TYPE,
        t('Research Answer'),
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        this.webviewOptions(),
      );
      entry = this.adopt(panel, { threadId: thread.thread_id });
    }
    this.paint(entry, thread);
  }

  /** Test API: the open panel's HTML and nonce. */
  inspect(
    threadId: string,
  ): { html: string; nonce: string; title: string; options: vscode.WebviewOptions; visible: boolean } | undefined {
    const e = this.panels.get(threadId);
    return (
      e && {
        html: e.panel.webview.html,
        nonce: e.nonce,
        title: e.panel.title,
        options: e.panel.webview.options,
        visible: e.panel.visible,
      }
    );
  }

  /** Test API: feeds a raw message as if the webview had posted it. */
  async receive(threadId: string, raw: unknown): Promise<void> {
    const e = this.panels.get(threadId);
    if (e) await this.onMessage(e, raw);
  }

  openThreads(): string[] {
    return [...this.panels.keys()];
  }

  /** What the thread's panel shows (the given thread, else the active panel, else the first); undefined when none. */
  shown(threadId?: string): ShownAnswer | undefined {
    const entry = threadId
      ? this.panels.get(threadId)
      : ([...this.panels.values()].find((e) => e.panel.active) ?? [...this.panels.values()][0]);
    if (!entry?.thread) return undefined;
    return {
      thread: entry.thread,
      interaction: entry.interaction,
      references: entry.rendered?.references ?? [],
      title: entry.title,
    };
  }

  private webviewOptions(): vscode.WebviewOptions & vscode.WebviewPanelOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      enableForms: false,
      localResourceRoots: [
        vscode.Uri.joinPath(this.o.extensionUri, 'dist'),
        vscode.Uri.joinPath(this.o.extensionUri, 'media'),
      ],
    };
  }

  private adopt(panel: vscode.WebviewPanel, s: AnswerViewState): PanelEntry {
    const entry: PanelEntry = {
      panel,
      threadId: s.threadId,
      interactionId: s.interactionId,
      trace: s.trace ?? false,
      thread: undefined,
      rendered: undefined,
      interaction: undefined,
      nonce: randomNonce(),
      seed: s,
      disposables: [],
      disposed: false,
    };
    panel.iconPath = vscode.Uri.joinPath(this.o.extensionUri, 'media', 'research-desk.svg');
    this.panels.set(s.threadId, entry);
    entry.disposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(entry, m)),
      panel.onDidDispose(() => {
        entry.disposed = true;
        if (this.panels.get(entry.threadId) === entry) this.panels.delete(entry.threadId);
        for (const d of entry.disposables) d.dispose();
      }),
    );
    return entry;
  }

  private async load(entry: PanelEntry): Promise<void> {
    if (!entry.thread) this.note(entry, t('Loading the answer…'));
    try {
      const thread = await this.o
        .client()
        .getThread(entry.threadId, { interactionId: entry.interactionId, includeTrace: entry.trace });
      if (entry.disposed) return;
      this.paint(entry, thread);
    } catch (err) {
      if (entry.disposed) return;
      // No key to send (nothing was sent): the panel says so and loads when a key is set; no error notification.
      entry.waitingForKey = isApiError(err) && err.kind === 'unauthorized' && err.status === undefined;
      if (entry.waitingForKey) {
        if (!entry.thread)
          this.note(
            entry,
            t('Set your API key (Research Desk: Set API Key) to load this answer; it loads as soon as the key is set.'),
          );
        return;
      }
      this.o.showError(err, 'Open Answer', () => this.load(entry));
      if (!entry.thread)
        this.note(entry, t('The answer could not be loaded. See the notification for details.'), 'alert');
    }
  }

  private paint(entry: PanelEntry, thread: Thread): void {
    entry.thread = thread;
    const list = thread.interactions;
    const interaction =
      (entry.interactionId && list.find((i) => i.interaction_id === entry.interactionId)) || list[list.length - 1];
    entry.interaction = interaction;
    const turns = turnTexts(thread, interaction, this.o.sent);
    entry.title = turns.title;
    entry.panel.title = turns.title.length > 60 ? `${turns.title.slice(0, 59)}…` : turns.title;
    const cite = this.o.citations?.();
    entry.rendered = renderAnswerDetailed(interaction?.response, interaction?.citations, {
      labels: answerLabels(),
      citeActions: cite !== undefined,
    });
    if (cite && entry.rendered.references.length) {
      try {
        cite.shown(entry.rendered.references);
      } catch (err) {
        this.o.log.warn(`Answer view: citations not remembered (${err instanceof Error ? err.message : String(err)}).`);
      }
    }
    entry.nonce = randomNonce();
    const body = answerBody({
      threadId: entry.threadId,
      thread,
      interaction,
      rendered: entry.rendered,
      trace: entry.trace,
      seed: entry.seed,
      insertAnswer: cite !== undefined,
      ...turns,
    });
    entry.seed = undefined;
    entry.panel.webview.html = answerPage(entry.panel.webview, this.o.extensionUri, entry.nonce, body);
  }

  /** A page with one sentence in place of the answer (loading, waiting for a key, a failure). */
  private note(entry: PanelEntry, text: string, role: 'status' | 'alert' = 'status'): void {
    entry.panel.webview.html = notePage(
      entry.panel.webview,
      this.o.extensionUri,
      (entry.nonce = randomNonce()),
      text,
      role,
    );
  }

  private post(entry: PanelEntry, m: HostMessage): void {
    if (entry.disposed) return;
    this.posted.push({ threadId: entry.threadId, message: m });
    if (this.posted.length > 50) this.posted.shift();
    void entry.panel.webview.postMessage(m);
  }

  private async onMessage(entry: PanelEntry, raw: unknown): Promise<void> {
    const parsed = parseWebviewMessage(raw);
    if ('problem' in parsed) {
      this.refused.push(parsed.problem);
      this.o.log.warn(`Answer view: message ignored (${parsed.problem}).`);
      return;
    }
    await this.act(entry, parsed.message);
  }

  private async act(entry: PanelEntry, m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.readyAt.set(entry.threadId, Date.now());
        return;
      case 'openPaper': {
        const ref = entry.rendered?.references.find((r) => r.n === m.n);
        const url = safeHttpsUrl(ref?.url);
        if (!url) {
          void showWarning(t('This paper has no https link to open.'));
          return;
        }
        await vscode.env.openExternal(vscode.Uri.parse(url, true));
        return;
      }
      case 'copyQuote': {
        const n = Number(m.marker.split('.')[0]);
        const ref = entry.rendered?.references.find((r) => r.n === n);
        const quote = m.marker.includes('.') ? ref?.quotes.find((q) => q.marker === m.marker) : ref?.quotes[0];
        if (!quote) {
          void showWarning(t('No quote for citation {0}.', m.marker));
          return;
        }
        await vscode.env.clipboard.writeText(quote.quote);
        void statusMessage(t('Quote {0} copied.', m.marker), 3000);
        return;
      }
      case 'selectInteraction':
        if (!entry.thread?.interactions.some((i) => i.interaction_id === m.interactionId)) {
          this.refused.push('selectInteraction: unknown interaction');
          return;
        }
        entry.interactionId = m.interactionId;
        return this.load(entry);
      case 'toggleTrace':
        entry.trace = m.on;
        return this.load(entry);
      case 'export':
        await this.exportMarkdown(entry.threadId);
        return;
      case 'followUp':
        return this.guard('Follow-up', () => this.followUp(entry, m.text, m.mode));
      case 'insertCitation':
      case 'copyBibtex':
      case 'copyReference':
        return this.citeAction(entry, m.type, m.n);
      case 'insertAnswer':
        return this.guard('Insert Answer', () => this.citeActions()?.insertAnswer(entry.threadId));
    }
  }

  private citeActions(): AnswerCitationActions | undefined {
    const cite = this.o.citations?.();
    if (!cite) void showWarning(t('Citations are not available in this window.'));
    return cite;
  }

  private async citeAction(entry: PanelEntry, action: CiteAction, n: number): Promise<void> {
    const ref = entry.rendered?.references.find((r) => r.n === n);
    if (!ref) {
      this.refused.push(`${action}: unknown reference`);
      return;
    }
    const context =
      action === 'insertCitation' ? 'Insert Citation' : action === 'copyBibtex' ? 'Copy BibTeX' : 'Copy Reference';
    await this.guard(context, () => this.citeActions()?.run(action, ref));
  }

  /** Webview messages have no command boundary: errors are shown here. */
  private async guard(context: string, work: () => Promise<unknown> | undefined): Promise<void> {
    try {
      await work();
    } catch (err) {
      this.o.showError(err, context);
    }
  }

  /** Export Answer as Markdown (the given thread's panel, else the active one, else the first): asks where to save. */
  exportMarkdown(threadId?: string, target?: vscode.Uri): Promise<vscode.Uri | undefined> {
    return exportAnswer(this.shown(threadId), target);
  }

  /** Sends a follow-up (see followUp.ts); once accepted, the panel shows the new run and the page clears its draft. */
  private async followUp(entry: PanelEntry, text: string, mode: FollowUpMode): Promise<void> {
    if (!(await sendFollowUp(this.o.sendFollowUp, entry.threadId, text, mode, (m) => this.post(entry, m)))) return;
    // The ThreadWatcher that ThreadCommands started refreshes this panel when the run ends.
    entry.interactionId = undefined;
    entry.seed = { threadId: entry.threadId, resetDraft: true, mode };
    this.post(entry, { type: 'followUp', state: 'running' });
    await this.load(entry);
  }
}
