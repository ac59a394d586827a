/**
 * Request parameters: their types, every rule of the spec checked before sending (a request
 * that breaks one would cost a call for nothing), and serialisation (query strings for GETs,
 * JSON bodies for thread POSTs). Validation collects EVERY offending field as
 * `HTTPValidationError`-style items `{ loc, msg, type }`.
 */
import { type ValidationIssue } from './errors';
import { DOMAIN_CODES, STUDY_TYPES, THREAD_MODES, type DomainCode, type StudyType, type ThreadMode } from './vocab';

/** Filter fields shared by `GET /v1/search` and thread `filters` (spec names, snake_case). */
export interface SearchFilters {
  year_min?: number;
  year_max?: number;
  /** 1..12; requires year_min. */
  month_min?: number;
  /** 1..12; requires year_max. */
  month_max?: number;
  study_types?: readonly StudyType[];
  human?: boolean;
  controlled?: boolean;
  /** >= 1 */
  sample_size_min?: number;
  /** 1..4 */
  sjr_min?: number;
  /** 1..4 */
  sjr_max?: number;
  citation_min?: number;
  duration_min?: number;
  duration_max?: number;
  exclude_preprints?: boolean;
  open_access?: boolean;
  /** Publisher display names: a list, or one comma-separated string. */
  publisher_name?: string | readonly string[];
  /** Field short codes: a list, or one comma-separated string. */
  domain?: string | readonly DomainCode[];
  /** ISO 3166-1 alpha-2 codes: a list, or one comma-separated string. */
  country?: string | readonly string[];
  journal_name?: string;
  clinical_guideline?: boolean;
  medical_mode?: boolean;
}

export interface SearchParams extends SearchFilters {
  query: string;
  include_semantic_score?: boolean;
  include_full_text_chunks?: boolean;
  /** 0..49; (page + 1) × page_size <= 1000. */
  page?: number;
  /** >= 1; capped by the service to the plan maximum. */
  page_size?: number;
}

export interface ThreadAttachments {
  /** Up to 50. */
  paper_ids?: readonly string[] | null;
  /** Up to 10 (element format not specified by the service). */
  collection_ids?: readonly (string | number)[] | null;
}

/** Body of `POST /v1/threads` and `POST /v1/threads/{id}/interactions`. */
export interface ThreadRequest {
  /** 1..10000 characters. */
  input_message: string;
  mode?: ThreadMode;
  filters?: SearchFilters | null;
  attachments?: ThreadAttachments | null;
}

export interface ListThreadsParams {
  query?: string;
  /** 1..100 */
  limit?: number;
  /** >= 0 */
  offset?: number;
}

export type Rule =
  | { t: 'int'; min?: number; max?: number }
  | { t: 'bool' }
  | { t: 'string' }
  | { t: 'studyTypes' }
  | { t: 'domain' }
  | { t: 'country' }
  | { t: 'names' };

/** Filter fields in the spec's order (also the serialisation order). */
export const FILTER_RULES: Record<keyof SearchFilters, Rule> = {
  year_min: { t: 'int' },
  year_max: { t: 'int' },
  month_min: { t: 'int', min: 1, max: 12 },
  month_max: { t: 'int', min: 1, max: 12 },
  study_types: { t: 'studyTypes' },
  human: { t: 'bool' },
  controlled: { t: 'bool' },
  sample_size_min: { t: 'int', min: 1 },
  sjr_min: { t: 'int', min: 1, max: 4 },
  sjr_max: { t: 'int', min: 1, max: 4 },
  citation_min: { t: 'int', min: 0 },
  duration_min: { t: 'int', min: 0 },
  duration_max: { t: 'int', min: 0 },
  exclude_preprints: { t: 'bool' },
  open_access: { t: 'bool' },
  publisher_name: { t: 'names' },
  domain: { t: 'domain' },
  country: { t: 'country' },
  journal_name: { t: 'string' },
  clinical_guideline: { t: 'bool' },
  medical_mode: { t: 'bool' },
};

