/**
 * The citation commands: Insert Citation (results view items, a CitePaper argument, or the palette's
 * Quick Pick over recent results and the document's bibliography with a "Search papers for …" fallback), Copy
 * BibTeX, Copy Reference (APA) and Tidy Bibliography. Each returns a CitationCommandResult (tests, keybindings).
 *
 * - The document cited into: the active text editor, else the text editor that was last active (a click in the
 *   results view or the answer view keeps it); none → a clear message, nothing else happens.
 * - The search fallback is the only paid call here and runs only when the writer picks it.
 * - Tidy Bibliography's "cited" keys: every key cited by the .tex/.md/.qmd/.Rmd/.typ files of the bibliography's
 *   workspace folder (open buffers first, at most 2,000 files) and by the open documents; `\nocite{*}` cites all.
 *   Tidy never removes an entry a document cites; when some documents could not be read (or there were more), it
 *   removes no duplicate at all. It edits the .bib in an editor and shows it, unsaved: the writer reviews, then saves
 *   or undoes. A .bib whose bytes that editor would change (mixed line breaks, a lone CR, not UTF-8) is not tidied.
 */
import * as vscode from 'vscode';
import { showError, showInfo, showWarning, statusMessage } from '../platform/notify';
import type { Paper } from '../api/index';
import { entryDoi, findEntry } from '../bib/bibEntry';
import { entryByKey, entryKeys, type BibEntry } from '../bib/bibFile';
import { tidyBibliography } from '../bib/bibTidy';
import { editorKeepsLineBreaks, lineBreakKinds } from '../bib/bibBytes';
import { normaliseDoi, toBibtex } from '../bib/bibtex';
import { baseKey, citeKey, disambiguate } from '../bib/keys';
import { loadBibtexLibrary } from '../bib/library';
import { locateBibliographies } from '../bib/locate';
import { formatReference } from '../bib/reference';
import { citedKeys, flavourOf } from '../bib/syntax';
import { texTargetFor } from '../bib/texText';
import type { Logger } from '../platform/logger';
import { Disposable } from '../shared/disposable';
import type { ResultNode } from '../search/resultsTree';
import { blockedMessage, citationSettings, CitationError, type Bibliographies } from './bibliography';
import { displayLatex } from './display';
import { declarablePath, declarationEdit, relativePath } from './declare';
import type { Inserter } from './insert';
import { citePaperOf } from './recentPapers';
import type { CitePaper, LoadedBibliography, RecentPapers } from './types';

export interface CitationCommandResult {
  done: boolean;
  /** Keys cited (Insert Citation). */
  keys?: string[];
  /** The bibliography written or tidied. */
  bib?: vscode.Uri;
  /** Entries added (Insert Citation). */
  added?: number;
  /** What was copied (Copy BibTeX / Copy Reference). */
  value?: string;
  /** Tidy: keys removed as DOI duplicates, and keys no document cites. */
  removed?: { key: string; keptKey: string; doi: string }[];
  uncited?: string[];
  message?: string;
}

export interface CitationCommandsDeps {
  bibliographies: Bibliographies;
  citations: Inserter;
  recent: RecentPapers;
  /** Papers the results view shows now. */
  shownPapers: () => readonly Paper[];
  /** Runs a search (a paid call) and shows it in the results view. */
  search: (query: string) => Promise<unknown>;
  log: Logger;
}

export interface CitePickItem extends vscode.QuickPickItem {
  paper?: CitePaper;
  /** The "Search papers for …" item: the query. */
  search?: string;
}

