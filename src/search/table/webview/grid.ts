// The evidence table's grid in the page (browser code, bundled into dist/table.js): rows built from the host's
// strings with textContent only, their order and which are shown, selection, and the keyboard model of an ARIA grid
// (one tab stop, arrow keys between cells). Only the rows in view (and a few more) are in the page: every row has the
// same height (long text is cut at three lines, whole in its tooltip), two spacer rows stand for the rest, and the
// grid says how many rows there are (aria-rowcount) and where each shown one is (aria-rowindex). A thousand rows then
// cost what forty cost, to show and to sort. It knows nothing of the host: main.ts wires it to the messages.
import { COLUMNS, type ColumnId, type TableRow } from '../rows';

export interface GridLabels {
  /** What a screen reader hears for an empty cell (the page shows a dash). */
  notReported: string;
}

export interface GridEvents {
  /** The selection changed (by a key, a click or the header's box). */
  selection(): void;
  /** Enter or a double click on a row. */
  open(id: number): void;
  /** A header was activated (click, Enter, Space). */
  sort(column: ColumnId): void;
}

/** Cells of a row: the selection box, then one per column. */
const CELLS = COLUMNS.length + 1;
const PAGE = 10;
/** Rows rendered above and below the ones in view. */
const OVERSCAN = 10;
const LONG: ReadonlySet<ColumnId> = new Set(['title', 'firstAuthor', 'journal', 'takeaway', 'population', 'studyType']);

export class Grid {
  private readonly trs = new Map<number, HTMLTableRowElement>();
  private readonly rows = new Map<number, TableRow>();
  /** Ids in the order shown (sorted and filtered). */
  private shown: number[] = [];
  private index = new Map<number, number>();
  readonly selected = new Set<number>();
  private anchor: number | undefined;
  /** The active cell: a row id (or -1 for the header row) and a cell index. */
  private active = { row: -1, cell: 2 };
  private readonly template: HTMLTableRowElement;
  private readonly top: HTMLTableRowElement;
  private readonly bottom: HTMLTableRowElement;
  private rowHeight = 0;
  private window = { first: 0, last: 0 };
  private frame = 0;

  constructor(
    private readonly table: HTMLTableElement,
    private readonly body: HTMLTableSectionElement,
    private readonly scroller: HTMLElement,
    private readonly labels: GridLabels,
    private readonly events: GridEvents,
  ) {
    this.template = this.makeTemplate();
    [this.top, this.bottom] = [this.spacer(), this.spacer()];
    // Keys reach the grid from a cell, or from the page when the focused row scrolled out of it.
    document.addEventListener('keydown', (e) => {
      const el = document.activeElement;
      if (table.contains(el) || ((el === document.body || el === null) && this.active.row !== -1)) this.onKey(e);
    });
    table.addEventListener('click', (e) => this.onClick(e));
    table.addEventListener('dblclick', (e) => {
      const id = this.rowOf(e.target);
      if (id !== undefined) this.events.open(id);
    });
    table.addEventListener('focusin', (e) => {
      const at = this.cellOf(e.target);
      if (at) this.setActive(at.row, at.cell, false);
    });
    scroller.addEventListener('scroll', () => {
      cancelAnimationFrame(this.frame);
      this.frame = requestAnimationFrame(() => this.render());
    });
  }

  private spacer(): HTMLTableRowElement {
    const tr = document.createElement('tr');
    tr.className = 'spacer';
    tr.setAttribute('aria-hidden', 'true');
    const td = document.createElement('td');
    td.colSpan = CELLS;
    tr.append(td);
    return tr;
  }

  private makeTemplate(): HTMLTableRowElement {
    const tr = document.createElement('tr');
    tr.className = 'row';
    tr.setAttribute('role', 'row');
    tr.setAttribute('aria-selected', 'false');
    const select = document.createElement('td');
    select.className = 'c-select';
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.tabIndex = -1;
    // The row's aria-selected says it; the box is for the mouse.
    box.setAttribute('aria-hidden', 'true');
    select.append(box);
    tr.append(select);
    for (const c of COLUMNS) {
      const td = document.createElement('td');
      td.className = `c-${c}`;
      td.tabIndex = -1;
      td.append(document.createElement('div'));
      tr.append(td);
    }
    return tr;
  }

  /** Takes the rows' data (all of them, or the new ones of a Load More); elements are made when first in view. */
  add(rows: readonly TableRow[], replace: boolean): void {
    if (replace) {
      this.trs.clear();
      this.rows.clear();
      this.selected.clear();
      this.anchor = undefined;
      this.active.row = -1;
    }
    for (const row of rows) this.rows.set(row.id, row);
  }

