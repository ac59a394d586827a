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

export interface BibDiagnostic {
  severity: 'error' | 'warning';
  message: string;
  range: Range;
  /** Offsets of the same range. */
  start: number;
  end: number;
}

export interface BibFile {
  text: string;
  entries: BibEntry[];
  /** `@string` definitions, `@preamble`s and `@comment`s, in order (kept by tidy). */
  directives: { type: string; start: number; end: number }[];
  diagnostics: BibDiagnostic[];
  newline: '\n' | '\r\n';
}

const ENTRY_HEAD = /@[ \t]*([A-Za-z][\w-]*)[ \t\r\n]*([{(])/gy;
/** An entry head at the start of a line: where the scan resumes after a broken entry. */
const LINE_HEAD = /\n[ \t]*@[ \t]*[A-Za-z][\w-]*[ \t]*[{(]/y;
const FIELD_NAME = /[A-Za-z][\w\-:.+]*/y;
const BARE_VALUE = /[^\s,#{}"=]+/y;

/** Parse a .bib text. Never throws. */
export function parseBibFile(text: string): BibFile {
  // Line starts only when a diagnostic needs a range (most files have none).
  let lineIndex: LineIndex | undefined;
  const lines = { range: (s: number, e: number) => (lineIndex ??= new LineIndex(text)).range(s, e), position: (o: number) => (lineIndex ??= new LineIndex(text)).position(o) };
  const entries: BibEntry[] = [];
  const directives: BibFile['directives'] = [];
  const diagnostics: BibDiagnostic[] = [];
  const diag = (severity: BibDiagnostic['severity'], message: string, start: number, end: number): void => {
    diagnostics.push({ severity, message, start, end, range: lines.range(start, end) });
  };
  const nextLineHead = (from: number): number => {
    // Every line break is a candidate (indexOf is far faster than the regex scanning each character); the first
    // line break followed by an entry head wins, as LINE_HEAD alone would find it.
    for (let nl = text.indexOf('\n', from); nl >= 0; nl = text.indexOf('\n', nl + 1)) {
      LINE_HEAD.lastIndex = nl;
      if (LINE_HEAD.test(text)) return nl + 1;
    }
    return text.length;
  };
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
      // `@comment{…}` with balanced braces, else to the end of the line (BibTeX's own reading).
      const end = matchClose(text, bodyStart, close, text.length);
      const stop = end < 0 ? lineEnd(text, at) : end + 1;
      directives.push({ type, start: at, end: stop });
      i = stop;
      continue;
    }
    const limit = nextLineHead(bodyStart);
    const end = matchClose(text, bodyStart, close, limit);
    if (end < 0) {
      const what = type === 'string' || type === 'preamble' ? `@${type}` : `Entry ${readKey(text, bodyStart).key || `@${type}`}`;
      diag('error', `${what} is not closed: a brace is missing (or one too many opens). Entries after it are still read.`, at, limit === text.length ? text.length : trimEnd(text, limit));
      i = limit;
      continue;
    }
    if (type === 'string' || type === 'preamble') {
      directives.push({ type, start: at, end: end + 1 });
      i = end + 1;
      continue;
    }
    const { key, keyStart, after } = readKey(text, bodyStart);
    if (!key) diag('error', `@${type} entry without a key.`, at, Math.min(end + 1, lineEnd(text, at)));
    else {
      const raw: Record<string, string> = {};
      const bad = readFields(text, after, end, raw);
      if (bad !== undefined) diag('warning', `Entry ${key}: cannot read the fields from here on (a missing comma, "=" or quote?).`, bad, Math.max(bad + 1, Math.min(end, lineEnd(text, bad))));
      entries.push({ type, key, start: at, end: end + 1, keyStart, raw });
    }
    i = end + 1;
  }
  const seen = new Map<string, BibEntry>();
  for (const e of entries) {
    const k = e.key.toLowerCase();
    if (seen.has(k)) diag('warning', `Duplicate key ${e.key} (also at line ${lines.position(seen.get(k)!.start).line + 1}).`, e.keyStart, e.keyStart + e.key.length);
    else seen.set(k, e);
  }
  return { text, entries, directives, diagnostics, newline: newlineOf(text) };
}

function lineEnd(text: string, from: number): number {
  const n = text.indexOf('\n', from);
  return n < 0 ? text.length : n;
}
function trimEnd(text: string, end: number): number {
  let e = end;
  while (e > 0 && /\s/u.test(text[e - 1]!)) e--;
  return e;
}

/** Offset of the delimiter closing an entry opened before `from`, braces balanced; -1 if not before `limit`. */
function matchClose(text: string, from: number, close: string, limit: number): number {
  let depth = 0;
  const closeCode = close.charCodeAt(0);
  for (let j = from; j < limit; j++) {
    const c = text.charCodeAt(j);
    // Like BibTeX itself, every brace counts, escaped or not.
    if (c === 123) depth++;
    else if (c === 125) {
      if (depth === 0) return closeCode === 125 ? j : -1;
      depth--;
    } else if (c === closeCode && depth === 0) return j;
  }
  return -1;
}

function readKey(text: string, from: number): { key: string; keyStart: number; after: number } {
  const m = /\s*([^\s,{}()"#%'=\\~]*)\s*,?/y;
  m.lastIndex = from;
  const r = m.exec(text);
  if (!r) return { key: '', keyStart: from, after: from };
  return { key: r[1]!, keyStart: from + r[0].indexOf(r[1]!), after: m.lastIndex };
}

const isWs = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 160;

/** Read `name = value` pairs between `from` and `end`; returns the offset where reading failed, if it did. */
function readFields(text: string, from: number, end: number, raw: Record<string, string>): number | undefined {
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
        const bare = BARE_VALUE;
        bare.lastIndex = j;
        const b = bare.exec(text);
        if (!b) return j;
        parts.push(b[0]);
        j = bare.lastIndex;
      }
      while (j < end && isWs(text.charCodeAt(j))) j++;
      if (text[j] === '#') j++;
      else break;
    }
    raw[nm[0].toLowerCase()] = parts.join('');
    if (j < end && text[j] !== ',') return j;
  }
}

/** The keys of a parsed file (as written). */
export const entryKeys = (file: BibFile): string[] => file.entries.map((e) => e.key);

/** Text of the `@string` directives, prepended when an entry is parsed alone so its macros resolve. */
function stringDefs(file: BibFile): string {
  return file.directives
    .filter((d) => d.type === 'string')
    .map((d) => file.text.slice(d.start, d.end))
    .join('\n');
}

/** An entry's fields in Unicode (LaTeX decoded, names split) by the library. Needs `loadBibtexLibrary()`. */
export function entryFields(file: BibFile, entry: BibEntry): Record<string, unknown> {
  const defs = stringDefs(file);
  const lib = bibtexLibrary().parse(`${defs}\n${file.text.slice(entry.start, entry.end)}`);
  const fields = lib.entries[0]?.fields;
  // Composed accents (NFC), whatever form the parser builds them in.
  return fields ? (JSON.parse(JSON.stringify(fields).normalize('NFC')) as Record<string, unknown>) : {};
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

/** DOI comparison form: normalised, percent escapes decoded. */
export function doiKey(doi: string | null | undefined): string | undefined {
  const d = normaliseDoi(doi);
  if (!d) return undefined;
  try {
    return decodeURIComponent(d).toLowerCase();
  } catch {
    return d;
  }
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
 * or the entry has no DOI — the same title (normalised) and year. Title comparison parses only the entries of that
 * year with the library.
 */
export function findEntry(file: BibFile, paper: CitablePaper): BibEntry | undefined {
  const doi = doiKey(paper.doi);
  if (doi) {
    const hit = file.entries.find((e) => entryDoi(e) === doi);
    if (hit) return hit;
  }
  const year = yearOf(paper);
  const title = titleKey(paper.title ?? '');
  if (year === undefined || !title) return undefined;
  const rough = roughTitle(paper.title ?? '', false);
  for (const e of file.entries) {
    if ((e.raw['year'] ?? e.raw['date'] ?? '').trim().slice(0, 4) !== String(year)) continue;
    const eDoi = entryDoi(e);
    if (doi && eDoi && eDoi !== doi) continue;
    // Cheap necessary condition first: the library parses only entries whose raw title could be the same.
    if (roughTitle(e.raw['title'] ?? '', true) !== rough) continue;
    const t = entryFields(file, e)['title'];
    if (typeof t === 'string' && titleKey(t) === title) return e;
  }
  return undefined;
}

/** The edit appending `entryText` at the end of the file: one blank line before it, the file's line breaks kept. */
export function appendEntryEdit(text: string, entryText: string): TextEdit {
  const nl = newlineOf(text);
  const body = entryText.replace(/\r?\n/gu, nl);
  let sep = '';
  if (text.length) {
    if (text.endsWith(nl + nl) || (nl === '\n' && /\n\s*\n$/u.test(text))) sep = '';
    else if (text.endsWith('\n')) sep = nl;
    else sep = nl + nl;
  }
  return { offset: text.length, length: 0, text: `${sep}${body}${nl}` };
}

export interface EnsureResult {
  key: string;
  /** True when the paper was already in the file (no edit). */
  existing: boolean;
  /** The edit adding the entry (absent when existing). */
  edit?: TextEdit;
  /** The entry text added. */
  entryText?: string;
}

/**
 * The one call the editor side needs on insert: reuse the paper's entry if the file has it, else choose a free key
 * and return the append edit. Needs `loadBibtexLibrary()`.
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
  return { key, existing: false, edit: appendEntryEdit(file.text, entryText), entryText };
}

export interface TidyResult {
  /** The whole new text, or undefined when the file has errors (tidy refuses to move broken text). */
  text: string | undefined;
  /** Entries removed as duplicates of an earlier entry with the same DOI (cite the kept key instead). */
  removed: { key: string; keptKey: string; doi: string }[];
  /** Keys not cited by the given set (empty when no set was given), in the new order. */
  uncited: string[];
  diagnostics: BibDiagnostic[];
}

/**
 * Tidy: drop later entries whose DOI repeats an earlier one, sort entries by key (case-insensitive), `@string`,
 * `@preamble` and `@comment` first in their order; text between entries travels with the entry after it. Entries
 * are kept as written. `cited` (the keys the documents cite) is used to report uncited keys only.
 */
export function tidyBibliography(text: string, cited?: Iterable<string>): TidyResult {
  const file = parseBibFile(text);
  const errors = file.diagnostics.filter((d) => d.severity === 'error');
  const removed: TidyResult['removed'] = [];
  const byDoi = new Map<string, BibEntry>();
  const kept: { entry: BibEntry; chunk: string }[] = [];
  const nl = file.newline;
  // Leading text (comments) of each item: from the end of the previous item.
  const items = [...file.entries.map((e) => ({ kind: 'entry' as const, e, start: e.start, end: e.end })), ...file.directives.map((d) => ({ kind: 'directive' as const, d, start: d.start, end: d.end }))].sort((a, b) => a.start - b.start);
  const directiveChunks: string[] = [];
  let prev = 0;
  for (const it of items) {
    const lead = text.slice(prev, it.start).trim();
    const chunk = (lead ? lead + nl : '') + text.slice(it.start, it.end);
    prev = it.end;
    if (it.kind === 'directive') {
      directiveChunks.push(chunk);
      continue;
    }
    const doi = entryDoi(it.e);
    const first = doi ? byDoi.get(doi) : undefined;
    if (first && doi) {
      removed.push({ key: it.e.key, keptKey: first.key, doi });
      continue;
    }
    if (doi) byDoi.set(doi, it.e);
    kept.push({ entry: it.e, chunk });
  }
  const trailing = text.slice(prev).trim();
  kept.sort((a, b) => {
    const x = a.entry.key.toLowerCase();
    const y = b.entry.key.toLowerCase();
    return x < y ? -1 : x > y ? 1 : a.entry.start - b.entry.start;
  });
  const citedSet = cited ? new Set([...cited].map((k) => k.toLowerCase())) : undefined;
  const uncited = citedSet ? kept.map((k) => k.entry.key).filter((k) => !citedSet.has(k.toLowerCase())) : [];
  const parts = [...directiveChunks, ...kept.map((k) => k.chunk), ...(trailing ? [trailing] : [])];
  return {
    text: errors.length ? undefined : parts.length ? parts.join(nl + nl) + nl : '',
    removed,
    uncited,
    diagnostics: file.diagnostics,
  };
}
