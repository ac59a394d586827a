/**
 * Finds, reads and extends a document's bibliography: the BibliographyService the inserter, completion, hover, the
 * commands and Insert Answer use.
 *
 * Where: the bibliographies the document declares, else `_quarto.yml`'s, else the file the writer chose for it this
 * session, else the `researchDesk.citations.defaultBibliography` setting relative to the workspace folder (created on
 * first write), else the writer picks a file (save dialog); bibliographyFind.ts has the rules. The document is not
 * edited to declare a chosen file. Only BibTeX files (.bib) are read or written: CSL JSON/YAML or Hayagriva
 * bibliographies are skipped.
 *
 * Writing (what a document or a repository's settings may make us write, and how: bibliographyWrite.ts): only `.bib`
 * files; one outside the workspace folders (or reached through a symbolic link), or one that does not exist yet, only
 * after the writer says yes (`confirmWrite`, asked once per file and session). New entries go to the file's bytes,
 * appended after the last one (`apply`), never through a saved editor buffer: VS Code's text model changes mixed line
 * breaks, lone CRs and invalid UTF-8 when it opens a file, and saving runs participants over the whole file. A file
 * that is not UTF-8 is written in the encoding `files.encoding` names for it, or not at all. Nothing is appended where
 * BibTeX or Biber would read it as part of an unclosed entry. Only a .bib with unsaved changes is edited in its buffer
 * (the changes are the writer's to save).
 *
 * Reading: the open editor's buffer when it has unsaved changes, else the disk. The parse is cached per file and
 * document version (or mtime and size on disk: bibliographyCache.ts). Malformed entries become diagnostics on the .bib
 * (whenever we load it and whenever a BibTeX document is opened or edited while the citation bundle is loaded).
 */
import * as vscode from 'vscode';
import { appendBlocker, appendText } from '../bib/bibAppend';
import { findEntry } from '../bib/bibEntry';
import { entryByKey, parseBibFile, type BibDiagnostic, type BibEntry, type BibFile } from '../bib/bibFile';
import { toBibtex } from '../bib/bibtex';
import { baseKey, disambiguate } from '../bib/keys';
import { loadBibtexLibrary } from '../bib/library';
import { flavourOf } from '../bib/syntax';
import { texTargetFor } from '../bib/texText';
import { Disposable } from '../shared/disposable';
import { BibliographyCache } from './bibliographyCache';
import { bibliographyDialog, defaultBibliography, findBibliographies, isBib } from './bibliographyFind';
import {
  askToWrite,
  blockedMessage,
  checkUnchanged,
  encodes,
  isUtf8,
  notBibMessage,
  putBack,
  unencodableMessage,
  WritePermissions,
  type PendingWrite,
  type WriteQuestion,
} from './bibliographyWrite';
import { appendUri } from './fileAccess';
import { takenKeys, textEnd } from './incrementalParse';
import { citationSettings } from '../platform/settings';
import { CitationError, StaleBibliography } from './errors';
import { PdflatexNotes } from './latexNote';
import type {
  BibliographyEntry,
  BibliographyService,
  CitePaper,
  LoadedBibliography,
  ResolvedBibliography,
} from './types';

export const DIAGNOSTIC_SOURCE = 'Research Desk';

const FIND_TTL_MS = 3000;
/** Diagnostics published per .bib (the Problems view shows the first ones anyway). */
const MAX_PUBLISHED = 200;

export interface BibliographyServiceOptions {
  /** Asks the writer for a bibliography file (default: a save dialog filtered to .bib). */
  pick?: (document: vscode.TextDocument) => Promise<vscode.Uri | undefined>;
  /** Asks the writer whether a file may be written (default: a modal question). */
  confirmWrite?: (uri: vscode.Uri, why: WriteQuestion) => Promise<boolean>;
}

export class Bibliographies extends Disposable implements BibliographyService {
  private readonly cache = new BibliographyCache((uri, diagnostics) => this.publish(uri, diagnostics));
  private readonly permissions = new WritePermissions((uri, why) => this.confirmWrite(uri, why));
  private readonly chosen = new Map<string, vscode.Uri>();
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  /** find() results per document for entries(): { document uri@version, time, bibliographies }. */
  private readonly found = new Map<string, { key: string; at: number; bibs: ResolvedBibliography[] }>();
  /** Bytes addEntries will append, per WorkspaceEdit, written by `apply`. */
  private readonly writes = new WeakMap<vscode.WorkspaceEdit, PendingWrite[]>();
  /** New entries per WorkspaceEdit and the document citing them, for the note on letters pdflatex cannot print. */
  private readonly added = new WeakMap<vscode.WorkspaceEdit, { citing: vscode.TextDocument; papers: CitePaper[] }>();
  /** The note on letters pdflatex cannot print, shown once per document (tests read what it said last). */
  readonly pdflatexNotes = new PdflatexNotes();
  readonly diagnostics: vscode.DiagnosticCollection;
  /** Tests replace this to answer the "pick a bibliography" question without a dialog. */
  pick: (document: vscode.TextDocument) => Promise<vscode.Uri | undefined>;
  /** Tests replace this to answer "write to this file?" without a modal dialog (VS Code refuses those under test). */
  confirmWrite: (uri: vscode.Uri, why: WriteQuestion) => Promise<boolean>;

