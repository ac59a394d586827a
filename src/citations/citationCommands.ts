/**
 * The citation commands: Insert Citation (results view items, a CitePaper argument, or the palette's Quick Pick over
 * recent results and the document's bibliography with a "Search papers for …" fallback: quickPick.ts), Copy BibTeX,
 * Copy Reference (APA) and Tidy Bibliography (tidyCommand.ts). Each returns a CitationCommandResult (tests,
 * keybindings).
 *
 * - The document cited into: the active text editor, else the text editor that was last active (a click in the
 *   results view or the answer view keeps it); none → a clear message, nothing else happens.
 * - The search fallback is the only paid call here and runs only when the writer picks it.
 * - A document that cites becoming active has its bibliography read and parsed in the background.
 */
import * as vscode from 'vscode';
import type { Paper } from '../api/index';
import { findEntry } from '../bib/bibEntry';
import { entryByKey, entryKeys } from '../bib/bibFile';
import { toBibtex } from '../bib/bibtex';
import { citeKey } from '../bib/keys';
import { loadBibtexLibrary } from '../bib/library';
import { formatReference } from '../bib/reference';
import { flavourOf } from '../bib/syntax';
import { texTargetFor } from '../bib/texText';
import { sliceText } from '../bib/textPieces';
import type { Logger } from '../platform/logger';
import { statusMessage } from '../platform/notify';
import type { ResultNode } from '../search/resultsTree';
import { Disposable } from '../shared/disposable';
import type { Bibliographies } from './bibliography';
import { citationSettings } from '../platform/settings';
import { CitationError } from './errors';
import { failed, isWritingDocument, type CitationCommandResult } from './commandSupport';
import { DeclarationOffers } from './declarationOffer';
import type { Inserter } from './insert';
import { PaperPicker, type CitePickItem } from './quickPick';
import { asCitePaper, citePaperOf } from './recentPapers';
import { TidyCommand } from './tidyCommand';
import type { CitePaper, LoadedBibliography, RecentPapers } from './types';

export interface CitationCommandsDeps {
  bibliographies: Bibliographies;
  citations: Inserter;
  recent: RecentPapers;
  /** Papers the results view shows now. */
  shownPapers: () => readonly Paper[];
  /** Runs a search (a paid call) and shows it in the results view. */
  search: (query: string) => Promise<unknown>;
  /** Reads a document's bibliographies and prepares what completion needs (default: reads them). */
  prepareBibliographies?: (document: vscode.TextDocument) => Promise<unknown>;
  log: Logger;
}

/** Quiet time after a document becomes active before its bibliography is prepared. */
const PREPARE_DELAY_MS = 400;

type PaperNode = Extract<ResultNode, { paper: Paper }>;
const isResultNode = (v: unknown): v is PaperNode =>
  typeof v === 'object' && v !== null && 'kind' in v && (v.kind === 'paper' || v.kind === 'excerpt') && 'paper' in v;

export class CitationCommands extends Disposable {
  private lastEditor: vscode.TextEditor | undefined;
  /** The offer to declare a bibliography the document does not declare (notification, status bar, command). */
  readonly declarations: DeclarationOffers;
  private readonly picker: PaperPicker;
  private readonly tidy: TidyCommand;

  constructor(private readonly deps: CitationCommandsDeps) {
    super();
    this.picker = new PaperPicker(deps);
    this.declarations = this.register(new DeclarationOffers(() => this.lastEditor));
    this.tidy = new TidyCommand({
      bibliographies: deps.bibliographies,
      log: deps.log,
      lastEditor: () => this.lastEditor,
    });
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
    await (this.deps.prepareBibliographies ?? ((d) => this.deps.bibliographies.entries(d)))(document);
  }

  private preparing: ReturnType<typeof setTimeout> | undefined;
  /** The last bibliography preparation (tests). */
  prepared: Promise<unknown> | undefined;

