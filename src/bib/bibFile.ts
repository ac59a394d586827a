/**
 * A .bib file read tolerantly: a fast structural scan finds every entry, its key, its span and its raw field values;
 * an entry that is not closed (or whose fields cannot be read) becomes a diagnostic with a line/column range and the
 * scan resumes at the next `@type{` that starts a line, so one bad entry never hides the rest. Field values are
 * turned into Unicode by the library (`entryFields`, bibEntry.ts) only when needed (hover, title comparison), which
 * keeps opening and searching a 10,000-entry file cheap. Pure.
 *
 * This file holds the parse and what it returns; the character scanners under it are in bibScan.ts, decoding an
 * entry and finding a paper's entry in bibEntry.ts, appending entries in bibAppend.ts, Tidy Bibliography in bibTidy.ts.
 */
import {
  CommentCloser,
  closeOfEntry,
  ENTRY_HEAD,
  keptLower,
  lineEnds,
  matchClose,
  readFields,
  readKey,
  trimEnd,
  type FieldList,
} from './bibScan';
import { LineIndex, newlineOf, type Range } from './edit';
import type { PiecedText } from './textPieces';

/**
 * The field values of a parse's entries, kept as offsets into the parsed text rather than as strings: a 10,000-entry
 * file's 130,000 values were about 4 MB of strings and objects held for as long as the file is cached, and were read
 * again only for the few entries shown. Per field three integers: the name's number in `names`, and the value's extent
 * in `source`, or -1 - i for the joined value `joined[i]` (parts joined by `#`, rare). Filled as the parse reads,
 * trimmed to size when it ends.
 */
class FieldStore {
  ints = new Int32Array(3 * 1024);
  used = 0;
  readonly names: string[] = [];
  readonly joined: string[] = [];
  readonly ids = new Map<string, number>();

  constructor(readonly source: string) {}

  /** Adds the fields read into `list` (bibScan's form); returns where they start. */
  add(list: FieldList): number {
    const at = this.used;
    if (at + list.length > this.ints.length) {
      const grown = new Int32Array(Math.max(2 * this.ints.length, at + list.length));
      grown.set(this.ints.subarray(0, at));
      this.ints = grown;
    }
    for (let i = 0; i < list.length; i += 3) {
      const name = list[i] as string;
      let id = this.ids.get(name);
      if (id === undefined) {
        id = this.names.push(name) - 1;
        this.ids.set(name, id);
      }
      const v = list[i + 1]!;
      this.ints[at + i] = id;
      if (typeof v === 'string') this.ints[at + i + 1] = -1 - (this.joined.push(v) - 1);
      else {
        this.ints[at + i + 1] = v;
        this.ints[at + i + 2] = list[i + 2] as number;
      }
    }
    this.used = at + list.length;
    return at;
  }

  trim(): void {
    if (this.used < this.ints.length) this.ints = this.ints.slice(0, this.used);
  }

  name(i: number): string {
    return this.names[this.ints[i]!]!;
  }

  value(i: number): string {
    const start = this.ints[i + 1]!;
    return start < 0 ? this.joined[-1 - start]! : this.source.slice(start, this.ints[i + 2]);
  }
}

/** An entry of a parse. Its field values are read from the parsed text when asked (`field`, `raw`): a slice each. */
export class BibEntry {
  readonly #store: FieldStore;
  readonly #at: number;
  readonly #count: number;

  constructor(
    /** Entry type in lower case (`article`). */
    readonly type: string,
    readonly key: string,
    /** Offsets of the whole entry, `@` to the closing delimiter inclusive ([start, end)). */
    readonly start: number,
    readonly end: number,
    /** Offsets of the key. */
    readonly keyStart: number,
    store: FieldStore,
    at: number,
    count: number,
  ) {
    this.#store = store;
    this.#at = at;
    this.#count = count;
  }

