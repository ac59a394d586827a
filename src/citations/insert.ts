/**
 * Papers → a citation at the cursor plus their bibliography entries, applied together.
 *
 * - Syntax by the document's flavour (src/bib/syntax.ts); inside or right after a citation the keys are added to it.
 *   Several papers: one citation with all keys (`\cite{a,b}`, `[@a; @b]`, `@a @b`). A locator goes on the whole
 *   LaTeX citation (`\cite[p.~4]{a,b}`) and on the last key in Pandoc and Typst.
 * - 'plain' documents (no citation syntax): the APA reference of each paper is inserted, one per line, and nothing
 *   is written to any bibliography.
 * - The document and the .bib are re-read right before applying; when either changed while we waited (the locator
 *   box, a file dialog), the edit is computed again. The entries are appended to the .bib's bytes first, then the
 *   citation is applied; when VS Code refuses that, the .bib is put back byte for byte, so a failure leaves nothing
 *   half-written. Undo in the document removes the citation; the entries stay in the .bib (uncited, as Tidy shows),
 *   except in a .bib with unsaved changes, which is edited in its buffer with the document (one Undo for both).
 */
import * as vscode from 'vscode';
import { formatReference } from '../bib/reference';
import { citationAt, flavourOf, insertCitation, type CiteFlavour } from '../bib/syntax';
import { applyEdits, type TextEdit } from '../bib/edit';
import { citationSettings } from '../platform/settings';
import { CitationError, StaleBibliography } from './errors';
import { takenKeys } from './incrementalParse';
import type {
  BibliographyService,
  CitationInserter,
  CitePaper,
  InsertOptions,
  LoadedBibliography,
  RecentPapers,
  ResolvedBibliography,
} from './types';

/** What the last insert did (tests and the commands' return values). */
export interface InsertOutcome {
  keys: string[];
  /** The bibliography written to (absent for 'plain' documents), and how it was found. */
  bib?: vscode.Uri;
  source?: ResolvedBibliography['source'];
  /** Entries added to it (the others were already there). */
  added: number;
  /** The text inserted in the document (for an extended citation: what was added to it). */
  inserted: string;
  extended: boolean;
}

export { CitationError };

export class Inserter implements CitationInserter {
  /** The outcome of the last successful insert. */
  last: InsertOutcome | undefined;
  /** Tests replace this to answer the locator box. */
  askLocator: () => Thenable<string | undefined> = () =>
    vscode.window.showInputBox({
      title: vscode.l10n.t('Locator (page, chapter…)'),
      prompt: vscode.l10n.t('A page ("4"), a range ("4-7") or any locator ("chap. 2"). Leave empty for none.'),
      placeHolder: vscode.l10n.t('e.g. 4 or 12-15'),
    });

  constructor(
    private readonly bibliographies: BibliographyService & { noteApplied?(uri: vscode.Uri): void },
    private readonly recent?: RecentPapers,
    private readonly log?: (message: string) => void,
  ) {}