  /**
   * While the core is loaded, a document that cites becoming active has its bibliography read and parsed in the
   * background, in slices (once per version: the parse is cached), with completion's index, so the first Insert
   * Citation or completion does not wait for a large .bib. Nothing is read for a document that declares none.
   */
  private prepare(document: vscode.TextDocument): void {
    if (flavourOf(document.languageId, document.fileName) === 'plain') return;
    if (this.preparing) clearTimeout(this.preparing);
    this.preparing = setTimeout(() => {
      this.preparing = undefined;
      if (document.isClosed || this.isDisposed) return;
      this.prepared = this.prepareNow(document).catch((err: unknown) => {
        this.deps.log.warn(
          `Preparing the bibliography of ${vscode.workspace.asRelativePath(document.uri)} failed: ${err instanceof Error ? err.message : String(err)}`,
        );
      });
    }, PREPARE_DELAY_MS);
  }

  /** The text editor citations go to: the active one, else the last active (re-shown if it was closed). */
  async targetEditor(): Promise<vscode.TextEditor | undefined> {
    const active = vscode.window.activeTextEditor;
    if (active && isWritingDocument(active.document)) return active;
    const last = this.lastEditor;
    if (!last || last.document.isClosed) return undefined;
    const visible =
      vscode.window.visibleTextEditors.find((e) => e === last) ??
      vscode.window.visibleTextEditors.find((e) => e.document === last.document);
    if (visible) return visible;
    // Hidden behind another tab (the answer view in the same group): brought back; closed by the writer: not.
    const uri = last.document.uri.toString();
    const group = vscode.window.tabGroups.all.find((g) =>
      g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri),
    );
    if (!group) return undefined;
    const shown = await vscode.window.showTextDocument(last.document, {
      viewColumn: group.viewColumn,
      preserveFocus: true,
      preview: false,
    });
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

  /** The Quick Pick on screen (tests drive it). */
  get active(): vscode.QuickPick<CitePickItem> | undefined {
    return this.picker.active;
  }

  /** Insert Citation: the papers given, else the Quick Pick, where a click cites one paper (its button: several). */
  insertCitation(...args: unknown[]): Promise<CitationCommandResult> {
    return this.insert(args, false);
  }

  /** Insert Citations: the Quick Pick with ticks, to cite several papers at once. */
  insertCitations(...args: unknown[]): Promise<CitationCommandResult> {
    return this.insert(args, true);
  }

  private async insert(args: readonly unknown[], many: boolean): Promise<CitationCommandResult> {
    const editor = await this.targetEditor();
    if (!editor)
      return failed(vscode.l10n.t('Open the document to cite into (a text editor) first, then run Insert Citation.'));
    let papers = this.papersFrom(args);
    // No paper given (the palette, a keybinding, the editor's context menu, which passes the document's URI): pick.
    papers ??= await this.picker.pickPapers(editor.document, {
      many,
      title: many ? vscode.l10n.t('Insert Citations') : vscode.l10n.t('Insert Citation'),
    });
    if (!papers) return { done: false, message: 'cancelled' };
    if (!papers.length) return failed(vscode.l10n.t('Select a paper to cite first.'));
    let keys: string[] | undefined;
    try {
      keys = await this.deps.citations.insert(editor, papers);
    } catch (err) {
      if (err instanceof CitationError) return failed(err.message, 'error');
      throw err;
    }
    if (!keys) return { done: false, message: 'cancelled' };
    const last = this.deps.citations.last;
    const bibName = last?.bib ? vscode.workspace.asRelativePath(last.bib) : undefined;
    const flavour = flavourOf(editor.document.languageId, editor.document.fileName);
    const inBib = editor.document.languageId === 'bibtex' || /\.(bib|bibtex)$/iu.test(editor.document.uri.path);
    const added = last?.added ?? 0;
    const bibText = bibName ?? '';
    const message = inBib
      ? added === 1
        ? vscode.l10n.t('1 entry added to {0} ({1}).', bibText, keys.join(', '))
        : vscode.l10n.t('{0} entries added to {1} ({2}).', added, bibText, keys.join(', '))
      : flavour === 'plain'
        ? papers.length === 1
          ? vscode.l10n.t('Inserted 1 reference (this document has no citation syntax, so no bibliography was used).')
          : vscode.l10n.t(
              'Inserted {0} references (this document has no citation syntax, so no bibliography was used).',
              papers.length,
            )
        : added === 1
          ? vscode.l10n.t('Cited {0}; 1 entry added to {1}.', keys.join(', '), bibText)
          : added
            ? vscode.l10n.t('Cited {0}; {1} entries added to {2}.', keys.join(', '), added, bibText)
            : vscode.l10n.t('Cited {0} (already in {1}).', keys.join(', '), bibText);
    statusMessage(message, 6000);
    if (!inBib && last?.bib && (last.source === 'default' || last.source === 'chosen'))
      this.declarations.offer(editor.document, last.bib);
    return { done: true, keys, bib: last?.bib, added: last?.added ?? 0, message };
  }

