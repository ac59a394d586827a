/**
 * Sorting and filtering the evidence table's rows, in the webview (no round trip, no call spent) and in the tests and
 * the bench. Pure: no DOM, no vscode.
 */
import { COLUMN_KIND, columnIndex, fold, rowHaystack, type ColumnId, type TableRow } from './rows';

export interface SortSpec {
  column: ColumnId;
  descending: boolean;
}

export interface FilterSpec {
  /** Words every shown row holds somewhere (any column, any author), in any case, with or without accents. */
  text: string;
  /** The service's study type value ('' for any). */
  studyType: string;
  /** Earliest year (a paper with no year is left out when set). */
  minYear?: number;
  /** Smallest sample size (a paper with none reported is left out when set). */
  minSample?: number;
  /** Leave out papers the service marks as preprints (unknown status stays). */
  peerReviewed: boolean;
}

export const NO_FILTER: FilterSpec = { text: '', studyType: '', peerReviewed: false };

/** Compares two texts for the display language (numbers inside by value, case and accents ignored). */
export type TextCompare = (a: string, b: string) => number;

/**
 * The rows' ids in `sort` order: what is not reported goes last in both directions, ties keep the service's order.
 * Without a sort, the service's order.
 */
export function sortedIds(
  rows: readonly TableRow[],
  sort: SortSpec | null | undefined,
  compare: TextCompare,
): number[] {
  const order = rows.map((_, i) => i);
  if (sort) {
    const col = columnIndex(sort.column);
    const sign = sort.descending ? -1 : 1;
    if (COLUMN_KIND[sort.column] === 'text') {
      const texts = rows.map((r) => r.text[col] ?? '');
      order.sort((a, b) => {
        const x = texts[a]!;
        const y = texts[b]!;
        if (!x || !y) return x === y ? a - b : x ? -1 : 1;
        return sign * compare(x, y) || a - b;
      });
    } else {
      const values = rows.map((r) => r.value[col] ?? null);
      order.sort((a, b) => {
        const x = values[a]!;
        const y = values[b]!;
        if (x === null || y === null) return x === y ? a - b : x !== null ? -1 : 1;
        return sign * (x - y) || a - b;
      });
    }
  }
  return order.map((i) => rows[i]!.id);
}

const YEAR = columnIndex('year');
const SAMPLE = columnIndex('sampleSize');
const PREPRINT = columnIndex('preprint');

/** Whether a row passes the filter. `words` is `filterWords(spec.text)`, computed once per filtering. */
export function rowMatches(row: TableRow, spec: FilterSpec, words: readonly string[]): boolean {
  if (spec.studyType && row.studyType !== spec.studyType) return false;
  if (spec.peerReviewed && row.value[PREPRINT] === 1) return false;
  if (spec.minYear !== undefined && !((row.value[YEAR] ?? -Infinity) >= spec.minYear)) return false;
  if (spec.minSample !== undefined && !((row.value[SAMPLE] ?? -Infinity) >= spec.minSample)) return false;
  if (words.length === 0) return true;
  const haystack = rowHaystack(row);
  for (const w of words) if (!haystack.includes(w)) return false;
  return true;
}

/** The filter box's text as the folded words a row must hold. */
export function filterWords(text: string): string[] {
  return fold(text).split(/\s+/u).filter(Boolean);
}

/** The ids of the rows that pass, in the given order. */
export function filteredIds(
  rowsById: ReadonlyMap<number, TableRow>,
  order: readonly number[],
  spec: FilterSpec,
): number[] {
  if (!filterActive(spec)) return [...order];
  const words = filterWords(spec.text);
  return order.filter((id) => {
    const row = rowsById.get(id);
    return row !== undefined && rowMatches(row, spec, words);
  });
}

/** Whether the filter leaves anything out. */
export function filterActive(spec: FilterSpec): boolean {
  return (
    spec.text.trim() !== '' ||
    spec.studyType !== '' ||
    spec.peerReviewed ||
    spec.minYear !== undefined ||
    spec.minSample !== undefined
  );
}