  private element(id: number): HTMLTableRowElement | undefined {
    const known = this.trs.get(id);
    if (known) return known;
    const row = this.rows.get(id);
    if (!row) return undefined;
    const tr = this.template.cloneNode(true) as HTMLTableRowElement;
    tr.dataset.id = String(id);
    const cells = tr.children;
    COLUMNS.forEach((c, i) => {
      const td = cells[i + 1] as HTMLElement;
      const text = row.text[i] ?? '';
      const div = td.firstElementChild as HTMLElement;
      if (text) {
        div.textContent = text;
        // A long text is cut at three lines on screen: whole in the tooltip (and to a screen reader, which reads it all).
        if (LONG.has(c)) td.title = c === 'firstAuthor' && row.authors ? row.authors : text;
      } else this.missing(div);
    });
    this.trs.set(id, tr);
    return tr;
  }

  private missing(cell: HTMLElement): void {
    const dash = document.createElement('span');
    dash.textContent = '—';
    dash.className = 'missing';
    dash.setAttribute('aria-hidden', 'true');
    const words = document.createElement('span');
    words.className = 'sr-only';
    words.textContent = this.labels.notReported;
    cell.append(dash, words);
  }

  /** Shows these ids in this order, from the top; selected rows not shown are deselected. */
  show(ids: readonly number[]): void {
    this.shown = [...ids];
    this.index = new Map(ids.map((id, i) => [id, i]));
    for (const id of [...this.selected]) if (!this.index.has(id)) this.selected.delete(id);
    if (this.active.row !== -1 && !this.index.has(this.active.row)) this.active.row = -1;
    this.table.setAttribute('aria-rowcount', String(ids.length + 1));
    this.scroller.scrollTop = 0;
    this.window = { first: -1, last: -1 };
    this.render();
    this.setActive(this.active.row === -1 ? (this.shown[0] ?? -1) : this.active.row, this.active.cell, false);
    this.events.selection();
  }

  /** Puts the rows in view (and OVERSCAN more each side) in the page, spacers for the rest. */
  private render(): void {
    if (!this.rowHeight) this.measure();
    const h = this.rowHeight || 60;
    const head = this.table.tHead?.offsetHeight ?? 0;
    const top = Math.max(0, this.scroller.scrollTop - head);
    const n = this.shown.length;
    const first = Math.max(0, Math.floor(top / h) - OVERSCAN);
    const last = Math.min(n, Math.ceil((top + this.scroller.clientHeight) / h) + OVERSCAN);
    if (first === this.window.first && last === this.window.last) return;
    this.window = { first, last };
    const list: HTMLTableRowElement[] = [];
    for (let i = first; i < last; i++) {
      const id = this.shown[i]!;
      const tr = this.element(id);
      if (!tr) continue;
      tr.setAttribute('aria-rowindex', String(i + 2));
      this.paintSelected(tr, this.selected.has(id));
      list.push(tr);
    }
    this.top.style.height = `${first * h}px`;
    this.bottom.style.height = `${(n - last) * h}px`;
    this.body.replaceChildren(this.top, ...list, this.bottom);
  }

  /** The height every row has (from the stylesheet), read from a row in the page. */
  private measure(): void {
    const probe = this.template.cloneNode(true) as HTMLTableRowElement;
    this.body.append(probe);
    this.rowHeight = probe.getBoundingClientRect().height;
    probe.remove();
  }

  get shownIds(): readonly number[] {
    return this.shown;
  }

  /** Selected ids in the order shown. */
  selectedIds(): number[] {
    return this.shown.filter((id) => this.selected.has(id));
  }

  select(ids: Iterable<number>, on: boolean): void {
    for (const id of ids) {
      if (on) this.selected.add(id);
      else this.selected.delete(id);
      const tr = this.trs.get(id);
      if (tr?.isConnected) this.paintSelected(tr, on);
    }
    this.events.selection();
  }

  private paintSelected(tr: HTMLTableRowElement, on: boolean): void {
    tr.setAttribute('aria-selected', on ? 'true' : 'false');
    const box = tr.firstElementChild?.firstElementChild as HTMLInputElement | null;
    if (box) box.checked = on;
  }

  /** Moves the tab stop (and focus, unless `focus` is false) to a cell, scrolling its row into view. */
  setActive(row: number, cell: number, focus = true): void {
    let c = Math.max(0, Math.min(CELLS - 1, cell));
    if (!this.visibleCell(c)) c = COLUMNS.indexOf('title') + 1;
    if (row !== -1 && focus) this.reveal(row);
    const el = this.cellElement(row, c) ?? this.cellElement(-1, c);
    const prev = this.table.querySelector<HTMLElement>('[tabindex="0"]');
    if (prev && prev !== el) prev.tabIndex = -1;
    this.active = { row: el && this.cellElement(row, c) ? row : -1, cell: c };
    if (!el) return;
    el.tabIndex = 0;
    if (focus) el.focus();
  }

  /** Scrolls so the row is in view under the header, and renders it. */
  private reveal(id: number): void {
    const i = this.index.get(id);
    if (i === undefined) return;
    const h = this.rowHeight || 60;
    const head = this.table.tHead?.offsetHeight ?? 0;
    const top = head + i * h;
    const s = this.scroller;
    if (top - head < s.scrollTop) s.scrollTop = top - head;
    else if (top + h > s.scrollTop + s.clientHeight) s.scrollTop = top + h - s.clientHeight;
    this.render();
  }

