/**
 * The evidence table: one WebviewPanel, beside the document being written (Insert Citation goes there), showing the results of the search session as rows to screen (page.ts builds
 * its HTML, webview/main.ts its script). It follows the results as they change (a new search replaces the rows, Load
 * More appends), validates every message of the webview (protocol.ts) and gives selected papers to the commands that
 * already do the work: Insert Citation, Copy BibTeX, Ask the Research Agent about Selected Papers, Open Paper, and
 * Export Papers. Service text reaches the page only as strings the script writes with `textContent`, or through
 * `escapeHtml` (page.ts); links are opened by Open Paper, which applies the one link rule.
 */
import * as vscode from 'vscode';
import type { Paper } from '../../api/index';
import { randomNonce } from '../../platform/webviewPage';
import { citePaperOf } from '../../citations/recentPapers';
import type { LogSink } from '../../platform/logger';
import { Commands, StorageKeys, WebviewTypes } from '../../platform/ids';
import { showInfo } from '../../platform/notify';
import { Disposable } from '../../shared/disposable';
import { paperIdOf } from '../../threads/threadCommands';
import type { ResultsModel } from '../resultsModel';
import type { PaperExporter } from './exportPapers';
import { tableBody, tablePage } from './page';
import { parseSort, parseTableMessage, type TableHostMessage, type TableMessage } from './protocol';
import { isColumnId, tableRows, type ColumnId, type TableRow } from './rows';
import type { SortSpec } from './sortFilter';

const t = (s: string, ...args: (string | number)[]): string => vscode.l10n.t(s, ...args);

/** What the table shows: the results view's model, and when it changes. */
export interface TableResults {
  readonly current: ResultsModel | undefined;
  onDidChangeTreeData(listener: () => unknown): vscode.Disposable;
}

export interface TablePanelDeps {
  extensionUri: vscode.Uri;
  results: TableResults;
  /** Where the writer's column and sort choices are kept between tables (globalState). */
  state: vscode.Memento;
  exporter: PaperExporter;
  log: LogSink;
  /** Shows an error as one sentence with its buttons (the ErrorPresenter). */
  showError: (err: unknown, context: string) => void;
}

/** What the table last sent: the model's papers as rows (for appending) and the generation the webview's ids name. */
interface Sent {
  model: ResultsModel | undefined;
  generation: number;
  rows: number;
}