  /**
   * Raw field values (LaTeX as written, outer braces/quotes removed), names in lower case (a name given twice keeps its
   * last value): a new object on each read, so read it once for several fields, or `field` for one.
   */
  get raw(): Record<string, string> {
    const raw: Record<string, string> = {};
    const store = this.#store;
    for (let i = this.#at, end = i + 3 * this.#count; i < end; i += 3) raw[store.name(i)] = store.value(i);
    return raw;
  }

  /** One raw field value (`name` in lower case), or undefined. */
  field(name: string): string | undefined {
    const store = this.#store;
    // Names compare as their numbers in the store: no string comparison per field.
    const id = store.ids.get(name);
    if (id === undefined) return undefined;
    const ints = store.ints;
    for (let i = this.#at + 3 * (this.#count - 1); i >= this.#at; i -= 3) if (ints[i] === id) return store.value(i);
    return undefined;
  }

  /** The same entry `by` characters later in a longer text (its fields still read from its own). */
  moved(by: number): BibEntry {
    const { type, key, start, end, keyStart } = this;
    return new BibEntry(type, key, start + by, end + by, keyStart + by, this.#store, this.#at, this.#count);
  }
}

/**
 * What a diagnostic is about: `unclosed` (an entry, `@string` or `@preamble` whose braces never balance: BibTeX reads
 * on into what follows), `quote` (a quoted value never closed: the same for Biber), `comment` (a `@comment{` whose
 * braces never balance: Biber reads on), `noKey`, `fields` (fields unreadable from some point on; the entry itself is
 * closed), `duplicate` (a key used twice).
 */
export type BibDiagnosticCode = 'unclosed' | 'quote' | 'comment' | 'noKey' | 'fields' | 'duplicate';

export interface BibDiagnostic {
  severity: 'error' | 'warning';
  code: BibDiagnosticCode;
  message: string;
  /** The key of the entry it is about, when it has one. */
  key?: string;
  range: Range;
  /** Offsets of the same range. */
  start: number;
  end: number;
}

/** A parse: its text (whole, or in the pieces it was read or appended as: `PiecedText`) and what was read in it. */
export interface BibFile extends PiecedText {
  entries: BibEntry[];
  /**
   * `@string` definitions, `@preamble`s and `@comment`s, in order (kept by tidy). `unclosed`: a `@comment{` whose
   * braces never balance, read to the end of its line as BibTeX does (Biber would read on).
   */
  directives: { type: string; start: number; end: number; unclosed?: true }[];
  /** Keys of entries that are not closed: not readable here, but in the file (never handed out again). */
  brokenKeys: string[];
  /** The problems found, in text order then the duplicate keys: at most MAX_LISTED_DIAGNOSTICS of them. */
  diagnostics: BibDiagnostic[];
  /** How many more problems were found than are listed. */
  omitted: number;
  /** The first problem a reader would read on from (`unclosed`, `quote`, `comment`), listed or not. */
  blocker?: BibDiagnostic;
  newline: '\n' | '\r\n';
}

/**
 * Problems listed per file. More help nobody (the Problems view shows the first ones), and building each costs time a
 * hostile file could multiply: a 1 MB file can hold 100,000 broken entries.
 */
export const MAX_LISTED_DIAGNOSTICS = 1000;
const isBlocker = (code: BibDiagnosticCode): boolean => code === 'unclosed' || code === 'quote' || code === 'comment';

/** Parse a .bib text. Never throws; linear in the length of the text. */
export function parseBibFile(text: string): BibFile {
  const parser = new BibParser(text);
  parser.run();
  return parser.result();
}

/**
 * The parse of parseBibFile, resumable: `run(until)` reads entries until the clock passes `until` (or the end), so the
 * editor can parse a large file in slices between other work and read the first entries before the last are read.
 * Whatever the slices, the result is the same as parseBibFile's (the same code runs; tested).
 */
export class BibParser {
  /** The entries read so far, in text order (the array the result holds). */
  readonly entries: BibEntry[] = [];
  private readonly directives: BibFile['directives'] = [];
  private readonly brokenKeys: string[] = [];
  private readonly diagnostics: BibDiagnostic[] = [];
  private readonly lineEnd: (from: number) => number;
  // Line starts only when a diagnostic needs a range (most files have none).
  private lineIndex: LineIndex | undefined;
  private omitted = 0;
  private blocker: BibDiagnostic | undefined;
  private comments: CommentCloser | undefined;
  private i = 0;
  private finished: BibFile | undefined;
  private readonly store: FieldStore;
  /** Each entry's fields as read, before the store takes them. */
  private readonly scratch: FieldList = [];

  constructor(readonly text: string) {
    this.lineEnd = lineEnds(text);
    this.store = new FieldStore(text);
  }

  /** Whether every entry has been read. */
  get done(): boolean {
    return this.i >= this.text.length;
  }

  /**
   * Where the first problem read so far starts (an unclosed entry or comment, unreadable fields…), or undefined: the
   * entries before it were read from the text before it alone.
   */
  get firstProblem(): number | undefined {
    return this.diagnostics[0]?.start;
  }

  /** How far the parse has read (an offset in the text). */
  get offset(): number {
    return Math.min(this.i, this.text.length);
  }

  /**
   * Reads on until `now()` passes `until` (checked every few entries), `entries` entries are read, or the text ends;
   * returns whether it ended. Without arguments, reads to the end.
   */
  run(until = Infinity, now: () => number = () => performance.now(), entries = Infinity): boolean {
    for (let n = 1; this.i < this.text.length && this.entries.length < entries; n++) {
      this.next();
      if ((n & 15) === 0 && until !== Infinity && now() >= until) break;
    }
    return this.done;
  }

  /** The parse (reads what is left first). */
  result(): BibFile {
    if (this.finished) return this.finished;
    this.run();
    this.store.trim();
    const { text, entries, directives, brokenKeys, diagnostics } = this;
    const seen = new Map<string, BibEntry>();
    for (const e of entries) {
      const k = e.key.toLowerCase();
      const first = seen.get(k);
      if (!first) seen.set(k, e);
      else if (diagnostics.length >= MAX_LISTED_DIAGNOSTICS) this.omitted++;
      else
        this.diag(
          'warning',
          'duplicate',
          `Duplicate key ${e.key} (also at line ${this.lines().position(first.start).line + 1}).`,
          e.keyStart,
          e.keyStart + e.key.length,
          e.key,
        );
    }
    const file: BibFile = {
      text,
      entries,
      directives,
      brokenKeys,
      diagnostics,
      omitted: this.omitted,
      newline: newlineOf(text),
    };
    if (this.blocker) file.blocker = this.blocker;
    this.finished = file;
    return file;
  }

  private lines(): LineIndex {
    return (this.lineIndex ??= new LineIndex(this.text));
  }

  private diag(
    severity: BibDiagnostic['severity'],
    code: BibDiagnosticCode,
    message: string,
    start: number,
    end: number,
    key?: string,
  ): void {
    const listed = this.diagnostics.length < MAX_LISTED_DIAGNOSTICS;
    if (!listed) this.omitted++;
    if (!listed && (this.blocker || !isBlocker(code))) return;
    const d: BibDiagnostic = { severity, code, message, start, end, range: this.lines().range(start, end) };
    if (key) d.key = key;
    if (listed) this.diagnostics.push(d);
    if (!this.blocker && isBlocker(code)) this.blocker = d;
  }

  /** Reads the next entry or directive (or skips to the end when there is none). */
  private next(): void {
    const { text, lineEnd } = this;
    const at = text.indexOf('@', this.i);
    if (at < 0) {
      this.i = text.length;
      return;
    }
    ENTRY_HEAD.lastIndex = at;
    const head = ENTRY_HEAD.exec(text);
    if (!head) {
      this.i = at + 1;
      return;
    }
    const type = keptLower(head[1]!);
    const open = head[2]!;
    const close = open === '{' ? '}' : ')';
    const bodyStart = ENTRY_HEAD.lastIndex;
    if (type === 'comment') {
      // `@comment{…}` with balanced braces, else to the end of the line (BibTeX's own reading). A failed search for
      // the close read to the end of the text: the answers for every later comment come from one pass instead.
      let end = this.comments ? this.comments.close(bodyStart - 1) : matchClose(text, bodyStart, close, text.length);
      if (end < 0 && !this.comments) {
        this.comments = new CommentCloser(text);
        end = this.comments.close(bodyStart - 1);
      }
      if (end < 0) {
        const stop = lineEnd(at);
        this.directives.push({ type, start: at, end: stop, unclosed: true });
        this.diag(
          'error',
          'comment',
          '@comment is not closed: BibTeX reads it to the end of its line, Biber on into what follows.',
          at,
          stop,
        );
        this.i = Math.max(stop, bodyStart);
      } else {
        this.directives.push({ type, start: at, end: end + 1 });
        this.i = end + 1;
      }
      return;
    }
    const { end, limit, quote } = closeOfEntry(text, bodyStart, close);
    if (end < 0) {
      const directive = type === 'string' || type === 'preamble';
      const { key } = readKey(text, bodyStart);
      if (!directive && key) this.brokenKeys.push(key);
      const what = directive ? `@${type}` : `Entry ${key || `@${type}`}`;
      this.diag(
        'error',
        'unclosed',
        `${what} is not closed: a brace is missing (or one too many opens). Entries after it are still read.`,
        at,
        limit === text.length ? text.length : trimEnd(text, limit, at),
        directive ? undefined : key,
      );
      this.i = limit;
      return;
    }
    const unpaired = (what: string, key?: string): void =>
      this.diag(
        'warning',
        'quote',
        `${what}: a quoted value is not closed (Biber reads on until the next ").`,
        quote,
        Math.max(quote + 1, Math.min(end, lineEnd(quote))),
        key,
      );
    if (type === 'string' || type === 'preamble') {
      if (quote >= 0) unpaired(`@${type}`);
      this.directives.push({ type, start: at, end: end + 1 });
      this.i = end + 1;
      return;
    }
    const { key, keyStart, after } = readKey(text, bodyStart);
    if (!key) this.diag('error', 'noKey', `@${type} entry without a key.`, at, Math.min(end + 1, lineEnd(at)));
    else {
      const fields = this.scratch;
      fields.length = 0;
      const bad = readFields(text, after, end, fields);
      if (quote >= 0) unpaired(`Entry ${key}`, key);
      else if (bad !== undefined)
        this.diag(
          'warning',
          'fields',
          `Entry ${key}: cannot read the fields from here on (a missing comma, "=" or quote?).`,
          bad,
          Math.max(bad + 1, Math.min(end, lineEnd(bad))),
          key,
        );
      const store = this.store;
      this.entries.push(new BibEntry(type, key, at, end + 1, keyStart, store, store.add(fields), fields.length / 3));
    }
    this.i = end + 1;
  }
}

/**
 * Every key in a parsed file (as written): the entries' and those of entries that are not closed, which BibTeX may
 * still define. A new entry never takes one of them.
 */
export const entryKeys = (file: BibFile): string[] =>
  file.brokenKeys.length ? [...file.entries.map((e) => e.key), ...file.brokenKeys] : file.entries.map((e) => e.key);

/** The entry with this key (BibTeX keys compare case-insensitively). */
export function entryByKey(file: BibFile, key: string): BibEntry | undefined {
  const k = key.toLowerCase();
  return file.entries.find((e) => e.key.toLowerCase() === k);
}
