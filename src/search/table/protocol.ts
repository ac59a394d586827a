/**
 * Messages between the evidence table's webview (webview/main.ts) and its host (TablePanel). Pure: no vscode, no DOM.
 * The host runs `parseTableMessage` on everything the webview posts before acting. The webview names papers by their
 * index in the results and the generation of the results it shows, never by a URL or a paper's data: the host looks
 * the papers up in what it sent, and refuses ids of other results.
 */
import type { ExportFormat } from '../../bib/exportPapers';
import { COLUMNS, isColumnId, type ColumnId, type TableRow } from './rows';
import type { FilterSpec, SortSpec } from './sortFilter';

/** The most results a search can show (page × page size ≤ 1,000): the largest id is one less. */
export const MAX_ROWS = 1000;

/** The longest time a page reports (ms): ten minutes. */
const MAX_MS = 600_000;

/** What the selected rows can be given to: the commands of the results view, run with these papers. */
export type TableAction = 'insertCitation' | 'copyBibtex' | 'askAgent';
export const TABLE_ACTIONS: readonly TableAction[] = ['insertCitation', 'copyBibtex', 'askAgent'];
const FORMATS: readonly ExportFormat[] = ['bibtex', 'ris', 'csl-json'];

/** Webview → host. */
export type TableMessage =
  | { type: 'ready' }
  /**
   * The rows of `generation` are on screen (`rows` of them), `ms` after the page received them (to the frame that shows
   * them: what the bench reports as the page's share).
   */
  | { type: 'shown'; generation: number; rows: number; ms: number }
  /** The order changed (null: the service's order), `shown` rows in it, in `ms`. The host keeps it for the next table. */
  | { type: 'sorted'; sort: SortSpec | null; shown: number; ms: number }
  /** The hidden columns changed; the host keeps them for the next table. */
  | { type: 'columns'; hidden: ColumnId[] }
  | { type: TableAction; generation: number; ids: number[] }
  | { type: 'export'; generation: number; ids: number[]; format: ExportFormat }
  | { type: 'openPaper'; generation: number; id: number }
  | { type: 'loadMore' }
  | { type: 'searchPapers' };

/** Host → webview. */
export type TableHostMessage =
  | {
      type: 'rows';
      generation: number;
      /** The rows from `rows[0].id` on; with `append`, they follow the ones shown (Load More), else they replace them. */
      rows: TableRow[];
      append: boolean;
      /** The heading: the query and how many papers. */
      caption: string;
      /** The results view offers Load More. */
      more: boolean;
      /** Shown instead of the table when there are no rows. */
      empty?: string;
    }
  /** Sort by a column (a command's argument), as a click on its header would. */
  | { type: 'sortBy'; sort: SortSpec | null };

/** What the page's script finds in `data-init`: the texts and the kept choices. */
export interface TableInit {
  labels: Record<string, string>;
  columns: { id: ColumnId; label: string; description?: string }[];
  hidden: ColumnId[];
  sort: SortSpec | null;
  /** BCP 47 language of VS Code's display, for sorting text and numbers. */
  language: string;
}

/** What the webview keeps with getState/setState while the panel lives (hidden and shown again). */
export interface TableViewState {
  generation?: number;
  sort?: SortSpec | null;
  filter?: FilterSpec;
  selected?: number[];
  format?: ExportFormat;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const only = (o: Record<string, unknown>, keys: readonly string[]): boolean =>
  Object.keys(o).every((k) => keys.includes(k));

const isCount = (v: unknown, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;

const isGeneration = (v: unknown): v is number => isCount(v, Number.MAX_SAFE_INTEGER);

/** A list of distinct row ids, at most MAX_ROWS. */
function ids(v: unknown): number[] | undefined {
  if (!Array.isArray(v) || v.length > MAX_ROWS) return undefined;
  if (!v.every((x) => isCount(x, MAX_ROWS - 1))) return undefined;
  const list = v;
  return new Set(list).size === list.length ? list : undefined;
}

export function parseSort(v: unknown): SortSpec | null | undefined {
  if (v === null) return null;
  if (!isObj(v) || !only(v, ['column', 'descending'])) return undefined;
  return isColumnId(v.column) && typeof v.descending === 'boolean'
    ? { column: v.column, descending: v.descending }
    : undefined;
}

/**
 * The message if it is exactly one of `TableMessage` (no extra fields, every field of the right type and range), else
 * the reason it was refused.
 */
export function parseTableMessage(raw: unknown): { message: TableMessage } | { problem: string } {
  if (!isObj(raw)) return { problem: 'not an object' };
  const t = raw.type;
  switch (t) {
    case 'ready':
    case 'loadMore':
    case 'searchPapers':
      return only(raw, ['type']) ? { message: { type: t } } : { problem: `${t}: unexpected fields` };
    case 'shown':
      return only(raw, ['type', 'generation', 'rows', 'ms']) &&
        isGeneration(raw.generation) &&
        isCount(raw.rows, MAX_ROWS) &&
        isCount(raw.ms, MAX_MS)
        ? { message: { type: t, generation: raw.generation, rows: raw.rows, ms: raw.ms } }
        : { problem: 'shown: bad fields' };
    case 'sorted': {
      const sort = parseSort(raw.sort);
      return only(raw, ['type', 'sort', 'shown', 'ms']) &&
        sort !== undefined &&
        isCount(raw.shown, MAX_ROWS) &&
        isCount(raw.ms, MAX_MS)
        ? { message: { type: t, sort, shown: raw.shown, ms: raw.ms } }
        : { problem: 'sorted: bad fields' };
    }
    case 'columns': {
      const hidden = raw.hidden;
      if (!only(raw, ['type', 'hidden']) || !Array.isArray(hidden) || hidden.length >= COLUMNS.length)
        return { problem: 'columns: bad fields' };
      if (!hidden.every(isColumnId) || hidden.includes('title') || new Set(hidden).size !== hidden.length)
        return { problem: 'columns: bad hidden list' };
      return { message: { type: t, hidden: [...hidden] } };
    }
    case 'insertCitation':
    case 'copyBibtex':
    case 'askAgent':
    case 'export': {
      const list = ids(raw.ids);
      const keys = t === 'export' ? ['type', 'generation', 'ids', 'format'] : ['type', 'generation', 'ids'];
      if (!only(raw, keys) || !isGeneration(raw.generation) || !list || list.length === 0)
        return { problem: `${t}: bad fields` };
      if (t !== 'export') return { message: { type: t, generation: raw.generation, ids: list } };
      const format = FORMATS.find((f) => f === raw.format);
      return format
        ? { message: { type: t, generation: raw.generation, ids: list, format } }
        : { problem: 'export: bad format' };
    }
    case 'openPaper':
      return only(raw, ['type', 'generation', 'id']) && isGeneration(raw.generation) && isCount(raw.id, MAX_ROWS - 1)
        ? { message: { type: t, generation: raw.generation, id: raw.id } }
        : { problem: 'openPaper: bad fields' };
    default:
      return { problem: `unknown type ${typeof t === 'string' ? JSON.stringify(t.slice(0, 40)) : typeof t}` };
  }
}
