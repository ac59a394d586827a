// The MCP server's one tool, `search`: its schema as tools/list shows it, the MCP study-type vocabulary and how it
// maps onto the corpus's, and argument validation. No SDK here, so index.ts can export it without loading the SDK.
import { type Filters } from './engine';
import { type StudyType, ISO_COUNTRIES } from './vocab';

/**
 * The nine study types the MCP tool takes (spec), each with the corpus types it selects. The MCP list is the service's
 * older, coarser vocabulary; `/v1/search` takes the finer one, so a coarse value also selects the finer designs it
 * covers (a cohort study is a non-RCT observational study). Seven corpus types have no MCP value: commentary or
 * perspective, field study, historical or archival analysis, interview study, mixed methods study, other, and
 * theoretical, modeling, or simulation study.
 */
export const MCP_STUDY_TYPES = {
  rct: ['rct'],
  'meta-analysis': ['meta-analysis'],
  'systematic review': ['systematic review'],
  'literature review': ['literature review'],
  'case report': ['case report', 'case study'],
  'non-rct experimental': ['non-rct experimental', 'non-randomized experimental study'],
  'non-rct observational study': [
    'non-rct observational study',
    'cohort study',
    'case-control study',
    'cross-sectional study',
    'longitudinal / panel data study',
  ],
  'non-rct in vitro': ['non-rct in vitro', 'bench experiment'],
  animal: ['animal'],
} as const satisfies Record<string, readonly StudyType[]>;
export type McpStudyType = keyof typeof MCP_STUDY_TYPES;
const MCP_STUDY_TYPE_NAMES = Object.keys(MCP_STUDY_TYPES) as McpStudyType[];

type ParamKind = 'int' | 'bool';
/** Integer and boolean parameters, with the same bounds as `/v1/search`. */
const SCALARS: Record<string, { kind: ParamKind; min?: number; max?: number; description: string }> = {
  year_min: { kind: 'int', description: 'Exclude papers published before this year.' },
  year_max: { kind: 'int', description: 'Exclude papers published after this year.' },
  sjr_max: {
    kind: 'int',
    min: 1,
    max: 4,
    description:
      'Exclude journals ranked below this quartile (1 is the top, 4 the bottom): 1 keeps only the top quartile.',
  },
  sjr_min: {
    kind: 'int',
    min: 1,
    max: 4,
    description: 'Exclude journals ranked above this quartile (1 is the top, 4 the bottom): 2 keeps quartiles 2 to 4.',
  },
  human: { kind: 'bool', description: 'Only studies of humans.' },
  controlled: { kind: 'bool', description: 'Only controlled studies.' },
  sample_size_min: { kind: 'int', min: 1, description: 'Exclude studies with fewer participants or subjects.' },
  citation_min: { kind: 'int', description: 'Exclude papers with fewer citations.' },
  medical_mode: { kind: 'bool', description: 'Only top medical journals and clinical guidelines.' },
  exclude_preprints: { kind: 'bool', description: 'Exclude preprints; keep peer-reviewed papers.' },
  open_access: { kind: 'bool', description: 'Only open-access papers.' },
  duration_min: { kind: 'int', description: 'Minimum study duration in days.' },
  duration_max: { kind: 'int', description: 'Maximum study duration in days.' },
};

/** Every parameter the tool takes, in the spec's order. */
export const MCP_SEARCH_PARAMS = [
  'query',
  'year_min',
  'year_max',
  'study_types',
  'sjr_max',
  'sjr_min',
  'human',
  'controlled',
  'sample_size_min',
  'citation_min',
  'medical_mode',
  'exclude_preprints',
  'open_access',
  'duration_min',
  'duration_max',
  'country',
  'include_full_text_chunks',
] as const;

function schemaOf(name: (typeof MCP_SEARCH_PARAMS)[number]): Record<string, unknown> {
  switch (name) {
    case 'query':
      return { type: 'string', minLength: 1, description: 'What to search for: a question, claim or topic.' };
    case 'study_types':
      return {
        type: 'array',
        items: { type: 'string', enum: MCP_STUDY_TYPE_NAMES },
        description: 'Only these study designs.',
      };
    case 'country':
      return {
        type: 'string',
        description:
          'Countries where the study was conducted: ISO 3166-1 alpha-2 codes, comma-separated (e.g. "US,GB"). Unknown codes are ignored.',
      };
    case 'include_full_text_chunks':
      return {
        type: 'boolean',
        description: 'Return query-relevant full-text excerpts of open-access papers. Paid plans only.',
      };
    default: {
      const s = SCALARS[name]!;
      const out: Record<string, unknown> = { type: s.kind === 'int' ? 'integer' : 'boolean' };
      if (s.min !== undefined) out.minimum = s.min;
      if (s.max !== undefined) out.maximum = s.max;
      out.description = s.description;
      return out;
    }
  }
}

