/**
 * The filter model without `vscode`: the editable fields, parsing of typed values, validation
 * with the client's own rules (`validateSearchParams`, no second copy), the short description
 * shown in the Research view, and preset / default-set resolution ("last N years" is relative
 * to the year at apply time).
 */
import { DOMAIN_CODES, STUDY_TYPES, validateSearchParams, type SearchParams } from '../api';
import { studyTypeLabel } from '../shared/studyTypes';

/** Every filter the search accepts, plus the two response options (semantic scores, excerpts). */
export type SearchFilters = Omit<SearchParams, 'query' | 'page' | 'page_size'>;
export type FilterKey = keyof SearchFilters;

/** Readable names of the domain short codes. */
export const DOMAIN_NAMES: Readonly<Record<(typeof DOMAIN_CODES)[number], string>> = {
  med: 'Medicine',
  bio: 'Biology',
  cs: 'Computer science',
  chem: 'Chemistry',
  psych: 'Psychology',
  phys: 'Physics',
  mat: 'Materials science',
  eng: 'Engineering',
  env: 'Environmental science',
  bus: 'Business',
  econ: 'Economics',
  math: 'Mathematics',
  poli: 'Political science',
  agri: 'Agriculture',
  edu: 'Education',
  soc: 'Sociology',
  geol: 'Geology',
  geog: 'Geography',
  hist: 'History',
  art: 'Art',
  philo: 'Philosophy',
  law: 'Law',
  ling: 'Linguistics',
};

/** ISO 3166-1 alpha-2 codes (officially assigned). Names come from Intl.DisplayNames. */
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
  'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
  'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
  'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
  'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

