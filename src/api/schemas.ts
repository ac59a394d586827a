/**
 * zod 4 schemas (the `zod/mini` build: the same checks, a fraction of the bundle) of every response body, lenient where
 * the real service is: unknown fields pass (loose objects), nullable/optional fields may be null or absent, and a paper
 * missing a field the spec calls required still passes (`paperGaps` reports it for the log). A body
 * of the wrong shape becomes `ApiError` kind `invalid_response` (`parseBody`).
 * The public response types are inferred from these schemas. Search pages take a zero-copy
 * path (`parseSearchResponse`) that applies the same rules from the same field table.
 */
import * as z from 'zod/mini';
import { boundedSeconds, MAX_WAIT_BOUNDS, POLL_AFTER_BOUNDS } from '../shared/timing';
import { ApiError } from './errors';
import { THREAD_MODES, THREAD_STATUSES } from './vocab';

const str = z.nullish(z.string());
const num = z.nullish(z.number());

/** Value kinds of paper fields; each maps to one lenient (nullish) zod schema below. */
const KIND = {
  string: str,
  number: num,
  boolean: z.nullish(z.boolean()),
  strings: z.nullish(z.array(z.string())),
  /** Volume, pages, DOI: text; a number sent by some sources is turned into text. */
  text: z.nullish(z.union([z.string(), z.pipe(z.number(), z.transform(String))])),
} as const;
type Kind = keyof typeof KIND;

/** Every paper field of the spec and its kind: the one table both the zod schema and the fast check use. */
const PAPER_FIELDS = {
  // Required by the spec, but tolerated when null or absent (see paperGaps).
  abstract: 'string',
  authors: 'strings',
  doi: 'text',
  journal_name: 'string',
  pages: 'text',
  publish_year: 'number',
  title: 'string',
  url: 'string',
  volume: 'text',
  citation_count: 'number',
  // Optional.
  semantic_score: 'number',
  study_type: 'string',
  takeaway: 'string',
  publisher_name: 'string',
  full_text_chunks: 'strings',
  sjr_best_quartile: 'number',
  sample_size: 'number',
  study_count: 'number',
  population_type: 'string',
  is_preprint: 'boolean',
  countries_of_study: 'strings',
  study_duration_days: 'number',
  influential_citation_count: 'number',
  institutions: 'strings',
  publish_date: 'string',
} as const satisfies Record<string, Kind>;
type PaperShape = { [F in keyof typeof PAPER_FIELDS]: (typeof KIND)[(typeof PAPER_FIELDS)[F]] };

export const PaperSchema = z.looseObject(
  Object.fromEntries(Object.entries(PAPER_FIELDS).map(([f, k]) => [f, KIND[k]])) as PaperShape,
);
export type Paper = z.output<typeof PaperSchema>;

const PAPER_ENTRIES = Object.entries<Kind>(PAPER_FIELDS);

/**
 * Check one paper in place against PAPER_FIELDS with exactly the rules of PaperSchema (numeric
 * text fields are turned into strings). Used on the search hot path: it accepts what the zod
 * schema accepts without copying twenty objects per page; anything it rejects goes to zod,
 * which names the mismatch.
 */
function checkPaperInPlace(p: unknown): boolean {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return false;
  const rec = p as Record<string, unknown>;
  for (const [f, kind] of PAPER_ENTRIES) {
    const v = rec[f];
    if (v === undefined || v === null) continue;
    switch (kind) {
      case 'text':
        if (typeof v === 'number' && Number.isFinite(v)) rec[f] = String(v);
        else if (typeof v !== 'string') return false;
        break;
      case 'string':
        if (typeof v !== 'string') return false;
        break;
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v)) return false;
        break;
      case 'boolean':
        if (typeof v !== 'boolean') return false;
        break;
      case 'strings':
        if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return false;
    }
  }
  return true;
}

/** Fields the spec marks required on a paper result. */
export const REQUIRED_PAPER_FIELDS = [
  'abstract',
  'authors',
  'doi',
  'journal_name',
  'pages',
  'publish_year',
  'title',
  'url',
  'volume',
  'citation_count',
] as const;

const envelope = {
  page: num,
  page_size: num,
  is_end: z.nullish(z.boolean()),
  next_page: num,
};
const withDefaults = <
  T extends { page?: number | null; page_size?: number | null; is_end?: boolean | null; next_page?: number | null },
>(
  r: T,
) => ({
  ...r,
  page: r.page ?? 0,
  page_size: r.page_size ?? 20,
  is_end: r.is_end ?? (r.next_page === null || r.next_page === undefined),
});

export const SearchResponseSchema = z.pipe(
  z.looseObject({ results: z.array(PaperSchema), ...envelope }),
  z.transform(withDefaults),
);
export type SearchResponse = z.output<typeof SearchResponseSchema>;

/** Count, per spec-required field, the results that lack it (null or absent). */
export function paperGaps(results: readonly Paper[]): Map<string, number> {
  const gaps = new Map<string, number>();
  for (const p of results)
    for (const f of REQUIRED_PAPER_FIELDS) if (p[f] === undefined || p[f] === null) gaps.set(f, (gaps.get(f) ?? 0) + 1);
  return gaps;
}

