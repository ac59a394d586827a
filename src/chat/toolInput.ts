/**
 * What the language model tools take and give, without vscode: a model's input checked field by field (VS Code does
 * not validate it against the declared schema), and papers as compact records small enough for a model's context.
 * A model's input is untrusted like a webview message; what goes back is service text made plain.
 */
import type { Paper, SearchFilters, SearchParams } from '../api/index';
import { validateSearchParams } from '../api/params';
import { parseExcerpt } from '../api/schemas';
import { describeIssues, type ValidationIssue } from '../api/errors';
import { paperId } from '../search/query';
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
  const known = new Set<string>(['query', 'limit', 'excerpts', ...TOOL_FILTER_KEYS]);
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
  const excerpts = raw['excerpts'] ?? false;
  if (typeof excerpts !== 'boolean') issues.push({ loc: ['excerpts'], msg: 'true or false', type: 'bool_type' });
  const params: Record<string, unknown> = {
    query: typeof query === 'string' ? query.trim() : '',
    page_size: typeof limit === 'number' ? limit : TOOL_RESULTS_DEFAULT,
  };
  if (excerpts === true) params['include_full_text_chunks'] = true;
  for (const k of TOOL_FILTER_KEYS) if (raw[k] !== undefined && raw[k] !== null) params[k] = raw[k];
  if (issues.length === 0) issues.push(...validateSearchParams(params as unknown as SearchParams));
  if (issues.length) return { ok: false, message: `Invalid search input: ${describeIssues(issues)}` };
  return { ok: true, params: params as unknown as SearchParams };
}

/** A paper as a model reads it: what identifies and summarises it, each text plain and bounded. */
export interface PaperRecord {
  n: number;
  /** The service's id of the paper: what the other tools take to name it. */
  id: string;
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
      id: plainText(paperId(p), 200),
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

/** How many papers one call of a tool that takes papers may name. */
export const PAPER_REFS_MAX = 20;

export type PaperRefsInput = { ok: true; refs: string[] } | { ok: false; message: string };

/**
 * The `papers` of a tool's input: each the id, cite key or DOI of a paper a search returned (the records carry all
 * three), so a model names papers it was shown instead of describing them, and nothing is looked up by a guess.
 */
export function parsePaperRefs(input: unknown): PaperRefsInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { ok: false, message: 'The input must be an object with "papers": a list of paper ids, cite keys or DOIs.' };
  const raw: Record<string, unknown> = Object.fromEntries(Object.entries(input));
  const unknown = Object.keys(raw).filter((k) => k !== 'papers');
  if (unknown.length)
    return { ok: false, message: `Unknown field(s): ${unknown.slice(0, 5).join(', ')}; only "papers".` };
  const papers = raw['papers'];
  const list = typeof papers === 'string' ? [papers] : papers;
  if (!Array.isArray(list) || list.length === 0 || list.length > PAPER_REFS_MAX)
    return { ok: false, message: `"papers" must list 1 to ${PAPER_REFS_MAX} paper ids, cite keys or DOIs.` };
  const refs: string[] = [];
  for (const ref of list) {
    if (typeof ref !== 'string' || !ref.trim() || ref.length > 300)
      return { ok: false, message: 'Each of "papers" must be a paper id, cite key or DOI (a non-empty string).' };
    if (!refs.includes(ref.trim())) refs.push(ref.trim());
  }
  return { ok: true, refs };
}

/** A paper in full, as the details tool gives it: the record plus what a writer checks before citing. */
export interface PaperDetails extends PaperRecord {
  abstract?: string;
  volume?: string;
  pages?: string;
  publisher?: string;
  date?: string;
  sampleSize?: number;
  studyCount?: number;
  population?: string;
  countries?: string[];
  durationDays?: number;
  journalQuartile?: number;
  influentialCitations?: number;
  preprint?: boolean;
  institutions?: string[];
  /** The query-relevant passages of the full text, when the search that found the paper asked for them. */
  excerpts?: { section?: string; passage: string }[];
}

/** Longest abstract handed to a model: a whole abstract fits; a paper's full text would not. */
const ABSTRACT_MAX = 4000;
const AUTHORS_MAX = 50;

/** `paper` in full (each text plain and bounded), numbered `n`, with the cite key `citeKey`. */
export function paperDetails(paper: Paper, n: number, citeKey: string): PaperDetails {
  const [record] = paperRecords([paper], () => citeKey);
  const d: PaperDetails = { ...record!, n };
  const authors = (paper.authors ?? []).map((a) => plainText(a, 80)).filter(Boolean);
  d.authors = authors.length > AUTHORS_MAX ? [...authors.slice(0, AUTHORS_MAX), 'et al.'] : authors;
  const str = (v: string | null | undefined, max: number): string | undefined => (v ? plainText(v, max) : undefined);
  const int = (v: number | null | undefined): number | undefined =>
    typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  const fields: Partial<PaperDetails> = {
    abstract: paper.abstract ? clip(plainText(paper.abstract, ABSTRACT_MAX), ABSTRACT_MAX) : undefined,
    volume: str(paper.volume, 40),
    pages: str(paper.pages, 40),
    publisher: str(paper.publisher_name, 120),
    date: str(paper.publish_date, 20),
    sampleSize: int(paper.sample_size),
    studyCount: int(paper.study_count),
    population: str(paper.population_type, 20),
    countries: paper.countries_of_study?.slice(0, 20).map((c) => plainText(c, 60)),
    durationDays: int(paper.study_duration_days),
    journalQuartile: int(paper.sjr_best_quartile),
    influentialCitations: int(paper.influential_citation_count),
    preprint: typeof paper.is_preprint === 'boolean' ? paper.is_preprint : undefined,
    institutions: paper.institutions?.slice(0, 10).map((i) => plainText(i, 160)),
    excerpts: paper.full_text_chunks?.slice(0, 3).map((chunk) => {
      const e = parseExcerpt(chunk);
      const passage = clip(plainText(e.passage, 1500), 1500);
      return e.section ? { section: plainText(e.section, 120), passage } : { passage };
    }),
  };
  for (const [k, v] of Object.entries(fields))
    if (v !== undefined && !(Array.isArray(v) && v.length === 0)) (d as unknown as Record<string, unknown>)[k] = v;
  return d;
}
