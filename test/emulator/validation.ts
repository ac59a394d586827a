// Request validation with FastAPI/pydantic-style 422 items ({loc, msg, type}); every offending
// field is reported at once.
import { type Filters } from './engine';
import { DOMAINS, ISO_COUNTRIES, STUDY_TYPES } from './vocab';

export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export const ID_PATTERN = /^[A-Za-z0-9_-]+$/;
const INT_RE = /^[+-]?\d+$/;
const DOMAIN_SET = new Set<string>(DOMAINS);
const norm = (s: string): string =>
  s
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/\s*,\s*/g, ',')
    .trim();
const STUDY_TYPE_BY_NORM = new Map<string, string>(STUDY_TYPES.map((t) => [norm(t), t]));
const MAX_STUDY_TYPE_PARTS = Math.max(...STUDY_TYPES.map((t) => t.split(',').length));

/**
 * Parse a comma-separated study type list. Values may themselves contain commas
 * ("theoretical, modeling, or simulation study"), so after splitting on commas the parts are
 * re-joined greedily: at each position the longest run of parts that forms a known value wins.
 * Returns known values (canonical spelling) and the unknown parts.
 */
export function parseStudyTypes(raw: string): { values: string[]; unknown: string[] } {
  const parts = raw.split(',');
  const values: string[] = [];
  const unknown: string[] = [];
  let i = 0;
  while (i < parts.length) {
    let matched = 0;
    for (let len = Math.min(MAX_STUDY_TYPE_PARTS, parts.length - i); len >= 1; len--) {
      const cand = STUDY_TYPE_BY_NORM.get(norm(parts.slice(i, i + len).join(',')));
      if (cand) {
        values.push(cand);
        matched = len;
        break;
      }
    }
    if (matched === 0) {
      const p = parts[i]!.trim();
      if (p !== '') unknown.push(p);
      i += 1;
    } else i += matched;
  }
  return { values: [...new Set(values)], unknown };
}

type Kind = 'int' | 'bool' | 'studyTypes' | 'domain' | 'country' | 'csv' | 'string';
interface FieldSpec {
  kind: Kind;
  min?: number;
  max?: number;
}

export const FILTER_FIELDS: Record<keyof Filters, FieldSpec> = {
  year_min: { kind: 'int' },
  year_max: { kind: 'int' },
  month_min: { kind: 'int', min: 1, max: 12 },
  month_max: { kind: 'int', min: 1, max: 12 },
  study_types: { kind: 'studyTypes' },
  human: { kind: 'bool' },
  controlled: { kind: 'bool' },
  sample_size_min: { kind: 'int', min: 1 },
  sjr_min: { kind: 'int', min: 1, max: 4 },
  sjr_max: { kind: 'int', min: 1, max: 4 },
  citation_min: { kind: 'int' },
  duration_min: { kind: 'int' },
  duration_max: { kind: 'int' },
  exclude_preprints: { kind: 'bool' },
  open_access: { kind: 'bool' },
  publisher_name: { kind: 'csv' },
  domain: { kind: 'domain' },
  country: { kind: 'country' },
  journal_name: { kind: 'string' },
  clinical_guideline: { kind: 'bool' },
  medical_mode: { kind: 'bool' },
};

const STUDY_TYPE_MSG = `Input should be ${STUDY_TYPES.map((t) => `'${t}'`).join(', ')}`;

class Collector {
  readonly items: ValidationItem[] = [];
  add(loc: (string | number)[], msg: string, type: string): void {
    this.items.push({ loc, msg, type });
  }
}