let regionNames: Intl.DisplayNames | undefined;
/** English name of a country code (the code itself when unknown). */
export function countryName(code: string): string {
  try {
    regionNames ??= new Intl.DisplayNames(['en'], { type: 'region' });
    return regionNames.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

export type FieldKind = 'range' | 'int' | 'bool' | 'studyTypes' | 'domains' | 'countries' | 'names' | 'text';

/** One row of the filter editor: a field or a pair of fields edited together. */
export interface FilterField {
  id: string;
  label: string;
  kind: FieldKind;
  /** The spec fields this row edits ([min, max] for a range). */
  keys: readonly FilterKey[];
  /** Prompt of the input step (text kinds). */
  prompt?: string;
  placeholder?: string;
}

export const FILTER_FIELDS: readonly FilterField[] = [
  {
    id: 'years',
    label: 'Publication years',
    kind: 'range',
    keys: ['year_min', 'year_max'],
    prompt: 'Years as FROM-TO, FROM- or -TO (e.g. 2019-2024); empty for any',
    placeholder: '2019-2024',
  },
  {
    id: 'months',
    label: 'Months within those years',
    kind: 'range',
    keys: ['month_min', 'month_max'],
    prompt:
      'Months 1-12 as FROM-TO: month_min applies within the first year, month_max within the last (needs the years)',
    placeholder: '3-9',
  },
  { id: 'study_types', label: 'Study types', kind: 'studyTypes', keys: ['study_types'] },
  { id: 'human', label: 'Human studies only', kind: 'bool', keys: ['human'] },
  { id: 'controlled', label: 'Controlled studies only', kind: 'bool', keys: ['controlled'] },
  {
    id: 'sample_size_min',
    label: 'Minimum sample size',
    kind: 'int',
    keys: ['sample_size_min'],
    prompt: 'Minimum sample size (1 or more); empty for any',
    placeholder: '100',
  },
  {
    id: 'sjr',
    label: 'Journal quartile range',
    kind: 'range',
    keys: ['sjr_min', 'sjr_max'],
    prompt: 'SJR quartiles 1-4 as FROM-TO (1 is best): 1-1 keeps Q1 only, 1-2 keeps Q1 and Q2',
    placeholder: '1-2',
  },
  {
    id: 'citation_min',
    label: 'Minimum citations',
    kind: 'int',
    keys: ['citation_min'],
    prompt: 'Minimum number of citations; empty for any',
    placeholder: '10',
  },
  {
    id: 'duration',
    label: 'Study duration (days)',
    kind: 'range',
    keys: ['duration_min', 'duration_max'],
    prompt: 'Study duration in days as FROM-TO, FROM- or -TO; empty for any',
    placeholder: '30-365',
  },
  { id: 'exclude_preprints', label: 'Exclude preprints', kind: 'bool', keys: ['exclude_preprints'] },
  { id: 'open_access', label: 'Open access only', kind: 'bool', keys: ['open_access'] },
  {
    id: 'publisher_name',
    label: 'Publishers',
    kind: 'names',
    keys: ['publisher_name'],
    prompt: 'Publisher display names, separated by semicolons or new entries (e.g. Elsevier; Springer Nature)',
    placeholder: 'Elsevier; Springer Nature',
  },
  { id: 'domain', label: 'Domains', kind: 'domains', keys: ['domain'] },
  { id: 'country', label: 'Countries', kind: 'countries', keys: ['country'] },
  {
    id: 'journal_name',
    label: 'Preferred journal',
    kind: 'text',
    keys: ['journal_name'],
    prompt: 'Preferred journal: matching journals rank higher, others are not excluded; empty for none',
    placeholder: 'The Lancet',
  },
  { id: 'clinical_guideline', label: 'Clinical guidelines only', kind: 'bool', keys: ['clinical_guideline'] },
  {
    id: 'medical_mode',
    label: 'Medical mode (top medical journals and guidelines)',
    kind: 'bool',
    keys: ['medical_mode'],
  },
  {
    id: 'include_semantic_score',
    label: 'Semantic scores (top 50 results)',
    kind: 'bool',
    keys: ['include_semantic_score'],
  },
  { id: 'include_full_text_chunks', label: 'Full-text excerpts', kind: 'bool', keys: ['include_full_text_chunks'] },
];

/** Every key FilterStore accepts (the spec filters and the two response options). */
export const FILTER_KEYS: readonly FilterKey[] = FILTER_FIELDS.flatMap((f) => f.keys);

export const EXCERPTS_NEED_PAID_PLAN = 'Excerpts need a paid plan; the free plan would answer 403';

/** Issues of a filter set under the client's own rules, as `field: message` sentences. */
export function filterProblems(filters: SearchFilters): string[] {
  return validateSearchParams({ query: 'x', ...filters }).map((i) => {
    const field = i.loc.filter((p) => p !== 'query').join('.') || 'filters';
    return `${field}: ${i.msg}`;
  });
}

/** How the editor names each filter key in a sentence: the writer's words, not the service's field names. */
const KEY_WORDS: Record<FilterKey, string> = {
  year_min: 'the first year',
  year_max: 'the last year',
  month_min: 'the first month',
  month_max: 'the last month',
  study_types: 'the study types',
  human: 'human studies only',
  controlled: 'controlled studies only',
  sample_size_min: 'the minimum sample size',
  sjr_min: 'the best quartile',
  sjr_max: 'the worst quartile',
  citation_min: 'the minimum citations',
  duration_min: 'the shortest duration',
  duration_max: 'the longest duration',
  exclude_preprints: 'no preprints',
  open_access: 'open access only',
  publisher_name: 'the publishers',
  domain: 'the fields',
  country: 'the countries',
  journal_name: 'the preferred journal',
  clinical_guideline: 'clinical guidelines only',
  medical_mode: 'medical mode',
  include_semantic_score: 'semantic scores',
  include_full_text_chunks: 'full-text excerpts',
};

const KEY_RUN = new RegExp(`\\b(${Object.keys(KEY_WORDS).join('|')})\\b`, 'g');

/** The client's wording made the writer's: field names as words, "Input should be …" as "must …". */
function writerWords(key: string, msg: string): string {
  const said = msg
    .replace(/^Input should be less than or equal to /, 'must be at most ')
    .replace(/^Input should be greater than or equal to /, 'must be at least ')
    .replace(/^Input should be a valid integer/, 'must be a whole number')
    .replace(/^Input should be a valid boolean/, 'must be yes or no')
    .replace(/^Input should be /, 'must be ')
    .replace(/ requires /, ' needs ')
    .replace(KEY_RUN, (k) => KEY_WORDS[k as FilterKey]);
  const subject = KEY_WORDS[key as FilterKey];
  const sentence = subject && !said.startsWith('the ') && /^must /.test(said) ? `${subject} ${said}` : said;
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

/**
 * Issues of a filter set under the client's own rules, for the filter editor: each with the key it concerns and a
 * sentence in the writer's words ("The first year must not exceed the last year"). Settings and programmatic filters
 * are checked with filterProblems, which names the keys the writer wrote there.
 */
export function filterIssues(filters: SearchFilters): { key: string; text: string }[] {
  return validateSearchParams({ query: 'x', ...filters }).map((i) => {
    const key = String(i.loc.filter((p) => p !== 'query')[0] ?? '');
    return { key, text: writerWords(key, i.msg) };
  });
}

/** Result of parsing what was typed for one row. */
export type Parsed = { ok: true; values: Partial<Record<FilterKey, unknown>> } | { ok: false; message: string };

const INT = /^[+-]?\d+$/;

function parseIntText(text: string, label: string): number | string | undefined {
  const t = text.trim();
  if (!t) return undefined;
  if (!INT.test(t)) return `${label}: "${t}" is not a whole number`;
  return Number(t);
}

/**
 * Parses typed text for a text-kind row into the values of its keys (undefined = unset), then
 * checks the whole candidate set with the client's rules: the message names what is wrong.
 */
export function parseFieldInput(field: FilterField, text: string, base: SearchFilters): Parsed {
  const values: Partial<Record<FilterKey, unknown>> = {};
  const t = text.trim();
  const [k0, k1] = field.keys;
  if (!k0) return { ok: false, message: 'internal: field without keys' };
  switch (field.kind) {
    case 'range': {
      if (!k1) return { ok: false, message: 'internal: range without max' };
      if (t) {
        const m = /^\s*([+-]?\d+)?\s*(?:-|–|\.\.|to)\s*([+-]?\d+)?\s*$/.exec(t) ?? /^\s*([+-]?\d+)\s*$/.exec(t);
        if (!m)
          return { ok: false, message: `${field.label}: write FROM-TO, FROM- or -TO with whole numbers (got "${t}")` };
        const single = m.length === 2;
        const lo = m[1] !== undefined ? Number(m[1]) : undefined;
        const hi = single ? lo : m[2] !== undefined ? Number(m[2]) : undefined;
        values[k0] = lo;
        values[k1] = hi;
      } else {
        values[k0] = undefined;
        values[k1] = undefined;
      }
      break;
    }
    case 'int': {
      const v = parseIntText(t, field.label);
      if (typeof v === 'string') return { ok: false, message: v };
      values[k0] = v;
      break;
    }
    case 'names': {
      const names = t
        .split(/[;\n]/)
        .map((s) => s.trim())
        .filter(Boolean);
      if (names.some((n) => n.includes(',')))
        return {
          ok: false,
          message: `${field.label}: a name cannot contain a comma (the list is sent comma-separated); separate names with semicolons`,
        };
      values[k0] = names.length ? names : undefined;
      break;
    }
    case 'text':
      values[k0] = t || undefined;
      break;
    default:
      return { ok: false, message: `internal: ${field.kind} is not typed` };
  }
  const candidate = withValues(base, values);
  const problems = filterIssues(candidate).filter((p) => (field.keys as readonly string[]).includes(p.key));
  if (problems.length) return { ok: false, message: problems.map((p) => p.text).join('; ') };
  return { ok: true, values };
}

/** `base` with `values` applied (undefined removes a key). */
export function withValues(base: SearchFilters, values: Partial<Record<FilterKey, unknown>>): SearchFilters {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || (Array.isArray(v) && v.length === 0)) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** A list filter's value as its items: a comma-separated string (as stored or typed) or an array. */
export const listItems = (v: unknown): string[] =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : Array.isArray(v)
      ? v.map(String)
      : [];

const rangeText = (lo: unknown, hi: unknown, fmt: (n: unknown) => string = String): string | undefined => {
  if (lo === undefined && hi === undefined) return undefined;
  if (lo !== undefined && hi !== undefined) return lo === hi ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`;
  return lo !== undefined ? `${fmt(lo)}+` : `≤${fmt(hi)}`;
};

/** The current value of a row as short text ('' when unset). */
export function fieldValueText(field: FilterField, f: SearchFilters): string {
  const r = f as Record<string, unknown>;
  const [k0, k1] = field.keys;
  const v0 = k0 ? r[k0] : undefined;
  switch (field.kind) {
    case 'range':
      return rangeText(v0, k1 ? r[k1] : undefined, field.id === 'sjr' ? (n) => `Q${String(n)}` : String) ?? '';
    case 'bool':
      return v0 === true ? 'yes' : v0 === false ? 'no' : '';
    case 'int':
      return typeof v0 === 'number' ? `≥ ${v0}` : '';
    case 'studyTypes':
      return listItems(v0).map(studyTypeLabel).join(', ');
    case 'names':
    case 'countries':
      return listItems(v0).join(', ');
    case 'domains':
      return listItems(v0)
        .map((d) => DOMAIN_NAMES[d as keyof typeof DOMAIN_NAMES] ?? d)
        .join(', ');
    case 'text':
      return typeof v0 === 'string' ? v0 : '';
  }
}

const SHORT: Partial<Record<string, string>> = {
  human: 'human',
  controlled: 'controlled',
  exclude_preprints: 'no preprints',
  open_access: 'open access',
  clinical_guideline: 'guidelines',
  medical_mode: 'medical mode',
  include_semantic_score: 'scores',
  include_full_text_chunks: 'excerpts',
  sample_size_min: 'n',
  citation_min: 'cited',
  journal_name: 'prefer',
};

/** Short description of the active filters for the view's description, '' when none. */
export function describeFilters(f: SearchFilters): string {
  const parts: string[] = [];
  for (const field of FILTER_FIELDS) {
    const text = fieldValueText(field, f);
    if (!text) continue;
    const short = SHORT[field.id];
    if (field.kind === 'bool') parts.push(text === 'yes' ? (short ?? field.id) : `not ${short ?? field.id}`);
    else if (field.kind === 'int') parts.push(`${short ?? field.id} ${text}`);
    else if (field.id === 'study_types') {
      const types = listItems((f as Record<string, unknown>).study_types);
      parts.push(types.length > 2 ? `${types.length} study types` : types.map(studyTypeLabel).join(', '));
    } else if (field.id === 'months') parts.push(`months ${text}`);
    else if (field.id === 'duration') parts.push(`${text} days`);
    else if (field.kind === 'countries' || field.kind === 'domains' || field.kind === 'names') {
      const items = text.split(', ');
      parts.push(items.length > 2 ? `${items.length} ${field.label.toLowerCase()}` : text);
    } else if (short) parts.push(`${short} ${text}`);
    else parts.push(text);
  }
  return parts.join(' · ');
}

/** A named preset as stored in the setting `researchDesk.search.presets`. */
export interface PresetSetting {
  name: string;
  filters: Record<string, unknown>;
}

/**
 * Relative keys a preset or the default set may use besides the spec fields:
 * `lastYears: N` → year_min = current year − N (year_max left open).
 */
export const RELATIVE_KEYS = ['lastYears'] as const;

export type Resolved = { ok: true; filters: SearchFilters } | { ok: false; message: string };

/** Resolves a preset's or the default set's filter object at `now`, validated with the client's rules. */
export function resolveFilterObject(raw: unknown, now: Date, what: string): Resolved {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, message: `${what}: "filters" must be an object` };
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  if ('lastYears' in out) {
    const n = out.lastYears;
    delete out.lastYears;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
      return { ok: false, message: `${what}: lastYears must be a whole number of years, 0 or more` };
    if (out.year_min !== undefined)
      return { ok: false, message: `${what}: give either lastYears or year_min, not both` };
    out.year_min = now.getUTCFullYear() - n;
  }
  const problems = filterProblems(out);
  if (problems.length) return { ok: false, message: `${what}: ${problems.join('; ')}` };
  return { ok: true, filters: out };
}

/** Resolves one preset entry of the setting (any shape), naming what is wrong. */
export function resolvePreset(raw: unknown, now: Date, index: number): Resolved & { name: string } {
  const label = `Preset ${index + 1}`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, name: label, message: `${label} must be an object {"name", "filters"}` };
  const r = raw as Record<string, unknown>;
  const name = typeof r.name === 'string' && r.name.trim() ? r.name.trim() : undefined;
  if (!name) return { ok: false, name: label, message: `${label} has no "name"` };
  const res = resolveFilterObject(r.filters, now, `Preset "${name}"`);
  return { ...res, name };
}

export { DOMAIN_CODES, STUDY_TYPES };