const CITE_FILES = '**/*.{tex,ltx,md,markdown,qmd,Rmd,rmd,typ}';
/** Quiet time after a document becomes active before its bibliography is prepared. */
const PREPARE_DELAY_MS = 400;
const MAX_SCANNED_FILES = 2000;
/** Larger documents are not read for their citations (a path may name a device that never ends, or a huge file). */
const MAX_SCANNED_BYTES = 16 * 1024 * 1024;
const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
/** One line of untrusted text for a Quick Pick (no `$(icon)` rendering from a title or a .bib). */
const oneLine = (s: string | null | undefined): string => noIcons((s ?? '').replace(/\s+/gu, ' ').trim());
const noIcons = (s: string): string => s.replace(/\$\(/gu, '$\u200b(');

function rawAuthors(entry: BibEntry): string {
  const names = (entry.raw['author'] ?? '').split(/\s+and\s+/u).map((n) => displayLatex(n.includes(',') ? n.split(',')[0]! : n.split(/\s+/u).pop() ?? n));
  const list = names.filter(Boolean);
  if (!list.length) return '';
  return list.length > 2 ? `${list[0]} et al.` : list.join(' & ');
}

function paperAuthors(p: CitePaper): string {
  const list = (p.authors ?? []).map((a) => {
    const t = oneLine(a);
    return t.includes(',') ? t.split(',')[0]! : (t.split(' ').pop() ?? t);
  });
  if (!list.length) return '';
  return list.length > 2 ? `${list[0]} et al.` : list.join(' & ');
}

/** Only the known fields of a CitePaper given as a command argument, each with its type (webview / other callers). */
export function asCitePaper(v: unknown): CitePaper | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const r = v as Record<string, unknown>;
  if ('kind' in r) return undefined;
  const out: Record<string, unknown> = {};
  const strs = ['title', 'journal_name', 'volume', 'pages', 'doi', 'url', 'publisher_name', 'study_type', 'takeaway', 'publish_date', 'id', 'key'];
  for (const f of strs) if (typeof r[f] === 'string') out[f] = r[f];
  for (const f of ['publish_year', 'sjr_best_quartile']) if (typeof r[f] === 'number' && Number.isFinite(r[f])) out[f] = r[f];
  if (typeof r['is_preprint'] === 'boolean') out['is_preprint'] = r['is_preprint'];
  if (Array.isArray(r['authors'])) out['authors'] = r['authors'].filter((a): a is string => typeof a === 'string');
  if (!out['title'] && !out['doi'] && !out['key']) return undefined;
  return out;
}

type PaperNode = Extract<ResultNode, { paper: Paper }>;
const isResultNode = (v: unknown): v is PaperNode =>
  typeof v === 'object' && v !== null && 'kind' in v && (v.kind === 'paper' || v.kind === 'excerpt') && 'paper' in v;

export class CitationCommands extends Disposable {
  /** The Quick Pick on screen (tests drive it). */
  active: vscode.QuickPick<CitePickItem> | undefined;
  private lastEditor: vscode.TextEditor | undefined;
  /** Documents already offered to declare their bibliography this session. */
  private readonly offered = new Set<string>();

  constructor(private readonly deps: CitationCommandsDeps) {
    super();
    this.register({ dispose: () => clearTimeout(this.preparing) });
    this.noteEditor(vscode.window.activeTextEditor);
    this.register(vscode.window.onDidChangeActiveTextEditor((e) => this.noteEditor(e)));
  }

  private noteEditor(editor: vscode.TextEditor | undefined): void {
    if (editor && isWritingDocument(editor.document)) {
      this.lastEditor = editor;
      this.prepare(editor.document);
    }
  }

  /** Reads and parses each bibliography of the document (the parse is cached for the next insert). */
  private async prepareNow(document: vscode.TextDocument): Promise<void> {
    await this.deps.bibliographies.entries(document);
  }

  private preparing: ReturnType<typeof setTimeout> | undefined;
  /** The last bibliography preparation (tests). */
  prepared: Promise<unknown> | undefined;

  /**
   * While the core is loaded, a document that cites becoming active has its bibliography read and parsed in the
   * background (once per version: the parse is cached), so the first Insert Citation or completion does not wait for
   * a large .bib (10,000 entries: about 150 ms). Nothing is read for a document that declares none.
   */
  private prepare(document: vscode.TextDocument): void {
    if (flavourOf(document.languageId, document.fileName) === 'plain') return;
    if (this.preparing) clearTimeout(this.preparing);
    this.preparing = setTimeout(() => {
      this.preparing = undefined;
      if (document.isClosed || this.isDisposed) return;
      this.prepared = this.prepareNow(document).catch((err: unknown) => {
        this.deps.log.warn(`Preparing the bibliography of ${vscode.workspace.asRelativePath(document.uri)} failed: ${err instanceof Error ? err.message : String(err)}`);
      });
    }, PREPARE_DELAY_MS);
  }