  constructor(options: BibliographyServiceOptions = {}) {
    super();
    this.pick = options.pick ?? ((document) => bibliographyDialog(document));
    this.confirmWrite = options.confirmWrite ?? ((uri, why) => askToWrite(uri, why));
    this.diagnostics = this.register(vscode.languages.createDiagnosticCollection('research-desk-bibtex'));
    this.register(vscode.workspace.onDidOpenTextDocument((d) => this.watch(d)));
    this.register(vscode.workspace.onDidChangeTextDocument((e) => this.watch(e.document)));
    this.register(
      vscode.workspace.onDidCloseTextDocument((d) => {
        // Its version numbers start again when it is reopened: the cached parse could be taken for the new one.
        this.cache.forget(d.uri);
      }),
    );
    for (const d of vscode.workspace.textDocuments) this.watch(d);
    this.register({ dispose: () => this.pending.forEach((t) => clearTimeout(t)) });
  }

  /** A BibTeX document opened or edited: its malformed entries are reported (debounced). */
  private watch(document: vscode.TextDocument): void {
    if (document.languageId !== 'bibtex' && !isBib(document.uri.path)) return;
    if (document.uri.scheme === 'output' || document.uri.scheme === 'git') return;
    const id = document.uri.toString();
    const prev = this.pending.get(id);
    if (prev) clearTimeout(prev);
    this.pending.set(
      id,
      setTimeout(() => {
        this.pending.delete(id);
        if (!document.isClosed) void this.load({ uri: document.uri, source: 'chosen' }).catch(() => undefined);
      }, 200),
    );
  }

  find(document: vscode.TextDocument): Promise<ResolvedBibliography[]> {
    return findBibliographies(document, () => this.chosen.get(document.uri.toString()));
  }

  /**
   * The bibliography new entries go to, once the writer allowed writing to it (see `permitWrite`): undefined when
   * they cancelled or said no. Throws CitationError when the file may not be written at all (not a .bib).
   */
  async target(document: vscode.TextDocument): Promise<ResolvedBibliography | undefined> {
    const found = await this.find(document);
    const fromWorkspaceSetting = (): boolean => citationSettings(document.uri).defaultFromWorkspace;
    if (found[0])
      return (await this.permitWrite(found[0].uri, {
        fromWorkspaceSetting: found[0].source === 'default' && fromWorkspaceSetting(),
      }))
        ? found[0]
        : undefined;
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    const def = defaultBibliography(document, folder);
    if (def)
      return (await this.permitWrite(def, { fromWorkspaceSetting: fromWorkspaceSetting() }))
        ? { uri: def, source: 'default' }
        : undefined;
    const picked = await this.pick(document);
    if (!picked) return undefined;
    if (!this.permissions.writableName(picked)) throw new CitationError(notBibMessage(picked));
    // Chosen in a save dialog: the writer has said where.
    this.approve(picked);
    this.chosen.set(document.uri.toString(), picked);
    this.found.clear();
    return { uri: picked, source: 'chosen' };
  }

  /** The writer chose this file themselves (a save dialog, the .bib they are editing): written without asking. */
  approve(uri: vscode.Uri): void {
    this.permissions.approve(uri);
  }

  /**
   * Whether new entries may be written to `uri`: a .bib inside a workspace folder that exists (and is reached without
   * a symbolic link) may; another is written only if the writer says yes, asked once per file and session. Throws
   * CitationError for a file that is not a .bib (never written, whatever the writer or a setting says).
   */
  permitWrite(uri: vscode.Uri, context: { fromWorkspaceSetting?: boolean } = {}): Promise<boolean> {
    return this.permissions.permitWrite(uri, context);
  }

  load(bib: ResolvedBibliography): Promise<LoadedBibliography> {
    return this.cache.load(bib);
  }

  /**
   * `find`, remembered for a few seconds per document version: completion and hover ask on every keystroke (new
   * files appear after that; a chosen file clears it).
   */
  async findRecent(document: vscode.TextDocument): Promise<ResolvedBibliography[]> {
    const key = `${document.uri.toString()}@${document.version}`;
    const hit = this.found.get(document.uri.toString());
    const bibs = hit && hit.key === key && Date.now() - hit.at < FIND_TTL_MS ? hit.bibs : await this.find(document);
    if (!hit || hit.bibs !== bibs) this.found.set(document.uri.toString(), { key, at: Date.now(), bibs });
    return bibs;
  }

