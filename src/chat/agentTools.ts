/**
 * The research agent's language model tools: ask it (a new thread, sent like every brief: checked, once, kept as a
 * draft when not sent, never resent behind the writer's back), read a thread's answer, list the writer's threads.
 * Asking is paid, so its confirmation says what it costs; reading and listing are free. The ask tool waits for the
 * answer within a bound and otherwise returns the thread id: the run goes on, followed by the Threads view.
 */
import * as vscode from 'vscode';
import type { Thread, ThreadList, ThreadRequest } from '../api/index';
import { Tools, type ToolName } from '../platform/ids';
import { describeFilters } from '../search/filterModel';
import { markdownWithSafeLinks } from '../shared/markdown';
import { plainText } from '../shared/plainText';
import type { AskOutcome } from '../threads/threadSender';
import type { UsageSnapshot } from '../usage/usageLedger';
import {
  answerRecord,
  parseAskToolInput,
  parseListThreadsToolInput,
  parseThreadToolInput,
  threadSummaryRecord,
  type AnswerRecord,
} from './threadToolInput';

export interface AgentToolsDeps {
  /** Sends a new thread like every brief (ThreadCommands); `useSearchFilters` adds the writer's search filters. */
  ask(request: ThreadRequest, useSearchFilters: boolean): Promise<AskOutcome>;
  /** The writer's current search filters in words, '' when none apply to a thread. */
  searchFilters(): string;
  /** The runs being followed, and when one ends. */
  watcher: {
    isRunning(threadId: string): boolean;
    onDidFinish: vscode.Event<{ threadId: string; status: 'idle' | 'failed' }>;
  };
  getThread(threadId: string, interactionId?: string): Promise<Thread>;
  listThreads(query: string | undefined, limit: number): Promise<ThreadList>;
  usage(): UsageSnapshot;
  isFreePlan(): boolean;
  /** The sentence a failure shows the writer (the error presenter's), without a notification. */
  describeError(err: unknown): string;
}

/** How a wait for a run ended. */
export type RunWait = 'finished' | 'timeout' | 'cancelled';

/** The ask tool's result: the answer when the run ended in time, else where to find it later. */
export type AskToolResult = AnswerRecord & { note?: string };

export class AgentTools {
  constructor(
    private readonly deps: AgentToolsDeps,
    private readonly papers: {
      /** The cite key of a cited paper, when the session knows the paper. */
      citeKeyOf(citation: { paper_id?: string | null }): string | undefined;
      /** An answer's cited papers, read: they join the papers the session can cite. */
      cited(papers: NonNullable<AnswerRecord['papers']>): void;
    },
  ) {}

  prepare(name: ToolName, input: unknown): vscode.PreparedToolInvocation {
    if (name === Tools.readThread) return { invocationMessage: vscode.l10n.t('Reading a research-agent thread') };
    if (name === Tools.listThreads) return { invocationMessage: vscode.l10n.t('Listing your research-agent threads') };
    const parsed = parseAskToolInput(input);
    if (!parsed.ok || (parsed.request.mode === 'deep' && this.deps.isFreePlan()))
      return { invocationMessage: vscode.l10n.t('Checking the question') };
    const { request } = parsed;
    const filters = parsed.useSearchFilters
      ? this.deps.searchFilters()
      : request.filters
        ? describeFilters(request.filters)
        : '';
    const left = this.deps.usage().left;
    const papers = request.attachments?.paper_ids?.length ?? 0;
    return {
      invocationMessage: vscode.l10n.t('Asking the research agent ({0} mode)', request.mode ?? 'pro'),
      confirmationMessages: {
        title: vscode.l10n.t('Ask the research agent?'),
        message: new vscode.MarkdownString(
          markdownWithSafeLinks(
            [
              vscode.l10n.t(
                'Start a {0}-mode thread: “{1}”.',
                request.mode ?? 'pro',
                plainText(request.input_message, 300),
              ),
              filters ? vscode.l10n.t('Filters: {0}.', plainText(filters, 300)) : '',
              papers ? vscode.l10n.t('Scoped to {0} attached paper(s).', papers) : '',
              request.mode === 'deep'
                ? vscode.l10n.t('Deep mode reads about 50 papers and costs more calls than pro.')
                : vscode.l10n.t('Pro mode reads about 20 papers.'),
              left === undefined
                ? vscode.l10n.t(
                    'It uses calls of your monthly pool, as many as the agent’s work takes; a failed run costs nothing.',
                  )
                : vscode.l10n.t(
                    'It uses calls of your monthly pool ({0} left), as many as the agent’s work takes; a failed run costs nothing.',
                    left,
                  ),
            ]
              .filter(Boolean)
              .join(' '),
          ),
        ),
      },
    };
  }

