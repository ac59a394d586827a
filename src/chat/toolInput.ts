/**
 * What the language model tools take and give, without vscode: a model's input checked field by field (VS Code does
 * not validate it against the declared schema), and papers as compact records small enough for a model's context.
 * A model's input is untrusted like a webview message; what goes back is service text made plain.
 */
import type { Paper, SearchFilters, SearchParams } from '../api/index';
import { validateSearchParams } from '../api/params';
import { describeIssues, type ValidationIssue } from '../api/errors';
import { clip, plainText } from '../shared/plainText';

/** Papers a search tool returns by default and at most: a model reads them all, and 20 fit any context. */
export const TOOL_RESULTS_DEFAULT = 10;
export const TOOL_RESULTS_MAX = 20;
/** Longest query a tool accepts (the service's own limit is longer; a model has no reason to go near it). */
export const TOOL_QUERY_MAX = 500;

/** The filters a search tool passes on: every filter of `/v1/search`, nothing about paging or the response. */
export const TOOL_FILTER_KEYS = [
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
] as const satisfies readonly (keyof SearchFilters)[];

export type SearchToolInput = { ok: true; params: SearchParams } | { ok: false; message: string };

/**
 * A search tool's input as the service's parameters, or one message naming every field that is wrong. Unknown
 * fields are refused rather than dropped, so a model that misspells a filter learns it instead of searching
 * without it (and paying for that).
 */
export function parseSearchToolInput(input: unknown): SearchToolInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { ok: false, message: 'The input must be an object with at least a "query".' };
  const raw: Record<string, unknown> = Object.fromEntries(Object.entries(input));
  const issues: ValidationIssue[] = [];
  const known = new Set<string>(['query', 'limit', ...TOOL_FILTER_KEYS]);
  const unknown = Object.keys(raw).filter((k) => !known.has(k));
  if (unknown.length)
    issues.push({
      loc: unknown.slice(0, 5),
      msg: `unknown field(s); the filters are: ${TOOL_FILTER_KEYS.join(', ')}`,
      type: 'extra_forbidden',
    });
  const query = raw['query'];
  if (typeof query !== 'string' || !query.trim())
    issues.push({ loc: ['query'], msg: 'a non-empty string is required', type: 'missing' });
  else if (query.length > TOOL_QUERY_MAX)
    issues.push({ loc: ['query'], msg: `at most ${TOOL_QUERY_MAX} characters`, type: 'string_too_long' });
  const limit = raw['limit'] ?? TOOL_RESULTS_DEFAULT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > TOOL_RESULTS_MAX)
    issues.push({ loc: ['limit'], msg: `an integer from 1 to ${TOOL_RESULTS_MAX}`, type: 'int_range' });
  const params: Record<string, unknown> = {
    query: typeof query === 'string' ? query.trim() : '',
    page_size: typeof limit === 'number' ? limit : TOOL_RESULTS_DEFAULT,
  };
  for (const k of TOOL_FILTER_KEYS) if (raw[k] !== undefined && raw[k] !== null) params[k] = raw[k];
  if (issues.length === 0) issues.push(...validateSearchParams(params as unknown as SearchParams));
  if (issues.length) return { ok: false, message: `Invalid search input: ${describeIssues(issues)}` };
  return { ok: true, params: params as unknown as SearchParams };
}

/** A paper as a model reads it: what identifies and summarises it, each text plain and bounded. */
export interface PaperRecord {
  n: number;
  title: string;
  authors: string[];
  year?: number;
  journal?: string;
  studyType?: string;
  takeaway?: string;
  citations?: number;
  doi?: string;
  url?: string;
  /** The key Insert Citation would write for it (suffixed when the bibliography already uses the key). */
  citeKey: string;
}

/** Compact records of `papers`, numbered from 1, with the cite key `keyOf` predicts for each. */
export function paperRecords(papers: readonly Paper[], keyOf: (paper: Paper) => string): PaperRecord[] {
  return papers.map((p, i) => {
    const authors = (p.authors ?? []).map((a) => plainText(a, 80)).filter(Boolean);
    const record: PaperRecord = {
      n: i + 1,
      title: plainText(p.title, 300),
      authors: authors.length > 3 ? [...authors.slice(0, 3), 'et al.'] : authors,
      citeKey: keyOf(p),
    };
    if (typeof p.publish_year === 'number') record.year = p.publish_year;
    if (p.journal_name) record.journal = plainText(p.journal_name, 120);
    if (p.study_type) record.studyType = plainText(p.study_type, 60);
    if (p.takeaway) record.takeaway = clip(plainText(p.takeaway, 400), 400);
    if (typeof p.citation_count === 'number') record.citations = p.citation_count;
    if (p.doi) record.doi = plainText(p.doi, 200);
    if (p.url) record.url = plainText(p.url, 300);
    return record;
  });
}