export const SEARCH_RULES: Record<keyof SearchParams, Rule> = {
  query: { t: 'string' },
  ...FILTER_RULES,
  include_semantic_score: { t: 'bool' },
  include_full_text_chunks: { t: 'bool' },
  page: { t: 'int', min: 0, max: 49 },
  page_size: { t: 'int', min: 1 },
};

export const MAX_INPUT_MESSAGE = 10_000;
export const MAX_PAPER_IDS = 50;
export const MAX_COLLECTION_IDS = 10;
export const MAX_RESULTS_PER_QUERY = 1000;
export const DEFAULT_PAGE_SIZE = 20;
const THREAD_ID = /^[A-Za-z0-9_-]+$/;
/**
 * Longest thread or interaction id sent (the spec gives no bound). Ids come from the service and
 * go into paths, queries and messages; real ones are a few dozen characters.
 */
export const MAX_ID_LENGTH = 512;
const COUNTRY = /^[A-Za-z]{2}$/;
const studyTypeSet = new Set<string>(STUDY_TYPES);
const domainSet = new Set<string>(DOMAIN_CODES);

export const present = (v: unknown): boolean => v !== undefined && v !== null;
/** A list value given as an array or as one comma-separated string, split into trimmed items. */
export const items = (v: unknown): unknown[] | undefined =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : Array.isArray(v)
      ? (v as unknown[])
      : undefined;

/** Check one value; `loc` is built only when there is an issue (this runs on every request). */
function checkField(
  rule: Rule,
  value: unknown,
  prefix: (string | number)[],
  key: string,
  out: ValidationIssue[],
): void {
  const loc = () => [...prefix, key];
  const issue = (msg: string, type: string, at = loc()): void => {
    out.push({ loc: at, msg, type });
  };
  switch (rule.t) {
    case 'int':
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        return issue('Input should be a valid integer', 'int_type');
      if (rule.min !== undefined && value < rule.min)
        return issue(`Input should be greater than or equal to ${rule.min}`, 'greater_than_equal');
      if (rule.max !== undefined && value > rule.max)
        return issue(`Input should be less than or equal to ${rule.max}`, 'less_than_equal');
      return;
    case 'bool':
      if (typeof value !== 'boolean') issue('Input should be a valid boolean', 'bool_type');
      return;
    case 'string':
      if (typeof value !== 'string') issue('Input should be a valid string', 'string_type');
      return;
    case 'studyTypes': {
      if (!Array.isArray(value)) return issue('Input should be a valid list of study types', 'list_type');
      (value as unknown[]).forEach((s, i) => {
        if (typeof s !== 'string' || !studyTypeSet.has(s))
          issue(`Unknown study type ${JSON.stringify(s)}; expected one of the service's study types`, 'enum', [
            ...loc(),
            i,
          ]);
      });
      return;
    }
    case 'domain': {
      const list = items(value);
      if (!list) return issue('Input should be a list of domain codes or a comma-separated string', 'string_type');
      const bad = list.filter((d) => typeof d !== 'string' || !domainSet.has(d));
      if (bad.length)
        issue(
          `${bad.length === 1 ? 'Unknown domain code' : 'Unknown domain codes'} ${bad.map((b) => JSON.stringify(b)).join(', ')}; expected ${DOMAIN_CODES.join(', ')}`,
          'enum',
        );
      return;
    }
    case 'country': {
      const list = items(value);
      if (!list) return issue('Input should be a list of country codes or a comma-separated string', 'string_type');
      const bad = list.filter((c) => typeof c !== 'string' || !COUNTRY.test(c.trim()));
      if (bad.length)
        issue(
          `Country codes must be ISO 3166-1 alpha-2 (two letters): ${bad.map((b) => JSON.stringify(b)).join(', ')}`,
          'value_error',
        );
      return;
    }
    case 'names': {
      if (typeof value === 'string') return;
      if (!Array.isArray(value))
        return issue('Input should be a list of names or a comma-separated string', 'string_type');
      if ((value as unknown[]).some((n) => typeof n !== 'string' || n.includes(',') || !n.trim()))
        issue('Each name must be a non-empty string without commas (the list is sent comma-separated)', 'value_error');
      return;
    }
  }
}

