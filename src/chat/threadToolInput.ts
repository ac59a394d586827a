/**
 * What the research-agent tools take and give, without vscode: a model's input to start a thread, read one or list
 * them, checked field by field (VS Code does not validate it against the declared schema), and an answer as a
 * compact record a model can quote and cite from. Service text is made plain and bounded on the way out.
 */
import type { Thread, ThreadRequest, ThreadSummary } from '../api/index';
import { validateThreadRequest } from '../api/params';
import { describeIssues, type ValidationIssue } from '../api/errors';
import { clip, plainText } from '../shared/plainText';
import { TOOL_FILTER_KEYS } from './toolInput';

/** How long the ask tool waits for the answer by default, and at most, in seconds; then it gives the thread id. */
export const ASK_WAIT_DEFAULT = 120;
export const ASK_WAIT_MAX = 600;
/** The service's own bounds: a brief of 1 to 10,000 characters, up to 50 attached papers. */
export const BRIEF_MAX = 10_000;
export const ATTACHED_PAPERS_MAX = 50;
/** Thread ids as the service writes them (the path pattern), of a length no real id nears. */
const THREAD_ID = /^[A-Za-z0-9_-]{1,512}$/;

export type AskToolInput =
  { ok: true; request: ThreadRequest; useSearchFilters: boolean; waitSeconds: number } | { ok: false; message: string };

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (v: object): Record<string, unknown> => Object.fromEntries(Object.entries(v));
const unknownFields = (raw: Record<string, unknown>, known: readonly string[]): ValidationIssue[] => {
  const extra = Object.keys(raw).filter((k) => !known.includes(k));
  return extra.length
    ? [
        {
          loc: extra.slice(0, 5),
          msg: `unknown field(s); the fields are: ${known.join(', ')}`,
          type: 'extra_forbidden',
        },
      ]
    : [];
};

/**
 * The ask tool's input as a thread request: the question, the mode, filters given by the model or the writer's
 * current search filters, attached paper ids, and how long to wait. One message names every field that is wrong;
 * an unknown field is refused rather than dropped (a misspelt filter would otherwise run the agent without it).
 */
export function parseAskToolInput(input: unknown): AskToolInput {
  if (!isObject(input)) return { ok: false, message: 'The input must be an object with at least a "question".' };
  const raw = own(input);
  const issues = unknownFields(raw, ['question', 'mode', 'filters', 'useSearchFilters', 'paperIds', 'waitSeconds']);
  const question = raw['question'];
  if (typeof question !== 'string' || !question.trim())
    issues.push({ loc: ['question'], msg: 'a non-empty string is required', type: 'missing' });
  const mode = raw['mode'] ?? 'pro';
  if (mode !== 'pro' && mode !== 'deep') issues.push({ loc: ['mode'], msg: '"pro" or "deep"', type: 'enum' });
  const useSearchFilters = raw['useSearchFilters'] ?? false;
  if (typeof useSearchFilters !== 'boolean')
    issues.push({ loc: ['useSearchFilters'], msg: 'true or false', type: 'bool_type' });
  const wait = raw['waitSeconds'] ?? ASK_WAIT_DEFAULT;
  if (typeof wait !== 'number' || !Number.isInteger(wait) || wait < 0 || wait > ASK_WAIT_MAX)
    issues.push({ loc: ['waitSeconds'], msg: `an integer from 0 to ${ASK_WAIT_MAX}`, type: 'int_range' });
  const request: ThreadRequest = {
    input_message: typeof question === 'string' ? question.trim() : '',
    mode: mode === 'deep' ? 'deep' : 'pro',
  };
  const filters = raw['filters'];
  if (filters !== undefined && filters !== null) {
    if (!isObject(filters)) issues.push({ loc: ['filters'], msg: 'an object of search filters', type: 'dict_type' });
    else {
      const f = own(filters);
      issues.push(...unknownFields(f, TOOL_FILTER_KEYS).map((i) => ({ ...i, loc: ['filters', ...i.loc] })));
      const kept: Record<string, unknown> = {};
      for (const k of TOOL_FILTER_KEYS) if (f[k] !== undefined && f[k] !== null) kept[k] = f[k];
      if (Object.keys(kept).length) request.filters = kept;
      if (Object.keys(kept).length && useSearchFilters === true)
        issues.push({ loc: ['filters'], msg: 'give filters or useSearchFilters, not both', type: 'value_error' });
    }
  }
  const ids = raw['paperIds'];
  if (ids !== undefined && ids !== null) {
    if (!Array.isArray(ids) || ids.length > ATTACHED_PAPERS_MAX || ids.some((i) => typeof i !== 'string' || !i.trim()))
      issues.push({ loc: ['paperIds'], msg: `up to ${ATTACHED_PAPERS_MAX} paper ids (strings)`, type: 'list_type' });
    else if (ids.length) request.attachments = { paper_ids: [...new Set(ids.map((i: string) => i.trim()))] };
  }
  // The service's own rules (brief length, filter values), so nothing bound to fail is sent.
  if (issues.length === 0)
    issues.push(
      ...validateThreadRequest(request).map((i) => ({
        ...i,
        loc: i.loc[1] === 'input_message' ? ['question'] : i.loc.slice(1),
      })),
    );
  if (issues.length) return { ok: false, message: `Invalid input: ${describeIssues(issues)}` };
  return { ok: true, request, useSearchFilters: useSearchFilters === true, waitSeconds: wait as number };
}