/** Convert one raw value (string from a query, or JSON value from a body) for a field. */
function convert(c: Collector, loc: (string | number)[], spec: FieldSpec, raw: unknown, fromQuery: boolean): unknown {
  switch (spec.kind) {
    case 'int': {
      let v: number | undefined;
      if (typeof raw === 'number' && Number.isInteger(raw)) v = raw;
      else if (typeof raw === 'string' && INT_RE.test(raw.trim())) v = Number(raw.trim());
      if (v === undefined || !Number.isSafeInteger(v)) {
        if (typeof raw === 'number' && Number.isFinite(raw))
          c.add(loc, 'Input should be a valid integer, got a number with a fractional part', 'int_from_float');
        else if (typeof raw === 'string' || fromQuery)
          c.add(loc, 'Input should be a valid integer, unable to parse string as an integer', 'int_parsing');
        else c.add(loc, 'Input should be a valid integer', 'int_type');
        return undefined;
      }
      if (spec.min !== undefined && v < spec.min) {
        c.add(loc, `Input should be greater than or equal to ${spec.min}`, 'greater_than_equal');
        return undefined;
      }
      if (spec.max !== undefined && v > spec.max) {
        c.add(loc, `Input should be less than or equal to ${spec.max}`, 'less_than_equal');
        return undefined;
      }
      return v;
    }
    case 'bool': {
      if (typeof raw === 'boolean') return raw;
      if (typeof raw === 'string') {
        const s = raw.trim().toLowerCase();
        if (s === 'true') return true;
        if (s === 'false') return false;
        c.add(loc, 'Input should be a valid boolean, unable to interpret input', 'bool_parsing');
        return undefined;
      }
      c.add(loc, 'Input should be a valid boolean', 'bool_type');
      return undefined;
    }
    case 'studyTypes': {
      const strings = asStringList(c, loc, raw);
      if (!strings) return undefined;
      const values: string[] = [];
      let bad = false;
      strings.forEach((s, i) => {
        const r = parseStudyTypes(s);
        values.push(...r.values);
        for (const u of r.unknown) {
          bad = true;
          c.add([...loc, Array.isArray(raw) ? i : u], `${STUDY_TYPE_MSG}; got '${clip(u)}'`, 'enum');
        }
      });
      return bad ? undefined : [...new Set(values)];
    }
    case 'domain': {
      const strings = asStringList(c, loc, raw);
      if (!strings) return undefined;
      const parts = strings
        .flatMap((s) => s.split(','))
        .map((s) => s.trim().toLowerCase())
        .filter((s) => s !== '');
      const unknown = parts.filter((p) => !DOMAIN_SET.has(p));
      if (unknown.length > 0) {
        c.add(
          loc,
          `Unknown domain code(s): ${unknown.map((u) => `'${clip(u)}'`).join(', ')}; valid codes: ${DOMAINS.join(', ')}`,
          'enum',
        );
        return undefined;
      }
      return [...new Set(parts)];
    }
    case 'country': {
      const strings = asStringList(c, loc, raw);
      if (!strings) return undefined;
      // Unknown codes are ignored; if none resolve the filter is not applied.
      const codes = strings
        .flatMap((s) => s.split(','))
        .map((s) => s.trim().toUpperCase())
        .filter((s) => ISO_COUNTRIES.has(s));
      return codes.length > 0 ? [...new Set(codes)] : undefined;
    }
    case 'csv': {
      const strings = asStringList(c, loc, raw);
      if (!strings) return undefined;
      const parts = strings
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter((s) => s !== '');
      return parts.length > 0 ? parts : undefined;
    }
    case 'string': {
      if (typeof raw !== 'string') {
        c.add(loc, 'Input should be a valid string', 'string_type');
        return undefined;
      }
      return raw.trim() === '' ? undefined : raw;
    }
  }
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function asStringList(c: Collector, loc: (string | number)[], raw: unknown): string[] | undefined {
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw)) {
    let ok = true;
    raw.forEach((v, i) => {
      if (typeof v !== 'string') {
        ok = false;
        c.add([...loc, i], 'Input should be a valid string', 'string_type');
      }
    });
    return ok ? (raw as string[]) : undefined;
  }
  c.add(loc, 'Input should be a valid string or list of strings', 'string_type');
  return undefined;
}

function crossChecks(c: Collector, prefix: (string | number)[], f: Filters, rawHas: (k: string) => boolean): void {
  if (rawHas('month_min') && !rawHas('year_min'))
    c.add([...prefix, 'month_min'], 'month_min requires year_min', 'value_error');
  if (rawHas('month_max') && !rawHas('year_max'))
    c.add([...prefix, 'month_max'], 'month_max requires year_max', 'value_error');
  void f;
}

export interface SearchParams {
  query: string;
  filters: Filters;
  include_semantic_score: boolean;
  include_full_text_chunks: boolean;
  page: number;
  page_size: number;
}