/** The tool as tools/list shows it. */
export const MCP_SEARCH_TOOL = {
  name: 'search',
  title: 'Search research papers',
  description:
    'Search peer-reviewed research papers by a question or topic, with optional evidence filters. Returns ranked ' +
    'papers with title, authors, journal, year, DOI, citation count, abstract and a link; paid plans add the study ' +
    'design, journal quartile and a one-sentence takeaway. Without an account at most 3 papers are returned; with ' +
    "one, each call uses one call of the account's monthly pool.",
  inputSchema: {
    type: 'object' as const,
    properties: Object.fromEntries(MCP_SEARCH_PARAMS.map((n) => [n, schemaOf(n)])),
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object' as const,
    properties: {
      results: {
        type: 'array',
        description: 'Ranked papers, best first; the same records as GET /v1/search returns.',
        items: {
          type: 'object',
          properties: {
            title: { type: 'string' },
            abstract: { type: 'string' },
            authors: { type: 'array', items: { type: 'string' } },
            doi: { type: 'string' },
            journal_name: { type: 'string' },
            publish_year: { type: 'integer' },
            url: { type: 'string' },
            citation_count: { type: 'integer' },
          },
          required: ['title', 'abstract', 'authors', 'doi', 'journal_name', 'publish_year', 'url', 'citation_count'],
        },
      },
    },
    required: ['results'],
  },
};

/** Papers per call with an account: `/v1/search`'s default page size, capped to the plan's maximum (free: 10). */
export const MCP_PAGE_SIZE = 20;
/** Papers per call without an account (spec). */
export const MCP_ANONYMOUS_PAGE_SIZE = 3;

export interface McpSearchArgs {
  query: string;
  filters: Filters;
  includeFullTextChunks: boolean;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/**
 * Check the tool's arguments against the schema; every problem is reported at once, each starting with the field it is
 * about. `null` counts as not given, as an optional field of a pydantic model would take it. Unknown fields are
 * refused: a misspelt filter silently ignored would widen the search the writer asked for.
 */
export function validateMcpSearch(
  args: unknown,
): { ok: true; args: McpSearchArgs } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const a = args === undefined || args === null ? {} : args;
  if (!isObj(a)) return { ok: false, problems: [`arguments: must be an object, got ${show(a)}`] };
  const known = new Set<string>(MCP_SEARCH_PARAMS);
  for (const k of Object.keys(a))
    if (!known.has(k)) problems.push(`${k}: not a parameter of this tool (it takes ${MCP_SEARCH_PARAMS.join(', ')})`);

  let query = '';
  if (a.query === undefined || a.query === null) problems.push('query: required');
  else if (typeof a.query !== 'string') problems.push(`query: must be a string, got ${show(a.query)}`);
  else if (a.query.trim() === '') problems.push('query: must not be empty');
  else query = a.query;

  const filters: Filters = {};
  for (const [name, spec] of Object.entries(SCALARS)) {
    const v = a[name];
    if (v === undefined || v === null) continue;
    if (spec.kind === 'bool') {
      if (typeof v !== 'boolean') problems.push(`${name}: must be true or false, got ${show(v)}`);
      else (filters as Record<string, unknown>)[name] = v;
      continue;
    }
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      problems.push(`${name}: must be an integer, got ${show(v)}`);
      continue;
    }
    if (spec.min !== undefined && v < spec.min) problems.push(`${name}: must be at least ${spec.min}, got ${v}`);
    else if (spec.max !== undefined && v > spec.max) problems.push(`${name}: must be at most ${spec.max}, got ${v}`);
    else (filters as Record<string, unknown>)[name] = v;
  }

  const st = a.study_types;
  if (st !== undefined && st !== null) {
    if (!Array.isArray(st)) problems.push(`study_types: must be a list of study types, got ${show(st)}`);
    else {
      const selected = new Set<StudyType>();
      st.forEach((v, i) => {
        const key = typeof v === 'string' ? v.trim().toLowerCase().replace(/\s+/g, ' ') : undefined;
        const types = key !== undefined ? (MCP_STUDY_TYPES as Record<string, readonly StudyType[]>)[key] : undefined;
        if (!types)
          problems.push(
            `study_types[${i}]: ${show(v)} is not a study type of this tool; use ${MCP_STUDY_TYPE_NAMES.map((n) => `"${n}"`).join(', ')}`,
          );
        else for (const t of types) selected.add(t);
      });
      if (selected.size > 0) filters.study_types = [...selected];
    }
  }

  const c = a.country;
  if (c !== undefined && c !== null) {
    if (typeof c !== 'string') problems.push(`country: must be a string of comma-separated codes, got ${show(c)}`);
    else {
      // As on /v1/search: unknown codes are ignored, and when none resolve there is no country filter.
      const codes = c
        .split(',')
        .map((s) => s.trim().toUpperCase())
        .filter((s) => ISO_COUNTRIES.has(s));
      if (codes.length > 0) filters.country = [...new Set(codes)];
    }
  }

  const x = a.include_full_text_chunks;
  if (x !== undefined && x !== null && typeof x !== 'boolean')
    problems.push(`include_full_text_chunks: must be true or false, got ${show(x)}`);

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, args: { query, filters, includeFullTextChunks: x === true } };
}