  /** The text editor citations go to: the active one, else the last active (re-shown if it was closed). */
  async targetEditor(): Promise<vscode.TextEditor | undefined> {
    const active = vscode.window.activeTextEditor;
    if (active && isWritingDocument(active.document)) return active;
    const last = this.lastEditor;
    if (!last || last.document.isClosed) return undefined;
    const visible = vscode.window.visibleTextEditors.find((e) => e === last) ?? vscode.window.visibleTextEditors.find((e) => e.document === last.document);
    if (visible) return visible;
    // Hidden behind another tab (the answer view in the same group): brought back; closed by the writer: not.
    const uri = last.document.uri.toString();
    const group = vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri));
    if (!group) return undefined;
    const shown = await vscode.window.showTextDocument(last.document, { viewColumn: group.viewColumn, preserveFocus: true, preview: false });
    shown.selection = last.selection;
    return shown;
  }

  /** Papers given as arguments: results-view nodes (clicked + selection), a CitePaper, or an array of them. */
  private papersFrom(args: readonly unknown[]): CitePaper[] | undefined {
    const [first, second] = args;
    if (isResultNode(first)) {
      const selected = Array.isArray(second) ? second.filter(isResultNode).map((n) => n.paper) : [];
      const papers = selected.includes(first.paper) ? selected : [first.paper];
      return papers.map(citePaperOf);
    }
    if (Array.isArray(first)) {
      const list = first.map(asCitePaper).filter((p): p is CitePaper => !!p);
      return list.length ? list : undefined;
    }
    const one = asCitePaper(first);
    return one ? [one] : undefined;
  }

  private fail(message: string, level: 'warning' | 'error' = 'warning'): CitationCommandResult {
    void (level === 'error' ? showError(message) : showWarning(message));
    return { done: false, message };
  }

  async insertCitation(...args: unknown[]): Promise<CitationCommandResult> {
    const editor = await this.targetEditor();
    if (!editor) return this.fail(vscode.l10n.t('Open the document to cite into (a text editor) first, then run Insert Citation.'));
    let papers = this.papersFrom(args);
    // No paper given (the palette, a keybinding, the editor's context menu, which passes the document's URI): pick.
    papers ??= await this.pickPapers(editor.document, { many: true, title: vscode.l10n.t('Insert Citation') });
    if (!papers) return { done: false, message: 'cancelled' };
    if (!papers.length) return this.fail(vscode.l10n.t('Select a paper to cite first.'));
    let keys: string[] | undefined;
    try {
      keys = await this.deps.citations.insert(editor, papers);
    } catch (err) {
      if (err instanceof CitationError) return this.fail(err.message, 'error');
      throw err;
    }
    if (!keys) return { done: false, message: 'cancelled' };
    const last = this.deps.citations.last;
    const bibName = last?.bib ? vscode.workspace.asRelativePath(last.bib) : undefined;
    const flavour = flavourOf(editor.document.languageId, editor.document.fileName);
    const inBib = editor.document.languageId === 'bibtex' || /\.(bib|bibtex)$/iu.test(editor.document.uri.path);
    const message = inBib
      ? vscode.l10n.t('{0} entry(ies) added to {1} ({2}).', last?.added ?? 0, bibName ?? '', keys.join(', '))
      : flavour === 'plain'
        ? vscode.l10n.t('Inserted {0} reference(s) (this document has no citation syntax, so no bibliography was used).', papers.length)
        : last?.added
          ? vscode.l10n.t('Cited {0}; {1} entry(ies) added to {2}.', keys.join(', '), last.added, bibName ?? '')
          : vscode.l10n.t('Cited {0} (already in {1}).', keys.join(', '), bibName ?? '');
    statusMessage(message, 6000);
    if (!inBib && last?.bib && (last.source === 'default' || last.source === 'chosen')) this.offerDeclaration(editor.document, last.bib);
    return { done: true, keys, bib: last?.bib, added: last?.added ?? 0, message };
  }

  /**
   * The document declares no bibliography, so LaTeX/Pandoc/Typst would not read the one we wrote to: offered once
   * per document and session (a notification; nothing is changed unless the writer accepts).
   */
  private offerDeclaration(document: vscode.TextDocument, bib: vscode.Uri): void {
    const id = document.uri.toString();
    if (this.offered.has(id) || document.isUntitled) return;
    this.offered.add(id);
    // It declares bibliographies we cannot write (CSL JSON/YAML, Hayagriva): where and how to add a BibTeX file to
    // them is the writer's call; they are told.
    const flavour = flavourOf(document.languageId, document.fileName);
    const others = locateBibliographies(document.getText(), flavour).fromDocument;
    if (others.length) {
      void showWarning(
        vscode.l10n.t(
          '{0} declares {1}, which Research Desk does not write (BibTeX only); the entries went to {2}. Add it to the document’s bibliographies.',
          vscode.workspace.asRelativePath(document.uri),
          others.join(', '),
          vscode.workspace.asRelativePath(bib),
        ),
      );
      return;
    }
    const rel = relativePath(vscode.Uri.joinPath(document.uri, '..').path, bib.path);
    if (!declarablePath(flavour, rel)) {
      // A path from a setting or a file name that would break out of the declaration: the writer declares it.
      void showWarning(
        vscode.l10n.t('{0} does not declare {1}, and its path has characters Research Desk does not write into the document. Declare it yourself so the citations resolve.', vscode.workspace.asRelativePath(document.uri), vscode.workspace.asRelativePath(bib)),
      );
      return;
    }
    const declare = vscode.l10n.t('Declare It');
    void vscode.window
      .showInformationMessage(
        vscode.l10n.t('{0} does not declare {1}, so its citations will not resolve when it is built. Declare it in the document?', vscode.workspace.asRelativePath(document.uri), vscode.workspace.asRelativePath(bib)),
        declare,
      )
      .then((choice) => (choice === declare ? this.declare(document, bib) : undefined));
  }

  /** Adds the bibliography's declaration to the document (one WorkspaceEdit). */
  async declare(document: vscode.TextDocument, bib: vscode.Uri): Promise<boolean> {
    const rel = relativePath(vscode.Uri.joinPath(document.uri, '..').path, bib.path);
    const e = declarationEdit(document.getText(), flavourOf(document.languageId, document.fileName), rel);
    if (!e) return false;
    const edit = new vscode.WorkspaceEdit();
    edit.replace(document.uri, new vscode.Range(document.positionAt(e.offset), document.positionAt(e.offset + e.length)), e.text);
    return vscode.workspace.applyEdit(edit);
  }

  async copyBibtex(...args: unknown[]): Promise<CitationCommandResult> {
    const papers = await this.papersOrPick(args, vscode.l10n.t('Copy BibTeX'));
    if (!papers?.length) return papers ? this.fail(vscode.l10n.t('Select a paper first.')) : { done: false, message: 'cancelled' };
    await loadBibtexLibrary();
    const editor = vscode.window.activeTextEditor ?? this.lastEditor;
    const bibs: LoadedBibliography[] = [];
    if (editor && !editor.document.isClosed) for (const b of await this.deps.bibliographies.find(editor.document)) bibs.push(await this.deps.bibliographies.load(b));
    const settings = citationSettings(editor?.document.uri);
    const target = texTargetFor(editor ? flavourOf(editor.document.languageId, editor.document.fileName) : 'latex');
    const used: string[] = bibs.flatMap((b) => entryKeys(b.file));
    const texts = papers.map((p) => {
      // The entry as it is in the document's bibliography (same key the document cites), else a new one.
      for (const b of bibs) {
        const e = (p.key ? entryByKey(b.file, p.key) : undefined) ?? findEntry(b.file, p);
        if (e) return b.text.slice(e.start, e.end);
      }
      const key = citeKey(p, used, settings.keyScheme);
      used.push(key);
      return toBibtex(p, key, { protectTitle: settings.titleProtection, target }).trimEnd();
    });
    const value = `${texts.join('\n\n')}\n`;
    await vscode.env.clipboard.writeText(value);
    const message = vscode.l10n.t('Copied the BibTeX of {0} paper(s).', papers.length);
    statusMessage(message, 4000);
    return { done: true, value, message };
  }

  async copyReference(...args: unknown[]): Promise<CitationCommandResult> {
    const papers = await this.papersOrPick(args, vscode.l10n.t('Copy Reference (APA)'));
    if (!papers?.length) return papers ? this.fail(vscode.l10n.t('Select a paper first.')) : { done: false, message: 'cancelled' };
    const value = papers.map((p) => formatReference(p, 'text')).join('\n');
    await vscode.env.clipboard.writeText(value);
    const message = vscode.l10n.t('Copied the reference of {0} paper(s).', papers.length);
    statusMessage(message, 4000);
    return { done: true, value, message };
  }

  private async papersOrPick(args: readonly unknown[], title: string): Promise<CitePaper[] | undefined> {
    const given = this.papersFrom(args);
    if (given) return given;
    const editor = vscode.window.activeTextEditor ?? this.lastEditor;
    return this.pickPapers(editor && !editor.document.isClosed ? editor.document : undefined, { many: true, title });
  }

  /**
   * The Quick Pick: recent results (not already in the bibliography) and the document's bibliography entries, with
   * a "Search papers for …" item once something is typed. Undefined = cancelled.
   */
  async pickPapers(document: vscode.TextDocument | undefined, options: { many: boolean; title: string }): Promise<CitePaper[] | undefined> {
    const entries = document ? await this.deps.bibliographies.entries(document) : [];
    const inBib = new Map<string, string>();
    for (const e of entries) {
      const doi = entryDoi(e.entry);
      if (doi) inBib.set(doi, e.entry.key);
    }
    const recent = this.deps.recent.list().filter((p) => !inBib.has(normaliseDoi(p.doi)?.toLowerCase() ?? ''));
    const items: CitePickItem[] = [];
    if (recent.length) items.push({ label: vscode.l10n.t('Recent results'), kind: vscode.QuickPickItemKind.Separator });
    // The key each recent paper would get (disambiguated against the bibliography only on a clash).
    const scheme = citationSettings(document?.uri).keyScheme;
    const taken = new Set([...new Set(entries.map((e) => e.bib.file))].flatMap(entryKeys).map((k) => k.toLowerCase()));
    const keyFor = (p: CitePaper): string => {
      const base = baseKey(p, scheme);
      return taken.has(base.toLowerCase()) ? disambiguate(base, taken) : base;
    };
    for (const p of recent) {
      items.push({
        label: clip(oneLine(p.title) || vscode.l10n.t('(untitled paper)'), 140),
        description: [paperAuthors(p), p.publish_year ? String(p.publish_year) : '', document ? vscode.l10n.t('new: {0}', keyFor(p)) : ''].filter(Boolean).join(' · '),
        detail: oneLine(p.journal_name) || undefined,
        paper: p,
      });
    }
    const byBib = new Map<string, typeof entries>();
    for (const e of entries) {
      const k = e.bib.uri.toString();
      byBib.set(k, [...(byBib.get(k) ?? []), e]);
    }
    for (const list of byBib.values()) {
      items.push({ label: vscode.workspace.asRelativePath(list[0]!.bib.uri), kind: vscode.QuickPickItemKind.Separator });
      for (const e of list) {
        const raw = e.entry.raw;
        items.push({
          label: clip(noIcons(displayLatex(raw['title'] ?? '')) || e.entry.key, 140),
          description: noIcons([rawAuthors(e.entry), (raw['year'] ?? raw['date'] ?? '').slice(0, 4), e.entry.key].filter(Boolean).join(' · ')),
          detail: noIcons(displayLatex(raw['journal'] ?? raw['journaltitle'] ?? raw['booktitle'] ?? '')) || undefined,
          paper: { key: e.entry.key, title: displayLatex(raw['title'] ?? '') || null, doi: entryDoi(e.entry) ?? null },
        });
      }
    }
    const choice = await this.quickPick(items, options);
    if (!choice) return undefined;
    if ('search' in choice) return this.searchAndPick(choice.search, options);
    // A bibliography entry: cite by key (its full metadata is read from the file only for Copy Reference).
    return Promise.all(choice.papers.map((p) => this.fullPaper(p, entries)));
  }

  private fullPaper(p: CitePaper, entries: Awaited<ReturnType<Bibliographies['entries']>>): Promise<CitePaper> {
    if (!p.key || p.authors) return Promise.resolve(p);
    const e = entries.find((x) => x.entry.key === p.key);
    return loadBibtexLibrary().then(() => (e ? e.paper : p));
  }

  private async searchAndPick(query: string, options: { many: boolean; title: string }): Promise<CitePaper[] | undefined> {
    await this.deps.search(query);
    const shown = this.deps.shownPapers().map(citePaperOf);
    if (!shown.length) {
      void showInfo(vscode.l10n.t('No papers found for “{0}”; nothing was cited.', clip(query, 60)));
      return undefined;
    }
    const items: CitePickItem[] = shown.map((p) => ({
      label: clip(oneLine(p.title) || vscode.l10n.t('(untitled paper)'), 140),
      description: [paperAuthors(p), p.publish_year ? String(p.publish_year) : ''].filter(Boolean).join(' · '),
      detail: oneLine(p.journal_name) || undefined,
      paper: p,
    }));
    const choice = await this.quickPick(items, { ...options, noSearch: true, title: vscode.l10n.t('{0}: results for “{1}”', options.title, clip(query, 40)) });
    return choice && 'papers' in choice ? choice.papers : undefined;
  }

  private quickPick(
    items: CitePickItem[],
    options: { many: boolean; title: string; noSearch?: boolean },
  ): Promise<{ papers: CitePaper[] } | { search: string } | undefined> {
    const qp = vscode.window.createQuickPick<CitePickItem>();
    qp.title = options.title;
    qp.canSelectMany = options.many;
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    qp.placeholder = options.noSearch
      ? vscode.l10n.t('Pick the papers to cite')
      : vscode.l10n.t('Type to filter recent results and the bibliography, or to search papers');
    qp.items = items;
    const searchItem = (q: string): CitePickItem => ({
      label: `$(search) ${vscode.l10n.t('Search papers for “{0}”', noIcons(clip(q, 60)))}`,
      description: vscode.l10n.t('runs a search (one call)'),
      alwaysShow: true,
      search: q,
    });
    let shownSearch: CitePickItem | undefined;
    if (!options.noSearch)
      qp.onDidChangeValue((v) => {
        const q = v.trim();
        // The same event can come twice (set by the extension, echoed by the UI): keep the items, and the checks.
        if ((shownSearch?.search ?? '') === (q.length >= 2 ? q : '')) return;
        const keep = qp.selectedItems;
        shownSearch = q.length >= 2 ? searchItem(q) : undefined;
        qp.items = shownSearch ? [...items, shownSearch] : items;
        if (options.many) qp.selectedItems = keep.filter((k) => qp.items.includes(k));
      });
    return new Promise((resolve) => {
      let done = false;
      const finish = (v: { papers: CitePaper[] } | { search: string } | undefined): void => {
        if (done) return;
        done = true;
        resolve(v);
        qp.hide();
      };
      qp.onDidAccept(() => {
        const chosen = qp.selectedItems.length ? qp.selectedItems : qp.activeItems;
        const search = chosen.find((i) => i.search !== undefined);
        if (search?.search !== undefined) return finish({ search: search.search });
        if (!chosen.length && shownSearch?.search) return finish({ search: shownSearch.search });
        const papers = chosen.flatMap((i) => (i.paper ? [i.paper] : []));
        if (papers.length) finish({ papers });
      });
      qp.onDidHide(() => {
        finish(undefined);
        if (this.active === qp) this.active = undefined;
        qp.dispose();
      });
      this.active = qp;
      qp.show();
    });
  }

  async tidyBibliography(arg?: unknown): Promise<CitationCommandResult> {
    const target = await this.tidyTarget(arg);
    if (!target) return { done: false, message: 'cancelled' };
    if ('message' in target) return this.fail(target.message);
    const bibs = this.deps.bibliographies;
    try {
      // Tidy rewrites the file in an editor: the same rules as any write (a .bib; outside the workspace, asked).
      if (!(await bibs.permitWrite(target.uri))) return { done: false, message: 'cancelled' };
    } catch (err) {
      if (err instanceof CitationError) return this.fail(err.message, 'error');
      throw err;
    }
    const bib = await bibs.load({ uri: target.uri, source: 'chosen' });
    const name = vscode.workspace.asRelativePath(bib.uri);
    if (!bib.exists) return this.fail(vscode.l10n.t('{0} does not exist yet: nothing to tidy.', name));
    if (bib.unwritable) return this.fail(bib.unwritable, 'error');
    // The editor would turn every line break into one kind on opening it: Tidy would change bytes it does not move.
    if (bib.origin === 'disk' && !editorKeepsLineBreaks(bib.text)) {
      const k = lineBreakKinds(bib.text);
      return this.fail(
        vscode.l10n.t(
          'Tidy Bibliography: {0} ends its lines in more than one way ({1} CRLF, {2} LF, {3} lone CR), which VS Code\'s editor would change throughout. Nothing was changed.',
          name,
          k.crlf,
          k.lf,
          k.cr,
        ),
        'error',
      );
    }
    const cited = await this.citedKeys(bib.uri);
    const result = tidyBibliography(bib.text, cited.keys, { everyKeyCited: cited.everyKey, citedComplete: cited.complete });
    if (result.text === undefined) {
      bibs.publish(bib.uri, result.diagnostics);
      const errors = result.diagnostics.filter((d) => d.severity === 'error');
      const message = !errors.length && result.blocked
        ? `${vscode.l10n.t('Tidy Bibliography:')} ${blockedMessage(name, result.blocked)} ${vscode.l10n.t('Nothing was changed.')}`
        : vscode.l10n.t(
            'Tidy Bibliography: {0} has {1} error(s) (see Problems, first at line {2}); fix them first. Nothing was changed.',
            name,
            errors.length || 1,
            (errors[0]?.range.start.line ?? 0) + 1,
          );
      const show = vscode.l10n.t('Show Problems');
      void showError(message, show).then((c) => (c === show ? vscode.commands.executeCommand('workbench.actions.view.problems') : undefined));
      return { done: false, bib: bib.uri, message };
    }
    if (result.text !== bib.text) {
      // The range from the editor's own buffer (what the edit applies to), which must read as the bytes did.
      const doc = await vscode.workspace.openTextDocument(bib.uri);
      if (doc.getText() !== bib.text) return this.fail(vscode.l10n.t('Tidy Bibliography: the editor reads {0} differently from its bytes (its encoding?); nothing was changed.', name), 'error');
      const edit = new vscode.WorkspaceEdit();
      edit.replace(bib.uri, new vscode.Range(new vscode.Position(0, 0), doc.positionAt(bib.text.length)), result.text);
      if (!(await vscode.workspace.applyEdit(edit))) return this.fail(vscode.l10n.t('VS Code could not edit {0} (read-only?); nothing was changed.', name), 'error');
      // Shown, not saved: the writer reviews the new order and saves (or undoes) it there.
      await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: false });
    }
    const parts = [result.text === bib.text ? vscode.l10n.t('{0} is already tidy', name) : vscode.l10n.t('Tidied {0}: sorted', name)];
    if (result.removed.length)
      parts.push(vscode.l10n.t('{0} duplicate(s) removed ({1})', result.removed.length, result.removed.map((r) => `${r.key} → ${r.keptKey}`).join(', ')));
    if (result.keptDuplicates.length)
      parts.push(
        cited.complete
          ? vscode.l10n.t('kept entries with the same DOI because documents cite each: {0}', clip(result.keptDuplicates.map((d) => d.keys.join(' = ')).join(', '), 300))
          : vscode.l10n.t('no duplicate removed, because not every document could be read: {0}', clip(result.keptDuplicates.map((d) => d.keys.join(' = ')).join(', '), 300)),
      );
    if (cited.everyKey) parts.push(vscode.l10n.t('every key is cited (\\nocite{*})'));
    else if (result.uncited.length) parts.push(vscode.l10n.t('not cited by any document: {0}', clip(result.uncited.join(', '), 300)));
    else parts.push(vscode.l10n.t('every entry is cited'));
    const message = `${parts.join('; ')}.`;
    void showInfo(message);
    return { done: true, bib: bib.uri, removed: result.removed, uncited: result.uncited, message };
  }

  private async tidyTarget(arg: unknown): Promise<{ uri: vscode.Uri } | { message: string } | undefined> {
    // A file given as an argument (the explorer's context menu) goes through the same questions as any write.
    if (arg instanceof vscode.Uri) return { uri: arg };
    const editor = vscode.window.activeTextEditor ?? this.lastEditor;
    if (!editor) return { message: vscode.l10n.t('Open a .bib file, or a document that uses one, to tidy its bibliography.') };
    const doc = editor.document;
    if (doc.languageId === 'bibtex' || /\.bib$/iu.test(doc.uri.path)) {
      // The .bib the writer is editing: their choice.
      this.deps.bibliographies.approve(doc.uri);
      return { uri: doc.uri };
    }
    const found = await this.deps.bibliographies.find(doc);
    if (!found.length) return { message: vscode.l10n.t('{0} uses no BibTeX bibliography yet: nothing to tidy.', vscode.workspace.asRelativePath(doc.uri)) };
    if (found.length === 1) return { uri: found[0]!.uri };
    const pick = await vscode.window.showQuickPick(
      found.map((f) => ({ label: vscode.workspace.asRelativePath(f.uri), uri: f.uri })),
      { title: vscode.l10n.t('Tidy which bibliography?') },
    );
    return pick ? { uri: pick.uri } : undefined;
  }

  /**
   * Keys cited (lower case) by the writing documents of the bibliography's workspace folder and the open documents;
   * `everyKey` for `\nocite{*}`; `complete` false when some document could not be read or there were more to read.
   */
  private async citedKeys(bib: vscode.Uri): Promise<{ keys: Set<string>; everyKey: boolean; complete: boolean }> {
    const keys = new Set<string>();
    const seen = new Set<string>();
    let complete = true;
    const add = (uri: vscode.Uri, text: string, languageId: string): void => {
      seen.add(uri.toString());
      const flavour = flavourOf(languageId, uri.path);
      if (flavour === 'plain') return;
      for (const k of citedKeys(text, flavour)) keys.add(k.toLowerCase());
    };
    for (const d of vscode.workspace.textDocuments) if (isWritingDocument(d) && d.uri.toString() !== bib.toString()) add(d.uri, d.getText(), d.languageId);
    const folder = vscode.workspace.getWorkspaceFolder(bib);
    if (folder) {
      const files = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, CITE_FILES), '**/{node_modules,.git}/**', MAX_SCANNED_FILES);
      if (files.length >= MAX_SCANNED_FILES) complete = false;
      for (const uri of files) {
        if (seen.has(uri.toString())) continue;
        try {
          // Only regular files of sensible size: a document's name may lead to a device that never ends.
          const stat = await vscode.workspace.fs.stat(uri);
          if (!(stat.type & vscode.FileType.File) || stat.size > MAX_SCANNED_BYTES) throw new Error(`not a readable document (${stat.size} bytes)`);
          add(uri, new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri)), '');
        } catch (err) {
          complete = false;
          this.deps.log.warn(`Tidy Bibliography: could not read ${uri.fsPath}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
    const everyKey = keys.delete('*');
    return { keys, everyKey, complete };
  }
}

/**
 * A document one writes in: a file of any file system (a read-only one is refused later with its own message) or
 * an untitled one; not the Output panel, a virtual document (an abstract), a diff's git side.
 */
function isWritingDocument(d: vscode.TextDocument): boolean {
  const scheme = d.uri.scheme;
  if (scheme === 'file' || scheme === 'untitled' || scheme === 'vscode-remote' || scheme === 'vscode-vfs') return true;
  if (scheme === 'git' || scheme === 'output' || scheme.startsWith('vscode-')) return false;
  return vscode.workspace.fs.isWritableFileSystem(scheme) !== undefined;
}
