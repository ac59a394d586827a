/**
 * A .bib file read tolerantly: a fast structural scan finds every entry, its key, its span and its raw field values;
 * an entry that is not closed (or whose fields cannot be read) becomes a diagnostic with a line/column range and the
 * scan resumes at the next `@type{` that starts a line, so one bad entry never hides the rest. Field values are
 * turned into Unicode by the library (`entryFields`) only when needed (hover, title comparison), which keeps
 * opening and searching a 10,000-entry file cheap. Pure.
 */
import { normaliseDoi, toBibtex, unescapeVerbatim, yearOf, type BibtexOptions, type CitablePaper } from './bibtex';
import { LineIndex, newlineOf, type Range, type TextEdit } from './edit';
import { citeKey, DEFAULT_KEY_SCHEME } from './keys';
import { bibtexLibrary } from './library';
import { asciiFold } from './names';
import { tellApart, type PaperFacts } from './paperIdentity';

export interface BibEntry {
  /** Entry type in lower case (`article`). */
  type: string;
  key: string;
  /** Offsets of the whole entry, `@` to the closing delimiter inclusive ([start, end)). */
  start: number;
  end: number;
  /** Offsets of the key. */
  keyStart: number;
  /** Raw field values (LaTeX as written, outer braces/quotes removed), names in lower case. */
  raw: Record<string, string>;
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

export interface BibFile {
  text: string;
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

/**
 * An entry type as BibTeX reads one: any run of characters but white space and `"#%'(),={}` (and `@`, `\`), not
 * starting with a digit. Narrower patterns would skip entries BibTeX reads, and hand their keys out again.
 */
const TYPE = String.raw`[^\s\d"#%'(),={}@\\][^\s"#%'(),={}@\\]*`;
const ENTRY_HEAD = new RegExp(String.raw`@[ \t]*(${TYPE})[ \t\r\n]*([{(])`, 'y');
/** An entry head at the start of a line (after its break): where the scan resumes after a broken entry. */
const LINE_HEAD = new RegExp(String.raw`[ \t]*@[ \t]*${TYPE}[ \t]*[{(]`, 'y');
const FIELD_NAME = /[A-Za-z][\w\-:.+]*/y;

/** Parse a .bib text. Never throws; linear in the length of the text. */
export function parseBibFile(text: string): BibFile {
  // Line starts only when a diagnostic needs a range (most files have none).
  let lineIndex: LineIndex | undefined;
  const lines = { range: (s: number, e: number) => (lineIndex ??= new LineIndex(text)).range(s, e), position: (o: number) => (lineIndex ??= new LineIndex(text)).position(o) };
  const entries: BibEntry[] = [];
  const directives: BibFile['directives'] = [];
  const brokenKeys: string[] = [];
  const diagnostics: BibDiagnostic[] = [];
  const lineEnd = lineEnds(text);
  let omitted = 0;
  let blocker: BibDiagnostic | undefined;
  const diag = (severity: BibDiagnostic['severity'], code: BibDiagnosticCode, message: string, start: number, end: number, key?: string): void => {
    const listed = diagnostics.length < MAX_LISTED_DIAGNOSTICS;
    if (!listed) omitted++;
    if (!listed && (blocker || !isBlocker(code))) return;
    const d: BibDiagnostic = { severity, code, message, start, end, range: lines.range(start, end) };
    if (key) d.key = key;
    if (listed) diagnostics.push(d);
    if (!blocker && isBlocker(code)) blocker = d;
  };
  let comments: CommentCloser | undefined;
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf('@', i);
    if (at < 0) break;
    ENTRY_HEAD.lastIndex = at;
    const head = ENTRY_HEAD.exec(text);
    if (!head) {
      i = at + 1;
      continue;
    }
    const type = head[1]!.toLowerCase();
    const open = head[2]!;
    const close = open === '{' ? '}' : ')';
    const bodyStart = ENTRY_HEAD.lastIndex;
    if (type === 'comment') {
      // `@comment{…}` with balanced braces, else to the end of the line (BibTeX's own reading). A failed search for
      // the close read to the end of the text: the answers for every later comment come from one pass instead.
      let end = comments ? comments.close(bodyStart - 1) : matchClose(text, bodyStart, close, text.length);
      if (end < 0 && !comments) {
        comments = new CommentCloser(text);
        end = comments.close(bodyStart - 1);
      }
      if (end < 0) {
        const stop = lineEnd(at);
        directives.push({ type, start: at, end: stop, unclosed: true });
        diag('error', 'comment', '@comment is not closed: BibTeX reads it to the end of its line, Biber on into what follows.', at, stop);
        i = Math.max(stop, bodyStart);
      } else {
        directives.push({ type, start: at, end: end + 1 });
        i = end + 1;
      }
      continue;
    }
    const { end, limit, quote } = closeOfEntry(text, bodyStart, close);
    if (end < 0) {
      const directive = type === 'string' || type === 'preamble';
      const { key } = readKey(text, bodyStart);
      if (!directive && key) brokenKeys.push(key);
      const what = directive ? `@${type}` : `Entry ${key || `@${type}`}`;
      diag('error', 'unclosed', `${what} is not closed: a brace is missing (or one too many opens). Entries after it are still read.`, at, limit === text.length ? text.length : trimEnd(text, limit, at), directive ? undefined : key);
      i = limit;
      continue;
    }
    const unpaired = (what: string, key?: string): void =>
      diag('warning', 'quote', `${what}: a quoted value is not closed (Biber reads on until the next ").`, quote, Math.max(quote + 1, Math.min(end, lineEnd(quote))), key);
    if (type === 'string' || type === 'preamble') {
      if (quote >= 0) unpaired(`@${type}`);
      directives.push({ type, start: at, end: end + 1 });
      i = end + 1;
      continue;
    }
    const { key, keyStart, after } = readKey(text, bodyStart);
    if (!key) diag('error', 'noKey', `@${type} entry without a key.`, at, Math.min(end + 1, lineEnd(at)));
    else {
      const raw: Record<string, string> = {};
      const bad = readFields(text, after, end, raw);
      if (quote >= 0) unpaired(`Entry ${key}`, key);
      else if (bad !== undefined)
        diag('warning', 'fields', `Entry ${key}: cannot read the fields from here on (a missing comma, "=" or quote?).`, bad, Math.max(bad + 1, Math.min(end, lineEnd(bad))), key);
      entries.push({ type, key, start: at, end: end + 1, keyStart, raw });
    }
    i = end + 1;
  }
  const seen = new Map<string, BibEntry>();
  for (const e of entries) {
    const k = e.key.toLowerCase();
    const first = seen.get(k);
    if (!first) seen.set(k, e);
    else if (diagnostics.length >= MAX_LISTED_DIAGNOSTICS) omitted++;
    else diag('warning', 'duplicate', `Duplicate key ${e.key} (also at line ${lines.position(first.start).line + 1}).`, e.keyStart, e.keyStart + e.key.length, e.key);
  }
  const file: BibFile = { text, entries, directives, brokenKeys, diagnostics, omitted, newline: newlineOf(text) };
  if (blocker) file.blocker = blocker;
  return file;
}

/**
 * `lineEnd(from)`: offset of the first line break ("\n" or "\r") at or after `from`, or the end of the text. The last
 * answer is kept: the scan asks in increasing order, so a long line is read once, not once per entry on it.
 */
function lineEnds(text: string): (from: number) => number {
  let lo = -1;
  let hi = -1;
  return (from) => {
    if (from >= lo && from <= hi) return hi;
    let j = from;
    for (; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === 10 || c === 13) break;
    }
    lo = from;
    hi = j;
    return j;
  };
}
/** `end` without the white space before it (not before `floor`). */
function trimEnd(text: string, end: number, floor: number): number {
  let e = end;
  while (e > floor && isWs(text.charCodeAt(e - 1))) e--;
  return e;
}

