/**
 * Finds, reads and extends a document's bibliography.
 *
 * Where: the bibliographies the document declares (LaTeX \bibliography/\addbibresource, YAML front matter, Typst
 * #bibliography), resolved next to the document (LaTeX also at the workspace folder's root when not found next to
 * the document, as latexmk run from the root would); else `bibliography:` of the nearest `_quarto.yml` between the
 * document's folder and its workspace folder (Pandoc flavours); else the `researchDesk.citations.defaultBibliography`
 * setting relative to the workspace folder (created on first write); else the writer picks a file (save dialog). A
 * chosen file is remembered for that document in this session; the document is not edited to declare it. Only
 * BibTeX files (.bib) are read or written: CSL JSON/YAML or Hayagriva bibliographies are skipped.
 *
 * Writing (what a document or a repository's settings may make us write, and how): only `.bib` files; one outside
 * the workspace folders (or reached through a symbolic link), or one that does not exist yet, only after the writer
 * says yes (`confirmWrite`, asked once per file and session). New entries go to the file's bytes, appended after the
 * last one (`apply`), never through a saved editor buffer: VS Code's text model changes mixed line breaks, lone CRs
 * and invalid UTF-8 when it opens a file, and saving runs participants over the whole file. A file that is not
 * UTF-8 is written in the encoding `files.encoding` names for it, or not at all. Nothing is appended where BibTeX or
 * Biber would read it as part of an unclosed entry. Only a .bib with unsaved changes is edited in its buffer (the
 * changes are the writer's to save).
 *
 * Reading: the open editor's buffer when it has unsaved changes, else the disk. The parse is cached per file and
 * document version (or mtime and size on disk). Malformed entries become diagnostics on the .bib (whenever we load it
 * and whenever a BibTeX document is opened or edited while the core is loaded).
 */
import * as vscode from 'vscode';
import { appendBlocker, appendText, type AppendBlocker } from '../bib/bibAppend';
import { entryToPaper, findEntry } from '../bib/bibEntry';
import { entryByKey, entryKeys, parseBibFile, type BibDiagnostic, type BibFile } from '../bib/bibFile';
import { concatBytes, decodeLossy, decodeUtf8, isAscii, sameBytes } from '../bib/bibBytes';
import { toBibtex } from '../bib/bibtex';
import type { TitleProtection } from '../bib/bibtex';
import { countBreaks } from '../bib/edit';
import { canExtend, extendParse } from './incrementalParse';
import { citeKey, DEFAULT_KEY_SCHEME } from '../bib/keys';
import { loadBibtexLibrary } from '../bib/library';
import { latexBibliographies, locateBibliographies, texRoot } from '../bib/locate';
import { flavourOf } from '../bib/syntax';
import { texTargetFor } from '../bib/texText';
import { PdflatexNotes } from './latexNote';
import { Settings } from '../platform/ids';
import { Disposable } from '../shared/disposable';
import type { BibliographyEntry, BibliographyService, CitePaper, DiskBibliography, LoadedBibliography, ResolvedBibliography } from './types';

export const CITATION_SETTINGS = 'researchDesk.citations';
export const DIAGNOSTIC_SOURCE = 'Research Desk';

/** A citation command's failure, in words for the writer (shown as it is). */
export class CitationError extends Error {}
/** A bibliography changed between reading it and writing to it: computed again, or the writer tries again. */
export class StaleBibliography extends CitationError {}

const FIND_TTL_MS = 3000;
/** Larger .bib files are not read (nor written): 64 MB is far beyond any real bibliography. */
const MAX_BIB_BYTES = 64 * 1024 * 1024;
/** Larger `_quarto.yml` or LaTeX main files are not read to find a bibliography. */
const MAX_LOCATOR_BYTES = 4 * 1024 * 1024;
/** Diagnostics published per .bib (the Problems view shows the first ones anyway). */
const MAX_PUBLISHED = 200;
const isBib = (path: string): boolean => /\.(bib|bibtex)$/iu.test(path);
const isAbsolute = (p: string): boolean => /^(?:[A-Za-z]:[\\/]|[\\/])/u.test(p);
const isUtf8 = (encoding: string): boolean => encoding === 'utf8' || encoding === 'utf8bom';

