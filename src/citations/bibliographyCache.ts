/**
 * The parse of each .bib, cached per open buffer version or per mtime and size on disk, and where the text comes
 * from: the open editor's buffer when it holds unsaved changes (or there is no file), else the disk in its encoding
 * (UTF-8, else the one `files.encoding` names for the file, else read but unwritable). After an append (ours, or the
 * writer's typing at the end) only the appended text is parsed (incrementalParse.ts), and our own appends are taken
 * in without reading the file or buffer again. Apart from bibliography.ts, which finds, writes and reports.
 */
import { isUtf8 as validUtf8 } from 'node:buffer';
import * as vscode from 'vscode';
import { entryToPaper } from '../bib/bibEntry';
import { BibParser, parseBibFile, type BibDiagnostic, type BibEntry, type BibFile } from '../bib/bibFile';
import { decodeLossy, decodeUtf8, hasUtf8Bom, isAscii, pieceEnds } from '../bib/bibBytes';
import { HEAD_ENTRIES, headCandidate, MAX_BIB_BYTES, readHeadEntries } from './bibHead';
import { countBreaks } from '../bib/edit';
import { bibFileEncoding } from '../platform/settings';
import { regularFile } from './bibliographyFind';
import { readUri } from './fileAccess';
import { isUtf8, type PendingWrite } from './bibliographyWrite';
import { canAppendTo, canExtend, extendParse, joinParse } from './incrementalParse';
import { inSlices, yieldToEventLoop } from '../shared/slices';
import type { BibliographyEntry, CitePaper, DiskBibliography, LoadedBibliography, ResolvedBibliography } from './types';

interface CacheRecord {
  stamp: string;
  loaded: LoadedBibliography;
  entries?: BibliographyEntry[];
}

/** What a read gives: the text, or for a large UTF-8 file its bytes in pieces, decoded as they are parsed. */
type Read = Omit<LoadedBibliography, 'uri' | 'source' | 'file'> & { pieces?: Uint8Array[] };

/**
 * A UTF-8 file of this size or more is read in pieces of about this size (`readPieces`). Decoded at once, the
 * 10,000-entry Zotero export (16 MB, CJK names: a 32 MB string) held the thread 95–105 ms on this project's machines,
 * nearly all of it the kernel's first touch of the new memory.
 */
const PIECE_BYTES = 1 << 20;

/** A read in progress: its parse (entries appear as it goes), and the promise of the whole. */
interface Reading {
  stamp: string;
  parser?: BibParser;
  /** The parser reads only the first piece of the text: its end is not the file's. */
  partial?: boolean;
  done: Promise<LoadedBibliography>;
  /** Called after each slice of the parse (firstEntries waits for them). */
  waiting: (() => void)[];
  /** How many entries a waiting firstEntries needs: the slice under way ends there, so its list goes out at once. */
  want?: number;
}

/** An entry of a loaded .bib, decoded by the library only when its metadata is read (hover, Quick Pick). */
class LazyEntry implements BibliographyEntry {
  private decoded: CitePaper | undefined;

  constructor(
    readonly bib: LoadedBibliography,
    readonly entry: BibEntry,
  ) {}

  get paper(): CitePaper {
    return (this.decoded ??= { ...entryToPaper(this.bib.file, this.entry), key: this.entry.key });
  }
}

export class BibliographyCache {
  private readonly records = new Map<string, CacheRecord>();
  /** Reads in progress, so that completion, hover and the background preparation share one. */
  private readonly reading = new Map<string, Reading>();
  /** What addEntries appended to an open buffer, per .bib, until noteApplied. */
  private readonly appended = new Map<string, { base: LoadedBibliography; text: string }>();

  /** `publish` reports a parse's malformed entries (each time a text is parsed). */
  constructor(private readonly publish: (uri: vscode.Uri, diagnostics: readonly BibDiagnostic[]) => void) {}