/** Whether a line starting at `from` (right after a line break) starts an entry. */
function startsEntry(text: string, from: number): boolean {
  // The regular expression only where the line's first non-blank character is an `@` (cheap for most lines).
  let j = from;
  for (let c = text.charCodeAt(j); c === 32 || c === 9; c = text.charCodeAt(++j));
  if (text.charCodeAt(j) !== 64) return false;
  LINE_HEAD.lastIndex = from;
  return LINE_HEAD.test(text);
}

/**
 * The delimiter closing an entry whose body starts at `from` (braces balanced), searched up to the next line that
 * starts an entry: `end` is its offset or -1, `limit` where the search stopped (the start of that line, or the end).
 * Each character is read once, so scanning a file entry after entry is linear.
 */
function closeOfEntry(text: string, from: number, close: string): { end: number; limit: number; quote: number } {
  let depth = 0;
  // The last `"` outside braces while their number is odd: Biber reads a quoted string on past the close.
  let quote = -1;
  const closeCode = close.charCodeAt(0);
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j);
    // Like BibTeX itself, every brace counts, escaped or not.
    if (c === 123) depth++;
    else if (c === 125) {
      if (depth === 0) return closeCode === 125 ? { end: j, limit: j, quote } : { end: -1, limit: nextEntryLine(text, j), quote };
      depth--;
    } else if (c === closeCode && depth === 0) return { end: j, limit: j, quote };
    else if (c === 34 && depth === 0) quote = quote < 0 ? j : -1;
    else if (c === 10 || c === 13) {
      const next = c === 13 && text.charCodeAt(j + 1) === 10 ? j + 2 : j + 1;
      if (startsEntry(text, next)) return { end: -1, limit: next, quote };
      j = next - 1;
    }
  }
  return { end: -1, limit: text.length, quote };
}