/** The settings a write uses, read for the document's resource scope. */
export function citationSettings(scope?: vscode.Uri): {
  defaultBibliography: string;
  /** Whether the default bibliography comes from the workspace's settings (a repository's), not the writer's. */
  defaultFromWorkspace: boolean;
  keyScheme: string;
  titleProtection: TitleProtection;
  latexCommand: string;
  askLocator: boolean;
} {
  const c = vscode.workspace.getConfiguration(CITATION_SETTINGS, scope);
  const scheme = c.get<string>('keyScheme', DEFAULT_KEY_SCHEME);
  const protection = c.get<string>('titleProtection', 'capitals');
  const command = (c.get<string>('latexCommand', 'cite') ?? 'cite').trim().replace(/^\\/u, '');
  const defaultBibliography = (c.get<string>('defaultBibliography', 'references.bib') ?? '').trim();
  // VS Code withholds a restricted setting's workspace value in Restricted Mode; where it applies, the writer is told
  // that the path came from the repository.
  const inspected = vscode.workspace.getConfiguration(undefined, scope).inspect<string>(Settings.citationsDefaultBibliography);
  const fromWorkspace = [inspected?.workspaceFolderValue, inspected?.workspaceValue].some((v) => typeof v === 'string' && v.trim() === defaultBibliography);
  return {
    defaultBibliography,
    defaultFromWorkspace: fromWorkspace && inspected?.globalValue?.trim() !== defaultBibliography,
    keyScheme: typeof scheme === 'string' && scheme.length <= 200 && /\{[A-Za-z]+\}/u.test(scheme) ? scheme : DEFAULT_KEY_SCHEME,
    titleProtection: protection === 'all' || protection === 'none' || protection === 'acronyms' ? protection : 'capitals',
    latexCommand: /^[A-Za-z]+\*?$/u.test(command) ? command : 'cite',
    askLocator: c.get<boolean>('askLocator', false) === true,
  };
}

interface CacheRecord {
  stamp: string;
  loaded: LoadedBibliography;
  entries?: BibliographyEntry[];
}

/** Why the writer is asked before a file is written. */
export interface WriteQuestion {
  /** Outside every workspace folder, or reached through a symbolic link (it may lead anywhere). */
  outside: boolean;
  link: boolean;
  /** It does not exist yet: it would be created. */
  create: boolean;
  /** The path came from the workspace's `defaultBibliography` setting. */
  fromWorkspaceSetting: boolean;
}

/** Bytes appended to a file by `apply` (or the file created with them). */
interface PendingWrite {
  uri: vscode.Uri;
  /** The file's bytes when read (absent: the file did not exist). */
  before: Uint8Array | undefined;
  after: Uint8Array;
  base: LoadedBibliography;
  appended: string;
}

export interface BibliographyServiceOptions {
  /** Asks the writer for a bibliography file (default: a save dialog filtered to .bib). */
  pick?: (document: vscode.TextDocument) => Promise<vscode.Uri | undefined>;
  /** Asks the writer whether a file may be written (default: a modal question). */
  confirmWrite?: (uri: vscode.Uri, why: WriteQuestion) => Promise<boolean>;
}