  /** The .bib read and parsed: from the cache when its buffer version or its mtime and size did not change. */
  async load(bib: ResolvedBibliography): Promise<LoadedBibliography> {
    const id = bib.uri.toString();
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === id && !d.isClosed);
    const stat = open?.isUntitled ? undefined : await regularFile(bib.uri);
    let stamp: string;
    let read: () => Promise<Read>;
    // The buffer is what counts only when it holds the writer's unsaved changes (or there is no file): else the
    // disk, which VS Code's buffer may show changed (line breaks, encoding).
    if (open && (open.isDirty || open.isUntitled || !stat)) {
      stamp = `open:${open.version}`;
      if (this.records.get(id)?.stamp !== stamp) this.adoptAppend(open);
      read = () => Promise.resolve({ text: open.getText(), exists: true, origin: 'buffer' });
    } else if (!stat) {
      stamp = 'absent';
      read = () => Promise.resolve({ text: '', exists: false, origin: 'absent' });
    } else if (stat.size > MAX_BIB_BYTES) {
      const message = vscode.l10n.t(
        '{0} is {1} MB: too large to read as a bibliography; nothing was written to it.',
        vscode.workspace.asRelativePath(bib.uri),
        Math.round(stat.size / 1048576),
      );
      stamp = `large:${stat.mtime}:${stat.size}`;
      read = () => Promise.resolve({ text: '', exists: true, origin: 'disk', unwritable: message });
    } else {
      stamp = `disk:${stat.mtime}:${stat.size}`;
      read = () => readDisk(bib.uri);
    }
    const cached = this.records.get(id);
    const as = (loaded: LoadedBibliography): LoadedBibliography =>
      // Same file, maybe found another way (declared vs default): the source is the caller's.
      loaded.source === bib.source ? loaded : { ...loaded, source: bib.source };
    if (cached && cached.stamp === stamp) return as(cached.loaded);
    const current = this.reading.get(id);
    if (current && current.stamp === stamp) return as(await current.done);
    const reading = { stamp, waiting: [] as (() => void)[] } as Reading;
    const progressed = (): void => {
      reading.want = undefined;
      for (const resume of reading.waiting.splice(0)) resume();
    };
    reading.done = (async (): Promise<LoadedBibliography> => {
      const { pieces, ...got } = await read();
      let file: BibFile | undefined;
      if (pieces) ({ text: got.text, file } = await readPieces(pieces, reading, progressed));
      // After an append (ours, or the writer's typing at the end) only the new part is parsed.
      else if (cached && canExtend(cached.loaded.file, got.text)) file = extendParse(cached.loaded.file, got.text);
      file ??= await parseInSlices(got.text, reading, progressed);
      const loaded: LoadedBibliography = { uri: bib.uri, source: bib.source, ...got, file };
      if (this.reading.get(id) === reading) {
        this.records.set(id, { stamp, loaded });
        this.publish(bib.uri, file.diagnostics);
      }
      // Everything waiting for this read goes on in the next task (completion's index, hover's key table): not after
      // the parse's end in this one.
      await yieldToEventLoop();
      return loaded;
    })().finally(() => {
      if (this.reading.get(id) === reading) this.reading.delete(id);
      progressed();
    });
    this.reading.set(id, reading);
    return reading.done;
  }

  /**
   * The first `count` entries of the .bib as soon as they are read (all of them once it is read): what a list that
   * shows only the first entries needs, before the rest of a large file is parsed. A large file not read yet gives
   * fewer, from its head (HEAD_ENTRIES; `partial`), without waiting for the rest.
   */
  async firstEntries(
    bib: ResolvedBibliography,
    count: number,
  ): Promise<{ entries: readonly BibEntry[]; partial?: boolean }> {
    // The rest of the file is not read here: reading and parsing it at once took the CPU the workbench needed to draw
    // the list. The caller reads it (completion, once the list has had time to show).
    const head = await this.headEntries(bib, Math.min(count, HEAD_ENTRIES));
    if (head) return { entries: head, partial: true };
    const whole = this.load(bib);
    let settled = false;
    const done = whole.then(
      () => void (settled = true),
      () => void (settled = true),
    );
    for (;;) {
      const reading = this.reading.get(bib.uri.toString());
      const parser = reading?.parser;
      if (parser && (parser.entries.length >= count || (parser.done && !reading.partial)))
        return { entries: parser.entries.slice(0, count) };
      if (settled) return { entries: (await whole).file.entries.slice(0, count) };
      // The next slice of the parse, or the end of the read (before the parse starts there is nothing to wait for).
      if (reading) reading.want = Math.min(reading.want ?? Infinity, count);
      await Promise.race([done, reading ? new Promise<void>((r) => reading.waiting.push(r)) : yieldToEventLoop()]);
    }
  }

  /**
   * The first `count` entries of a large local .bib read from its head alone (bibHead.ts), when it is neither cached
   * nor being read. Undefined when this does not apply or the head does not hold that many; the caller then waits for
   * the whole file.
   */
  private async headEntries(bib: ResolvedBibliography, count: number): Promise<BibEntry[] | undefined> {
    const id = bib.uri.toString();
    if (this.reading.has(id)) return undefined;
    const stat = await headCandidate(bib.uri);
    if (!stat || this.records.get(id)?.stamp === `disk:${stat.mtime}:${stat.size}` || this.reading.has(id))
      return undefined;
    return readHeadEntries(bib.uri, count);
  }

  /**
   * The entries of a loaded .bib, each decoded by the library only when its metadata is read (built once per parse).
   */
  entriesOf(loaded: LoadedBibliography): BibliographyEntry[] {
    const record = this.records.get(loaded.uri.toString());
    let list = record?.loaded.file === loaded.file ? record.entries : undefined;
    if (!list) {
      list = loaded.file.entries.map((entry) => new LazyEntry(loaded, entry));
      if (record?.loaded.file === loaded.file) record.entries = list;
    }
    return list;
  }

  /** `addEntries` appended `text` to the open buffer of `base` (taken in by adoptAppend once the edit is applied). */
  expectAppend(base: LoadedBibliography, text: string): void {
    this.appended.set(base.uri.toString(), { base, text });
  }

  /**
   * Whether the buffer's one change since the cached parse is our pending append (its version one higher, its line
   * count and last lines as expected); if so the cache now holds the extended parse for its version.
   */
  adoptAppend(open: vscode.TextDocument): boolean {
    const id = open.uri.toString();
    const pending = this.appended.get(id);
    const record = this.records.get(id);
    if (!pending || !record) return false;
    this.appended.delete(id);
    if (
      record.loaded.file !== pending.base.file ||
      record.stamp !== `open:${open.version - 1}` ||
      !canExtend(pending.base.file, pending.text)
    )
      return false;
    const added = pending.text.slice(pending.base.text.length).split(/\r\n|\r|\n/u);
    if (open.lineCount !== countBreaks(pending.text) + 1) return false;
    // The appended lines (the last one is the empty line after the final break).
    for (let k = 1; k <= Math.min(added.length, 40); k++) {
      if (open.lineAt(open.lineCount - k).text !== added[added.length - k]) return false;
    }
    const file = extendParse(pending.base.file, pending.text);
    this.records.set(id, {
      stamp: `open:${open.version}`,
      loaded: { ...pending.base, text: pending.text, exists: true, file },
    });
    this.publish(open.uri, file.diagnostics);
    return true;
  }

  /** After bytes were appended: the cache holds the new text, parsed from the old parse. */
  async noteWritten(w: PendingWrite): Promise<void> {
    const stat = await regularFile(w.uri);
    if (!stat) return;
    const text = w.base.text + w.appended;
    const file =
      w.base.exists && w.appended && canAppendTo(w.base.file)
        ? extendParse(w.base.file, text, w.appended)
        : parseBibFile(text);
    const disk: DiskBibliography = { bytes: [...(w.before ?? []), w.tail], encoding: w.base.disk?.encoding ?? 'utf8' };
    this.records.set(w.uri.toString(), {
      stamp: `disk:${stat.mtime}:${stat.size}`,
      loaded: { ...w.base, text, exists: true, origin: 'disk', disk, file },
    });
    this.publish(w.uri, file.diagnostics);
  }

  /** A closed document's parse is dropped: its version numbers start again when it is reopened. */
  forget(uri: vscode.Uri): void {
    this.records.delete(uri.toString());
  }

  clear(): void {
    this.records.clear();
  }
}

