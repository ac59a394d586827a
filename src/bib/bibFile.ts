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
import { CommentCloser, closeOfEntry, ENTRY_HEAD, lineEnds, matchClose, readFields, readKey, trimEnd } from './bibScan';
import { LineIndex, newlineOf, type Range } from './edit';

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

/** Parse a .bib text. Never throws; linear in the length of the text. */
export function parseBibFile(text: string): BibFile {
  // Line starts only when a diagnostic needs a range (most files have none).
  let lineIndex: LineIndex | undefined;
  const lines = {
    range: (s: number, e: number) => (lineIndex ??= new LineIndex(text)).range(s, e),
    position: (o: number) => (lineIndex ??= new LineIndex(text)).position(o),
  };
  const entries: BibEntry[] = [];
  const directives: BibFile['directives'] = [];
  const brokenKeys: string[] = [];
  const diagnostics: BibDiagnostic[] = [];
  const lineEnd = lineEnds(text);
  let omitted = 0;
  let blocker: BibDiagnostic | undefined;
  const diag = (
    severity: BibDiagnostic['severity'],
    code: BibDiagnosticCode,
    message: string,
    start: number,
    end: number,
    key?: string,
  ): void => {
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
        diag(
          'error',
          'comment',
          '@comment is not closed: BibTeX reads it to the end of its line, Biber on into what follows.',
          at,
          stop,
        );
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
      diag(
        'error',
        'unclosed',
        `${what} is not closed: a brace is missing (or one too many opens). Entries after it are still read.`,
        at,
        limit === text.length ? text.length : trimEnd(text, limit, at),
        directive ? undefined : key,
      );
      i = limit;
      continue;
    }
    const unpaired = (what: string, key?: string): void =>
      diag(
        'warning',
        'quote',
        `${what}: a quoted value is not closed (Biber reads on until the next ").`,
        quote,
        Math.max(quote + 1, Math.min(end, lineEnd(quote))),
        key,
      );
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
        diag(
          'warning',
          'fields',
          `Entry ${key}: cannot read the fields from here on (a missing comma, "=" or quote?).`,
          bad,
          Math.max(bad + 1, Math.min(end, lineEnd(bad))),
          key,
        );
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
    else
      diag(
        'warning',
        'duplicate',
        `Duplicate key ${e.key} (also at line ${lines.position(first.start).line + 1}).`,
        e.keyStart,
        e.keyStart + e.key.length,
        e.key,
      );
  }
  const file: BibFile = { text, entries, directives, brokenKeys, diagnostics, omitted, newline: newlineOf(text) };
  if (blocker) file.blocker = blocker;
  return file;
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