/** Start of the next line that starts an entry after `from`, or the end of the text. */
function nextEntryLine(text: string, from: number): number {
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c !== 10 && c !== 13) continue;
    const next = c === 13 && text.charCodeAt(j + 1) === 10 ? j + 2 : j + 1;
    if (startsEntry(text, next)) return next;
    j = next - 1;
  }
  return text.length;
}

/** Offset of the delimiter closing a value or entry opened before `from`, braces balanced; -1 if not before `limit`. */
function matchClose(text: string, from: number, close: string, limit: number): number {
  let depth = 0;
  const closeCode = close.charCodeAt(0);
  for (let j = from; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c === 123) depth++;
    else if (c === 125) {
      if (depth === 0) return closeCode === 125 ? j : -1;
      depth--;
    } else if (c === closeCode && depth === 0) return j;
  }
  return -1;
}

/**
 * Where each `@comment{` / `@comment(` closes, for all of them in one pass over the text (what `matchClose` answers
 * for one, which read to the end of the text when it fails: done per comment, that is quadratic). Braces are matched
 * with a stack; a `(` closes at the first `)` at its own brace depth, unless a `}` closes that depth first.
 */
class CommentCloser {
  private readonly closes = new Map<number, number>();

  constructor(text: string) {
    const openers = new Set<number>();
    const head = /@[ \t]*comment[ \t\r\n]*[{(]/giy;
    for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
      head.lastIndex = at;
      if (head.test(text)) openers.add(head.lastIndex - 1);
    }
    const braces: number[] = [];
    // Parenthesised comments waiting for their `)`, per brace depth.
    const waiting: number[][] = [[]];
    for (let j = 0; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === 123) {
        braces.push(j);
        waiting.push([]);
      } else if (c === 125) {
        for (const o of waiting[braces.length] ?? []) this.closes.set(o, -1);
        if (braces.length) {
          const o = braces.pop()!;
          waiting.pop();
          if (openers.has(o)) this.closes.set(o, j);
        } else waiting[0] = [];
      } else if (c === 41) {
        const list = waiting[braces.length]!;
        for (const o of list) this.closes.set(o, j);
        list.length = 0;
      } else if (c === 40 && openers.has(j)) waiting[braces.length]!.push(j);
    }
  }

  /** The offset closing the comment opened at `open` (its `{` or `(`), or -1. */
  close(open: number): number {
    return this.closes.get(open) ?? -1;
  }
}

