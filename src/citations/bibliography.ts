/**
 * Finds, reads and extends a document's bibliography (issue 6).
 *
 * Where: the bibliographies the document declares (LaTeX \bibliography/\addbibresource, YAML front matter, Typst
 * #bibliography), resolved next to the document (LaTeX also at the workspace folder's root when not found next to
 * the document, as latexmk run from the root would); else `bibliography:` of the nearest `_quarto.yml` between the
 * document's folder and its workspace folder (Pandoc flavours); else the `researchDesk.citations.defaultBibliography`
 * setting relative to the workspace folder (created on first write); else the writer picks a file (save dialog). A
 * chosen file is remembered for that document in this session; the document is not edited to declare it. Only
 * BibTeX files (.bib) are read or written: CSL JSON/YAML or Hayagriva bibliographies are skipped.
 *
 * Reading: the open editor's buffer when the file is open (unsaved changes respected), else the disk. The parse is
 * cached per file and document version (or mtime and size on disk). Malformed entries become diagnostics on the .bib
 * (whenever we load it and whenever a BibTeX document is opened or edited while the core is loaded).
 */
import * as vscode from 'vscode';
import { entryByKey, entryKeys, entryToPaper, findEntry, parseBibFile, type BibDiagnostic, type BibFile } from '../cite/bibFile';
import { toBibtex } from '../cite/bibtex';
import type { TitleProtection } from '../cite/bibtex';
import { LineIndex } from '../cite/edit';
import { canExtend, extendParse } from './incrementalParse';
import { citeKey, DEFAULT_KEY_SCHEME } from '../cite/keys';
import { loadBibtexLibrary } from '../cite/library';
import { latexBibliographies, locateBibliographies, texRoot } from '../cite/locate';
import { flavourOf } from '../cite/syntax';
import { Disposable } from '../util/disposable';
import type { BibliographyEntry, BibliographyService, CitePaper, LoadedBibliography, ResolvedBibliography } from './types';

export const CITATION_SETTINGS = 'researchDesk.citations';
export const DIAGNOSTIC_SOURCE = 'Research Desk';

const FIND_TTL_MS = 3000;
const isBib = (path: string): boolean => /\.(bib|bibtex)$/iu.test(path);
const isAbsolute = (p: string): boolean => /^(?:[A-Za-z]:[\\/]|[\\/])/u.test(p);

/** The settings a write uses, read for the document's resource scope. */
export function citationSettings(scope?: vscode.Uri): {
  defaultBibliography: string;
  keyScheme: string;
  titleProtection: TitleProtection;
  latexCommand: string;
  askLocator: boolean;
} {
  const c = vscode.workspace.getConfiguration(CITATION_SETTINGS, scope);
  const scheme = c.get<string>('keyScheme', DEFAULT_KEY_SCHEME);
  const protection = c.get<string>('titleProtection', 'acronyms');
  const command = (c.get<string>('latexCommand', 'cite') ?? 'cite').trim().replace(/^\\/u, '');
  return {
    defaultBibliography: (c.get<string>('defaultBibliography', 'references.bib') ?? '').trim(),
    keyScheme: typeof scheme === 'string' && /\{[A-Za-z]+\}/u.test(scheme) ? scheme : DEFAULT_KEY_SCHEME,
    titleProtection: protection === 'all' || protection === 'none' ? protection : 'acronyms',
    latexCommand: /^[A-Za-z]+\*?$/u.test(command) ? command : 'cite',
    askLocator: c.get<boolean>('askLocator', false) === true,
  };
}

interface CacheRecord {
  stamp: string;
  loaded: LoadedBibliography;
  entries?: BibliographyEntry[];
}

export interface BibliographyServiceOptions {
  /** Asks the writer for a bibliography file (default: a save dialog filtered to .bib). */
  pick?: (document: vscode.TextDocument) => Promise<vscode.Uri | undefined>;
}

export class Bibliographies extends Disposable implements BibliographyService {
  private readonly cache = new Map<string, CacheRecord>();
  private readonly chosen = new Map<string, vscode.Uri>();
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  /** find() results per document for entries(): { document uri@version, time, bibliographies }. */
  private readonly found = new Map<string, { key: string; at: number; bibs: ResolvedBibliography[] }>();
  /** What addEntries appended, per .bib, until noteApplied. */
  private readonly appended = new Map<string, { base: LoadedBibliography; text: string }>();
  readonly diagnostics: vscode.DiagnosticCollection;
  /** Tests replace this to answer the "pick a bibliography" question without a dialog. */
  pick: (document: vscode.TextDocument) => Promise<vscode.Uri | undefined>;