  /** The focusable element of a cell: a header's button or box, a row's cell. */
  private cellElement(row: number, cell: number): HTMLElement | undefined {
    const tr = row === -1 ? this.table.tHead?.rows[0] : this.trs.get(row);
    if (!tr || (row !== -1 && !tr.isConnected)) return undefined;
    const td = tr.children[cell] as HTMLElement | undefined;
    if (!td) return undefined;
    return row === -1 || cell === 0 ? (td.querySelector<HTMLElement>('button, input') ?? td) : td;
  }

  /** Whether a cell's column is shown (from the table's classes: no layout is forced). */
  private visibleCell(cell: number): boolean {
    if (cell === 0) return true;
    const column = COLUMNS[cell - 1];
    return column !== undefined && !this.table.classList.contains(`hide-${column}`);
  }

  private step(cell: number, by: number): number {
    for (let c = cell + by; c >= 0 && c < CELLS; c += by) if (this.visibleCell(c)) return c;
    return cell;
  }

  private rowOf(target: EventTarget | null): number | undefined {
    const tr = (target as Element | null)?.closest?.<HTMLElement>('tbody tr.row');
    return tr?.dataset.id === undefined ? undefined : Number(tr.dataset.id);
  }

  private cellOf(target: EventTarget | null): { row: number; cell: number } | undefined {
    const cell = (target as Element | null)?.closest?.('td, th');
    const tr = cell?.parentElement;
    if (!cell || !tr || tr.classList.contains('spacer')) return undefined;
    const index = [...tr.children].indexOf(cell);
    return { row: tr.parentElement?.tagName === 'THEAD' ? -1 : Number(tr.dataset.id), cell: index };
  }

  private onClick(e: MouseEvent): void {
    const target = e.target as HTMLElement;
    const sort = target.closest<HTMLButtonElement>('button.sort');
    if (sort?.dataset.col) {
      this.events.sort(sort.dataset.col as ColumnId);
      return;
    }
    if (target.id === 'select-all') {
      this.select(this.shown, (target as HTMLInputElement).checked);
      return;
    }
    const id = this.rowOf(target);
    if (id === undefined || !target.closest('td.c-select')) return;
    this.toggle(id, e.shiftKey);
  }

  /** Toggles a row; with `range`, selects from the anchor to it. */
  private toggle(id: number, range: boolean): void {
    if (range && this.anchor !== undefined) {
      const a = this.index.get(this.anchor);
      const b = this.index.get(id);
      if (a !== undefined && b !== undefined) {
        this.select(this.shown.slice(Math.min(a, b), Math.max(a, b) + 1), true);
        return;
      }
    }
    this.anchor = id;
    this.select([id], !this.selected.has(id));
  }

  private onKey(e: KeyboardEvent): void {
    const { row, cell } = this.active;
    const pos = row === -1 ? -1 : (this.index.get(row) ?? -1);
    const rowAt = (i: number): number => (i < 0 ? -1 : (this.shown[Math.min(i, this.shown.length - 1)] ?? -1));
    const ctrl = e.ctrlKey || e.metaKey;
    let to: { row: number; cell: number } | undefined;
    switch (e.key) {
      case 'ArrowDown':
        to = { row: rowAt(pos + 1), cell };
        break;
      case 'ArrowUp':
        to = { row: rowAt(pos - 1), cell };
        break;
      case 'ArrowRight':
        to = { row, cell: this.step(cell, 1) };
        break;
      case 'ArrowLeft':
        to = { row, cell: this.step(cell, -1) };
        break;
      case 'Home':
        to = ctrl ? { row: rowAt(0), cell } : { row, cell: this.step(-1, 1) };
        break;
      case 'End':
        to = ctrl ? { row: rowAt(this.shown.length - 1), cell } : { row, cell: this.step(CELLS, -1) };
        break;
      case 'PageDown':
        to = { row: rowAt(pos + PAGE), cell };
        break;
      case 'PageUp':
        to = { row: rowAt(Math.max(0, pos - PAGE)), cell };
        break;
      case ' ':
        if (row === -1) return; // the header's button or box does its own
        e.preventDefault();
        this.toggle(row, e.shiftKey);
        return;
      case 'Enter':
        if (row === -1) return;
        e.preventDefault();
        this.events.open(row);
        return;
      case 'a':
      case 'A':
        if (!ctrl) return;
        e.preventDefault();
        this.select(this.shown, true);
        return;
      case 'Escape':
        if (!this.selected.size) return;
        e.preventDefault();
        this.select([...this.selected], false);
        return;
      default:
        return;
    }
    e.preventDefault();
    if (e.shiftKey && to.row !== -1 && row !== -1 && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      this.anchor ??= row;
      this.setActive(to.row, to.cell);
      this.toggle(to.row, true);
      return;
    }
    this.setActive(to.row, to.cell);
  }
}