export class Bibliographies extends Disposable implements BibliographyService {
  private readonly cache = new Map<string, CacheRecord>();
  private readonly chosen = new Map<string, vscode.Uri>();
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  /** find() results per document for entries(): { document uri@version, time, bibliographies }. */
  private readonly found = new Map<string, { key: string; at: number; bibs: ResolvedBibliography[] }>();
  /** What addEntries appended to an open buffer, per .bib, until noteApplied. */
  private readonly appended = new Map<string, { base: LoadedBibliography; text: string }>();
  /** Bytes addEntries will append, per WorkspaceEdit, written by `apply`. */
  private readonly writes = new WeakMap<vscode.WorkspaceEdit, PendingWrite[]>();
  /** Files the writer allowed us to write this session (answered yes, or chose themselves). */
  private readonly approved = new Set<string>();
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
    this.pick = options.pick ?? ((document) => this.saveDialog(document));
    this.confirmWrite = options.confirmWrite ?? ((uri, why) => askToWrite(uri, why));
    this.diagnostics = this.register(vscode.languages.createDiagnosticCollection('research-desk-bibtex'));
    this.register(vscode.workspace.onDidOpenTextDocument((d) => this.watch(d)));
    this.register(vscode.workspace.onDidChangeTextDocument((e) => this.watch(e.document)));
    this.register(
      vscode.workspace.onDidCloseTextDocument((d) => {
        // Its version numbers start again when it is reopened: the cached parse could be taken for the new one.
        this.cache.delete(d.uri.toString());
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

  async find(document: vscode.TextDocument): Promise<ResolvedBibliography[]> {
    const flavour = flavourOf(document.languageId, document.fileName);
    if (flavour === 'plain') return [];
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    const quarto = flavour === 'pandoc' ? await this.quartoYml(document, folder) : undefined;
    const located = locateBibliographies(document.getText(), flavour, quarto?.text);
    const out: ResolvedBibliography[] = [];
    const seen = new Set<string>();
    const add = (uri: vscode.Uri, source: ResolvedBibliography['source']): void => {
      if (!isBib(uri.path) || seen.has(uri.toString())) return;
      seen.add(uri.toString());
      out.push({ uri, source });
    };
    const declared = async (paths: readonly string[], from: vscode.Uri | undefined): Promise<void> => {
      const dir = from ? vscode.Uri.joinPath(from, '..') : undefined;
      for (const p of paths) {
        if (!isBib(p)) continue;
        if (isAbsolute(p)) {
          add(this.absolute(from ?? document.uri, p), 'declared');
          continue;
        }
        const rel = p.replace(/\\/gu, '/');
        const nextToDoc = dir ? vscode.Uri.joinPath(dir, rel) : undefined;
        if (flavour === 'latex' && folder && (!nextToDoc || !(await this.exists(nextToDoc)))) {
          const atRoot = vscode.Uri.joinPath(folder.uri, rel);
          if (!nextToDoc || (await this.exists(atRoot))) {
            add(atRoot, 'declared');
            continue;
          }
        }
        if (nextToDoc) add(nextToDoc, 'declared');
      }
    };
    await declared(located.fromDocument, document.isUntitled ? undefined : document.uri);
    // A LaTeX part of a larger document (`% !TEX root = main.tex`, `\documentclass[main.tex]{subfiles}`): the
    // main file's bibliographies, relative to the main file (where LaTeX runs).
    if (!out.length && flavour === 'latex' && !document.isUntitled) {
      const root = texRoot(document.getText());
      const rootUri = root ? (isAbsolute(root) ? this.absolute(document.uri, root) : vscode.Uri.joinPath(document.uri, '..', root.replace(/\\/gu, '/'))) : undefined;
      const rootText = rootUri && rootUri.toString() !== document.uri.toString() ? await this.readText(rootUri) : undefined;
      if (rootUri && rootText !== undefined) await declared(latexBibliographies(rootText), rootUri);
    }
    if (!out.length && quarto) {
      const dir = vscode.Uri.joinPath(quarto.uri, '..');
      for (const p of located.fromProject) if (isBib(p)) add(isAbsolute(p) ? this.absolute(quarto.uri, p) : vscode.Uri.joinPath(dir, p.replace(/\\/gu, '/')), 'quarto');
    }
    if (!out.length) {
      const chosen = this.chosen.get(document.uri.toString());
      if (chosen) add(chosen, 'chosen');
    }
    if (!out.length) {
      const def = this.defaultUri(document, folder);
      if (def && (await this.exists(def))) add(def, 'default');
    }
    return out;
  }

  /**
   * The bibliography new entries go to, once the writer allowed writing to it (see `permitWrite`): undefined when
   * they cancelled or said no. Throws CitationError when the file may not be written at all (not a .bib).
   */
  async target(document: vscode.TextDocument): Promise<ResolvedBibliography | undefined> {
    const found = await this.find(document);
    const fromWorkspaceSetting = (): boolean => citationSettings(document.uri).defaultFromWorkspace;
    if (found[0]) return (await this.permitWrite(found[0].uri, { fromWorkspaceSetting: found[0].source === 'default' && fromWorkspaceSetting() })) ? found[0] : undefined;
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    const def = this.defaultUri(document, folder);
    if (def) return (await this.permitWrite(def, { fromWorkspaceSetting: fromWorkspaceSetting() })) ? { uri: def, source: 'default' } : undefined;
    const picked = await this.pick(document);
    if (!picked) return undefined;
    if (!this.writableName(picked)) throw new CitationError(notBibMessage(picked));
    // Chosen in a save dialog: the writer has said where.
    this.approve(picked);
    this.chosen.set(document.uri.toString(), picked);
    this.found.clear();
    return { uri: picked, source: 'chosen' };
  }

  /** The writer chose this file themselves (a save dialog, the .bib they are editing): written without asking. */
  approve(uri: vscode.Uri): void {
    if (this.writableName(uri)) this.approved.add(uri.toString());
  }

  /** Only .bib files are written (and untitled buffers, which are not files). */
  private writableName(uri: vscode.Uri): boolean {
    return uri.scheme === 'untitled' || isBib(uri.path);
  }

  /**
   * Whether new entries may be written to `uri`: a .bib inside a workspace folder that exists (and is reached without
   * a symbolic link) may; another is written only if the writer says yes, asked once per file and session. Throws
   * CitationError for a file that is not a .bib (never written, whatever the writer or a setting says).
   */
  async permitWrite(uri: vscode.Uri, context: { fromWorkspaceSetting?: boolean } = {}): Promise<boolean> {
    if (!this.writableName(uri)) throw new CitationError(notBibMessage(uri, context.fromWorkspaceSetting));
    const id = uri.toString();
    if (uri.scheme === 'untitled') return true;
    // A directory, a device or a pipe by a .bib name (a repository can hold such links): never written.
    const any = await Promise.resolve(vscode.workspace.fs.stat(uri)).catch(() => undefined);
    if (any && !(any.type & vscode.FileType.File)) throw new CitationError(vscode.l10n.t('{0} is not a regular file; nothing was written.', shown(uri)));
    if (this.approved.has(id)) return true;
    const open = vscode.workspace.textDocuments.some((d) => d.uri.toString() === id && !d.isClosed);
    const exists = open || any !== undefined;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const link = folder ? await this.throughLink(folder.uri, uri) : false;
    if (folder && !link && exists) return true;
    const yes = await this.confirmWrite(uri, { outside: !folder || link, link, create: !exists, fromWorkspaceSetting: context.fromWorkspaceSetting === true });
    if (yes) this.approved.add(id);
    return yes;
  }

  /** Whether a folder or the file on the way from `root` to `uri` is a symbolic link (which may lead anywhere). */
  private async throughLink(root: vscode.Uri, uri: vscode.Uri): Promise<boolean> {
    const rootPath = root.path.replace(/\/+$/u, '');
    const rest = uri.path.slice(rootPath.length).split('/').filter(Boolean);
    let at = root;
    for (const part of rest) {
      at = vscode.Uri.joinPath(at, part);
      const s = await Promise.resolve(vscode.workspace.fs.stat(at)).catch(() => undefined);
      if (!s) return false;
      if (s.type & vscode.FileType.SymbolicLink) return true;
    }
    return false;
  }

  async load(bib: ResolvedBibliography): Promise<LoadedBibliography> {
    const id = bib.uri.toString();
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === id && !d.isClosed);
    const stat = open?.isUntitled ? undefined : await this.stat(bib.uri);
    let stamp: string;
    let read: () => Promise<Omit<LoadedBibliography, 'uri' | 'source' | 'file'>>;
    // The buffer is what counts only when it holds the writer's unsaved changes (or there is no file): else the
    // disk, which VS Code's buffer may show changed (line breaks, encoding).
    if (open && (open.isDirty || open.isUntitled || !stat)) {
      stamp = `open:${open.version}`;
      if (this.cache.get(id)?.stamp !== stamp) this.adoptAppend(open);
      read = () => Promise.resolve({ text: open.getText(), exists: true, origin: 'buffer' });
    } else if (!stat) {
      stamp = 'absent';
      read = () => Promise.resolve({ text: '', exists: false, origin: 'absent' });
    } else if (stat.size > MAX_BIB_BYTES) {
      const message = vscode.l10n.t('{0} is {1} MB: too large to read as a bibliography; nothing was written to it.', vscode.workspace.asRelativePath(bib.uri), Math.round(stat.size / 1048576));
      stamp = `large:${stat.mtime}:${stat.size}`;
      read = () => Promise.resolve({ text: '', exists: true, origin: 'disk', unwritable: message });
    } else {
      stamp = `disk:${stat.mtime}:${stat.size}`;
      read = () => this.readDisk(bib.uri);
    }
    const cached = this.cache.get(id);
    if (cached && cached.stamp === stamp) {
      // Same file, maybe found another way (declared vs default): the source is the caller's.
      return cached.loaded.source === bib.source ? cached.loaded : { ...cached.loaded, source: bib.source };
    }
    const got = await read();
    // After an append (ours, or the writer's typing at the end) only the new part is parsed.
    const file = cached && canExtend(cached.loaded.file, got.text) ? extendParse(cached.loaded.file, got.text) : parseBibFile(got.text);
    const loaded: LoadedBibliography = { uri: bib.uri, source: bib.source, ...got, file };
    this.cache.set(id, { stamp, loaded });
    this.publish(bib.uri, file.diagnostics);
    return loaded;
  }

  /** A .bib's bytes and what they read as: UTF-8, else the encoding `files.encoding` names for it, else unwritable. */
  private async readDisk(uri: vscode.Uri): Promise<Omit<LoadedBibliography, 'uri' | 'source' | 'file'>> {
    const bytes = await vscode.workspace.fs.readFile(uri);
    const name = vscode.workspace.asRelativePath(uri);
    const configured = vscode.workspace.getConfiguration('files', { uri, languageId: 'bibtex' }).get<string>('encoding', 'utf8');
    const singleByte = typeof configured === 'string' && !isUtf8(configured) && !/^utf16/u.test(configured);
    const utf8 = decodeUtf8(bytes);
    let disk: DiskBibliography;
    let text: string;
    if (utf8.ok) {
      text = utf8.text;
      // An ASCII file reads the same in every such encoding: the setting decides how new text is written.
      disk = { bytes, encoding: singleByte && isAscii(bytes) ? configured : utf8.bom ? 'utf8bom' : 'utf8' };
    } else if (utf8.reason === 'invalid' && singleByte) {
      text = await vscode.workspace.decode(bytes, { encoding: configured });
      disk = { bytes, encoding: configured };
    } else {
      text = decodeLossy(bytes);
      const why =
        utf8.reason === 'utf16'
          ? vscode.l10n.t('{0} is UTF-16; Research Desk appends only to UTF-8 files and files in a one-byte encoding. Nothing was written.', name)
          : vscode.l10n.t(
              '{0} is not valid UTF-8 (Latin-1?), and writing to it as UTF-8 would damage its accented letters. Nothing was written. Set "files.encoding" for it (for example "[bibtex]": {"files.encoding": "iso88591"}) or convert it to UTF-8.',
              name,
            );
      disk = { bytes, encoding: utf8.reason === 'utf16' ? 'utf16' : 'invalid', unwritable: why };
    }
    return { text, exists: true, origin: 'disk', disk, ...(disk.unwritable ? { unwritable: disk.unwritable } : {}) };
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

  async entries(document: vscode.TextDocument): Promise<BibliographyEntry[]> {
    const bibs = await this.findRecent(document);
    if (!bibs.length) return [];
    await loadBibtexLibrary();
    const out: BibliographyEntry[] = [];
    for (const b of bibs) {
      const loaded = await this.load(b);
      const record = this.cache.get(b.uri.toString());
      let list = record?.loaded.file === loaded.file ? record.entries : undefined;
      if (!list) {
        const file = loaded.file;
        list = file.entries.map((entry) => {
          let paper: CitePaper | undefined;
          // The library decodes an entry only when its metadata is read (hover, Quick Pick): 10,000 entries stay cheap.
          return {
            bib: loaded,
            entry,
            get paper(): CitePaper {
              return (paper ??= { ...entryToPaper(file, entry), key: entry.key });
            },
          };
        });
        if (record?.loaded.file === loaded.file) record.entries = list;
      }
      out.push(...list);
    }
    return out;
  }

  /**
   * Adds what makes every paper citable from `bib` to `edit` (an unsaved buffer's text) or to the bytes `apply`
   * writes with it. Throws CitationError, before anything is written, when the file may not be written (the writer
   * said no, not a .bib, an encoding we cannot write, an unclosed entry new ones would fall into).
   */
  async addEntries(edit: vscode.WorkspaceEdit, bib: LoadedBibliography, papers: readonly CitePaper[], citing?: vscode.TextDocument): Promise<string[]> {
    await loadBibtexLibrary();
    const settings = citationSettings(bib.uri);
    const target = texTargetFor(citing ? flavourOf(citing.languageId, citing.fileName) : 'latex');
    const keys: string[] = [];
    const texts: string[] = [];
    const fresh: CitePaper[] = [];
    // Entries added by this call, parsed alone: a paper given twice gets one entry and one key.
    let added: BibFile = parseBibFile('');
    let taken: string[] | undefined;
    for (const paper of papers) {
      const existing = (paper.key ? entryByKey(bib.file, paper.key) : undefined) ?? findEntry(bib.file, paper) ?? findEntry(added, paper);
      if (existing) {
        keys.push(existing.key);
        continue;
      }
      taken ??= entryKeys(bib.file);
      const key = citeKey(paper, taken, settings.keyScheme);
      taken.push(key);
      keys.push(key);
      texts.push(toBibtex(paper, key, { protectTitle: settings.titleProtection, target }).trimEnd());
      fresh.push(paper);
      added = parseBibFile(texts.join('\n\n'));
    }
    if (!texts.length) return keys;
    if (citing) this.added.set(edit, { citing, papers: fresh });
    const name = vscode.workspace.asRelativePath(bib.uri);
    if (!(await this.permitWrite(bib.uri))) throw new CitationError(vscode.l10n.t('Nothing was written: writing to {0} was not allowed.', name));
    if (bib.unwritable) throw new CitationError(bib.unwritable);
    const blocked = appendBlocker(bib.file);
    if (blocked) throw new CitationError(`${blockedMessage(name, blocked)} ${vscode.l10n.t('Nothing was written.')}`);
    // One append for all new entries (separate inserts at one position would depend on their order).
    const appended = appendText(bib.text, texts.join('\n\n'), bib.file.newline);
    if (bib.origin === 'buffer') {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.uri.toString());
      if (!open || open.getText() !== bib.text) throw new StaleBibliography(vscode.l10n.t('{0} changed while the citation was prepared; nothing was written. Try again.', name));
      // A buffer in another encoding is saved in it by VS Code: every character must have a place there.
      if (!isUtf8(open.encoding) && !(await this.encodes(appended, open.encoding))) throw new CitationError(unencodableMessage(name, open.encoding));
      edit.insert(bib.uri, open.positionAt(bib.text.length), appended);
      this.appended.set(bib.uri.toString(), { base: bib, text: bib.text + appended });
      return keys;
    }
    const encoding = bib.disk?.encoding ?? 'utf8';
    let tail: Uint8Array;
    if (isUtf8(encoding)) tail = new TextEncoder().encode(appended);
    else {
      tail = await vscode.workspace.encode(appended, { encoding });
      if ((await vscode.workspace.decode(tail, { encoding })) !== appended) throw new CitationError(unencodableMessage(name, encoding));
    }
    const before = bib.exists ? bib.disk?.bytes : undefined;
    if (bib.exists && !before) throw new CitationError(vscode.l10n.t('{0} could not be read; nothing was written.', name));
    const list = this.writes.get(edit) ?? [];
    if (list.some((w) => w.uri.toString() === bib.uri.toString())) throw new CitationError(vscode.l10n.t('{0} is already written by this edit.', name));
    list.push({ uri: bib.uri, before, after: before ? concatBytes(before, tail) : tail, base: bib, appended });
    this.writes.set(edit, list);
    return keys;
  }

  /** Whether `addEntries` left bytes for `apply` to write with this edit. */
  hasWrites(edit: vscode.WorkspaceEdit): boolean {
    return (this.writes.get(edit)?.length ?? 0) > 0;
  }

  /**
   * Applies an edit built with `addEntries`: first the bytes appended to each .bib (each file checked unchanged right
   * before: else StaleBibliography and nothing written), then the document edit; when VS Code refuses that, every
   * .bib is put back byte for byte (a created one deleted) and false is returned.
   */
  async apply(edit: vscode.WorkspaceEdit): Promise<boolean> {
    const writes = this.writes.get(edit) ?? [];
    this.writes.delete(edit);
    const done: PendingWrite[] = [];
    try {
      for (const w of writes) {
        await this.checkUnchanged(w);
        await vscode.workspace.fs.writeFile(w.uri, w.after);
        done.push(w);
      }
    } catch (err) {
      await this.putBack(done);
      if (err instanceof CitationError) throw err;
      const first = writes[done.length];
      throw new CitationError(
        vscode.l10n.t('{0} could not be written ({1}); nothing was changed.', first ? vscode.workspace.asRelativePath(first.uri) : '', err instanceof Error ? err.message : String(err)),
      );
    }
    if (edit.size > 0 && !(await vscode.workspace.applyEdit(edit))) {
      await this.putBack(done);
      return false;
    }
    for (const w of done) await this.noteWritten(w);
    const added = this.added.get(edit);
    if (added) this.pdflatexNotes.afterInsert(added.citing, added.papers);
    return true;
  }

  /** The file is as it was read (same bytes; no unsaved changes started meanwhile), or StaleBibliography. */
  private async checkUnchanged(w: PendingWrite): Promise<void> {
    const stale = (): StaleBibliography => new StaleBibliography(vscode.l10n.t('{0} changed while the citation was prepared; nothing was written. Try again.', vscode.workspace.asRelativePath(w.uri)));
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === w.uri.toString() && d.isDirty)) throw stale();
    const stat = await this.stat(w.uri);
    if (!w.before) {
      if (stat) throw stale();
      return;
    }
    if (!stat || stat.size !== w.before.length || !sameBytes(await vscode.workspace.fs.readFile(w.uri), w.before)) throw stale();
  }