  async insert(
    editor: vscode.TextEditor,
    papers: readonly CitePaper[],
    options: InsertOptions = {},
  ): Promise<string[] | undefined> {
    const document = editor.document;
    if (!papers.length) return [];
    if (vscode.workspace.fs.isWritableFileSystem(document.uri.scheme) === false)
      throw new CitationError(
        vscode.l10n.t('This document is read-only: open a document you can edit to insert a citation.'),
      );
    const settings = citationSettings(document.uri);
    // In a .bib itself, "citing" adds the entries to it (no citation text).
    const isBibDoc = document.languageId === 'bibtex' || /\.(bib|bibtex)$/iu.test(document.uri.path);
    const flavour = flavourOf(document.languageId, document.fileName);
    let locator = options.locator;
    if (locator === undefined && settings.askLocator && !isBibDoc) {
      locator = await this.askLocator();
      if (locator === undefined) return undefined;
    }
    locator = locator?.trim() || undefined;
    // In the .bib the writer is editing, they chose the file themselves.
    if (isBibDoc) this.bibliographies.approve(document.uri);
    const target: ResolvedBibliography | undefined = isBibDoc
      ? { uri: document.uri, source: 'chosen' }
      : flavour === 'plain'
        ? undefined
        : await this.bibliographies.target(document);
    if (!target && (flavour !== 'plain' || isBibDoc)) return undefined;
    const startOffset = document.offsetAt(options.position ?? editor.selection.active);
    for (let attempt = 0; ; attempt++) {
      const version = document.version;
      const bib = target ? await this.bibliographies.load(target) : undefined;
      const bibDoc = bib
        ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.uri.toString())
        : undefined;
      const bibVersion = bibDoc?.version;
      const edit = new vscode.WorkspaceEdit();
      const keys = bib ? await this.keysFor(document, edit, bib, papers) : [];
      const known = bib && takenKeys(bib.file);
      const added = known ? new Set(keys.map((k) => k.toLowerCase()).filter((k) => !known.has(k))).size : 0;
      const text = document.getText();
      // The cursor moves with edits made while we waited only through the position we were given: re-read it.
      const offset = attempt === 0 ? startOffset : document.offsetAt(options.position ?? editor.selection.active);
      const cite = isBibDoc
        ? { edit: { offset, length: 0, text: '' }, extended: false, cursor: offset }
        : citeEdit(text, offset, flavour, keys, papers, { latexCommand: settings.latexCommand, locator });
      if (cite.edit.length || cite.edit.text) {
        edit.replace(
          document.uri,
          new vscode.Range(
            document.positionAt(cite.edit.offset),
            document.positionAt(cite.edit.offset + cite.edit.length),
          ),
          cite.edit.text,
        );
      }
      const stale =
        document.version !== version ||
        (bibDoc !== undefined && bibDoc.version !== bibVersion) ||
        (bib?.origin === 'buffer' && !bibDoc) ||
        (bib?.origin !== 'buffer' &&
          vscode.workspace.textDocuments.some((d) => d.uri.toString() === bib?.uri.toString() && d.isDirty));
      if (stale) {
        if (attempt < 3) continue;
        throw new CitationError(
          vscode.l10n.t('The document kept changing while the citation was prepared; nothing was inserted. Try again.'),
        );
      }
      if (edit.size === 0 && !this.bibliographies.hasWrites(edit)) {
        this.last = { keys, bib: bib?.uri, source: target?.source, added: 0, inserted: '', extended: cite.extended };
        return flavour === 'plain' && !isBibDoc ? [] : keys;
      }
      let ok: boolean;
      try {
        ok = await this.bibliographies.apply(edit, editor);
      } catch (err) {
        // The .bib changed on disk between reading and writing: computed again from what it is now.
        if (err instanceof StaleBibliography && attempt < 3) {
          this.log?.(`Insert Citation: ${err.message} (computed again)`);
          continue;
        }
        throw err;
      }
      if (!ok)
        throw new CitationError(
          bib
            ? vscode.l10n.t(
                'VS Code could not apply the citation to {0} (read-only, or changed meanwhile); nothing was written, {1} is as it was.',
                vscode.workspace.asRelativePath(document.uri),
                vscode.workspace.asRelativePath(bib.uri),
              )
            : vscode.l10n.t(
                'VS Code could not apply the citation to {0} (read-only, or changed meanwhile); nothing was written.',
                vscode.workspace.asRelativePath(document.uri),
              ),
        );
      if (bib && added) this.bibliographies.noteApplied?.(bib.uri);
      if ((cite.edit.text || cite.edit.length) && !document.isClosed) {
        const end = document.positionAt(cite.cursor);
        try {
          editor.selection = new vscode.Selection(end, end);
        } catch {
          // The editor was closed meanwhile: the citation is in the document all the same.
        }
      }
      this.last = {
        keys,
        bib: bib?.uri,
        source: target?.source,
        added,
        inserted: cite.edit.text,
        extended: cite.extended,
      };
      // Cited papers are offered again by the Quick Pick and completion (entries picked from the .bib are there
      // already).
      this.recent?.remember(papers.filter((p) => !p.key));
      return flavour === 'plain' && !isBibDoc ? [] : keys;
    }
  }

  /** Papers picked as bibliography entries (`key`) are cited as they are; the others get entries in `bib`. */
  private async keysFor(
    document: vscode.TextDocument,
    edit: vscode.WorkspaceEdit,
    bib: LoadedBibliography,
    papers: readonly CitePaper[],
  ): Promise<string[]> {
    const known = new Map<number, string>();
    if (papers.some((p) => p.key)) {
      const all = new Map(
        (await this.bibliographies.entries(document)).map((e) => [e.entry.key.toLowerCase(), e.entry.key]),
      );
      papers.forEach((p, i) => {
        const k = p.key ? all.get(p.key.toLowerCase()) : undefined;
        if (k) known.set(i, k);
      });
    }
    const rest = await this.bibliographies.addEntries(
      edit,
      bib,
      papers.filter((_, i) => !known.has(i)),
      document,
    );
    return papers.map((_, i) => known.get(i) ?? rest.shift() ?? '');
  }
}

/**
 * The one text edit that cites `keys` at `offset` (extending the citation there, each next key extending what the
 * previous one wrote), or for 'plain' the references of the papers.
 */
export function citeEdit(
  text: string,
  offset: number,
  flavour: CiteFlavour,
  keys: readonly string[],
  papers: readonly CitePaper[],
  options: { latexCommand?: string; locator?: string },
): { edit: TextEdit; extended: boolean; cursor: number } {
  if (flavour === 'plain') {
    const refs = papers.map((p) => formatReference(p, 'text')).join('\n');
    return { edit: { offset, length: 0, text: refs }, extended: false, cursor: offset + refs.length };
  }
  let current = text;
  let at = offset;
  let extended = false;
  keys.forEach((key, i) => {
    const locator =
      options.locator && (flavour === 'latex' ? i === 0 : i === keys.length - 1) ? options.locator : undefined;
    const r = insertCitation(current, at, flavour, key, { latexCommand: options.latexCommand, locator });
    if (i === 0) extended = r.extended;
    if (r.already) return;
    current = applyEdits(current, [r.edit]);
    at = r.end;
  });
  // The cursor goes after the whole citation (an extended one included), where the writer types on.
  const span = citationAt(current, at, flavour);
  return { edit: diff(text, current), extended, cursor: span && span.end >= at ? span.end : at };
}

/** The smallest single edit turning `a` into `b`. */
function diff(a: string, b: string): TextEdit {
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  return { offset: start, length: endA - start, text: b.slice(start, endB) };
}