const KEY = /\s*([^\s,{}()"#%'=\\~]*)\s*,?/y;
function readKey(text: string, from: number): { key: string; keyStart: number; after: number } {
  const m = KEY;
  m.lastIndex = from;
  const r = m.exec(text);
  if (!r) return { key: '', keyStart: from, after: from };
  return { key: r[1]!, keyStart: from + r[0].indexOf(r[1]!), after: m.lastIndex };
}

const isWs = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 160;
/** Characters that end a bare value (a number or a macro name). */
const endsBare = (c: number): boolean => isWs(c) || c === 44 || c === 35 || c === 123 || c === 125 || c === 34 || c === 61;

/**
 * Read `name = value` pairs between `from` and `end`; returns the offset where reading failed, if it did. `spans`
 * receives each value's extent as written (braces, quotes and `#` included).
 */
function readFields(text: string, from: number, end: number, raw: Record<string, string>, spans?: Map<string, [number, number]>): number | undefined {
  let j = from;
  const ws = (): void => {
    while (j < end && (isWs(text.charCodeAt(j)) || text.charCodeAt(j) === 44)) j++;
  };
  for (;;) {
    ws();
    if (j >= end) return undefined;
    const name = FIELD_NAME;
    name.lastIndex = j;
    const nm = name.exec(text);
    if (!nm) return j;
    j = name.lastIndex;
    while (j < end && isWs(text.charCodeAt(j))) j++;
    if (text[j] !== '=') return j;
    j++;
    const parts: string[] = [];
    while (j < end && isWs(text.charCodeAt(j))) j++;
    const valueStart = j;
    let valueEnd: number;
    for (;;) {
      while (j < end && isWs(text.charCodeAt(j))) j++;
      const c = text[j];
      if (c === '{') {
        const close = matchClose(text, j + 1, '}', end);
        if (close < 0) return j;
        parts.push(text.slice(j + 1, close));
        j = close + 1;
      } else if (c === '"') {
        let k = j + 1;
        let depth = 0;
        for (; k < end; k++) {
          const d = text.charCodeAt(k);
          if (d === 123) depth++;
          else if (d === 125) depth--;
          else if (d === 34 && depth === 0) break;
        }
        if (k >= end) return j;
        parts.push(text.slice(j + 1, k));
        j = k + 1;
      } else {
        let k = j;
        while (k < end && !endsBare(text.charCodeAt(k))) k++;
        if (k === j) return j;
        parts.push(text.slice(j, k));
        j = k;
      }
      valueEnd = j;
      while (j < end && isWs(text.charCodeAt(j))) j++;
      if (text[j] === '#') j++;
      else break;
    }
    raw[nm[0].toLowerCase()] = parts.join('');
    spans?.set(nm[0].toLowerCase(), [valueStart, valueEnd]);
    if (j < end && text[j] !== ',') return j;
  }
}

/**
 * Every key in a parsed file (as written): the entries' and those of entries that are not closed, which BibTeX may
 * still define. A new entry never takes one of them.
 */
export const entryKeys = (file: BibFile): string[] => (file.brokenKeys.length ? [...file.entries.map((e) => e.key), ...file.brokenKeys] : file.entries.map((e) => e.key));

/** The fields the editor decodes (hover, Copy Reference, title comparison); the others are never handed to the library. */
const DECODED_FIELDS = ['title', 'author', 'journal', 'journaltitle', 'booktitle', 'howpublished', 'year', 'date', 'volume', 'pages', 'publisher', 'doi', 'url'];
/**
 * Longer values are not decoded but shown as written (cut): the library's decoding is not linear on every input, and
 * no title, name list or venue is this long.
 */
export const MAX_DECODED_VALUE = 4000;
/** C0 controls but tab and line breaks, and DEL: the library throws on some (a NUL in a `@string`). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/gu;

/** `@string` definitions by macro name (lower case), per parse. */
const stringsMemo = new WeakMap<BibFile, Map<string, string>>();
function stringDefinitions(file: BibFile): Map<string, string> {
  let map = stringsMemo.get(file);
  if (!map) {
    map = new Map();
    const name = /^@[ \t]*string[ \t\r\n]*[{(]\s*([^\s"#%'(),={}]+)/iu;
    for (const d of file.directives) {
      if (d.type !== 'string') continue;
      const m = name.exec(file.text.slice(d.start, Math.min(d.end, d.start + 200)));
      if (m && !map.has(m[1]!.toLowerCase())) map.set(m[1]!.toLowerCase(), file.text.slice(d.start, d.end));
    }
    stringsMemo.set(file, map);
  }
  return map;
}

/** Bare words (macro names) in value text as written: outside braces and quotes. */
function macroNames(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let word = '';
  const flush = (): void => {
    if (word && !/^\d/u.test(word)) out.push(word.toLowerCase());
    word = '';
  };
  for (const c of value) {
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    else if (c === '"' && depth === 0) quoted = !quoted;
    else if (depth === 0 && !quoted && !/[\s#,=]/u.test(c)) {
      word += c;
      continue;
    }
    flush();
  }
  flush();
  return out;
}

/**
 * The start of a delimited name list (`{A and B and …}` or `"…"`) up to the last top-level ` and ` within `max`
 * characters, closed again; undefined when it is not one delimited value or no name ends within `max`.
 */
function leadingNames(value: string, max: number): string | undefined {
  const open = value[0];
  if (open !== '{' && open !== '"') return undefined;
  let depth = 0;
  let cut = -1;
  for (let i = 1; i < max - 1; i++) {
    const c = value[i];
    if (c === '{') depth++;
    else if (c === '}') depth--;
    if (depth < 0 || (open === '"' && depth === 0 && c === '"')) return undefined;
    if (depth === 0 && (c === ' ' || c === '\t' || c === '\n') && /^and\s/iu.test(value.slice(i + 1, i + 5))) cut = i;
  }
  return cut > 0 ? `${value.slice(0, cut)}${open === '{' ? '}' : '"'}` : undefined;
}

/**
 * An entry's fields in Unicode (LaTeX decoded, names split) by the library. Needs `loadBibtexLibrary()`. Never
 * throws, and its cost is bounded whatever the file holds: only the fields the editor reads are decoded, each up to
 * MAX_DECODED_VALUE characters (a longer one is given as written, cut), with only the `@string`s they use.
 */
export function entryFields(file: BibFile, entry: BibEntry): Record<string, unknown> {
  const spans = new Map<string, [number, number]>();
  readFields(file.text, readKey(file.text, entry.keyStart).after, entry.end - 1, {}, spans);
  const parts: string[] = [];
  const long: Record<string, string> = {};
  const macros = new Set<string>();
  for (const name of DECODED_FIELDS) {
    const span = spans.get(name);
    if (!span) continue;
    let value = file.text.slice(span[0], span[1]);
    // A long name list (a collaboration's thousands of authors) is decoded from the names that fit.
    if (value.length > MAX_DECODED_VALUE && name === 'author') value = leadingNames(value, MAX_DECODED_VALUE) ?? value;
    if (value.length > MAX_DECODED_VALUE) {
      long[name] = `${(entry.raw[name] ?? '').slice(0, MAX_DECODED_VALUE)}…`;
      continue;
    }
    parts.push(`${name} = ${value}`);
    for (const m of macroNames(value)) macros.add(m);
  }
  // The @strings used, and those their values use (a definition may build on another).
  const defs = stringDefinitions(file);
  const used: string[] = [];
  for (const m of macros) {
    const def = defs.get(m);
    if (def === undefined || def.length > MAX_DECODED_VALUE) continue;
    used.push(def);
    for (const n of macroNames(def.slice(def.search(/=/u) + 1))) macros.add(n);
  }
  const input = `${used.reverse().join('\n')}\n@${entry.type}{k,\n${parts.join(',\n')}\n}`.replace(CONTROL, ' ');
  let fields: Record<string, unknown> | undefined;
  try {
    fields = bibtexLibrary().parse(input).entries[0]?.fields;
  } catch {
    // What the library cannot read is shown as written.
    fields = Object.fromEntries(DECODED_FIELDS.filter((f) => f !== 'author' && entry.raw[f] !== undefined).map((f) => [f, entry.raw[f]!.replace(/[{}]/gu, '')]));
  }
  // Composed accents (NFC), whatever form the parser builds them in.
  const decoded = fields ? (JSON.parse(JSON.stringify(fields).normalize('NFC')) as Record<string, unknown>) : {};
  return { ...decoded, ...long };
}

/** The entry with this key (BibTeX keys compare case-insensitively). */
export function entryByKey(file: BibFile, key: string): BibEntry | undefined {
  const k = key.toLowerCase();
  return file.entries.find((e) => e.key.toLowerCase() === k);
}

interface ParsedCreator {
  name?: string;
  lastName?: string;
  firstName?: string;
  prefix?: string;
}

/**
 * An entry as paper metadata (for hover and Copy Reference on a key): title, authors ("von Last, First"), venue,
 * year, volume, pages, DOI, URL, all decoded to Unicode by the library.
 */
export function entryToPaper(file: BibFile, entry: BibEntry): CitablePaper {
  const f = entryFields(file, entry);
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : Array.isArray(v) && typeof v[0] === 'string' ? v.join(', ') : undefined);
  const authors = Array.isArray(f['author'])
    ? (f['author'] as ParsedCreator[]).map((a) => a.name ?? [[a.prefix, a.lastName].filter(Boolean).join(' '), a.firstName].filter(Boolean).join(', '))
    : undefined;
  const year = /\d{4}/u.exec(str(f['year']) ?? str(f['date']) ?? '')?.[0];
  const doi = entryDoi(entry);
  const url = str(f['url']);
  return {
    title: str(f['title']) ?? null,
    authors: authors ?? null,
    journal_name: str(f['journal']) ?? str(f['journaltitle']) ?? str(f['booktitle']) ?? str(f['howpublished']) ?? null,
    publish_year: year ? Number(year) : null,
    volume: str(f['volume']) ?? null,
    pages: str(f['pages']) ?? null,
    publisher_name: str(f['publisher']) ?? null,
    doi: doi ?? null,
    url: url ? unescapeVerbatim(url) : null,
  };
}

/** The DOI of an entry's raw `doi` field (or a doi.org `url`), normalised; undefined if none. */
export function entryDoi(entry: BibEntry): string | undefined {
  if (doiMemo.has(entry)) return doiMemo.get(entry);
  const doi = readEntryDoi(entry);
  doiMemo.set(entry, doi);
  return doi;
}
const doiMemo = new WeakMap<BibEntry, string | undefined>();
function readEntryDoi(entry: BibEntry): string | undefined {
  const raw = entry.raw['doi'] ?? (/doi\.org\//iu.test(entry.raw['url'] ?? '') ? entry.raw['url'] : undefined);
  return raw === undefined ? undefined : doiKey(unescapeVerbatim(raw.replace(/[{}]/gu, '')));
}

/**
 * DOI comparison form: normalised, percent escapes decoded. Each run of escapes is decoded on its own: a DOI may hold
 * a `%` that starts no escape (`10.1000/50%off`), next to escapes written for characters a .bib cannot hold (`%7B`).
 */
export function doiKey(doi: string | null | undefined): string | undefined {
  const d = normaliseDoi(doi);
  if (!d) return undefined;
  return d
    .replace(/(?:%[0-9A-Fa-f]{2})+/gu, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    })
    .toLowerCase();
}

/** Title comparison form: accents dropped, lower case, letters and digits only. */
export function titleKey(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

const LETTER_MACROS: Record<string, string> = { aa: 'a', AA: 'a', o: 'o', O: 'o', l: 'l', L: 'l', ss: 'ss', ae: 'ae', AE: 'ae', oe: 'oe', OE: 'oe', i: 'i', j: 'j' };

/**
 * A rough ASCII form of a title, the same for a Unicode title and its LaTeX (`{\"u}` and `ü` → `u`, `{\o}` and
 * `ø` → `o`, other macros and all punctuation dropped): equal rough forms are necessary for equal titles.
 */
function roughTitle(s: string, latex: boolean): string {
  const t = latex ? s.replace(/\\([A-Za-z]+)\s*|\\./gu, (_m, name: string | undefined) => (name ? LETTER_MACROS[name] ?? '' : '')) : s;
  return asciiFold(t).toLowerCase();
}

/**
 * The entry already holding this paper: same DOI (case-insensitive, resolver prefix ignored), else — when the paper
 * or the entry has no DOI — the same title (normalised) and year, unless another field tells them apart (the
 * journal, the URL, the service's paper id against the entry's URL: paperIdentity.ts). Title comparison parses only
 * the entries of that year with the library.
 */
export function findEntry(file: BibFile, paper: CitablePaper & { id?: string }): BibEntry | undefined {
  const doi = doiKey(paper.doi);
  if (doi) {
    const hit = file.entries.find((e) => entryDoi(e) === doi);
    if (hit) return hit;
  }
  const year = yearOf(paper);
  const title = titleKey(paper.title ?? '');
  if (year === undefined || !title) return undefined;
  const rough = roughTitle(paper.title ?? '', false);
  // The DOIs were compared above (with percent escapes decoded).
  const facts: PaperFacts = { id: paper.id, url: paper.url, journal: paper.journal_name };
  for (const e of file.entries) {
    if ((e.raw['year'] ?? e.raw['date'] ?? '').trim().slice(0, 4) !== String(year)) continue;
    const eDoi = entryDoi(e);
    if (doi && eDoi && eDoi !== doi) continue;
    // Cheap necessary condition first: the library parses only entries whose raw title could be the same.
    if (roughTitle(e.raw['title'] ?? '', true) !== rough) continue;
    const fields = entryFields(file, e);
    const t = fields['title'];
    if (typeof t !== 'string' || titleKey(t) !== title) continue;
    const url = fieldText(fields['url']);
    const journal = fieldText(fields['journal'] ?? fields['journaltitle'] ?? fields['booktitle'] ?? fields['howpublished']);
    if (!tellApart(facts, { url: url && unescapeVerbatim(url), journal })) return e;
  }
  return undefined;
}

/** A decoded field as one string (the library gives some as lists). */
const fieldText = (v: unknown): string | undefined => (typeof v === 'string' ? v : Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.join(' ') : undefined);

/**
 * Why nothing may be appended to a file: BibTeX would not read what comes after the first entry (or `@string`,
 * `@preamble`) that is not closed, nor Biber after an unclosed quoted value or `@comment{`, so an entry appended at
 * the end could be swallowed by it. `line` is 1-based.
 */
export interface AppendBlocker {
  reason: 'unclosed' | 'quote' | 'comment';
  line: number;
  /** The key of the entry (absent for `@string`, `@preamble`, `@comment`). */
  key?: string;
  /** One sentence for the writer (English; the editor words its own). */
  message: string;
}

/** The first problem that would make BibTeX or Biber read an appended entry as part of an earlier one, if any. */
export function appendBlocker(file: BibFile): AppendBlocker | undefined {
  const bad = file.blocker;
  if (!bad) return undefined;
  const line = bad.range.start.line + 1;
  const what = bad.key ? `Entry ${bad.key}` : 'An @string or @preamble';
  return {
    reason: bad.code === 'quote' ? 'quote' : bad.code === 'comment' ? 'comment' : 'unclosed',
    line,
    ...(bad.key ? { key: bad.key } : {}),
    message:
      bad.code === 'comment'
        ? `The @comment at line ${line} is not closed: Biber would read an entry added after it as part of it.`
        : bad.code === 'quote'
          ? `${what} (line ${line}) has a quoted value that is not closed: Biber would read an entry added after it as part of it.`
          : `${what} (line ${line}) is not closed: BibTeX would read an entry added after it as part of it.`,
  };
}

/**
 * The text appended for new entries: one blank line before them, the file's line breaks (`newline`, else the file's
 * dominant one). Looks only at the end of the text.
 */
export function appendText(text: string, entryText: string, newline: '\n' | '\r\n' = newlineOf(text)): string {
  const nl = newline;
  const body = entryText.replace(/\r\n|\r|\n/gu, nl);
  if (!text.length) return `${body}${nl}`;
  // The last line break, and whether the line before it is blank: then the file already ends with a blank line.
  const end = text.slice(-256);
  const last = /(?:\r\n|\r|\n)$/u.exec(end);
  const sep = !last ? nl + nl : /(?:^|\r\n|\r|\n)[ \t]*$/u.test(end.slice(0, last.index)) && last.index > 0 ? '' : nl;
  return `${sep}${body}${nl}`;
}

/** The edit appending `entryText` at the end of the file: one blank line before it, the file's line breaks kept. */
export function appendEntryEdit(text: string, entryText: string): TextEdit {
  return { offset: text.length, length: 0, text: appendText(text, entryText) };
}

export interface EnsureResult {
  key: string;
  /** True when the paper was already in the file (no edit). */
  existing: boolean;
  /** The edit adding the entry (absent when existing, or blocked). */
  edit?: TextEdit;
  /** The entry text added. */
  entryText?: string;
  /** Set (and no edit) when the file has a problem an appended entry would fall into. */
  blocked?: AppendBlocker;
}

/**
 * The one call the editor side needs on insert: reuse the paper's entry if the file has it, else choose a free key
 * and return the append edit (none when `appendBlocker` finds a reason). Needs `loadBibtexLibrary()`.
 */
export function ensureEntry(
  file: BibFile,
  paper: CitablePaper,
  options: BibtexOptions & { keyScheme?: string; reservedKeys?: Iterable<string> } = {},
): EnsureResult {
  const hit = findEntry(file, paper);
  if (hit) return { key: hit.key, existing: true };
  const key = citeKey(paper, [...entryKeys(file), ...(options.reservedKeys ?? [])], options.keyScheme ?? DEFAULT_KEY_SCHEME);
  const entryText = toBibtex(paper, key, options);
  const blocked = appendBlocker(file);
  if (blocked) return { key, existing: false, entryText, blocked };
  return { key, existing: false, edit: { offset: file.text.length, length: 0, text: appendText(file.text, entryText, file.newline) }, entryText };
}

export interface TidyOptions {
  /** Every key counts as cited (`\nocite{*}`): nothing is reported uncited. */
  everyKeyCited?: boolean;
  /**
   * False when the cited keys may be incomplete (a document could not be read, too many files): then no duplicate is
   * removed, since one of them may be cited where we did not look.
   */
  citedComplete?: boolean;
}

export interface TidyResult {
  /**
   * The whole new text, or undefined when the file has errors or something a reader would read on from (tidy refuses
   * to move broken text: in another place it would swallow other entries).
   */
  text: string | undefined;
  /** Why the text was not tidied, when it was for something other than an error. */
  blocked?: AppendBlocker;
  /** Entries removed as duplicates of an entry with the same DOI (cite the kept key instead). */
  removed: { key: string; keptKey: string; doi: string }[];
  /** Entries that share a DOI but were all kept, because documents cite them (or a crossref needs them). */
  keptDuplicates: { keys: string[]; doi: string }[];
  /** Keys not cited by the given set (empty when no set was given), in the new order. */
  uncited: string[];
  diagnostics: BibDiagnostic[];
}

/** The keys an entry refers to (`crossref`, `xref`): BibTeX wants such a parent after every entry that refers to it. */
const parentKeys = (e: BibEntry): string[] =>
  [e.raw['crossref'], e.raw['xref']].filter((v): v is string => !!v?.trim()).map((v) => v.trim().toLowerCase());

/**
 * Tidy: sort entries by key (case-insensitive), `@string`, `@preamble` and `@comment` first in their order, every
 * `crossref`/`xref` parent after the entries that refer to it (BibTeX reads the children first); text between
 * entries travels with the entry after it; entries are kept as written. Entries whose DOI repeats another's are
 * removed unless a document cites them or an entry refers to them: of a group of same-DOI entries, the cited (and
 * referred-to) ones stay, else the first. `cited`: the keys the documents cite; without it every later duplicate
 * goes and nothing is reported uncited.
 */
export function tidyBibliography(text: string, cited?: Iterable<string>, options: TidyOptions = {}): TidyResult {
  const file = parseBibFile(text);
  const errors = file.diagnostics.filter((d) => d.severity === 'error');
  const blocked = appendBlocker(file);
  // Problems past the listed ones may be errors: not tidied either.
  if (errors.length || blocked || file.omitted) return { text: undefined, ...(blocked ? { blocked } : {}), removed: [], keptDuplicates: [], uncited: [], diagnostics: file.diagnostics };
  const nl = file.newline;
  const citedSet = cited ? new Set([...cited].map((k) => k.toLowerCase())) : undefined;
  const referred = new Set(file.entries.flatMap(parentKeys));
  const needed = (e: BibEntry): boolean => referred.has(e.key.toLowerCase()) || (citedSet?.has(e.key.toLowerCase()) ?? false);
  // Leading text (comments) of each item: from the end of the previous item. Entries and directives are each in
  // text order: merged, not sorted.
  const directiveChunks: string[] = [];
  const entryItems: { entry: BibEntry; chunk: string; sortKey: string }[] = [];
  let prev = 0;
  const chunkOf = (start: number, end: number): string => {
    const lead = text.slice(prev, start).trim();
    prev = end;
    return (lead ? lead + nl : '') + text.slice(start, end);
  };
  for (let e = 0, d = 0; e < file.entries.length || d < file.directives.length; ) {
    const entry = file.entries[e];
    const directive = file.directives[d];
    if (entry && (!directive || entry.start < directive.start)) {
      entryItems.push({ entry, chunk: chunkOf(entry.start, entry.end), sortKey: entry.key.toLowerCase() });
      e++;
    } else if (directive) {
      directiveChunks.push(chunkOf(directive.start, directive.end));
      d++;
    }
  }
  // Same-DOI groups: who stays.
  const byDoi = new Map<string, BibEntry[]>();
  for (const { entry } of entryItems) {
    const doi = entryDoi(entry);
    if (!doi) continue;
    const group = byDoi.get(doi);
    if (group) group.push(entry);
    else byDoi.set(doi, [entry]);
  }
  const removed: TidyResult['removed'] = [];
  const keptDuplicates: TidyResult['keptDuplicates'] = [];
  const dropped = new Set<BibEntry>();
  const mayRemove = options.citedComplete !== false;
  for (const [doi, group] of byDoi) {
    if (group.length < 2) continue;
    const stay = group.filter(needed);
    if (stay.length > 1 || !mayRemove) keptDuplicates.push({ keys: (mayRemove ? stay : group).map((e) => e.key), doi });
    if (!mayRemove) continue;
    const keep = stay[0] ?? group[0]!;
    const staying = new Set(stay);
    for (const e of group) {
      if (e === keep || staying.has(e)) continue;
      dropped.add(e);
      removed.push({ key: e.key, keptKey: keep.key, doi });
    }
  }
  const kept = entryItems.filter((k) => !dropped.has(k.entry));
  const trailing = text.slice(prev).trim();
  kept.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : a.entry.start - b.entry.start));
  const ordered = childrenFirst(kept);
  const uncited = citedSet && !options.everyKeyCited ? ordered.map((k) => k.entry.key).filter((k) => !citedSet.has(k.toLowerCase())) : [];
  const parts = [...directiveChunks, ...ordered.map((k) => k.chunk), ...(trailing ? [trailing] : [])];
  return {
    text: parts.length ? parts.join(nl + nl) + nl : '',
    removed,
    keptDuplicates,
    uncited,
    diagnostics: file.diagnostics,
  };
}

/**
 * `sorted` reordered so that each entry comes before every entry it refers to (`crossref`/`xref`), otherwise in the
 * given order: the earliest entry none of whose children is still waiting goes next. Entries in a reference cycle
 * keep their order at the end.
 */
function childrenFirst<T extends { entry: BibEntry; sortKey: string }>(sorted: readonly T[]): T[] {
  if (!sorted.some((s) => s.entry.raw['crossref'] !== undefined || s.entry.raw['xref'] !== undefined)) return [...sorted];
  const index = new Map<string, number>();
  sorted.forEach((s, i) => {
    if (!index.has(s.sortKey)) index.set(s.sortKey, i);
  });
  const none: number[] = [];
  const parents = sorted.map((s, i) => {
    const keys = parentKeys(s.entry);
    if (!keys.length) return none;
    return [...new Set(keys.map((k) => index.get(k)).filter((p): p is number => p !== undefined && p !== i))];
  });
  const waiting = new Array<number>(sorted.length).fill(0);
  for (const ps of parents) for (const p of ps) waiting[p]!++;
  if (!waiting.some((w) => w > 0)) return [...sorted];
  const ready = new MinHeap();
  waiting.forEach((w, i) => w === 0 && ready.push(i));
  const out: T[] = [];
  const done = new Array<boolean>(sorted.length).fill(false);
  while (ready.size) {
    const i = ready.pop();
    out.push(sorted[i]!);
    done[i] = true;
    for (const p of parents[i]!) if (--waiting[p]! === 0) ready.push(p);
  }
  sorted.forEach((s, i) => !done[i] && out.push(s));
  return out;
}

/** A binary min-heap of indices. */
class MinHeap {
  private readonly a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  push(v: number): void {
    const a = this.a;
    a.push(v);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (a[p]! <= a[i]!) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }
  pop(): number {
    const a = this.a;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]! < a[m]!) m = l;
        if (r < a.length && a[r]! < a[m]!) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}