/**
 * A text parsed in slices: the editor stays responsive, and the first entries can be listed early. The slices and the
 * parse's end (9 ms for 10,000 entries: duplicate keys, line breaks) are each a task of their own, and so is what
 * came before (decoding the file): run together, they held the thread for over 30 ms.
 */
async function parseInSlices(
  text: string,
  reading: Reading,
  progressed: () => void,
  { first = true, partial = false } = {},
): Promise<BibFile> {
  const parser = new BibParser(text);
  // firstEntries lists the entries of the parse that starts the file.
  if (first) Object.assign(reading, { parser, partial });
  await inSlices((until) => {
    const done = parser.run(until, undefined, reading.want);
    progressed();
    return done;
  });
  await yieldToEventLoop();
  return parser.result();
}

/**
 * A large UTF-8 file read piece by piece: each piece decoded, then parsed in slices, in tasks of their own, and the
 * parses joined as an append's is (`joinParse`). The text stays in its pieces (`BibFile.pieces`), and nothing on the
 * way reads it whole. When a piece cannot be joined to those before (an entry or `@comment` open across the cut),
 * only the text is returned, and the whole of it is to be parsed.
 */
async function readPieces(
  pieces: readonly Uint8Array[],
  reading: Reading,
  progressed: () => void,
): Promise<{ text: string; file?: BibFile }> {
  const decoder = new TextDecoder();
  let text = '';
  let file: BibFile | undefined;
  let joinable = true;
  for (const bytes of pieces) {
    await yieldToEventLoop();
    const piece = decoder.decode(bytes);
    text += piece;
    if (!joinable) continue;
    const part = await parseInSlices(piece, reading, progressed, { first: !file, partial: pieces.length > 1 });
    const joined = !file ? part : canAppendTo(file) ? joinParse(file, part, text) : undefined;
    if (joined) file = joined;
    else joinable = false;
  }
  return joinable ? { text, file } : { text };
}