  async invoke(name: ToolName, input: unknown, token: vscode.CancellationToken): Promise<unknown> {
    if (name === Tools.readThread) return this.read(input);
    if (name === Tools.listThreads) return this.list(input);
    if (name === Tools.askAgent) return this.ask(input, token);
    throw new Error(`Unknown tool ${name}.`);
  }

  /**
   * Starts a thread and waits for its answer up to the input's bound: the answer, or the thread id to read later.
   * Also the chat participant's /ask (`onStarted` reports the thread as soon as it runs).
   */
  async ask(
    input: unknown,
    token: vscode.CancellationToken,
    onStarted?: (threadId: string) => void,
  ): Promise<AskToolResult> {
    const parsed = parseAskToolInput(input);
    if (!parsed.ok) throw new Error(parsed.message);
    if (parsed.request.mode === 'deep' && this.deps.isFreePlan())
      throw new Error(vscode.l10n.t('Deep mode needs a paid plan, and this key is on the free plan: ask in pro mode.'));
    if (token.isCancellationRequested) throw new vscode.CancellationError();
    const outcome = await this.deps.ask(parsed.request, parsed.useSearchFilters);
    if (outcome.outcome !== 'sent' || !outcome.threadId)
      throw new Error(
        outcome.message ??
          vscode.l10n.t('The question was not sent ({0}); nothing was charged for it.', outcome.outcome),
      );
    const threadId = outcome.threadId;
    onStarted?.(threadId);
    const waited = await this.waitFor(threadId, parsed.waitSeconds, token);
    if (waited !== 'finished')
      return {
        threadId,
        title: '',
        status: 'running',
        turns: 1,
        note:
          waited === 'cancelled'
            ? 'Stopped waiting; the agent goes on. Read the answer later with the read-thread tool and this threadId.'
            : 'The agent is still working. Read the answer later with the read-thread tool and this threadId; the writer is told when it is ready.',
      };
    return this.answer(threadId);
  }

  /** Waits until the run of `threadId` ends, `seconds` pass or `token` is cancelled. */
  waitFor(threadId: string, seconds: number, token: vscode.CancellationToken): Promise<RunWait> {
    return new Promise<RunWait>((resolve) => {
      const subs: { dispose(): unknown }[] = [];
      const done = (how: RunWait): void => {
        for (const s of subs) s.dispose();
        resolve(how);
      };
      const timer = setTimeout(() => done('timeout'), seconds * 1000);
      subs.push({ dispose: () => clearTimeout(timer) });
      subs.push(this.deps.watcher.onDidFinish((e) => e.threadId === threadId && done('finished')));
      subs.push(token.onCancellationRequested(() => done('cancelled')));
      // Subscribed first, then checked: a run that ended meanwhile is not waited for.
      if (!this.deps.watcher.isRunning(threadId)) done('finished');
    });
  }

  /** The thread's latest answer (or `interactionId`'s) as a record; free. */
  async answer(threadId: string, interactionId?: string): Promise<AnswerRecord> {
    let thread: Thread;
    try {
      thread = await this.deps.getThread(threadId, interactionId);
    } catch (err) {
      throw new Error(this.deps.describeError(err), { cause: err });
    }
    const record = answerRecord(thread, (c) => this.papers.citeKeyOf(c), interactionId);
    if (record.papers) this.papers.cited(record.papers);
    return record;
  }

  private async read(input: unknown): Promise<AnswerRecord & { note?: string }> {
    const parsed = parseThreadToolInput(input);
    if (!parsed.ok) throw new Error(parsed.message);
    const record = await this.answer(parsed.threadId, parsed.interactionId);
    return record.status === 'running'
      ? { ...record, note: 'The agent is still working on this turn; read it again later.' }
      : record;
  }

  private async list(input: unknown): Promise<{ threads: Record<string, unknown>[]; more: boolean }> {
    const parsed = parseListThreadsToolInput(input);
    if (!parsed.ok) throw new Error(parsed.message);
    let list: ThreadList;
    try {
      list = await this.deps.listThreads(parsed.query, parsed.limit);
    } catch (err) {
      throw new Error(this.deps.describeError(err), { cause: err });
    }
    return { threads: list.threads.slice(0, parsed.limit).map(threadSummaryRecord), more: list.has_more };
  }
}