export type ThreadToolInput = { ok: true; threadId: string; interactionId?: string } | { ok: false; message: string };

/** The read-thread tool's input: a thread id as the service writes them, and optionally an earlier interaction. */
export function parseThreadToolInput(input: unknown): ThreadToolInput {
  if (!isObject(input)) return { ok: false, message: 'The input must be an object with a "threadId".' };
  const raw = own(input);
  const issues = unknownFields(raw, ['threadId', 'interactionId']);
  const threadId = raw['threadId'];
  if (typeof threadId !== 'string' || !THREAD_ID.test(threadId))
    issues.push({ loc: ['threadId'], msg: 'a thread id (letters, digits, _ and -)', type: 'string_pattern_mismatch' });
  const interactionId = raw['interactionId'];
  if (interactionId !== undefined && (typeof interactionId !== 'string' || !THREAD_ID.test(interactionId)))
    issues.push({ loc: ['interactionId'], msg: 'an interaction id (letters, digits, _ and -)', type: 'string_type' });
  if (issues.length) return { ok: false, message: `Invalid input: ${describeIssues(issues)}` };
  return typeof interactionId === 'string'
    ? { ok: true, threadId: threadId as string, interactionId }
    : { ok: true, threadId: threadId as string };
}

export type ListThreadsToolInput = { ok: true; query?: string; limit: number } | { ok: false; message: string };

export const LIST_THREADS_DEFAULT = 10;
export const LIST_THREADS_MAX = 30;

/** The list-threads tool's input: an optional title filter and how many. */
export function parseListThreadsToolInput(input: unknown): ListThreadsToolInput {
  const raw = isObject(input) ? own(input) : input === undefined ? {} : undefined;
  if (!raw) return { ok: false, message: 'The input must be an object (both fields are optional).' };
  const issues = unknownFields(raw, ['query', 'limit']);
  const query = raw['query'];
  if (query !== undefined && (typeof query !== 'string' || query.length > 200))
    issues.push({ loc: ['query'], msg: 'a string of at most 200 characters', type: 'string_type' });
  const limit = raw['limit'] ?? LIST_THREADS_DEFAULT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > LIST_THREADS_MAX)
    issues.push({ loc: ['limit'], msg: `an integer from 1 to ${LIST_THREADS_MAX}`, type: 'int_range' });
  if (issues.length) return { ok: false, message: `Invalid input: ${describeIssues(issues)}` };
  const q = typeof query === 'string' && query.trim() ? query.trim() : undefined;
  return q ? { ok: true, query: q, limit: limit as number } : { ok: true, limit: limit as number };
}