  constructor(options: BibliographyServiceOptions = {}) {
    super();
    this.pick = options.pick ?? ((document) => this.saveDialog(document));
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

  async target(document: vscode.TextDocument): Promise<ResolvedBibliography | undefined> {
    const found = await this.find(document);
    if (found[0]) return found[0];
    const def = this.defaultUri(document, vscode.workspace.getWorkspaceFolder(document.uri));
    if (def) return { uri: def, source: 'default' };
    const picked = await this.pick(document);
    if (!picked) return undefined;
    this.chosen.set(document.uri.toString(), picked);
    this.found.clear();
    return { uri: picked, source: 'chosen' };
  }

  async load(bib: ResolvedBibliography): Promise<LoadedBibliography> {
    const id = bib.uri.toString();
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === id && !d.isClosed);
    let stamp: string;
    let read: () => Promise<string>;
    let exists = true;
    if (open) {
      stamp = `open:${open.version}`;
      if (this.cache.get(id)?.stamp !== stamp) this.adoptAppend(open);
      read = () => Promise.resolve(open.getText());
    } else {
      const stat = await this.stat(bib.uri);
      if (!stat) {
        exists = false;
        stamp = 'absent';
        read = () => Promise.resolve('');
      } else {
        stamp = `disk:${stat.mtime}:${stat.size}`;
        read = async () => new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(bib.uri)).replace(/^\uFEFF/u, '');
      }
    }
    const cached = this.cache.get(id);
    if (cached && cached.stamp === stamp) {
      // Same file, maybe found another way (declared vs default): the source is the caller's.
      return cached.loaded.source === bib.source ? cached.loaded : { ...cached.loaded, source: bib.source };
    }
    const text = await read();
    // After an append (ours, or the writer's typing at the end) only the new part is parsed.
    const file = cached && canExtend(cached.loaded.file, text) ? extendParse(cached.loaded.file, text) : parseBibFile(text);
    const loaded: LoadedBibliography = { uri: bib.uri, source: bib.source, text, exists, file };
    this.cache.set(id, { stamp, loaded });
    this.publish(bib.uri, file.diagnostics);
    return loaded;
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

  async addEntries(edit: vscode.WorkspaceEdit, bib: LoadedBibliography, papers: readonly CitePaper[]): Promise<string[]> {
    await loadBibtexLibrary();
    const settings = citationSettings(bib.uri);
    const keys: string[] = [];
    const texts: string[] = [];
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
      texts.push(toBibtex(paper, key, { protectTitle: settings.titleProtection }).trimEnd());
      added = parseBibFile(texts.join('\n\n'));
    }
    if (texts.length) {
      // One append for all new entries (separate inserts at one position would depend on their order).
      const appended = appendText(bib.file, texts.join('\n\n'));
      if (!bib.exists) {
        edit.createFile(bib.uri, { ignoreIfExists: true });
        this.found.clear();
      }
      // The end position from the open buffer's line index (the text we read: a changed buffer makes the caller
      // start again), else counted in the text.
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.uri.toString());
      const counted = open ? undefined : new LineIndex(bib.text).position(bib.text.length);
      const end = open ? open.positionAt(bib.text.length) : new vscode.Position(counted!.line, counted!.character);
      edit.insert(bib.uri, end, appended);
      this.appended.set(bib.uri.toString(), { base: bib, text: bib.text + appended });
    }
    return keys;
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
    const added = pending.text.slice(pending.base.text.length).split(/\r?\n/u);
    if (open.lineCount !== countLines(pending.text)) return false;
    // The appended lines (the last one is the empty line after the final break).
    for (let k = 1; k <= Math.min(added.length, 40); k++) {
      if (open.lineAt(open.lineCount - k).text !== added[added.length - k]) return false;
    }
    const file = extendParse(pending.base.file, pending.text);
    this.cache.set(id, { stamp: `open:${open.version}`, loaded: { ...pending.base, text: pending.text, exists: true, file } });
    this.publish(open.uri, file.diagnostics);
    return true;
  }

  /** The Problems view entries of a parsed file. */
  publish(uri: vscode.Uri, diagnostics: readonly BibDiagnostic[]): void {
    this.diagnostics.set(
      uri,
      diagnostics.map((d) => {
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

  /** Drops every cached parse (tests; a setting change does not need it). */
  clearCache(): void {
    this.cache.clear();
    this.found.clear();
    this.chosen.clear();
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

  private async readText(uri: vscode.Uri): Promise<string | undefined> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) return open.getText();
    try {
      return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      return undefined;
    }
  }

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

/**
 * The text appended for new entries (as `appendEntryEdit` in src/cite/bibFile.ts: one blank line before them, the
 * file's line breaks), looking only at the end of the text and the newline the parse found (a 2 MB file is not
 * scanned again).
 */
function appendText(file: BibFile, entryText: string): string {
  const nl = file.newline;
  const end = file.text.slice(-256);
  const body = entryText.replace(/\r?\n/gu, nl);
  let sep = '';
  if (file.text.length) {
    if (end.endsWith(nl + nl) || (nl === '\n' && /\n\s*\n$/u.test(end))) sep = '';
    else if (end.endsWith('\n')) sep = nl;
    else sep = nl + nl;
  }
  return `${sep}${body}${nl}`;
}

/** Lines of a text as VS Code counts them (line breaks + 1). */
function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
