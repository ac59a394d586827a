/**
 * A free-form `@research` prompt with the chat's language model: the model gets the research tools and calls them in
 * a loop (model → tool calls → each run through `vscode.lm.invokeTool` with the request's token, so VS Code asks the
 * writer before anything paid or any edit → results back to the model), as an agent does. What our tools return is
 * also shown as the participant shows it (papers with Cite links, answers with their references), so the writer sees
 * the evidence itself, not only the model's account of it. The model's own text is shown as safe Markdown: it may
 * repeat service text.
 */
import * as vscode from 'vscode';
import type { Paper } from '../api/index';
import { Tools } from '../platform/ids';
import { errorLine } from '../shared/plainText';
import { safeChatMarkdown } from './answerMarkdown';
import type { ResearchTools, SearchToolResult } from './researchTools';
import type { AnswerRecord } from './threadToolInput';
import type { PaperRecord } from './toolInput';

/** What a response remembers for the next turn: its command, the thread it showed, the papers it numbered. */
export interface ResearchChatMetadata {
  command: string;
  threadId?: string;
  /** Ids of the papers it listed, in their numbering (what `/cite 2` refers to). */
  papers?: string[];
  /** The search it ran, for the follow-up suggestions. */
  query?: string;
}

export interface ModelLoopDeps {
  tools: ResearchTools;
  render: {
    papers(stream: vscode.ChatResponseStream, records: readonly PaperRecord[], found: readonly Paper[]): void;
    answer(stream: vscode.ChatResponseStream, record: AnswerRecord): void;
  };
  log: { warn(message: string): void };
}

/** Model turns per prompt at most: enough to search, read, ask and cite; a model that loops is stopped. */
export const MAX_ROUNDS = 6;
/** Earlier turns given to the model, and the longest text of one. */
const HISTORY_TURNS = 10;
const HISTORY_TEXT_MAX = 4000;

const INSTRUCTIONS = [
  'You are Research Desk, a research assistant inside VS Code for someone writing a paper.',
  'Find evidence with the Research Desk tools. Each paper search costs the writer one call of a monthly pool, so search once with the right filters rather than many times; asking the research agent costs more and suits a whole question.',
  'Name and cite only papers a tool returned; never invent papers, authors, years or DOIs. Insert citations into the document only when the writer asks for it.',
  'Answer briefly, naming papers by first author and year.',
].join(' ');

/**
 * Runs the loop; undefined when the model could not be used at all (no model, no consent, offline), so the caller
 * can answer without one.
 */
export async function runModelLoop(
  deps: ModelLoopDeps,
  request: vscode.ChatRequest,
  context: vscode.ChatContext,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
): Promise<vscode.ChatResult | undefined> {
  const prompt = request.prompt.trim();
  if (!prompt) {
    stream.markdown(vscode.l10n.t('Ask about the research on a topic, or use /search, /ask, /cite or /budget.'));
    return { metadata: { command: 'model' } satisfies ResearchChatMetadata };
  }
  const tools: vscode.LanguageModelChatTool[] = vscode.lm.tools
    .filter((t) => t.tags.includes('researchDesk'))
    .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  const messages: vscode.LanguageModelChatMessage[] = [
    vscode.LanguageModelChatMessage.User(INSTRUCTIONS),
    ...history(context),
    vscode.LanguageModelChatMessage.User(prompt),
  ];
  const metadata: ResearchChatMetadata = { command: 'model' };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let response: vscode.LanguageModelChatResponse;
    try {
      response = await request.model.sendRequest(
        messages,
        {
          tools,
          justification: vscode.l10n.t('Research Desk uses the model to choose research tools for your question.'),
        },
        token,
      );
    } catch (err) {
      if (round === 0 && err instanceof vscode.LanguageModelError) {
        deps.log.warn(`The chat model could not be used (${err.code}): ${errorLine(err)}`);
        return undefined;
      }
      throw err;
    }
    let text = '';
    const calls: vscode.LanguageModelToolCallPart[] = [];
    for await (const part of response.stream) {
      if (part instanceof vscode.LanguageModelTextPart) text += part.value;
      else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
    }
    if (text.trim()) stream.markdown(safeChatMarkdown(text));
    if (!calls.length) break;
    messages.push(
      vscode.LanguageModelChatMessage.Assistant([...(text ? [new vscode.LanguageModelTextPart(text)] : []), ...calls]),
    );
    const results: vscode.LanguageModelToolResultPart[] = [];
    for (const call of calls) {
      let content: unknown[];
      try {
        const result = await vscode.lm.invokeTool(
          call.name,
          { input: call.input, toolInvocationToken: request.toolInvocationToken },
          token,
        );
        content = result.content;
        show(deps, stream, call.name, result, metadata);
      } catch (err) {
        if (token.isCancellationRequested) throw err;
        // The model reads why, and may correct its input.
        content = [new vscode.LanguageModelTextPart(`Error: ${errorLine(err, 1000)}`)];
      }
      results.push(new vscode.LanguageModelToolResultPart(call.callId, content));
    }
    messages.push(vscode.LanguageModelChatMessage.User(results));
  }
  return { metadata };
}

/** What one of our tools returned, shown to the writer as the participant shows it. */
function show(
  deps: ModelLoopDeps,
  stream: vscode.ChatResponseStream,
  name: string,
  result: vscode.LanguageModelToolResult,
  metadata: ResearchChatMetadata,
): void {
  const part = result.content.find((p) => p instanceof vscode.LanguageModelTextPart);
  if (!part) return;
  let value: unknown;
  try {
    value = JSON.parse(part.value);
  } catch {
    return;
  }
  if (name === Tools.searchPapers) {
    const out = value as SearchToolResult;
    const found = out.papers.map((r) => deps.tools.seen.find(r.id)).filter((p): p is Paper => !!p);
    deps.render.papers(stream, out.papers, found);
    metadata.papers = out.papers.map((p) => p.id);
  } else if (name === Tools.askAgent || name === Tools.readThread) {
    const record = value as AnswerRecord;
    metadata.threadId = record.threadId;
    if (record.status !== 'running' && record.answer) deps.render.answer(stream, record);
  }
}

/** Earlier turns of this chat with the participant, as the model reads them: prompts, and the responses' text. */
function history(context: vscode.ChatContext): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  for (const turn of context.history.slice(-HISTORY_TURNS)) {
    if (turn instanceof vscode.ChatRequestTurn) {
      const text = `${turn.command ? `/${turn.command} ` : ''}${turn.prompt}`.slice(0, HISTORY_TEXT_MAX);
      if (text.trim()) out.push(vscode.LanguageModelChatMessage.User(text));
    } else {
      const text = turn.response
        .map((r) => (r instanceof vscode.ChatResponseMarkdownPart ? r.value.value : ''))
        .join('')
        .slice(0, HISTORY_TEXT_MAX);
      if (text.trim()) out.push(vscode.LanguageModelChatMessage.Assistant(text));
    }
  }
  return out;
}