/** Check fields against a rule table, flag unknown keys, then the cross-field rules of the filters. */
function checkObject(
  rules: Record<string, Rule>,
  obj: Record<string, unknown>,
  prefix: (string | number)[],
  out: ValidationIssue[],
): void {
  for (const [key, value] of Object.entries(obj)) {
    const rule = rules[key];
    if (!rule)
      out.push({
        loc: [...prefix, key],
        msg: 'Unknown parameter (not sent: a misspelt filter would be ignored silently)',
        type: 'extra_forbidden',
      });
    else if (present(value)) checkField(rule, value, prefix, key, out);
  }
  const int = (k: string): number | undefined => {
    const v = obj[k];
    return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
  };
  const at = (k: string) => [...prefix, k];
  if (present(obj.month_min) && !present(obj.year_min))
    out.push({ loc: at('month_min'), msg: 'month_min requires year_min', type: 'value_error' });
  if (present(obj.month_max) && !present(obj.year_max))
    out.push({ loc: at('month_max'), msg: 'month_max requires year_max', type: 'value_error' });
  for (const [lo, hi] of RANGE_PAIRS) {
    const a = int(lo);
    const b = int(hi);
    if (a !== undefined && b !== undefined && a > b)
      out.push({ loc: at(lo), msg: `${lo} must not exceed ${hi} (nothing could match)`, type: 'value_error' });
  }
  const [ym, yM, mm, mM] = [int('year_min'), int('year_max'), int('month_min'), int('month_max')];
  if (ym !== undefined && ym === yM && mm !== undefined && mM !== undefined && mm > mM)
    out.push({
      loc: at('month_min'),
      msg: 'month_min must not exceed month_max within the same year',
      type: 'value_error',
    });
}

const RANGE_PAIRS = [
  ['year_min', 'year_max'],
  ['sjr_min', 'sjr_max'],
  ['duration_min', 'duration_max'],
] as const;

const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** All issues of a search request (empty when it may be sent). */
export function validateSearchParams(params: SearchParams): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const obj = asRecord(params);
  if (!obj) return [{ loc: ['query'], msg: 'Search parameters should be an object', type: 'dict_type' }];
  if (!present(obj.query)) out.push({ loc: ['query', 'query'], msg: 'Field required', type: 'missing' });
  else if (typeof obj.query === 'string' && !obj.query.trim())
    out.push({ loc: ['query', 'query'], msg: 'The query must contain text', type: 'string_too_short' });
  checkObject(SEARCH_RULES, obj, ['query'], out);
  const page =
    typeof obj.page === 'number' && Number.isSafeInteger(obj.page) ? obj.page : present(obj.page) ? undefined : 0;
  const size =
    typeof obj.page_size === 'number' && Number.isSafeInteger(obj.page_size)
      ? obj.page_size
      : present(obj.page_size)
        ? undefined
        : DEFAULT_PAGE_SIZE;
  if (
    page !== undefined &&
    size !== undefined &&
    page >= 0 &&
    page <= 49 &&
    size >= 1 &&
    (page + 1) * size > MAX_RESULTS_PER_QUERY
  ) {
    const msg = `(page + 1) × page_size must not exceed ${MAX_RESULTS_PER_QUERY} (got (${page} + 1) × ${size} = ${(page + 1) * size})`;
    out.push({ loc: ['query', 'page_size'], msg, type: 'value_error' });
    if (present(obj.page)) out.push({ loc: ['query', 'page'], msg, type: 'value_error' });
  }
  return out;
}