export class TablePanel extends Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private sent: Sent = { model: undefined, generation: -1, rows: 0 };
  /**
   * The rows last built for the whole results, while the table is open: a page that asks again (its 'ready' after
   * VS Code reloads a hidden webview) gets them without building 1,000 rows anew (8–19 ms measured). The same papers
   * array, of the same length and with the same open-access flag, gives the same rows.
   */
  private built: { papers: readonly Paper[]; count: number; openAccess: boolean; rows: TableRow[] } | undefined;
  private ready = false;
  /** A sort asked for before the page was ready (the command's argument). */
  private pendingSort: SortSpec | null | undefined;
  /** Test hook: every message refused by the validator, with its reason. */
  readonly refused: string[] = [];
  /** Test hook: the host's messages to the webview (latest 20, rows counted, not kept). */
  readonly posted: { type: string; rows?: number; append?: boolean; generation?: number; built?: number }[] = [];
  /** How many rows the last rows message built (0: it sent rows built before), for the `posted` hook. */
  private lastBuilt = 0;
  /** Test and bench hook: the webview's reports (shown, sorted), with when they arrived (Date.now()). */
  readonly reports: { message: TableMessage; at: number }[] = [];

  constructor(private readonly deps: TablePanelDeps) {
    super();
    this.register(
      deps.results.onDidChangeTreeData(() => {
        this.update();
      }),
    );
    this.register({
      dispose: () => {
        this.panel?.dispose();
      },
    });
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  /** Opens the table (or reveals it) on the current results; `sort` orders it as a click on a header would. */
  show(arg?: unknown): void {
    const sort = typeof arg === 'object' && arg !== null && 'sort' in arg ? parseSort(arg.sort) : undefined;
    if (this.panel) {
      this.panel.reveal(undefined, false);
      if (sort !== undefined) this.sortBy(sort);
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      WebviewTypes.evidenceTable,
      t('Evidence Table'),
      vscode.ViewColumn.Beside,
      {
        enableScripts: true,
        enableCommandUris: false,
        enableForms: false,
        localResourceRoots: [
          vscode.Uri.joinPath(this.deps.extensionUri, 'dist'),
          vscode.Uri.joinPath(this.deps.extensionUri, 'media'),
        ],
      },
    );
    panel.iconPath = vscode.Uri.joinPath(this.deps.extensionUri, 'media', 'research-desk.svg');
    this.panel = panel;
    this.pendingSort = sort;
    const subs = [
      panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m)),
      // A hidden panel's page is gone (no retained context): shown again, it loads anew and says ready.
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
    ];
    panel.onDidDispose(() => {
      for (const s of subs) s.dispose();
      if (this.panel === panel) this.panel = undefined;
      this.ready = false;
      this.built = undefined;
    });
    this.paint();
  }

  /** Test API: the page's HTML and the panel's options. */
  inspect(): { html: string; options: vscode.WebviewOptions; title: string } | undefined {
    const p = this.panel;
    return p && { html: p.webview.html, options: p.webview.options, title: p.title };
  }

  /** Test API: feeds a raw message as if the webview had posted it. */
  receive(raw: unknown): Promise<void> {
    return this.onMessage(raw);
  }

  /** Orders the table by a column (null: the service's order), as a click on its header would. */
  sortBy(sort: SortSpec | null): void {
    if (this.ready) this.post({ type: 'sortBy', sort });
    else this.pendingSort = sort;
  }

  private paint(): void {
    if (!this.panel) return;
    this.ready = false;
    const hidden = (this.deps.state.get<unknown[]>(StorageKeys.tableColumns) ?? []).filter(
      (c): c is ColumnId => isColumnId(c) && c !== 'title',
    );
    const sort = parseSort(this.deps.state.get<unknown>(StorageKeys.tableSort) ?? null) ?? null;
    this.panel.webview.html = tablePage(
      this.panel.webview,
      this.deps.extensionUri,
      randomNonce(),
      tableBody({ hidden, sort }),
    );
  }

  /** The results changed (a search, Load More, Clear, new filters' description): the table follows. */
  private update(): void {
    if (this.panel && this.ready) this.sendRows();
  }

  private sendRows(): void {
    const model = this.deps.results.current;
    const prev = this.sent;
    const papers = model?.papers ?? [];
    // Load More: the same search with more papers shown; the rows sent stay, the new ones follow.
    const append =
      model !== undefined &&
      prev.model !== undefined &&
      model.generation === prev.model.generation &&
      papers.length >= prev.rows &&
      papers.slice(0, prev.rows).every((p, i) => p === prev.model!.papers[i]);
    const start = append ? prev.rows : 0;
    const generation = model?.generation ?? 0;
    const openAccess = model?.openAccess === true;
    const built = this.built;
    const reuse =
      start === 0 && built?.papers === papers && built.count === papers.length && built.openAccess === openAccess;
    const rows = reuse
      ? built.rows
      : tableRows(papers, start, {
          t: (s) => vscode.l10n.t(s),
          formatNumber: (n) => n.toLocaleString(vscode.env.language),
          openAccess,
        });
    this.lastBuilt = reuse ? 0 : rows.length;
    if (start === 0) this.built = { papers, count: papers.length, openAccess, rows };
    this.sent = { model, generation, rows: papers.length };
    const count = papers.length === 1 ? t('1 paper') : t('{0} papers', papers.length);
    this.post({
      type: 'rows',
      generation,
      rows,
      append,
      caption: model ? t('Evidence Table: “{0}” ({1})', model.query, count) : t('Evidence Table'),
      more: model?.more === true,
      empty: papers.length
        ? undefined
        : model
          ? (model.message ?? t('No papers match this search.'))
          : t('No search results yet. Search papers, and the table shows them here to screen, sort and filter.'),
    });
  }

  private post(m: TableHostMessage): void {
    if (!this.panel) return;
    this.posted.push(
      m.type === 'rows'
        ? { type: m.type, rows: m.rows.length, append: m.append, generation: m.generation, built: this.lastBuilt }
        : { type: m.type },
    );
    if (this.posted.length > 20) this.posted.shift();
    void this.panel.webview.postMessage(m);
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = parseTableMessage(raw);
    if ('problem' in parsed) {
      this.refused.push(parsed.problem);
      this.deps.log.warn(`Evidence table: message ignored (${parsed.problem}).`);
      return;
    }
    const m = parsed.message;
    try {
      await this.act(m);
    } catch (err) {
      this.deps.showError(err, `Evidence table: ${m.type}`);
    }
  }

  private async act(m: TableMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.sent = { model: undefined, generation: -1, rows: 0 };
        this.sendRows();
        if (this.pendingSort !== undefined) this.post({ type: 'sortBy', sort: this.pendingSort });
        this.pendingSort = undefined;
        return;
      case 'shown':
        this.report(m);
        return;
      case 'sorted':
        this.report(m);
        await this.deps.state.update(StorageKeys.tableSort, m.sort);
        return;
      case 'columns':
        await this.deps.state.update(StorageKeys.tableColumns, m.hidden);
        return;
      case 'loadMore':
        await vscode.commands.executeCommand(Commands.loadMore);
        return;
      case 'searchPapers':
        await vscode.commands.executeCommand(Commands.searchPapers);
        return;
    }
    const papers = this.papersOf(m.generation, m.type === 'openPaper' ? [m.id] : m.ids, m.type);
    if (!papers) return;
    switch (m.type) {
      case 'openPaper':
        await vscode.commands.executeCommand(Commands.openPaper, {
          kind: 'paper',
          paper: papers[0],
          index: m.id,
          generation: m.generation,
        });
        return;
      case 'insertCitation':
        await vscode.commands.executeCommand(Commands.insertCitation, papers.map(citePaperOf));
        return;
      case 'copyBibtex':
        await vscode.commands.executeCommand(Commands.copyBibtex, papers.map(citePaperOf));
        return;
      case 'askAgent':
        // Papers without a service id cannot be attached; Ask about Selected Papers says so when none is left.
        await vscode.commands.executeCommand(Commands.askAboutPapers, {
          attachPapers: papers.map(paperIdOf).filter((id): id is string => !!id),
        });
        return;
      case 'export':
        await this.deps.exporter.export(papers, { format: m.format });
        return;
    }
  }

  /** The papers the ids name in the results the webview shows; undefined (and refused) for other results. */
  private papersOf(generation: number, ids: readonly number[], what: string): Paper[] | undefined {
    const model = this.sent.model;
    if (!model || generation !== this.sent.generation || model !== this.deps.results.current) {
      this.refused.push(`${what}: results changed`);
      void showInfo(t('The results changed since the table showed these papers: select them again.'));
      return undefined;
    }
    const papers = ids.map((i) => model.papers[i]);
    if (papers.some((p) => p === undefined)) {
      this.refused.push(`${what}: unknown row`);
      return undefined;
    }
    return papers as Paper[];
  }

  private report(m: TableMessage): void {
    this.reports.push({ message: m, at: Date.now() });
    if (this.reports.length > 50) this.reports.shift();
  }
}