/** Query values: last occurrence wins for scalars; list parameters join every occurrence. */
export function validateSearch(
  q: URLSearchParams,
): { ok: true; params: SearchParams } | { ok: false; items: ValidationItem[] } {
  const c = new Collector();
  const last = (k: string): string | undefined => {
    const all = q.getAll(k);
    return all.length > 0 ? all[all.length - 1] : undefined;
  };
  const query = last('query');
  if (query === undefined) c.add(['query', 'query'], 'Field required', 'missing');
  else if (query.trim() === '')
    c.add(['query', 'query'], 'String should have at least 1 character', 'string_too_short');

  const filters: Filters = {};
  const present = new Set<string>();
  for (const [name, spec] of Object.entries(FILTER_FIELDS) as [keyof Filters, FieldSpec][]) {
    const all = q.getAll(name);
    if (all.length === 0) continue;
    present.add(name);
    const listKind =
      spec.kind === 'studyTypes' || spec.kind === 'domain' || spec.kind === 'country' || spec.kind === 'csv';
    const raw = listKind ? all : all[all.length - 1]!;
    const v = convert(c, ['query', name], spec, listKind && all.length === 1 ? all[0] : raw, true);
    if (v !== undefined) (filters as Record<string, unknown>)[name] = v;
  }
  crossChecks(c, ['query'], filters, (k) => present.has(k));

  const bool = (name: string): boolean => {
    const v = last(name);
    if (v === undefined) return false;
    return (convert(c, ['query', name], { kind: 'bool' }, v, true) as boolean | undefined) ?? false;
  };
  const include_semantic_score = bool('include_semantic_score');
  const include_full_text_chunks = bool('include_full_text_chunks');
  let page = 0;
  let page_size = 20;
  const rawPage = last('page');
  const rawSize = last('page_size');
  let pageOk = true;
  let sizeOk = true;
  if (rawPage !== undefined) {
    const v = convert(c, ['query', 'page'], { kind: 'int', min: 0, max: 49 }, rawPage, true) as number | undefined;
    if (v === undefined) pageOk = false;
    else page = v;
  }
  if (rawSize !== undefined) {
    const v = convert(c, ['query', 'page_size'], { kind: 'int', min: 1 }, rawSize, true) as number | undefined;
    if (v === undefined) sizeOk = false;
    else page_size = v;
  }
  if (pageOk && sizeOk && (page + 1) * page_size > 1000) {
    c.add(
      ['query', 'page'],
      `(page + 1) x page_size must not exceed 1000 (got (${page} + 1) x ${page_size} = ${(page + 1) * page_size})`,
      'value_error',
    );
  }
  if (c.items.length > 0) return { ok: false, items: c.items };
  return {
    ok: true,
    params: { query: query!, filters, include_semantic_score, include_full_text_chunks, page, page_size },
  };
}