function checkAttachments(value: unknown, prefix: (string | number)[], out: ValidationIssue[]): void {
  const obj = asRecord(value);
  if (!obj) return void out.push({ loc: prefix, msg: 'Attachments should be an object or null', type: 'dict_type' });
  for (const [key, v] of Object.entries(obj)) {
    const loc = [...prefix, key];
    if (key !== 'paper_ids' && key !== 'collection_ids')
      out.push({ loc, msg: 'Unknown attachment field', type: 'extra_forbidden' });
    else if (!present(v)) continue;
    else if (!Array.isArray(v)) out.push({ loc, msg: 'Input should be a valid list', type: 'list_type' });
    else {
      const max = key === 'paper_ids' ? MAX_PAPER_IDS : MAX_COLLECTION_IDS;
      if (v.length > max) out.push({ loc, msg: `At most ${max} ${key} (got ${v.length})`, type: 'too_long' });
      (v as unknown[]).forEach((id, i) => {
        const ok =
          key === 'paper_ids'
            ? typeof id === 'string' && id.length > 0
            : (typeof id === 'string' && id.length > 0) || typeof id === 'number';
        if (!ok) out.push({ loc: [...loc, i], msg: 'Input should be a non-empty identifier', type: 'string_type' });
      });
    }
  }
}

/** All issues of a thread or follow-up body (loc prefixed with `body`). */
export function validateThreadRequest(body: ThreadRequest): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const obj = asRecord(body);
  if (!obj) return [{ loc: ['body'], msg: 'The body should be an object', type: 'dict_type' }];
  const msg = obj.input_message;
  if (!present(msg)) out.push({ loc: ['body', 'input_message'], msg: 'Field required', type: 'missing' });
  else if (typeof msg !== 'string')
    out.push({ loc: ['body', 'input_message'], msg: 'Input should be a valid string', type: 'string_type' });
  else {
    const len = [...msg].length;
    if (!msg.trim())
      out.push({
        loc: ['body', 'input_message'],
        msg: 'The message must contain text (at least 1 character)',
        type: 'string_too_short',
      });
    else if (len > MAX_INPUT_MESSAGE)
      out.push({
        loc: ['body', 'input_message'],
        msg: `At most ${MAX_INPUT_MESSAGE} characters (got ${len})`,
        type: 'string_too_long',
      });
  }
  if (present(obj.mode) && !(THREAD_MODES as readonly unknown[]).includes(obj.mode))
    out.push({ loc: ['body', 'mode'], msg: "Input should be 'pro' or 'deep'", type: 'enum' });
  if (present(obj.filters)) {
    const f = asRecord(obj.filters);
    if (!f) out.push({ loc: ['body', 'filters'], msg: 'Filters should be an object or null', type: 'dict_type' });
    else checkObject(FILTER_RULES, f, ['body', 'filters'], out);
  }
  if (present(obj.attachments)) checkAttachments(obj.attachments, ['body', 'attachments'], out);
  for (const key of Object.keys(obj))
    if (!['input_message', 'mode', 'filters', 'attachments'].includes(key))
      out.push({ loc: ['body', key], msg: 'Unknown field', type: 'extra_forbidden' });
  return out;
}

export function validateThreadId(threadId: unknown): ValidationIssue[] {
  return typeof threadId === 'string' && threadId.length <= MAX_ID_LENGTH && THREAD_ID.test(threadId)
    ? []
    : [
        {
          loc: ['path', 'thread_id'],
          msg: `thread_id must match ^[A-Za-z0-9_-]+$ and have at most ${MAX_ID_LENGTH} characters`,
          type: 'string_pattern_mismatch',
        },
      ];
}

export function validateInteractionId(interactionId: unknown): ValidationIssue[] {
  return interactionId === undefined ||
    (typeof interactionId === 'string' && interactionId.length > 0 && interactionId.length <= MAX_ID_LENGTH)
    ? []
    : [
        {
          loc: ['query', 'interaction_id'],
          msg: `interaction_id should be a non-empty string of at most ${MAX_ID_LENGTH} characters`,
          type: 'string_type',
        },
      ];
}

export function validateListParams(params: ListThreadsParams): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const rules: Record<string, Rule> = {
    query: { t: 'string' },
    limit: { t: 'int', min: 1, max: 100 },
    offset: { t: 'int', min: 0 },
  };
  for (const key of ['query', 'limit', 'offset'] as const) {
    const rule = rules[key];
    if (rule && present(params[key])) checkField(rule, params[key], ['query'], key, out);
  }
  return out;
}