  /** Undoes bytes written by `apply` (the file as it was, or deleted when it was created). */
  private async putBack(done: readonly PendingWrite[]): Promise<void> {
    for (const w of done) {
      try {
        if (w.before) await vscode.workspace.fs.writeFile(w.uri, w.before);
        else await vscode.workspace.fs.delete(w.uri);
      } catch {
        // Nothing more can be done; the next read shows the file as it is.
      }
    }
  }

  /** After bytes were appended: the cache holds the new text, parsed from the old parse. */
  private async noteWritten(w: PendingWrite): Promise<void> {
    this.found.clear();
    const stat = await this.stat(w.uri);
    if (!stat) return;
    const text = w.base.text + w.appended;
    const file = w.base.exists && canExtend(w.base.file, text) ? extendParse(w.base.file, text) : parseBibFile(text);
    const disk: DiskBibliography = { bytes: w.after, encoding: w.base.disk?.encoding ?? 'utf8' };
    this.cache.set(w.uri.toString(), { stamp: `disk:${stat.mtime}:${stat.size}`, loaded: { ...w.base, text, exists: true, origin: 'disk', disk, file } });
    this.publish(w.uri, file.diagnostics);
  }

  private async encodes(text: string, encoding: string): Promise<boolean> {
    try {
      return (await vscode.workspace.decode(await vscode.workspace.encode(text, { encoding }), { encoding })) === text;
    } catch {
      return false;
    }
  }

