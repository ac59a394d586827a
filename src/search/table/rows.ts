/**
 * The evidence table's rows: each paper of the results as the text every column shows and the values it sorts and
 * filters by. Built on the host, sent to the webview as plain strings and numbers (the webview writes them with
 * `textContent`, never as markup). Pure: the host passes its translator and number format.
 */
import type { Paper } from '../../api/index';
import { studyTypeLabel } from '../../shared/studyTypes';

/** A translator: the English text in, the display language's text out. */
export type Translate = (english: string) => string;

/** The columns, in the order they are shown; `rank` is the service's order (relevance). */
export const COLUMNS = [
  'rank',
  'title',
  'firstAuthor',
  'year',
  'journal',
  'studyType',
  'sampleSize',
  'population',
  'duration',
  'quartile',
  'citations',
  'openAccess',
  'preprint',
  'takeaway',
] as const;
export type ColumnId = (typeof COLUMNS)[number];

/** Text columns sort by their text; number and flag columns by `TableRow.value`. */
export type ColumnKind = 'text' | 'number' | 'flag';
export const COLUMN_KIND: Readonly<Record<ColumnId, ColumnKind>> = {
  rank: 'number',
  title: 'text',
  firstAuthor: 'text',
  year: 'number',
  journal: 'text',
  studyType: 'text',
  sampleSize: 'number',
  population: 'text',
  duration: 'number',
  quartile: 'number',
  citations: 'number',
  openAccess: 'flag',
  preprint: 'flag',
  takeaway: 'text',
};

export const columnIndex = (c: ColumnId): number => COLUMNS.indexOf(c);
export const isColumnId = (v: unknown): v is ColumnId =>
  typeof v === 'string' && (COLUMNS as readonly string[]).includes(v);

export interface TableRow {
  /** The paper's index in the results (rank order, from 0): what the webview's messages name. */
  id: number;
  /** What each column shows (COLUMNS order); '' when the service did not report it. */
  text: string[];
  /** Each column's sort value (COLUMNS order): numbers for number and flag columns (1 yes, 0 no), else null. */
  value: (number | null)[];
  /** Every author, for the first-author cell's tooltip. */
  authors: string;
  /** The study type as the service wrote it (the study-type filter's value); '' when none. */
  studyType: string;
  /** The paper has no title (the title cell shows a placeholder the filter does not search). */
  untitled?: true;
  /** Whether the paper has a link the host may open (it checks the link rule again before opening). */
  link: boolean;
}

export interface RowOptions {
  /** The host's translator (vscode.l10n.t); English when absent. */
  t?: Translate;
  /** Numbers as the display language writes them. */
  formatNumber?: (n: number) => string;
  /** The search ran with `open_access`: every result is open access. */
  openAccess?: boolean;
}

/**
 * Text for a cell: invisible and bidirectional control characters removed (they would reorder or hide what is shown),
 * white space runs as one space, at most `max` characters (an ellipsis marks a cut, a surrogate pair is never split).
 */
export function cellText(value: unknown, max: number): string {
  if (typeof value !== 'string' || !value) return '';
  const t = value.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu,
    ' ',
  );
  const one = t.replace(/\s+/gu, ' ').trim();
  if (one.length <= max) return one;
  let end = max - 1;
  const c = one.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${one.slice(0, end)}…`;
}

/** Lower case without accents: what the filter compares (`Müller` is found by "muller"). */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function duration(days: number, t: Translate): string {
  if (days >= 730) return t('about {0} years').replace('{0}', String(Math.round(days / 365)));
  if (days >= 60) return t('about {0} months').replace('{0}', String(Math.round(days / 30.4)));
  return days === 1 ? t('1 day') : t('{0} days').replace('{0}', String(days));
}

function population(value: string, t: Translate): string {
  switch (value.toLowerCase()) {
    case 'human':
      return t('Human');
    case 'animal':
      return t('Animal');
    case 'other':
      return t('Other');
    default:
      return value;
  }
}

/**
 * Whether the paper is known to be open access: the search asked for open access only, or the paper carries
 * full-text excerpts (the service gives them only for papers with an open-access PDF). Unknown otherwise: the service
 * reports no open-access field.
 */
export function knownOpenAccess(p: Paper, searchOpenAccess: boolean): boolean {
  return searchOpenAccess || (Array.isArray(p.full_text_chunks) && p.full_text_chunks.some((c) => c.trim()));
}

/** The row of the paper at `index` of the results. */
export function tableRow(p: Paper, index: number, o: RowOptions = {}): TableRow {
  const t = o.t ?? ((s: string) => s);
  const format = o.formatNumber ?? String;
  const authors = (p.authors ?? []).filter((a): a is string => typeof a === 'string' && a.trim() !== '');
  const year = num(p.publish_year);
  const sample = num(p.sample_size);
  const days = num(p.study_duration_days);
  const quartile = num(p.sjr_best_quartile);
  const citations = num(p.citation_count);
  const open = knownOpenAccess(p, o.openAccess === true);
  const preprint = typeof p.is_preprint === 'boolean' ? p.is_preprint : null;
  const studyType = cellText(p.study_type, 100);
  const title = cellText(p.title, 500);
  const text = [
    String(index + 1),
    title || t('(untitled paper)'),
    cellText(authors[0], 200),
    year === null ? '' : String(year),
    cellText(p.journal_name, 200),
    studyType ? t(studyTypeLabel(studyType)) : '',
    sample === null ? '' : format(sample),
    population(cellText(p.population_type, 100), t),
    days === null ? '' : duration(days, t),
    quartile === null ? '' : `Q${quartile}`,
    citations === null ? '' : format(citations),
    open ? t('Yes') : '',
    preprint === null ? '' : preprint ? t('Yes') : t('No'),
    cellText(p.takeaway, 1000),
  ];
  const value = [index + 1, null, null, year, null, null, sample, null, days, quartile, citations, open ? 1 : null];
  value.push(preprint === null ? null : preprint ? 1 : 0, null);
  const row: TableRow = {
    id: index,
    text,
    value,
    authors: cellText(authors.map((a) => cellText(a, 200)).join('; '), 2000),
    studyType,
    link: typeof p.url === 'string' && /^https:\/\//iu.test(p.url.trim()),
  };
  if (!title) row.untitled = true;
  return row;
}

const haystacks = new WeakMap<TableRow, string>();

/**
 * What the filter box searches in a row: every column's text and every author, folded (`fold`). Made where it is
 * first needed (the webview, on the first filtering) and kept, so the rows the host posts stay small.
 */
export function rowHaystack(row: TableRow): string {
  let h = haystacks.get(row);
  if (h === undefined) {
    h = fold([row.untitled ? '' : row.text[1], ...row.text.slice(2), row.authors].join('\n'));
    haystacks.set(row, h);
  }
  return h;
}

/** The rows of `papers` from index `start` on. */
export function tableRows(papers: readonly Paper[], start = 0, o: RowOptions = {}): TableRow[] {
  const out: TableRow[] = [];
  for (let i = start; i < papers.length; i++) out.push(tableRow(papers[i]!, i, o));
  return out;
}