/** `Section: <heading> | <passage>` split on the first pipe (spec "Full-text excerpt format"). */
export function parseExcerpt(chunk: string): { section: string | undefined; passage: string } {
  const bar = chunk.indexOf('|');
  if (bar < 0) return { section: undefined, passage: chunk.trim() };
  const head = chunk.slice(0, bar).trim();
  return { section: head.replace(/^Section:\s*/i, '') || undefined, passage: chunk.slice(bar + 1).trim() };
}

const Status = z.enum(THREAD_STATUSES);
const Mode = z.enum(THREAD_MODES);

export const SnippetSchema = z.looseObject({ marker: z.string(), quote: str, section: str });
export const CitationSchema = z.looseObject({
  n: z.number(),
  paper_id: str,
  title: str,
  year: num,
  journal: str,
  url: str,
  snippets: z.nullish(z.array(SnippetSchema)),
});
export type Citation = z.output<typeof CitationSchema>;

export const InteractionSchema = z.looseObject({
  interaction_id: z.string(),
  status: Status,
  mode: z.nullish(Mode),
  response: str,
  citations: z.nullish(z.array(CitationSchema)),
  stats: z.nullish(z.looseObject({ retrieved: num, screened: num, included: num })),
});
export type Interaction = z.output<typeof InteractionSchema>;

export const ThreadSchema = z.pipe(
  z.looseObject({
    thread_id: z.string(),
    title: str,
    status: Status,
    url: str,
    interactions: z.nullish(z.array(InteractionSchema)),
    /** Readable agent log, present when `includeTrace` was asked. */
    trace: str,
  }),
  z.transform((t) => ({ ...t, interactions: t.interactions ?? [] })),
);
export type Thread = z.output<typeof ThreadSchema>;

export const ThreadSummarySchema = z.looseObject({
  thread_id: z.string(),
  title: str,
  url: str,
  /** Absent for threads inactive past the status window: poll the thread for the truth. */
  status: z.nullish(Status),
  preview: str,
  interaction_count: num,
  last_activity_at: str,
});
export type ThreadSummary = z.output<typeof ThreadSummarySchema>;

export const ThreadListSchema = z.pipe(
  z.looseObject({ threads: z.array(ThreadSummarySchema), has_more: z.nullish(z.boolean()) }),
  z.transform((l) => ({ ...l, has_more: l.has_more ?? false })),
);
export type ThreadList = z.output<typeof ThreadListSchema>;

/** Spec defaults used when the service omits the polling hints (and for reconciled results). */
export const DEFAULT_POLL_AFTER_SECONDS = POLL_AFTER_BOUNDS.fallback;
export const defaultMaxWaitSeconds = (mode: string | null | undefined): number => (mode === 'deep' ? 600 : 180);

export const ThreadDispatchSchema = z.pipe(
  z.looseObject({
    thread_id: z.string(),
    interaction_id: z.string(),
    status: Status,
    mode: Mode,
    url: str,
    // Read leniently and bounded below (src/shared/timing.ts): a wrong hint must not make an accepted POST unreadable,
    // and every consumer of a parsed dispatch sees sane values.
    poll_after_seconds: z.unknown(),
    max_wait_seconds: z.unknown(),
    created_at: str,
    title: str,
  }),
  z.transform((d) => ({
    ...d,
    poll_after_seconds: boundedSeconds(d.poll_after_seconds, POLL_AFTER_BOUNDS),
    max_wait_seconds: boundedSeconds(d.max_wait_seconds, {
      ...MAX_WAIT_BOUNDS,
      fallback: defaultMaxWaitSeconds(d.mode),
    }),
    /** True when the POST failed ambiguously and the client found the thread/interaction it had created. */
    reconciled: false,
  })),
);
export type ThreadDispatch = z.output<typeof ThreadDispatchSchema>;

const isNum = (v: unknown) => v === undefined || v === null || (typeof v === 'number' && Number.isFinite(v));

/**
 * `parseBody(SearchResponseSchema, …)` with a zero-copy fast path: the envelope and the papers are
 * checked in place with the schema's own rules; only a body that fails goes through the full zod
 * schema (which then throws `invalid_response` naming the first mismatch).
 */
export function parseSearchResponse(body: unknown, where: string): SearchResponse {
  const r = body as {
    results?: unknown;
    page?: unknown;
    page_size?: unknown;
    is_end?: unknown;
    next_page?: unknown;
  } | null;
  if (
    typeof r === 'object' &&
    r !== null &&
    !Array.isArray(r) &&
    Array.isArray(r.results) &&
    isNum(r.page) &&
    isNum(r.page_size) &&
    isNum(r.next_page) &&
    (r.is_end === undefined || r.is_end === null || typeof r.is_end === 'boolean') &&
    (r.results as unknown[]).every(checkPaperInPlace)
  )
    return withDefaults(
      r as {
        [k: string]: unknown;
        results: Paper[];
        page?: number | null;
        page_size?: number | null;
        is_end?: boolean | null;
        next_page?: number | null;
      },
    );
  return parseBody(SearchResponseSchema, body, where);
}

/** Parse a response body or throw `invalid_response` naming the first mismatch (path only, no values). */
export function parseBody<S extends z.ZodMiniType>(schema: S, body: unknown, where: string): z.output<S> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const first = r.error.issues[0];
  const path = first?.path.length ? first.path.join('.') : '(body)';
  throw new ApiError(
    'invalid_response',
    `The service's answer to ${where} did not have the expected shape (${path}: ${first?.message ?? 'invalid'}). The service may have changed; try again later or update the extension.`,
  );
}