/** An answer as a model reads it: the text with its `[n.m]` markers, and each cited paper with its quotes. */
export interface AnswerRecord {
  threadId: string;
  title: string;
  status: string;
  interactionId?: string;
  /** The turn's answer, Markdown with citation markers, bounded. */
  answer?: string;
  /** True when the answer was longer than a model's share and was cut. */
  answerCut?: boolean;
  papers?: {
    n: number;
    id?: string;
    title: string;
    year?: number;
    journal?: string;
    url?: string;
    citeKey?: string;
    quotes: { marker: string; quote: string }[];
  }[];
  turns: number;
  url?: string;
}

/** An answer's longest share of a model's context; the answer view and Insert Answer have the whole text. */
export const ANSWER_MAX = 12_000;

/**
 * The thread's latest turn (or `interactionId`'s) as a record; `keyOf` gives the cite key of a cited paper when the
 * writer's session knows it.
 */
export function answerRecord(
  thread: Thread,
  keyOf: (citation: { paper_id?: string | null; title?: string | null }) => string | undefined,
  interactionId?: string,
): AnswerRecord {
  const turns = thread.interactions;
  const turn = (interactionId ? turns.find((i) => i.interaction_id === interactionId) : undefined) ?? turns.at(-1);
  const record: AnswerRecord = {
    threadId: thread.thread_id,
    title: plainText(thread.title ?? '', 300),
    status: turn?.status ?? thread.status,
    turns: turns.length,
  };
  if (turn) record.interactionId = turn.interaction_id;
  if (thread.url) record.url = plainText(thread.url, 300);
  if (turn?.response) {
    // Plain per line: the Markdown's structure (lists, headings, markers) stays; invisible and control characters go.
    // Lines are read until the share is full; one more character than the share tells that the answer was cut.
    const lines: string[] = [];
    let length = 0;
    for (const line of turn.response.split(/\r\n|\r|\n/)) {
      if (length > ANSWER_MAX) break;
      const plain = plainText(line, ANSWER_MAX + 1);
      lines.push(plain);
      length += plain.length + 1;
    }
    const text = lines.join('\n');
    record.answer = clip(text, ANSWER_MAX);
    if (text.length > ANSWER_MAX) record.answerCut = true;
  }
  if (turn?.citations?.length)
    record.papers = turn.citations.slice(0, 100).map((c) => {
      const paper: NonNullable<AnswerRecord['papers']>[number] = {
        n: c.n,
        title: plainText(c.title ?? '', 300),
        quotes: (c.snippets ?? []).slice(0, 5).map((s) => ({
          marker: plainText(s.marker, 20),
          quote: clip(plainText(s.quote ?? '', 600), 600),
        })),
      };
      if (c.paper_id) paper.id = plainText(c.paper_id, 200);
      if (typeof c.year === 'number') paper.year = c.year;
      if (c.journal) paper.journal = plainText(c.journal, 120);
      if (c.url) paper.url = plainText(c.url, 300);
      const key = keyOf(c);
      if (key) paper.citeKey = key;
      return paper;
    });
  return record;
}

/** A thread of the list as a model reads it. */
export function threadSummaryRecord(t: ThreadSummary): Record<string, unknown> {
  const r: Record<string, unknown> = { threadId: t.thread_id, title: plainText(t.title ?? '', 200) };
  if (t.status) r['status'] = t.status;
  if (t.preview) r['preview'] = clip(plainText(t.preview, 300), 300);
  if (typeof t.interaction_count === 'number') r['turns'] = t.interaction_count;
  if (t.last_activity_at) r['lastActivity'] = plainText(t.last_activity_at, 40);
  return r;
}
