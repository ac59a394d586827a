/**
 * The requests' wire form: query strings in the spec's order (absent and empty lists left out, lists comma-separated)
 * and the thread POST's JSON body. Every value was checked by params.ts's rules before it gets here.
 */
import {
  FILTER_RULES,
  items,
  present,
  SEARCH_RULES,
  type ListThreadsParams,
  type Rule,
  type SearchParams,
  type ThreadRequest,
} from './params';

function scalar(rule: Rule, value: unknown): string {
  if (rule.t === 'bool') return value ? 'true' : 'false';
  if (rule.t === 'studyTypes' || rule.t === 'domain' || rule.t === 'country' || rule.t === 'names') {
    return (items(value) ?? []).map((s) => String(s).trim()).join(',');
  }
  return String(value);
}

const encode = (s: string) => encodeURIComponent(s).replace(/%2C/gi, ',');

/** `key=value&…` in the spec's order; absent/null and empty lists omitted; lists comma-separated. */
export function toQueryString(rules: Record<string, Rule>, params: object): string {
  const rec = params as Record<string, unknown>;
  const parts: string[] = [];
  for (const [key, rule] of Object.entries(rules)) {
    const v = rec[key];
    if (!present(v)) continue;
    const s = scalar(rule, v);
    if (s === '' && rule.t !== 'string') continue;
    parts.push(`${key}=${encode(s)}`);
  }
  return parts.join('&');
}

export const searchQueryString = (p: SearchParams): string => toQueryString(SEARCH_RULES, p);

export const listQueryString = (p: ListThreadsParams): string =>
  toQueryString({ query: { t: 'string' }, limit: { t: 'int' }, offset: { t: 'int' } }, p);

export const threadQueryString = (p: { includeTrace?: boolean; interactionId?: string }): string =>
  toQueryString(
    { include_trace: { t: 'bool' }, interaction_id: { t: 'string' } },
    { include_trace: p.includeTrace, interaction_id: p.interactionId },
  );

/** JSON body with filters normalised: study_types as an array, other lists comma-separated strings, absent omitted. */
export function threadRequestJson(body: ThreadRequest): Record<string, unknown> {
  const out: Record<string, unknown> = { input_message: body.input_message };
  if (present(body.mode)) out.mode = body.mode;
  if (body.filters === null) out.filters = null;
  else if (body.filters) {
    const f: Record<string, unknown> = {};
    for (const [key, rule] of Object.entries(FILTER_RULES)) {
      const v = (body.filters as Record<string, unknown>)[key];
      if (!present(v)) continue;
      if (rule.t === 'studyTypes') f[key] = [...(v as readonly string[])];
      else if (rule.t === 'domain' || rule.t === 'country' || rule.t === 'names') f[key] = scalar(rule, v);
      else f[key] = v;
    }
    out.filters = f;
  }
  if (body.attachments === null) out.attachments = null;
  else if (body.attachments) {
    const a: Record<string, unknown> = {};
    if (present(body.attachments.paper_ids)) a.paper_ids = body.attachments.paper_ids;
    if (present(body.attachments.collection_ids)) a.collection_ids = body.attachments.collection_ids;
    out.attachments = a;
  }
  return out;
}