/**
 * A .bib's bytes and what they read as: UTF-8, else the encoding `files.encoding` names for it, else unwritable. A
 * large UTF-8 file is left in pieces of bytes for `readPieces`.
 */
async function readDisk(uri: vscode.Uri): Promise<Read> {
  const bytes = await readUri(uri);
  const name = vscode.workspace.asRelativePath(uri);
  const configured = bibFileEncoding(uri);
  const singleByte = typeof configured === 'string' && !isUtf8(configured) && !/^utf16/u.test(configured);
  if (bytes.length >= 2 * PIECE_BYTES && !singleByte && validUtf8(bytes)) {
    const bom = hasUtf8Bom(bytes);
    let from = bom ? 3 : 0;
    const pieces = pieceEnds(bytes, from, PIECE_BYTES).map((end) => bytes.subarray(from, (from = end)));
    return {
      text: '',
      exists: true,
      origin: 'disk',
      disk: { bytes: [bytes], encoding: bom ? 'utf8bom' : 'utf8' },
      pieces,
    };
  }
  const utf8 = decodeUtf8(bytes);
  let disk: DiskBibliography;
  let text: string;
  if (utf8.ok) {
    text = utf8.text;
    // An ASCII file reads the same in every such encoding: the setting decides how new text is written.
    disk = { bytes: [bytes], encoding: singleByte && isAscii(bytes) ? configured : utf8.bom ? 'utf8bom' : 'utf8' };
  } else if (utf8.reason === 'invalid' && singleByte) {
    text = await vscode.workspace.decode(bytes, { encoding: configured });
    disk = { bytes: [bytes], encoding: configured };
  } else {
    text = decodeLossy(bytes);
    const why =
      utf8.reason === 'utf16'
        ? vscode.l10n.t(
            '{0} is UTF-16; Research Desk appends only to UTF-8 files and files in a one-byte encoding. Nothing was written.',
            name,
          )
        : vscode.l10n.t(
            '{0} is not valid UTF-8 (Latin-1?), and writing to it as UTF-8 would damage its accented letters. Nothing was written. Set "files.encoding" for it (for example "[bibtex]": {"files.encoding": "iso88591"}) or convert it to UTF-8.',
            name,
          );
    disk = { bytes: [bytes], encoding: utf8.reason === 'utf16' ? 'utf16' : 'invalid', unwritable: why };
  }
  return { text, exists: true, origin: 'disk', disk, ...(disk.unwritable ? { unwritable: disk.unwritable } : {}) };
}