  /** Every entry (its `paper` needs `loadBibtexLibrary()`: the lists read only the raw fields). */
  async entries(document: vscode.TextDocument): Promise<BibliographyEntry[]> {
    const bibs = await this.findRecent(document);
    if (!bibs.length) return [];
    const out: BibliographyEntry[] = [];
    // Read together: a second large file is parsed while the first waits for its slices.
    for (const loaded of await Promise.all(bibs.map((b) => this.load(b)))) out.push(...this.cache.entriesOf(loaded));
    return out;
  }

  /**
   * The first `count` entries of the document's bibliographies, in order, as soon as they are read: a list that shows
   * only those need not wait for the rest of a large file.
   */
  async firstEntries(document: vscode.TextDocument, count: number): Promise<BibEntry[]> {
    const out: BibEntry[] = [];
    for (const b of await this.findRecent(document)) {
      if (out.length >= count) break;
      const first = await this.cache.firstEntries(b, count - out.length);
      out.push(...first.entries);
      // Only the head of a large file: the next file's entries would come before the rest of this one's.
      if (first.partial) break;
    }
    return out;
  }

  /**
   * Adds what makes every paper citable from `bib` to `edit` (an unsaved buffer's text) or to the bytes `apply`
   * writes with it. Throws CitationError, before anything is written, when the file may not be written (the writer
   * said no, not a .bib, an encoding we cannot write, an unclosed entry new ones would fall into).
   */
  async addEntries(
    edit: vscode.WorkspaceEdit,
    bib: LoadedBibliography,
    papers: readonly CitePaper[],
    citing?: vscode.TextDocument,
  ): Promise<string[]> {
    await loadBibtexLibrary();
    const settings = citationSettings(bib.uri);
    const target = texTargetFor(citing ? flavourOf(citing.languageId, citing.fileName) : 'latex');
    const keys: string[] = [];
    const texts: string[] = [];
    const fresh: CitePaper[] = [];
    // Entries added by this call, parsed alone: a paper given twice gets one entry and one key.
    let added: BibFile = parseBibFile('');
    /** Keys given to papers of this call. */
    const taken: string[] = [];
    for (const paper of papers) {
      const existing =
        (paper.key ? entryByKey(bib.file, paper.key) : undefined) ??
        findEntry(bib.file, paper) ??
        findEntry(added, paper);
      if (existing) {
        keys.push(existing.key);
        continue;
      }
      // Every key a new one could clash with starts like its base (keys compare in lower case; a base is ASCII).
      const base = baseKey(paper, settings.keyScheme);
      const prefix = base.toLowerCase();
      const near = [...bib.file.brokenKeys, ...taken].filter((k) => k.toLowerCase().startsWith(prefix));
      for (const k of takenKeys(bib.file).keys()) if (k.startsWith(prefix)) near.push(k);
      const key = disambiguate(base, near);
      taken.push(key);
      keys.push(key);
      texts.push(toBibtex(paper, key, { protectTitle: settings.titleProtection, target }).trimEnd());
      fresh.push(paper);
      added = parseBibFile(texts.join('\n\n'));
    }
    if (!texts.length) return keys;
    if (citing) this.added.set(edit, { citing, papers: fresh });
    const name = vscode.workspace.asRelativePath(bib.uri);
    if (!(await this.permitWrite(bib.uri)))
      throw new CitationError(vscode.l10n.t('Nothing was written: writing to {0} was not allowed.', name));
    if (bib.unwritable) throw new CitationError(bib.unwritable);
    const blocked = appendBlocker(bib.file);
    if (blocked) throw new CitationError(`${blockedMessage(name, blocked)} ${vscode.l10n.t('Nothing was written.')}`);
    // One append for all new entries (separate inserts at one position would depend on their order). Only the end of
    // the text decides how it is joined (the whole text can be an earlier append not yet read as one string).
    const appended = appendText(
      bib.file.text === bib.text ? textEnd(bib.file) : bib.text,
      texts.join('\n\n'),
      bib.file.newline,
    );
    if (bib.origin === 'buffer') {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.uri.toString());
      if (!open || open.getText() !== bib.text)
        throw new StaleBibliography(
          vscode.l10n.t('{0} changed while the citation was prepared; nothing was written. Try again.', name),
        );
      // A buffer in another encoding is saved in it by VS Code: every character must have a place there.
      if (!isUtf8(open.encoding) && !(await encodes(appended, open.encoding)))
        throw new CitationError(unencodableMessage(name, open.encoding));
      edit.insert(bib.uri, open.positionAt(bib.text.length), appended);
      this.cache.expectAppend(bib, bib.text + appended);
      return keys;
    }
    const encoding = bib.disk?.encoding ?? 'utf8';
    let tail: Uint8Array;
    if (isUtf8(encoding)) tail = new TextEncoder().encode(appended);
    else {
      tail = await vscode.workspace.encode(appended, { encoding });
      if ((await vscode.workspace.decode(tail, { encoding })) !== appended)
        throw new CitationError(unencodableMessage(name, encoding));
    }
    const before = bib.exists ? bib.disk?.bytes : undefined;
    if (bib.exists && !before)
      throw new CitationError(vscode.l10n.t('{0} could not be read; nothing was written.', name));
    const list = this.writes.get(edit) ?? [];
    if (list.some((w) => w.uri.toString() === bib.uri.toString()))
      throw new CitationError(vscode.l10n.t('{0} is already written by this edit.', name));
    list.push({ uri: bib.uri, before, tail, base: bib, appended });
    this.writes.set(edit, list);
    return keys;
  }

  /** Whether `addEntries` left bytes for `apply` to write with this edit. */
  hasWrites(edit: vscode.WorkspaceEdit): boolean {
    return (this.writes.get(edit)?.length ?? 0) > 0;
  }

  /**
   * Applies an edit built with `addEntries`: first the bytes appended to each .bib (each file checked unchanged right
   * before: else StaleBibliography and nothing written), then the document edit (through `editor` when it shows the
   * only document the edit changes); when VS Code refuses that, every .bib is put back byte for byte (a created one
   * deleted) and false is returned.
   */
  async apply(edit: vscode.WorkspaceEdit, editor?: vscode.TextEditor): Promise<boolean> {
    const writes = this.writes.get(edit) ?? [];
    this.writes.delete(edit);
    const done: PendingWrite[] = [];
    try {
      for (const w of writes) {
        await checkUnchanged(w);
        await appendUri(w.uri, w.before, w.tail);
        done.push(w);
      }
    } catch (err) {
      await putBack(done);
      // Read again on the next attempt: a change that kept the file's size and time still matches the cached parse.
      if (err instanceof StaleBibliography) for (const w of writes) this.cache.forget(w.uri);
      if (err instanceof CitationError) throw err;
      const first = writes[done.length];
      throw new CitationError(
        vscode.l10n.t(
          '{0} could not be written ({1}); nothing was changed.',
          first ? vscode.workspace.asRelativePath(first.uri) : '',
          err instanceof Error ? err.message : String(err),
        ),
      );
    }
    if (edit.size > 0 && !(await applyDocumentEdit(edit, editor))) {
      await putBack(done);
      return false;
    }
    for (const w of done) {
      this.found.clear();
      await this.cache.noteWritten(w);
    }
    const added = this.added.get(edit);
    if (added) this.pdflatexNotes.afterInsert(added.citing, added.papers);
    return true;
  }

  /**
   * After the edit of `addEntries` was applied (called by the inserter; `load` also notices it by itself): when the
   * open .bib changed by exactly that edit, its new parse is the old one extended by the entries, without reading
   * the buffer again.
   */
  noteApplied(uri: vscode.Uri): void {
    this.found.clear();
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) this.cache.adoptAppend(open);
  }

  /** The Problems view entries of a parsed file (the first ones: a hostile file can hold 100,000). */
  publish(uri: vscode.Uri, diagnostics: readonly BibDiagnostic[]): void {
    this.diagnostics.set(
      uri,
      diagnostics.slice(0, MAX_PUBLISHED).map((d) => {
        const diag = new vscode.Diagnostic(
          new vscode.Range(d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character),
          d.message,
          d.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
        );
        diag.source = DIAGNOSTIC_SOURCE;
        return diag;
      }),
    );
  }

  /** Drops every cached parse and every answer of the writer (tests; a setting change does not need it). */
  clearCache(): void {
    this.cache.clear();
    this.found.clear();
    this.chosen.clear();
    this.permissions.clear();
  }
}

/**
 * Applies a document edit: through the editor that shows the document when it is the only one the edit changes, else
 * as a WorkspaceEdit. The same text edits, one Undo step either way, refused either way when the document changed
 * since the edit was computed; measured in a real VS Code, a WorkspaceEdit's round trip through the workbench took
 * 15–50 ms where the editor's took 9–19 ms.
 */
async function applyDocumentEdit(edit: vscode.WorkspaceEdit, editor: vscode.TextEditor | undefined): Promise<boolean> {
  const entries = edit.entries();
  const only = entries.length === 1 && edit.size === 1 ? entries[0] : undefined;
  if (editor && only && only[0].toString() === editor.document.uri.toString() && !editor.document.isClosed) {
    const changes = only[1];
    try {
      return await editor.edit((b) => {
        for (const c of changes) b.replace(c.range, c.newText);
      });
    } catch {
      // The editor was closed meanwhile: the document is edited as a WorkspaceEdit.
    }
  }
  return vscode.workspace.applyEdit(edit);
}
