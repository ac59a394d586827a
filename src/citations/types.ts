/**
 * The editor side of citations: the contract between its parts. The pure logic lives in src/bib
 * (syntax, keys, bibtex, bibFile, locate, answer, reference); this layer finds and edits real files through the
 * VS Code API. Types only.
 *
 *   BibliographyService (bibliography.ts)   finds a document's bibliography, reads it (open buffer first), parses it
 *                                            (cached per version), adds entries to a WorkspaceEdit, reports malformed
 *                                            entries as diagnostics.
 *   CitationInserter (insert.ts)            one step from papers to a citation at the cursor plus their entries.
 *   RecentPapers (recentPapers.ts)          papers the writer has seen this session (results, answer citations),
 *                                            for the Quick Pick and completion.
 */
import type * as vscode from 'vscode';
import type { BibEntry, BibFile } from '../bib/bibFile';
import type { CitablePaper } from '../bib/bibtex';

/** A paper as the citation layer knows it: the metadata plus the service's id when there is one. */
export interface CitePaper extends CitablePaper {
  /** The service's paper id (search results, answer citations' paper_id). */
  id?: string;
  /**
   * The key of an entry already in the document's bibliography (a bibliography entry picked in the Quick Pick or
   * completion): cited as is, no entry written. Ignored when no bibliography of the document has that key.
   */
  key?: string;
}

export interface ResolvedBibliography {
  uri: vscode.Uri;
  /** How it was found: declared in the document, in _quarto.yml, the default setting, or chosen by the writer. */
  source: 'declared' | 'quarto' | 'default' | 'chosen';
}

/** A .bib as read from disk: its bytes (new entries are appended to them) and how they are written. */
export interface DiskBibliography {
  /**
   * The file's bytes in order: as read, then each append of ours. Kept in pieces: joining them would copy a 16 MB file
   * on every citation.
   */
  bytes: readonly Uint8Array[];
  /** 'utf8', 'utf8bom', an encoding of `files.encoding` ('iso88591'…), or 'utf16'/'invalid' (not writable). */
  encoding: string;
  /** Why new entries cannot be written to it (it is still read), in the writer's words. */
  unwritable?: string;
}

export interface LoadedBibliography extends ResolvedBibliography {
  /** The text (the open editor's buffer when it has unsaved changes, else the disk's; '' when absent). */
  text: string;
  /** Whether the file exists on disk or is open. */
  exists: boolean;
  /** Where the text came from: a buffer with unsaved changes (edited there), the disk (appended to), or nothing. */
  origin: 'buffer' | 'disk' | 'absent';
  disk?: DiskBibliography;
  /** Why new entries cannot be written to it, in the writer's words (too large, an encoding we cannot write). */
  unwritable?: string;
  file: BibFile;
}

export interface BibliographyEntry {
  bib: LoadedBibliography;
  entry: BibEntry;
  paper: CitePaper;
}

export interface BibliographyService extends vscode.Disposable {
  /**
   * The bibliographies the document declares (or _quarto.yml, or the default setting when that file exists); no prompt.
   */
  find(document: vscode.TextDocument): Promise<ResolvedBibliography[]>;
  /** `find`, remembered for a few seconds per document version (for requests on every keystroke or hover). */
  findRecent(document: vscode.TextDocument): Promise<ResolvedBibliography[]>;
  /**
   * The bibliography new entries go to: the first declared one, else _quarto.yml's, else the default setting's
   * (created on first write), else the writer is asked. Undefined when the writer cancelled, or did not allow writing
   * to a file outside the workspace or a new one; throws CitationError for a file never written (not a .bib).
   */
  target(document: vscode.TextDocument): Promise<ResolvedBibliography | undefined>;
  /** The writer chose this file themselves (the .bib they are editing): written without asking. */
  approve(uri: vscode.Uri): void;
  /** Read and parse (cached per document version / file mtime). */
  load(bib: ResolvedBibliography): Promise<LoadedBibliography>;
  /**
   * Every entry of the document's bibliographies, for completion, hover and the Quick Pick (an entry's `paper` needs
   * `loadBibtexLibrary()`).
   */
  entries(document: vscode.TextDocument): Promise<BibliographyEntry[]>;
  /**
   * The first `count` of those entries, as soon as they are read (before the rest of a large file is; a large file not
   * read yet gives those of its head, and is read by the next `entries`).
   */
  firstEntries(document: vscode.TextDocument, count: number): Promise<BibEntry[]>;
  /**
   * Adds what makes every paper citable from `bib` to `edit`, or to the bytes `apply` writes with it (creating the file
   * when absent); an entry already present (same DOI, or same title and year with no field telling them apart:
   * paperIdentity.ts) is reused. Returns each paper's key, in order. Throws CitationError when nothing may be written
   * there (and writes nothing). `citing` is the document the papers are cited from: a Typst document's .bib gets its
   * text in the form Typst reads (texText.ts).
   */
  addEntries(
    edit: vscode.WorkspaceEdit,
    bib: LoadedBibliography,
    papers: readonly CitePaper[],
    citing?: vscode.TextDocument,
  ): Promise<string[]>;
  /** Whether `addEntries` left bytes for `apply` to write with this edit (the edit itself may be empty). */
  hasWrites(edit: vscode.WorkspaceEdit): boolean;
  /**
   * Applies an edit `addEntries` added to: the bytes appended to the .bib, then the edit (through `editor` when it
   * shows the only document changed); false (and the .bib as it was) when VS Code refuses the edit. Throws
   * CitationError when a .bib changed meanwhile or cannot be written.
   */
  apply(edit: vscode.WorkspaceEdit, editor?: vscode.TextEditor): Promise<boolean>;
}

export interface InsertOptions {
  /** A page or other locator; when absent and the locator setting says so, the writer is asked. */
  locator?: string;
  /** Where to insert (default: the editor's cursor). */
  position?: vscode.Position;
}

export interface CitationInserter {
  /**
   * Cites `papers` at the cursor of `editor` in the document's syntax (extending a citation at/right before the
   * cursor) and adds their entries, in one WorkspaceEdit (one Undo). Returns the keys, or undefined when cancelled.
   */
  insert(
    editor: vscode.TextEditor,
    papers: readonly CitePaper[],
    options?: InsertOptions,
  ): Promise<string[] | undefined>;
}

export interface RecentPapers {
  /** Most recent first, without duplicates (by id, else DOI, else title). */
  list(): readonly CitePaper[];
  remember(papers: readonly CitePaper[]): void;
  byId(id: string): CitePaper | undefined;
}
