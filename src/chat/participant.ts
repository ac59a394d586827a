/**
 * The `@research` chat participant, in the core bundle (the entry bundle's adapter hands each request here). Its
 * commands work without a language model: `/search` lists papers with Cite links, `/ask` hands a question to the
 * research agent and shows the cited answer, `/cite` cites papers found in the chat, `/budget` tells the calls left.
 * A prompt after an answer continues that thread (a follow-up). Any other prompt goes to the chat's model with the
 * research tools (modelLoop.ts); without a usable model it is searched for.
 *
 * Paid steps: a typed /search or /ask is the writer's own request, like the palette's Search Papers and Ask (and says
 * what it cost); the model's tool calls go through VS Code's confirmation (the tools' confirmation messages).
 */
import * as vscode from 'vscode';
import type { Paper } from '../api/index';
import { citePaperOf } from '../citations/recentPapers';
import type { CitePaper } from '../citations/types';
import type { CitationCommandResult } from '../citations/commandSupport';
import { Commands } from '../platform/ids';
import { errorLine, plainText } from '../shared/plainText';
import { safeHttpsUrl } from '../shared/url';
import type { AskOutcome } from '../threads/threadSender';
import type { UsageSnapshot } from '../usage/usageLedger';
import { answerMarkdown, chatText, CHAT_COMMANDS, paperListMarkdown } from './chatMarkdown';
import { runModelLoop, type ResearchChatMetadata } from './modelLoop';
import { citePaperOfCited, type ResearchTools } from './researchTools';
import type { PaperRecord } from './toolInput';
import { ASK_WAIT_MAX, type AnswerRecord } from './threadToolInput';

export interface ParticipantDeps {
  tools: ResearchTools;
  /** The writer's current search filters (the Research view's), as search parameters, and in words. */
  searchFilters(): { params: Record<string, unknown>; words: string };
  followUp(threadId: string, message: string, mode: 'pro' | 'deep'): Promise<AskOutcome>;
  usage(): UsageSnapshot;
  insertCitation(papers: CitePaper[]): Promise<CitationCommandResult>;
  log: { warn(message: string): void };
}

/** Papers a chat search lists. */
const CHAT_RESULTS = 10;

export class ResearchParticipant {
  /** The last response's metadata (tests read it; the chat view keeps its own copy in the history). */
  lastResult: vscode.ChatResult | undefined;

  constructor(private readonly deps: ParticipantDeps) {}