export interface ThreadBody {
  input_message: string;
  mode: 'pro' | 'deep';
  filters: Filters | null;
  attachments: { paper_ids: string[]; collection_ids: (string | number)[] } | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function validateThreadBody(
  body: unknown,
): { ok: true; body: ThreadBody } | { ok: false; items: ValidationItem[] } {
  const c = new Collector();
  if (!isObj(body)) {
    c.add(['body'], 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type');
    return { ok: false, items: c.items };
  }
  const msg = body.input_message;
  if (msg === undefined) c.add(['body', 'input_message'], 'Field required', 'missing');
  else if (typeof msg !== 'string') c.add(['body', 'input_message'], 'Input should be a valid string', 'string_type');
  else {
    const len = [...msg].length;
    if (msg.trim() === '')
      c.add(['body', 'input_message'], 'String should have at least 1 character', 'string_too_short');
    else if (len > 10000)
      c.add(['body', 'input_message'], 'String should have at most 10000 characters', 'string_too_long');
  }
  let mode: 'pro' | 'deep' = 'pro';
  if (body.mode !== undefined && body.mode !== null) {
    if (body.mode === 'pro' || body.mode === 'deep') mode = body.mode;
    else c.add(['body', 'mode'], "Input should be 'pro' or 'deep'", 'enum');
  }
  let filters: Filters | null = null;
  if (body.filters !== undefined && body.filters !== null) {
    if (!isObj(body.filters))
      c.add(
        ['body', 'filters'],
        'Input should be a valid dictionary or object to extract fields from',
        'model_attributes_type',
      );
    else {
      filters = {};
      const present = new Set<string>();
      for (const [k, raw] of Object.entries(body.filters)) {
        const spec = (FILTER_FIELDS as Record<string, FieldSpec | undefined>)[k];
        if (!spec) {
          c.add(['body', 'filters', k], 'Extra inputs are not permitted', 'extra_forbidden');
          continue;
        }
        if (raw === null || raw === undefined) continue;
        present.add(k);
        const v = convert(c, ['body', 'filters', k], spec, raw, false);
        if (v !== undefined) (filters as Record<string, unknown>)[k] = v;
      }
      crossChecks(c, ['body', 'filters'], filters, (k) => present.has(k));
    }
  }
  let attachments: ThreadBody['attachments'] = null;
  if (body.attachments !== undefined && body.attachments !== null) {
    if (!isObj(body.attachments))
      c.add(
        ['body', 'attachments'],
        'Input should be a valid dictionary or object to extract fields from',
        'model_attributes_type',
      );
    else {
      attachments = { paper_ids: [], collection_ids: [] };
      for (const k of Object.keys(body.attachments)) {
        if (k !== 'paper_ids' && k !== 'collection_ids')
          c.add(['body', 'attachments', k], 'Extra inputs are not permitted', 'extra_forbidden');
      }
      const pids = body.attachments.paper_ids;
      if (pids !== undefined && pids !== null) {
        if (!Array.isArray(pids))
          c.add(['body', 'attachments', 'paper_ids'], 'Input should be a valid list', 'list_type');
        else if (pids.length > 50)
          c.add(
            ['body', 'attachments', 'paper_ids'],
            `List should have at most 50 items after validation, not ${pids.length}`,
            'too_long',
          );
        else {
          pids.forEach((p, i) => {
            if (typeof p !== 'string')
              c.add(['body', 'attachments', 'paper_ids', i], 'Input should be a valid string', 'string_type');
            else if (p === '')
              c.add(
                ['body', 'attachments', 'paper_ids', i],
                'String should have at least 1 character',
                'string_too_short',
              );
          });
          attachments.paper_ids = pids.filter((p): p is string => typeof p === 'string');
        }
      }
      const cids = body.attachments.collection_ids;
      if (cids !== undefined && cids !== null) {
        if (!Array.isArray(cids))
          c.add(['body', 'attachments', 'collection_ids'], 'Input should be a valid list', 'list_type');
        else if (cids.length > 10)
          c.add(
            ['body', 'attachments', 'collection_ids'],
            `List should have at most 10 items after validation, not ${cids.length}`,
            'too_long',
          );
        else {
          cids.forEach((p, i) => {
            if (typeof p !== 'string' && !(typeof p === 'number' && Number.isInteger(p)))
              c.add(['body', 'attachments', 'collection_ids', i], 'Input should be a valid string', 'string_type');
          });
          attachments.collection_ids = cids.filter(
            (p): p is string | number => typeof p === 'string' || typeof p === 'number',
          );
        }
      }
    }
  }
  if (c.items.length > 0) return { ok: false, items: c.items };
  return { ok: true, body: { input_message: msg as string, mode, filters, attachments } };
}

export function validateThreadId(id: string): ValidationItem[] {
  if (!ID_PATTERN.test(id))
    return [
      {
        loc: ['path', 'thread_id'],
        msg: "String should match pattern '^[A-Za-z0-9_-]+$'",
        type: 'string_pattern_mismatch',
      },
    ];
  return [];
}

export function validateGetThread(
  q: URLSearchParams,
): { ok: true; includeTrace: boolean; interactionId: string | undefined } | { ok: false; items: ValidationItem[] } {
  const c = new Collector();
  let includeTrace = false;
  const t = q.getAll('include_trace').pop();
  if (t !== undefined)
    includeTrace = (convert(c, ['query', 'include_trace'], { kind: 'bool' }, t, true) as boolean | undefined) ?? false;
  const iid = q.getAll('interaction_id').pop();
  if (iid !== undefined && !ID_PATTERN.test(iid))
    c.add(['query', 'interaction_id'], "String should match pattern '^[A-Za-z0-9_-]+$'", 'string_pattern_mismatch');
  if (c.items.length > 0) return { ok: false, items: c.items };
  return { ok: true, includeTrace, interactionId: iid };
}

export function validateList(
  q: URLSearchParams,
): { ok: true; query: string | undefined; limit: number; offset: number } | { ok: false; items: ValidationItem[] } {
  const c = new Collector();
  const query = q.getAll('query').pop();
  let limit = 20;
  let offset = 0;
  const l = q.getAll('limit').pop();
  if (l !== undefined)
    limit = (convert(c, ['query', 'limit'], { kind: 'int', min: 1, max: 100 }, l, true) as number | undefined) ?? limit;
  const o = q.getAll('offset').pop();
  if (o !== undefined)
    offset = (convert(c, ['query', 'offset'], { kind: 'int', min: 0 }, o, true) as number | undefined) ?? offset;
  if (c.items.length > 0) return { ok: false, items: c.items };
  return { ok: true, query, limit, offset };
}
