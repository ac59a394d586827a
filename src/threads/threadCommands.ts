/**
 * The commands that start research-agent threads: Ask the Research Agent (a brief from the palette, or a brief
 * document sent by its CodeLens), Ask about Selection (an editor's selection), Ask about Selected Papers (papers of
 * the Research view attached); and the follow-up to a thread. They collect the brief, its mode and whether the search
 * filters go with it, offering a kept draft again; threadSender.ts sends it (checks, drafts, once per brief, Retry).
 */
import * as vscode from 'vscode';
import type { Paper, ThreadRequest } from '../api/index';
import { briefText, isBriefDocument, openBriefDocument } from './briefDocument';
import { type DraftStore, NEW_THREAD } from './drafts';
import type { RunningThread, SentRequest, ThreadModeName } from './persisted';
import { MAX_BRIEF, threadFilters, ThreadSender, type AskOutcome, type ThreadSenderDeps } from './threadSender';
import { showInfo, showWarning, statusMessage } from '../platform/notify';

export type { AskOutcome, AskOutcomeKind } from './threadSender';

export const MAX_ATTACHED_PAPERS = 50;

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

export interface ThreadCommandsDeps extends ThreadSenderDeps {
  filters: { readonly current: object; describe(): string };
  selectedPapers: () => Paper[];
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

export function selectionBrief(selection: string, instructions?: string): string {
  const quoted = selection.trim();
  const ask = instructions?.trim();
  return ask
    ? `${ask}\n\nThe passage from my draft:\n"""\n${quoted}\n"""`
    : `What does the research say about this passage from my draft? Say which claims the evidence supports, which it contradicts, and how strong the evidence is.\n\n"""\n${quoted}\n"""`;
}

export class ThreadCommands {
  /** Sends every brief these commands collect (and follow-ups, and the ThreadWatcher's Retry). */
  private readonly sender: ThreadSender;
  /** The unsent briefs, per target (a new thread, or a thread's follow-up). */
  readonly drafts: DraftStore;
  /** Send Brief per brief document: the second click waits for the first, so the brief is sent and closed once. */
  private readonly briefSends = new Map<string, Promise<AskOutcome>>();

  constructor(private readonly deps: ThreadCommandsDeps) {
    this.sender = new ThreadSender(deps);
    this.drafts = this.sender.drafts;
  }

  /** Ask the Research Agent: a brief from the argument, or asked for (the saved draft is offered first). */
  async askAgent(arg?: unknown): Promise<AskOutcome> {
    const a = asArg(arg);
    if (a?.message !== undefined) {
      const paperIds =
        a.attachPapers === true
          ? this.selectedIds()
          : Array.isArray(a.attachPapers)
            ? [...(a.attachPapers as string[])]
            : undefined;
      return this.sender.send(NEW_THREAD, {
        message: a.message,
        mode: a.mode ?? 'pro',
        paperIds,
        useFilters: a.useFilters === true,
      });
    }
    // A multi-line brief: an untitled Markdown document (the unsent draft restored into it).
    const draft = this.drafts.get(NEW_THREAD);
    const editor = await openBriefDocument(draft?.input_message);
    if (draft)
      void statusMessage(
        vscode.l10n.t('Your unsent brief is restored{0}.', draft.reason ? ` (${draft.reason})` : ''),
        8000,
      );
    return { outcome: 'opened', uri: editor.document.uri.toString() };
  }

  /** Send Brief to the Research Agent: the brief document (CodeLens arguments, or the active editor). */
  async sendBrief(arg?: unknown): Promise<AskOutcome> {
    const a = (arg && typeof arg === 'object' ? arg : {}) as {
      uri?: unknown;
      mode?: ThreadModeName;
      useFilters?: boolean;
    };
    const doc =
      typeof a.uri === 'string'
        ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === a.uri)
        : vscode.window.activeTextEditor?.document;
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