  /**
   * After the edit of `addEntries` was applied (called by the inserter; `load` also notices it by itself): when the
   * open .bib changed by exactly that edit, its new parse is the old one extended by the entries, without reading
   * the buffer again.
   */
  noteApplied(uri: vscode.Uri): void {
    this.found.clear();
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) this.adoptAppend(open);
  }

  /**
   * Whether the buffer's one change since the cached parse is our pending append (its version one higher, its line
   * count and last lines as expected); if so the cache now holds the extended parse for its version.
   */
  private adoptAppend(open: vscode.TextDocument): boolean {
    const id = open.uri.toString();
    const pending = this.appended.get(id);
    const record = this.cache.get(id);
    if (!pending || !record) return false;
    this.appended.delete(id);
    if (record.loaded.file !== pending.base.file || record.stamp !== `open:${open.version - 1}` || !canExtend(pending.base.file, pending.text)) return false;
    const added = pending.text.slice(pending.base.text.length).split(/\r\n|\r|\n/u);
    if (open.lineCount !== countBreaks(pending.text) + 1) return false;
    // The appended lines (the last one is the empty line after the final break).
    for (let k = 1; k <= Math.min(added.length, 40); k++) {
      if (open.lineAt(open.lineCount - k).text !== added[added.length - k]) return false;
    }
    const file = extendParse(pending.base.file, pending.text);
    this.cache.set(id, { stamp: `open:${open.version}`, loaded: { ...pending.base, text: pending.text, exists: true, file } });
    this.publish(open.uri, file.diagnostics);
    return true;
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
    this.approved.clear();
  }

  private defaultUri(document: vscode.TextDocument, folder: vscode.WorkspaceFolder | undefined): vscode.Uri | undefined {
    if (document.isUntitled || !folder) return undefined;
    const setting = citationSettings(document.uri).defaultBibliography;
    if (!setting) return undefined;
    return isAbsolute(setting) ? this.absolute(folder.uri, setting) : vscode.Uri.joinPath(folder.uri, setting.replace(/\\/gu, '/'));
  }

  private absolute(like: vscode.Uri, p: string): vscode.Uri {
    return like.scheme === 'file' ? vscode.Uri.file(p) : like.with({ path: p.replace(/\\/gu, '/') });
  }

  /** The nearest `_quarto.yml` from the document's folder up to its workspace folder. */
  private async quartoYml(document: vscode.TextDocument, folder: vscode.WorkspaceFolder | undefined): Promise<{ uri: vscode.Uri; text: string } | undefined> {
    if (document.isUntitled || !folder) return undefined;
    const root = folder.uri.toString().replace(/\/+$/u, '');
    let dir = vscode.Uri.joinPath(document.uri, '..');
    for (let i = 0; i < 32; i++) {
      const uri = vscode.Uri.joinPath(dir, '_quarto.yml');
      const text = await this.readText(uri);
      if (text !== undefined) return { uri, text };
      if (dir.toString().replace(/\/+$/u, '') === root) break;
      const up = vscode.Uri.joinPath(dir, '..');
      if (up.toString() === dir.toString() || !up.toString().startsWith(root)) break;
      dir = up;
    }
    return undefined;
  }

  /**
   * A file that may name bibliographies (`_quarto.yml`, a LaTeX main file): the open buffer, else the file when it is
   * a regular file of sensible size (a path a document names may be a device that never ends, or huge).
   */
  private async readText(uri: vscode.Uri): Promise<string | undefined> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) return open.getText();
    const stat = await this.stat(uri);
    if (!stat || stat.size > MAX_LOCATOR_BYTES) return undefined;
    try {
      return decodeLossy(await vscode.workspace.fs.readFile(uri));
    } catch {
      return undefined;
    }
  }

  /** The file's stat when it is a regular file (following links), else undefined. */
  private async stat(uri: vscode.Uri): Promise<vscode.FileStat | undefined> {
    try {
      const s = await vscode.workspace.fs.stat(uri);
      return s.type & vscode.FileType.File ? s : undefined;
    } catch {
      return undefined;
    }
  }

  private async exists(uri: vscode.Uri): Promise<boolean> {
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) return true;
    return (await this.stat(uri)) !== undefined;
  }

  private async saveDialog(document: vscode.TextDocument): Promise<vscode.Uri | undefined> {
    const folder = vscode.workspace.getWorkspaceFolder(document.uri) ?? vscode.workspace.workspaceFolders?.[0];
    const base = document.isUntitled ? folder?.uri : vscode.Uri.joinPath(document.uri, '..');
    return vscode.window.showSaveDialog({
      title: vscode.l10n.t('Bibliography for the citation (a BibTeX file; created if new)'),
      saveLabel: vscode.l10n.t('Use as Bibliography'),
      filters: { [vscode.l10n.t('BibTeX')]: ['bib'] },
      defaultUri: base ? vscode.Uri.joinPath(base, 'references.bib') : undefined,
    });
  }
}