  async handle(
    request: vscode.ChatRequest,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult> {
    const command = request.command ?? '';
    let result: vscode.ChatResult;
    try {
      result = await this.route(command, request, context, stream, token);
    } catch (err) {
      const metadata: ResearchChatMetadata = { command };
      result =
        err instanceof vscode.CancellationError || token.isCancellationRequested
          ? { metadata }
          : { errorDetails: { message: errorLine(err, 500) }, metadata };
    }
    return (this.lastResult = result);
  }

  /** Suggestions after a response: cite or ask about what was found. */
  followups(result: vscode.ChatResult): vscode.ChatFollowup[] {
    const m = result.metadata as ResearchChatMetadata | undefined;
    if (m?.command === 'search' && m.papers?.length)
      return [
        { prompt: '1', command: 'cite', label: vscode.l10n.t('Cite the first paper') },
        ...(m.query
          ? [{ prompt: m.query, command: 'ask', label: vscode.l10n.t('Ask the research agent about this') }]
          : []),
      ];
    return [];
  }

  private route(
    command: string,
    request: vscode.ChatRequest,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult> {
    const prompt = request.prompt.trim();
    switch (command) {
      case 'search':
        return this.search(prompt, stream, token);
      case 'ask':
        return this.ask(prompt, undefined, stream, token);
      case 'cite':
        return this.cite(prompt, context, stream);
      case 'budget':
        return Promise.resolve(this.budget(stream));
    }
    const thread = lastThread(context);
    if (thread && prompt) return this.ask(prompt, thread, stream, token);
    return runModelLoop(
      { tools: this.deps.tools, render: this, log: this.deps.log },
      request,
      context,
      stream,
      token,
    ).then((r) => r ?? this.search(prompt, stream, token, true));
  }

  private async search(
    query: string,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
    noModel = false,
  ): Promise<vscode.ChatResult> {
    if (!query) {
      stream.markdown(vscode.l10n.t('Write what to search for after /search, e.g. `/search creatine and memory`.'));
      return { metadata: { command: 'search' } satisfies ResearchChatMetadata };
    }
    if (noModel)
      stream.markdown(
        `${chatText(vscode.l10n.t('No language model answered, so your words were searched for (use /ask to hand them to the research agent).'))}\n\n`,
      );
    const filters = this.deps.searchFilters();
    stream.progress(vscode.l10n.t('Searching papers…'));
    const out = await this.deps.tools.search({ query, limit: CHAT_RESULTS, ...filters.params }, token);
    const left = this.deps.usage().left;
    const cost = out.callCharged
      ? left === undefined
        ? vscode.l10n.t('1 call used.')
        : vscode.l10n.t('1 call used, {0} left this month.', left)
      : vscode.l10n.t('Answered from this session’s cache: no call used.');
    const head =
      out.papers.length > 1
        ? vscode.l10n.t('{0} papers for “{1}”', out.papers.length, plainText(query, 120))
        : out.papers.length === 1
          ? vscode.l10n.t('1 paper for “{0}”', plainText(query, 120))
          : vscode.l10n.t('No papers found for “{0}”', plainText(query, 120));
    stream.markdown(
      [
        `**${chatText(head)}**`,
        filters.words ? chatText(vscode.l10n.t('Filters: {0}.', filters.words), 400) : '',
        chatText(cost),
      ]
        .filter(Boolean)
        .join(' · ') + '\n\n',
    );
    this.papers(stream, out.papers, out.found);
    if (out.papers.length)
      stream.button({ command: Commands.insertCitation, title: vscode.l10n.t('Insert Citation…') });
    return {
      metadata: { command: 'search', papers: out.papers.map((p) => p.id), query } satisfies ResearchChatMetadata,
    };
  }

  /** Papers as a numbered list with Cite links, their links as the response's references. */
  papers(stream: vscode.ChatResponseStream, records: readonly PaperRecord[], found: readonly Paper[]): void {
    const byId = new Map(found.map((p) => [citePaperOf(p).id ?? '', p]));
    stream.markdown(
      this.trusted(
        paperListMarkdown(records, {
          citePaper: (r) => {
            const p = byId.get(r.id);
            return p ? citePaperOf(p) : undefined;
          },
          labels: { cite: vscode.l10n.t('Cite'), key: vscode.l10n.t('key') },
        }),
      ),
    );
    for (const r of records) reference(stream, r.url);
  }

  /** An answer with its references, and the buttons to open it in the answer view or insert it. */
  answer(stream: vscode.ChatResponseStream, record: AnswerRecord): void {
    if (record.title) stream.markdown(`**${chatText(record.title, 300)}**\n\n`);
    stream.markdown(
      this.trusted(
        answerMarkdown(record, {
          citePaper: (p) =>
            (p.id ? this.deps.tools.resolve([p.id]).papers[0]?.paper : undefined) ?? citePaperOfCited(p),
          labels: {
            references: vscode.l10n.t('References'),
            cite: vscode.l10n.t('Cite'),
            untitled: vscode.l10n.t('Untitled'),
          },
        }),
      ),
    );
    for (const p of record.papers ?? []) reference(stream, p.url);
    stream.button({
      command: Commands.openThread,
      arguments: [record.threadId],
      title: vscode.l10n.t('Open in Answer View'),
    });
    stream.button({
      command: Commands.insertAnswer,
      arguments: [record.threadId],
      title: vscode.l10n.t('Insert Answer'),
    });
  }

  private async ask(
    prompt: string,
    followUpOf: string | undefined,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult> {
    const deep = /^deep\s*:\s*/iu.exec(prompt);
    const question = deep ? prompt.slice(deep[0].length).trim() : prompt;
    const mode = deep ? 'deep' : 'pro';
    if (!question) {
      stream.markdown(
        vscode.l10n.t(
          'Write the whole research question after /ask (the agent asks nothing back), e.g. `/ask Does creatine improve memory in older adults?` Start with `deep:` for deep mode.',
        ),
      );
      return { metadata: { command: 'ask' } satisfies ResearchChatMetadata };
    }
    const agent = this.deps.tools.agent;
    let threadId = followUpOf;
    stream.progress(
      followUpOf
        ? vscode.l10n.t('Sending your follow-up to the research agent ({0} mode)…', mode)
        : vscode.l10n.t('Sending your question to the research agent ({0} mode)…', mode),
    );
    const started = (id: string): void => {
      threadId = id;
      stream.progress(
        vscode.l10n.t(
          'The research agent is searching and reading papers ({0} mode: usually a few minutes). You can keep writing; the answer also opens from its notification.',
          mode,
        ),
      );
    };
    let record: AnswerRecord & { note?: string };
    if (followUpOf) {
      const outcome = await this.deps.followUp(followUpOf, question, mode);
      if (outcome.outcome !== 'sent') throw new Error(outcome.message ?? vscode.l10n.t('The follow-up was not sent.'));
      started(followUpOf);
      const waited = await agent.waitFor(followUpOf, ASK_WAIT_MAX, token);
      record =
        waited === 'finished'
          ? await agent.answer(followUpOf)
          : { threadId: followUpOf, title: '', status: 'running', turns: 0 };
    } else {
      const filters = this.deps.searchFilters();
      if (filters.words)
        stream.markdown(`${chatText(vscode.l10n.t('Under your search filters: {0}.', filters.words), 400)}\n\n`);
      record = await agent.ask(
        { question, mode, useSearchFilters: !!filters.words, waitSeconds: ASK_WAIT_MAX },
        token,
        started,
      );
    }
    const metadata: ResearchChatMetadata = { command: 'ask', threadId: threadId ?? record.threadId };
    if (record.status === 'running') {
      stream.markdown(
        chatText(
          vscode.l10n.t(
            'The research agent is still working. You will be told when the answer is ready; it is in the Threads view.',
          ),
          300,
        ),
      );
      stream.button({
        command: Commands.openThread,
        arguments: [record.threadId],
        title: vscode.l10n.t('Open in Answer View'),
      });
      return { metadata };
    }
    if (record.status === 'failed') {
      return {
        errorDetails: {
          message: vscode.l10n.t(
            'The research agent’s run failed (a failed run costs nothing). Ask again, or rephrase the question.',
          ),
        },
        metadata,
      };
    }
    this.answer(stream, record);
    return { metadata };
  }

  private async cite(
    prompt: string,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
  ): Promise<vscode.ChatResult> {
    const metadata: ResearchChatMetadata = { command: 'cite' };
    if (!prompt) {
      // No paper named: the Insert Citation Quick Pick, where the papers found in the chat are on top.
      await vscode.commands.executeCommand(Commands.insertCitation);
      return { metadata };
    }
    const listed = lastListed(context);
    const refs: string[] = [];
    const problems: string[] = [];
    for (const word of prompt.split(/[\s,;]+/u).filter(Boolean)) {
      const n = /^\d{1,3}$/u.test(word) ? Number(word) : undefined;
      if (n === undefined) refs.push(word);
      else if (listed[n - 1]) refs.push(listed[n - 1]!);
      else problems.push(word);
    }
    if (problems.length)
      throw new Error(
        vscode.l10n.t(
          'No paper {0} in the last list of this chat: search first (/search), then cite by number, e.g. `/cite 1 3`.',
          problems.join(', '),
        ),
      );
    const { papers, unknown } = this.deps.tools.resolve(refs);
    if (unknown.length)
      throw new Error(
        vscode.l10n.t(
          'Not among the papers found this session: {0}. Cite by the numbers of a list in this chat, or by a paper’s id, cite key or DOI.',
          unknown.map((u) => plainText(u, 60)).join(', '),
        ),
      );
    const result = await this.deps.insertCitation(
      papers.map(({ paper }) => ('citation_count' in paper ? citePaperOf(paper) : paper)),
    );
    if (!result.done) {
      if (result.message === 'cancelled') stream.markdown(chatText(vscode.l10n.t('Nothing was cited.')));
      else throw new Error(result.message ?? vscode.l10n.t('Nothing was cited.'));
      return { metadata };
    }
    stream.markdown(chatText(result.message ?? vscode.l10n.t('Cited {0}.', (result.keys ?? []).join(', ')), 400));
    return { metadata };
  }

  private budget(stream: vscode.ChatResponseStream): vscode.ChatResult {
    const s = this.deps.usage();
    const lines = [
      s.left === undefined
        ? vscode.l10n.t('Calls left this month: unknown until the plan is known (set it from the status bar).')
        : vscode.l10n.t('Calls left this month: {0} of {1} ({2} plan).', s.left, s.included ?? '?', s.plan ?? '?'),
      vscode.l10n.t('Spent on this machine this month: {0}. The pool resets on {1}.', s.spent, s.resetDate),
      vscode.l10n.t(
        'The pool is shared with the MCP server and your other machines: these figures are this machine’s estimate.',
      ),
    ];
    stream.markdown(lines.map((l) => `- ${chatText(l, 300)}`).join('\n'));
    return { metadata: { command: 'budget' } satisfies ResearchChatMetadata };
  }

  /** Markdown whose only command links are the ones this participant built (to CHAT_COMMANDS). */
  private trusted(markdown: string): vscode.MarkdownString {
    const m = new vscode.MarkdownString(markdown);
    m.isTrusted = { enabledCommands: [...CHAT_COMMANDS] };
    return m;
  }
}

/** A paper's link as a reference of the response, when the link rule allows it. */
function reference(stream: vscode.ChatResponseStream, url: string | undefined): void {
  const href = safeHttpsUrl(url);
  if (href) stream.reference(vscode.Uri.parse(href, true));
}

/** The thread the last response of this participant showed, if the last response showed one. */
function lastThread(context: vscode.ChatContext): string | undefined {
  const last = [...context.history].reverse().find((t) => t instanceof vscode.ChatResponseTurn);
  const m = last?.result.metadata as ResearchChatMetadata | undefined;
  return m?.command === 'ask' || m?.command === 'model' ? m.threadId : undefined;
}

/** The paper ids of the most recent response that listed papers. */
function lastListed(context: vscode.ChatContext): string[] {
  for (const turn of [...context.history].reverse())
    if (turn instanceof vscode.ChatResponseTurn) {
      const m = turn.result.metadata as ResearchChatMetadata | undefined;
      if (m?.papers?.length) return m.papers;
    }
  return [];
}