  private async sendBriefDocument(
    doc: vscode.TextDocument,
    a: { mode?: ThreadModeName; useFilters?: boolean },
  ): Promise<AskOutcome> {
    const message = briefText(doc.getText());
    let mode = a.mode;
    let useFilters = a.useFilters === true;
    if (!mode) {
      const choice = await this.askModeAndFilters();
      if (!choice) return { outcome: 'cancelled' };
      mode = choice.mode;
      useFilters = choice.useFilters;
    }
    const outcome = await this.sender.send(NEW_THREAD, { message, mode, useFilters });
    if (outcome.outcome === 'sent' && !doc.isClosed) {
      // Sent: the brief document has done its job (it is untitled, so close it without a save prompt). The command
      // reverts whatever editor is active, so it runs only while that is the brief, never the writer's own document.
      await vscode.window.showTextDocument(doc);
      if (vscode.window.activeTextEditor?.document === doc)
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    return outcome;
  }

  /** Ask about Selection: the editor's selection (plus optional instructions) becomes the brief. */
  async askAboutSelection(arg?: unknown): Promise<AskOutcome> {
    const a = asArg(arg);
    const editor = vscode.window.activeTextEditor;
    const text = editor
      ? editor.selections
          .filter((s) => !s.isEmpty)
          .map((s) => editor.document.getText(s))
          .join('\n…\n')
      : '';
    if (!text.trim()) {
      const message = vscode.l10n.t(
        "Select a passage in an editor first: the selection becomes the research agent's brief.",
      );
      void showInfo(message);
      return { outcome: 'invalid', message };
    }
    let instructions = a?.instructions;
    if (!a) {
      instructions = await vscode.window.showInputBox({
        title: vscode.l10n.t('Ask the Research Agent about the Selection'),
        prompt: vscode.l10n.t(
          'Optional: what should the agent do with the selected passage? Leave empty to ask what the research says about it.',
        ),
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
    return this.sender.send(NEW_THREAD, {
      message: selectionBrief(text, instructions),
      mode: mode ?? 'pro',
      useFilters,
    });
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
      const message = vscode.l10n.t(
        'Select one or more papers in the Research view first: they are attached to the thread.',
      );
      void showInfo(message);
      return { outcome: 'invalid', message };
    }
    if (ids.length > MAX_ATTACHED_PAPERS) {
      const message = vscode.l10n.t(
        'A thread can read at most {0} attached papers, and {1} are selected: select {2} fewer, then ask again. Nothing was sent.',
        MAX_ATTACHED_PAPERS,
        ids.length,
        ids.length - MAX_ATTACHED_PAPERS,
      );
      void showWarning(message);
      return { outcome: 'invalid', message };
    }
    let message = a?.message;
    let mode = a?.mode;
    let useFilters = a?.useFilters === true;
    if (message === undefined) {
      message = await this.askBrief(
        ids.length === 1
          ? vscode.l10n.t('Ask the Research Agent about 1 paper')
          : vscode.l10n.t('Ask the Research Agent about {0} papers', ids.length),
        this.drafts.get(NEW_THREAD)?.input_message,
      );
      if (message === undefined) return { outcome: 'cancelled' };
      const choice = await this.askModeAndFilters();
      if (!choice) return { outcome: 'cancelled' };
      mode = choice.mode;
      useFilters = choice.useFilters;
    }
    return this.sender.send(NEW_THREAD, { message, mode: mode ?? 'pro', paperIds: ids, useFilters });
  }

  /**
   * A follow-up to a thread (the answer view's follow-up box; the composition root hands it this): 409 while the
   * previous answer is being written is explained and the draft kept; an uncertain 5xx never sends twice.
   */
  followUp(threadId: string, message: string, mode: ThreadModeName = 'pro'): Promise<AskOutcome> {
    return this.sender.followUp(threadId, message, mode);
  }

  /**
   * A brief written elsewhere (the chat's tools and participant), sent like every brief: its own filters, or the
   * writer's current search filters when `useSearchFilters`.
   */
  sendRequest(request: ThreadRequest, useSearchFilters: boolean): Promise<AskOutcome> {
    return this.sender.send(NEW_THREAD, {
      message: request.input_message,
      mode: request.mode ?? 'pro',
      paperIds: request.attachments?.paper_ids ?? undefined,
      filters: request.filters,
      useFilters: useSearchFilters,
    });
  }

  /** Retry of a failed run: the same brief again (a new thread, or the same follow-up). */
  retry(run: RunningThread): Promise<AskOutcome> {
    return this.sender.retry(run);
  }

  /** The draft kept for a target ('new' or a thread id), if any. */
  draft(target: string = NEW_THREAD): SentRequest | undefined {
    return this.drafts.get(target);
  }

  private selectedIds(): string[] {
    return this.deps
      .selectedPapers()
      .map(paperIdOf)
      .filter((x): x is string => !!x);
  }

  /** An input box for a brief (the saved draft is offered as its value). */
  private async askBrief(title: string, draft?: string, reason?: string): Promise<string | undefined> {
    const value = await vscode.window.showInputBox({
      title,
      value: draft ?? '',
      prompt: draft
        ? vscode.l10n.t(
            'Your unsent draft is restored{0}. The agent works on its own and asks no questions: say everything it needs.',
            reason ? ` (${reason})` : '',
          )
        : vscode.l10n.t(
            'The whole research brief (1 to {0} characters): the agent works on its own and asks no questions. For a longer brief, select it in an editor and use Ask the Research Agent about Selection.',
            MAX_BRIEF,
          ),
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

  private async askModeAndFilters(
    current?: ThreadModeName,
  ): Promise<{ mode: ThreadModeName; useFilters: boolean } | undefined> {
    const free = this.deps.isFreePlan();
    const filters = threadFilters(this.deps.filters.current) ? this.deps.filters.describe() : '';
    type Item = vscode.QuickPickItem & { mode: ThreadModeName; useFilters: boolean };
    const items: Item[] = [];
    const proLabel = vscode.l10n.t('Pro: reads about 20 papers');
    const deepLabel = vscode.l10n.t('Deep: reads about 50 papers and writes a structured report');
    const deepNote = free
      ? vscode.l10n.t('needs a paid plan (this key is on the free plan)')
      : vscode.l10n.t('costs more calls than pro');
    for (const useFilters of filters ? [true, false] : [false]) {
      const suffix = useFilters
        ? vscode.l10n.t(' · filters: {0}', filters)
        : filters
          ? vscode.l10n.t(' · no filters')
          : '';
      items.push({ label: proLabel, description: suffix.replace(/^ · /, ''), mode: 'pro', useFilters });
      items.push({ label: deepLabel, description: `${deepNote}${suffix}`, mode: 'deep', useFilters });
    }
    if (current === 'deep' && !free) items.sort((x, y) => (x.mode === 'deep' ? -1 : 0) - (y.mode === 'deep' ? -1 : 0));
    const pick = await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('Research agent mode'),
      ignoreFocusOut: true,
    });
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