/** A path for the writer: relative inside the workspace, the whole path outside it. */
const shown = (uri: vscode.Uri): string => (vscode.workspace.getWorkspaceFolder(uri) ? vscode.workspace.asRelativePath(uri) : uri.scheme === 'file' ? uri.fsPath : uri.path);

function notBibMessage(uri: vscode.Uri, fromWorkspaceSetting?: boolean): string {
  return fromWorkspaceSetting
    ? vscode.l10n.t('This workspace\'s setting "researchDesk.citations.defaultBibliography" names {0}, which is not a BibTeX file (.bib). Research Desk writes only .bib files; nothing was written.', shown(uri))
    : vscode.l10n.t('{0} is not a BibTeX file (.bib). Research Desk writes only .bib files; nothing was written.', shown(uri));
}

function unencodableMessage(name: string, encoding: string): string {
  return vscode.l10n.t('The new entry has characters that {0} ({1}) cannot hold; nothing was written. Convert the file to UTF-8 to cite this paper there.', name, encoding);
}

/** Why nothing is appended (or tidied), for the writer; the caller says what was not done. */
export function blockedMessage(name: string, blocked: AppendBlocker): string {
  const where = blocked.key ? vscode.l10n.t('entry {0} (line {1})', blocked.key, blocked.line) : vscode.l10n.t('line {0}', blocked.line);
  return blocked.reason === 'comment'
    ? vscode.l10n.t('{0}: the @comment at line {1} is not closed, so Biber would read what follows as part of it. Close it (see Problems).', name, blocked.line)
    : blocked.reason === 'quote'
      ? vscode.l10n.t('{0}: a quoted value in {1} is not closed, so Biber would read what follows as part of it. Close it (see Problems).', name, where)
      : vscode.l10n.t('{0}: {1} is not closed, so BibTeX would read what follows as part of it. Close it (see Problems).', name, where);
}

/** The default question before writing to a file outside the workspace or creating one: a modal dialog. */
async function askToWrite(uri: vscode.Uri, why: WriteQuestion): Promise<boolean> {
  const write = vscode.l10n.t('Write to It');
  const detail = [
    why.link
      ? vscode.l10n.t('It is reached through a symbolic link, which may lead outside the workspace.')
      : why.outside
        ? vscode.l10n.t('It is outside the workspace folders.')
        : '',
    why.create ? vscode.l10n.t('It does not exist yet and will be created.') : '',
    why.fromWorkspaceSetting ? vscode.l10n.t('The path comes from this workspace\'s settings (researchDesk.citations.defaultBibliography).') : '',
    vscode.l10n.t('You are asked once per file in this session.'),
  ]
    .filter(Boolean)
    .join(' ');
  const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Add the new bibliography entries to {0}?', shown(uri)), { modal: true, detail }, write);
  return choice === write;
}
