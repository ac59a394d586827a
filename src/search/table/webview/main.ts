// The evidence table's script (browser bundle, dist/table.js). Reads the texts the host put in the page, shows the
// rows the host posts (grid.ts), sorts and filters them here (no round trip, no call spent), keeps the writer's
// choices with getState/setState, and posts typed messages naming rows by index and generation only (the host
// validates them and looks the papers up itself).
import type { ExportFormat } from '../../../bib/exportPapers';
import type { TableHostMessage, TableInit, TableMessage, TableViewState } from '../protocol';
import { COLUMNS, type ColumnId, type TableRow } from '../rows';
import { filteredIds, NO_FILTER, sortedIds, type FilterSpec, type SortSpec } from '../sortFilter';
import { Grid } from './grid';

interface VsCodeApi {
  postMessage(message: TableMessage): void;
  getState(): unknown;
  setState(state: TableViewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

const root = $('table-root');
const init = JSON.parse(root.dataset.init ?? '{}') as TableInit;
const L = init.labels;
const saved = (vscode.getState() ?? {}) as TableViewState;
const collator = new Intl.Collator(init.language || undefined, { numeric: true, sensitivity: 'base' });
const compare = (a: string, b: string): number => collator.compare(a, b);

let rows: TableRow[] = [];
const byId = new Map<number, TableRow>();
let generation = -1;
let sort: SortSpec | null = saved.sort !== undefined ? saved.sort : init.sort;
let filter: FilterSpec = { ...NO_FILTER, ...saved.filter };
let order: number[] = [];

const table = $<HTMLTableElement>('grid');
const grid = new Grid(
  table,
  $<HTMLTableSectionElement>('rows'),
  $('scroll'),
  { notReported: L.notReported ?? '' },
  {
    selection: () => showSelection(),
    open: (id) => vscode.postMessage({ type: 'openPaper', generation, id }),
    sort: (column) => {
      const next: SortSpec | null =
        sort?.column !== column
          ? { column, descending: false }
          : !sort.descending
            ? { column, descending: true }
            : null;
      applySort(next);
    },
  },
);

const fill = (template: string | undefined, ...args: (string | number)[]): string =>
  (template ?? '').replace(/\{(\d)\}/gu, (m, i: string) => String(args[Number(i)] ?? m));

function save(): void {
  vscode.setState({ generation, sort, filter, selected: [...grid.selected], format: format.value as ExportFormat });
}

// ---- selection and actions ----------------------------------------------------------------------------------
const selectAll = $<HTMLInputElement>('select-all');
const actionButtons = ['insertCitation', 'copyBibtex', 'askAgent', 'export'].map((a) => $<HTMLButtonElement>(`a-${a}`));
const format = $<HTMLSelectElement>('export-format');
if (saved.format) format.value = saved.format;

function showSelection(): void {
  const n = grid.selectedIds().length;
  $('selection').textContent = n === 0 ? L.selectedNone! : n === 1 ? L.selectedOne! : fill(L.selectedMany, n);
  for (const b of actionButtons) b.disabled = n === 0;
  const shown = grid.shownIds.length;
  selectAll.checked = shown > 0 && n === shown;
  selectAll.indeterminate = n > 0 && n < shown;
  save();
}

for (const action of ['insertCitation', 'copyBibtex', 'askAgent'] as const)
  $(`a-${action}`).addEventListener('click', () =>
    vscode.postMessage({ type: action, generation, ids: grid.selectedIds() }),
  );
$('a-export').addEventListener('click', () =>
  vscode.postMessage({ type: 'export', generation, ids: grid.selectedIds(), format: format.value as ExportFormat }),
);
format.addEventListener('change', save);
$('load-more').addEventListener('click', () => vscode.postMessage({ type: 'loadMore' }));
$('search-papers').addEventListener('click', () => vscode.postMessage({ type: 'searchPapers' }));

// ---- order, filters, status ---------------------------------------------------------------------------------
const columnLabel = (c: ColumnId): string => {
  const col = init.columns.find((x) => x.id === c);
  return col?.id === 'rank' ? (col.description ?? col.label) : (col?.label ?? c);
};

function status(): void {
  const total = rows.length;
  const shown = grid.shownIds.length;
  const count =
    shown === total
      ? total === 1
        ? L.shownOne!
        : fill(L.shownMany, total)
      : total === 1
        ? fill(L.filteredOne, shown)
        : fill(L.filteredMany, shown, total);
  const order = sort
    ? fill(sort.descending ? L.sortedDescending : L.sortedAscending, columnLabel(sort.column))
    : L.sortedRank!;
  $('status').textContent = total ? `${count}. ${order}` : '';
  const empty = $('empty');
  if (total && !shown) {
    empty.textContent = L.noMatch!;
    empty.hidden = false;
  } else if (total) empty.hidden = true;
}

/** Re-orders, filters and paints; `then` runs after the next frame is painted. */
function paint(then?: () => void): void {
  const shown = filteredIds(byId, order, filter);
  grid.show(shown);
  for (const th of table.tHead!.rows[0]!.children) {
    const col = th.querySelector<HTMLElement>('button.sort')?.dataset.col;
    if (!col) continue;
    th.setAttribute('aria-sort', sort?.column === col ? (sort.descending ? 'descending' : 'ascending') : 'none');
  }
  status();
  save();
  if (then) requestAnimationFrame(() => setTimeout(then, 0));
}

/** Milliseconds since `t0`, whole. */
const since = (t0: number): number => Math.min(600_000, Math.round(performance.now() - t0));

function applySort(next: SortSpec | null): void {
  const t0 = performance.now();
  sort = next;
  order = sortedIds(rows, sort, compare);
  paint(() => vscode.postMessage({ type: 'sorted', sort, shown: grid.shownIds.length, ms: since(t0) }));
}

const fText = $<HTMLInputElement>('f-text');
const fType = $<HTMLSelectElement>('f-type');
const fYear = $<HTMLInputElement>('f-year');
const fSample = $<HTMLInputElement>('f-sample');
const fPeer = $<HTMLInputElement>('f-peer');
const whole = (v: string): number | undefined => (/^\d{1,9}$/u.test(v.trim()) ? Number(v.trim()) : undefined);

function showFilter(): void {
  fText.value = filter.text;
  fType.value = filter.studyType;
  fYear.value = filter.minYear === undefined ? '' : String(filter.minYear);
  fSample.value = filter.minSample === undefined ? '' : String(filter.minSample);
  fPeer.checked = filter.peerReviewed;
}

let filterTimer: ReturnType<typeof setTimeout> | undefined;
function readFilter(): void {
  clearTimeout(filterTimer);
  // Typing settles before the rows and the status (read by a screen reader) change.
  filterTimer = setTimeout(() => {
    filter = {
      text: fText.value.slice(0, 500),
      studyType: fType.value,
      minYear: whole(fYear.value),
      minSample: whole(fSample.value),
      peerReviewed: fPeer.checked,
    };
    paint();
  }, 120);
}
for (const el of [fText, fYear, fSample]) el.addEventListener('input', readFilter);
for (const el of [fType, fPeer]) el.addEventListener('change', readFilter);
$('f-clear').addEventListener('click', () => {
  filter = { ...NO_FILTER };
  showFilter();
  paint();
});

/** The study types of the loaded rows, as options (labels sorted), the chosen one kept. */
function studyTypeOptions(): void {
  const types = new Map<string, string>();
  const col = COLUMNS.indexOf('studyType');
  for (const r of rows) if (r.studyType) types.set(r.studyType, r.text[col] ?? r.studyType);
  const any = fType.options[0]!;
  const options = [...types].sort((a, b) => compare(a[1], b[1])).map(([value, label]) => new Option(label, value));
  fType.replaceChildren(any, ...options);
  if (filter.studyType && !types.has(filter.studyType)) filter = { ...filter, studyType: '' };
  fType.value = filter.studyType;
}

// ---- columns ------------------------------------------------------------------------------------------------
for (const box of document.querySelectorAll<HTMLInputElement>('#columns input[data-col]'))
  box.addEventListener('change', () => {
    table.classList.toggle(`hide-${box.dataset.col!}`, !box.checked);
    const hidden = [...document.querySelectorAll<HTMLInputElement>('#columns input[data-col]')]
      .filter((b) => !b.checked)
      .map((b) => b.dataset.col as ColumnId);
    vscode.postMessage({ type: 'columns', hidden });
  });

// ---- the host's messages ------------------------------------------------------------------------------------
window.addEventListener('message', (ev: MessageEvent<TableHostMessage>) => {
  const t0 = performance.now();
  const m = ev.data;
  if (m.type === 'sortBy') {
    applySort(m.sort);
    return;
  }
  if (m.type !== 'rows') return;
  $('caption').textContent = m.caption;
  $('more').hidden = !m.more;
  const empty = $('empty');
  empty.textContent = m.empty ?? '';
  empty.hidden = !m.empty;
  if (m.append && m.generation === generation) {
    rows.push(...m.rows);
  } else {
    rows = [...m.rows];
    byId.clear();
  }
  for (const r of m.rows) byId.set(r.id, r);
  const restore = !m.append && saved.generation === m.generation ? (saved.selected ?? []) : [];
  grid.add(m.rows, !(m.append && m.generation === generation));
  generation = m.generation;
  $('search').hidden = rows.length > 0;
  table.hidden = rows.length === 0;
  studyTypeOptions();
  order = sortedIds(rows, sort, compare);
  if (restore.length) grid.select(restore, true);
  paint(() => vscode.postMessage({ type: 'shown', generation, rows: grid.shownIds.length, ms: since(t0) }));
});

showFilter();
vscode.postMessage({ type: 'ready' });
