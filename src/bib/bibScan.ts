/**
 * The character scanners under parseBibFile (bibFile.ts): entry heads, where an entry, a value or a `@comment`
 * closes, the next line that starts an entry, an entry's key and its `name = value` fields. Each reads a character
 * once (or once per entry holding it), which keeps the parse linear in the length of the file whatever it holds
 * (test/unit/bib/bibLinear.test.ts). Apart from the parse, which only decides what the scans found; entryFields
 * (bibEntry.ts) reads fields with the same scanner. Pure.
 */

/**
 * An entry type as BibTeX reads one: any run of characters but white space and `"#%'(),={}` (and `@`, `\`), not
 * starting with a digit. Narrower patterns would skip entries BibTeX reads, and hand their keys out again.
 */
const TYPE = String.raw`[^\s\d"#%'(),={}@\\][^\s"#%'(),={}@\\]*`;
/** An entry head `@type{` or `@type(` (sticky: set lastIndex to the `@`); groups: the type, the opener. */
export const ENTRY_HEAD = new RegExp(String.raw`@[ \t]*(${TYPE})[ \t\r\n]*([{(])`, 'y');
/** An entry head at the start of a line (after its break): where the scan resumes after a broken entry. */
const LINE_HEAD = new RegExp(String.raw`[ \t]*@[ \t]*${TYPE}[ \t]*[{(]`, 'y');

/**
 * `lineEnd(from)`: offset of the first line break ("\n" or "\r") at or after `from`, or the end of the text. The last
 * answer is kept: the scan asks in increasing order, so a long line is read once, not once per entry on it.
 */
export function lineEnds(text: string): (from: number) => number {
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
export function trimEnd(text: string, end: number, floor: number): number {
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
export function closeOfEntry(text: string, from: number, close: string): { end: number; limit: number; quote: number } {
  let depth = 0;
  // The last `"` outside braces while their number is odd: Biber reads a quoted string on past the close.
  let quote = -1;
  const closeCode = close.charCodeAt(0);
  for (let j = from; j < text.length; j++) {
    const c = text.charCodeAt(j);
    // Like BibTeX itself, every brace counts, escaped or not.
    if (c === 123) depth++;
    else if (c === 125) {
      if (depth === 0)
        return closeCode === 125 ? { end: j, limit: j, quote } : { end: -1, limit: nextEntryLine(text, j), quote };
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
export function matchClose(text: string, from: number, close: string, limit: number): number {
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
export class CommentCloser {
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

/** JavaScript's `\s`: the white space a key ends at (as the regular expression BibTeX keys were read with). */
export const isJsSpace = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 160 ||
  (c >= 0x2000
    ? c <= 0x200a || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
    : c === 0x1680);
/** Characters that end a key: `,{}()"#%'=\~`. */
const endsKey = (c: number): boolean =>
  c === 44 ||
  c === 123 ||
  c === 125 ||
  c === 40 ||
  c === 41 ||
  c === 34 ||
  c === 35 ||
  c === 37 ||
  c === 39 ||
  c === 61 ||
  c === 92 ||
  c === 126;

/**
 * An entry's key after its opening delimiter: white space, the key (no white space nor `,{}()"#%'=\~`), white space,
 * an optional comma. `after` is where the fields start.
 */
export function readKey(text: string, from: number): { key: string; keyStart: number; after: number } {
  let j = from;
  while (j < text.length && isJsSpace(text.charCodeAt(j))) j++;
  const start = j;
  for (let c = text.charCodeAt(j); j < text.length && !isJsSpace(c) && !endsKey(c); c = text.charCodeAt(++j));
  const key = text.slice(start, j);
  while (j < text.length && isJsSpace(text.charCodeAt(j))) j++;
  if (text.charCodeAt(j) === 44) j++;
  return { key, keyStart: key ? start : from, after: j };
}

const isWs = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 160;
/** Characters that end a bare value (a number or a macro name). */
const endsBare = (c: number): boolean =>
  isWs(c) || c === 44 || c === 35 || c === 123 || c === 125 || c === 34 || c === 61;

/**
 * Fields as read, three slots each: the name (lower case), then the value's extent in the text (outer braces or quotes
 * removed) as two offsets, or, for parts joined by `#`, the joined value and -1.
 */
export type FieldList = (string | number)[];

/**
 * Read `name = value` pairs between `from` and `end` into `fields`; returns the offset where reading failed, if it did.
 * `spans` receives each value's extent as written (braces, quotes and `#` included).
 */
export function readFields(
  text: string,
  from: number,
  end: number,
  fields: FieldList,
  spans?: Map<string, [number, number]>,
): number | undefined {
  let j = from;
  for (;;) {
    for (let c = text.charCodeAt(j); j < end && (isWs(c) || c === 44); c = text.charCodeAt(++j));
    if (j >= end) return undefined;
    // A field name: a letter, then letters, digits and `_-:.+`.
    const nameStart = j;
    if (!isLetter(text.charCodeAt(j))) return j;
    for (j++; isNameChar(text.charCodeAt(j)); j++);
    const name = fieldName(text, nameStart, j);
    while (j < end && isWs(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) !== 61) return j;
    j++;
    while (j < end && isWs(text.charCodeAt(j))) j++;
    const valueStart = j;
    let valueEnd: number;
    // One part (its extent), or the parts joined by `#` (strings only then).
    let partStart = 0;
    let partEnd = 0;
    let parts: string[] | undefined;
    for (let first = true; ; first = false) {
      while (j < end && isWs(text.charCodeAt(j))) j++;
      const c = j < end ? text.charCodeAt(j) : -1;
      if (!first) (parts ??= [text.slice(partStart, partEnd)]).push('');
      if (c === 123) {
        const close = matchClose(text, j + 1, '}', end);
        if (close < 0) return j;
        partStart = j + 1;
        partEnd = close;
        j = close + 1;
      } else if (c === 34) {
        let k = j + 1;
        let depth = 0;
        for (; k < end; k++) {
          const d = text.charCodeAt(k);
          if (d === 123) depth++;
          else if (d === 125) depth--;
          else if (d === 34 && depth === 0) break;
        }
        if (k >= end) return j;
        partStart = j + 1;
        partEnd = k;
        j = k + 1;
      } else {
        let k = j;
        while (k < end && !endsBare(text.charCodeAt(k))) k++;
        if (k === j) return j;
        partStart = j;
        partEnd = k;
        j = k;
      }
      if (parts) parts[parts.length - 1] = text.slice(partStart, partEnd);
      valueEnd = j;
      while (j < end && isWs(text.charCodeAt(j))) j++;
      if (text.charCodeAt(j) === 35) j++;
      else break;
    }
    if (parts) fields.push(name, parts.join(''), -1);
    else fields.push(name, partStart, partEnd);
    spans?.set(name, [valueStart, valueEnd]);
    if (j < end && text.charCodeAt(j) !== 44) return j;
  }
}

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** `[\w\-:.+]`. */
const isNameChar = (c: number): boolean =>
  isLetter(c) || (c >= 48 && c <= 58) || c === 95 || c === 45 || c === 46 || c === 43;

/** Lower-case forms kept: the same few field names and entry types come back in every entry. */
const LOWER = new Map<string, string>();
/** `written` in lower case, the same string each time for the first thousand forms met. */
export function keptLower(written: string): string {
  let lower = LOWER.get(written);
  if (lower === undefined) {
    lower = written.toLowerCase();
    if (LOWER.size < 1000) LOWER.set(written, lower);
  }
  return lower;
}

const fieldName = (text: string, start: number, end: number): string => keptLower(text.slice(start, end));