  /** Adds the bibliography's declaration to the document (what Declare It does). */
  declare(document: vscode.TextDocument, bib: vscode.Uri): Promise<boolean> {
    return this.declarations.declare(document, bib);
  }

  /** Declare Bibliography in This Document: the declaration still on offer for the document. */
  declareBibliography(arg?: unknown): Promise<boolean> {
    return this.declarations.declareCommand(arg);
  }

  async copyBibtex(...args: unknown[]): Promise<CitationCommandResult> {
    const papers = await this.papersOrPick(args, vscode.l10n.t('Copy BibTeX'));
    if (!papers?.length)
      return papers ? failed(vscode.l10n.t('Select a paper first.')) : { done: false, message: 'cancelled' };
    await loadBibtexLibrary();
    const editor = vscode.window.activeTextEditor ?? this.lastEditor;
    const bibs: LoadedBibliography[] = [];
    if (editor && !editor.document.isClosed)
      for (const b of await this.deps.bibliographies.find(editor.document))
        bibs.push(await this.deps.bibliographies.load(b));
    const settings = citationSettings(editor?.document.uri);
    const target = texTargetFor(editor ? flavourOf(editor.document.languageId, editor.document.fileName) : 'latex');
    const used: string[] = bibs.flatMap((b) => entryKeys(b.file));
    const texts = papers.map((p) => {
      // The entry as it is in the document's bibliography (same key the document cites), else a new one.
      for (const b of bibs) {
        const e = (p.key ? entryByKey(b.file, p.key) : undefined) ?? findEntry(b.file, p);
        if (e) return sliceText(b.file, e.start, e.end);
      }
      const key = citeKey(p, used, settings.keyScheme);
      used.push(key);
      return toBibtex(p, key, { protectTitle: settings.titleProtection, target }).trimEnd();
    });
    const value = `${texts.join('\n\n')}\n`;
    await vscode.env.clipboard.writeText(value);
    const message =
      papers.length === 1
        ? vscode.l10n.t('Copied the BibTeX of 1 paper.')
        : vscode.l10n.t('Copied the BibTeX of {0} papers.', papers.length);
    statusMessage(message, 4000);
    return { done: true, value, message };
  }

  async copyReference(...args: unknown[]): Promise<CitationCommandResult> {
    const papers = await this.papersOrPick(args, vscode.l10n.t('Copy Reference (APA)'));
    if (!papers?.length)
      return papers ? failed(vscode.l10n.t('Select a paper first.')) : { done: false, message: 'cancelled' };
    const value = papers.map((p) => formatReference(p, 'text')).join('\n');
    await vscode.env.clipboard.writeText(value);
    const message =
      papers.length === 1
        ? vscode.l10n.t('Copied the reference of 1 paper.')
        : vscode.l10n.t('Copied the references of {0} papers.', papers.length);
    statusMessage(message, 4000);
    return { done: true, value, message };
  }

  private async papersOrPick(args: readonly unknown[], title: string): Promise<CitePaper[] | undefined> {
    const given = this.papersFrom(args);
    if (given) return given;
    const editor = vscode.window.activeTextEditor ?? this.lastEditor;
    return this.picker.pickPapers(editor && !editor.document.isClosed ? editor.document : undefined, {
      many: true,
      title,
    });
  }

  tidyBibliography(arg?: unknown): Promise<CitationCommandResult> {
    return this.tidy.run(arg);
  }
}
