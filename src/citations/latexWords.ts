/**
 * The folded words completion matches on (lower-case ASCII letters and digits, split at white space and punctuation),
 * and a reader that takes them straight from raw BibTeX field text in one pass: the words of displayLatex's text
 * (display.ts) for a title, of each author's family name for an author list (citeMatch.rawFamilies), without building
 * the display text, its NFC form, the names or the words as strings of their own. It reads the forms writers' files
 * are made of (accents, letter and math macros, escapes, braces, `\relax{}`, `\cyrchar`); anything else (a nested
 * accent, `\\`, an accent over no letter, …) is handed back, and that field is read the long way, so the words are
 * always the same (property-tested against the long way on hostile and random text). Pure.
 */
import { isJsSpace as isSpace } from '../bib/bibScan';
import { asciiFold } from '../bib/names';
import { ACCENTS, macroText } from './display';

// ---------------------------------------------------------------------------------------------------------------
// Words of a display text.

/** What separates words: white space (`\s`) and `-‐–—/:;,.!?()[]{}"“”'’`, as a table of UTF-16 code units. */
const SEPARATOR_TABLE = (() => {
  const t = new Uint8Array(0x10000);
  const mark = (c: number): void => void (t[c] = 1);
  for (const c of [32, 9, 10, 11, 12, 13, 160, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]) mark(c);
  for (let c = 0x2000; c <= 0x200a; c++) mark(c);
  for (const c of `-‐–—/:;,.!?()[]{}"“”'’`) mark(c.charCodeAt(0));
  return t;
})();
const separates = (c: number): boolean => SEPARATOR_TABLE[c] === 1;
const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** Each character's fold (asciiFold, lower case), remembered: asciiFold folds character by character (tested). */
const bmpFolds: (string | undefined)[] = [];
const astralFolds = new Map<number, string>();
function foldChar(c: number): string {
  let f = c < 0x10000 ? bmpFolds[c] : astralFolds.get(c);
  if (f === undefined) {
    f = asciiFold(String.fromCodePoint(c)).toLowerCase();
    if (c < 0x10000) bmpFolds[c] = f;
    else if (astralFolds.size < 65_536) astralFolds.set(c, f);
  }
  return f;
}

/** `asciiFold(text.slice(start, end)).toLowerCase()`, a character at a time. */
function foldWord(text: string, start: number, end: number): string {
  let out = '';
  for (let i = start; i < end; i++) {
    let c = text.charCodeAt(i);
    if (c < 128) {
      if (isAlnum(c)) out += String.fromCharCode(c >= 65 && c <= 90 ? c + 32 : c);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
        i++;
      }
    }
    out += foldChar(c);
  }
  return out;
}

/**
 * The folded words (lower-case ASCII) of a text, for prefix matching: its parts between separators, folded, not
 * empty. `into` receives them (a word of letters and digits only is folded by lower-casing it).
 */
export function collectWords(text: string, into: string[]): void {
  // Lower-cased once: where that keeps every position (nothing grew), a plain word is a slice of it.
  const lowered = text.toLowerCase();
  const lower = lowered.length === text.length ? lowered : undefined;
  let start = 0;
  let plain = true;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (!separates(c)) {
      if (plain && !isAlnum(c)) plain = false;
      continue;
    }
    if (i > start) {
      const f = plain ? (lower ? lower.slice(start, i) : text.slice(start, i).toLowerCase()) : foldWord(text, start, i);
      if (f) into.push(f);
    }
    start = i + 1;
    plain = true;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Words as bytes: ` w1 w2 …`, each word after a space.

/** Where words are written: ASCII bytes, each word after a space; `string(from)` reads them back. */
export class WordBytes {
  bytes = new Uint8Array(1 << 16);
  length = 0;
  private inWord = false;
  private static readonly decoder = new TextDecoder();

  /** Ends the word being written (the next character starts another). */
  end(): void {
    this.inWord = false;
  }

  /** Adds a lower-case ASCII letter or digit to the word being written (a space first when it starts one). */
  add(c: number): void {
    if (this.length + 2 > this.bytes.length) this.grow();
    if (!this.inWord) {
      this.bytes[this.length++] = 32;
      this.inWord = true;
    }
    this.bytes[this.length++] = c;
  }

  /** Adds words already folded. */
  addWords(words: readonly string[]): void {
    for (const w of words) {
      this.end();
      for (let i = 0; i < w.length; i++) this.add(w.charCodeAt(i));
    }
    this.end();
  }

  /** The bytes from `from` to the end as a string. */
  string(from = 0): string {
    return from === this.length ? '' : WordBytes.decoder.decode(this.bytes.subarray(from, this.length));
  }

  clear(): void {
    this.length = 0;
    this.inWord = false;
  }

  private grow(): void {
    const bigger = new Uint8Array(this.bytes.length * 2);
    bigger.set(this.bytes);
    this.bytes = bigger;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Raw LaTeX to words in one pass.

/**
 * The field's text as displayLatex shows it, one UTF-16 unit a slot, reused from field to field: LaTeX decoded,
 * braces and `$` gone, white space runs as one space, trimmed. Two things differ, neither of which changes a word or a
 * name: dashes stay single hyphens, and it is not in NFC (accents follow their letters as marks, which fold to nothing
 * as the composed letters do, and NFC changes no separator, space or comma but for U+037E, which is handed back; tested
 * over every character).
 */
let text = new Uint16Array(1024);
let length = 0;

function put(c: number): void {
  if (length === text.length) {
    const bigger = new Uint16Array(text.length * 2);
    bigger.set(text);
    text = bigger;
  }
  text[length++] = c;
}
/** One space where white space is (none at the start, none twice). */
function space(): void {
  if (length > 0 && text[length - 1] !== 32) put(32);
}

const isAsciiLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** `\p{L}` (1) or `\p{M}` (2) or neither (3), per BMP unit, learnt on first sight. */
const kinds = new Uint8Array(0x10000);
function kind(c: number): number {
  let k = kinds[c]!;
  if (k === 0) {
    const s = String.fromCharCode(c);
    kinds[c] = k = /\p{L}/u.test(s) ? 1 : /\p{M}/u.test(s) ? 2 : 3;
  }
  return k;
}
/** A letter the accent rules take (`\p{L}`), not half of a surrogate pair. */
const isLetter = (c: number): boolean => isAsciiLetter(c) || (c >= 128 && (c < 0xd800 || c > 0xdfff) && kind(c) === 1);

/** `&%$#_{}`: escaped, the character itself. */
const isEscaped = (c: number): boolean =>
  c === 38 || c === 37 || c === 36 || c === 35 || c === 95 || c === 123 || c === 125;
/** The accents written with a symbol (`\'e`, `\"{u}`). */
const isSymbolAccent = (c: number): boolean =>
  c === 96 || c === 39 || c === 94 || c === 34 || c === 126 || c === 61 || c === 46;
/** The accents written with a letter, braces required (`\c{c}`, `\v{Z}`). */
const isLetterAccent = (c: number): boolean =>
  c === 99 || c === 118 || c === 117 || c === 72 || c === 107 || c === 100 || c === 98 || c === 114;

/** Each accent's combining mark, by the code of its symbol or letter. */
const MARKS = new Uint16Array(128);
for (const [a, mark] of Object.entries(ACCENTS)) MARKS[a.charCodeAt(0)] = mark.charCodeAt(0);

/** Macro names seen, by a hash of their letters (no string is made for a name seen before). */
const names = new Map<number, { name: string; text: string }>();

/** Reads the LaTeX at `raw[i]` (a backslash); returns where reading goes on, or -1 for a form not read here. */
function backslash(raw: string, i: number): number {
  const n = raw.charCodeAt(i + 1);
  if (isEscaped(n)) {
    put(n);
    return raw.charCodeAt(i + 2) === 123 && raw.charCodeAt(i + 3) === 125 ? i + 4 : i + 2;
  }
  // `\~{}`, `\^{}`, `` \`{} ``: the characters themselves.
  if ((n === 126 || n === 94 || n === 96) && raw.charCodeAt(i + 2) === 123 && raw.charCodeAt(i + 3) === 125) {
    put(n);
    return i + 4;
  }
  if (isSymbolAccent(n)) return accented(raw, i + 2, MARKS[n]!, false);
  if (!isAsciiLetter(n)) return -1;
  let j = i + 2;
  let hash = n;
  for (let c = raw.charCodeAt(j); isAsciiLetter(c); c = raw.charCodeAt(++j)) hash = (Math.imul(hash, 31) + c) | 0;
  if (j === i + 2 && isLetterAccent(n)) {
    let k = j;
    while (isSpace(raw.charCodeAt(k))) k++;
    if (raw.charCodeAt(k) === 123) return accented(raw, j, MARKS[n]!, true);
  }
  // An accent right after a macro's name: displayLatex decodes the accent first, and an ASCII letter it gives then
  // reads as part of the name (`\o\'e` is `\oé`, then œ).
  if (raw.charCodeAt(j) === 92) {
    const a = raw.charCodeAt(j + 1);
    if (isSymbolAccent(a) || (isLetterAccent(a) && !isAsciiLetter(raw.charCodeAt(j + 2)))) return -1;
  }
  // A macro: its text (none for an unknown one), and the white space after it goes too.
  let known = names.get(hash);
  if (!known || known.name.length !== j - i - 1 || !raw.startsWith(known.name, i + 1)) {
    const name = raw.slice(i + 1, j);
    known = { name, text: macroText(name) };
    if (!names.has(hash) && names.size < 4096) names.set(hash, known);
  }
  for (let k = 0; k < known.text.length; k++) put(known.text.charCodeAt(k));
  while (isSpace(raw.charCodeAt(j))) j++;
  return j;
}

/**
 * An accent's letter from `j` (after `\'` or `\c`): white space, `{` (required after a letter accent), white space,
 * a letter with its marks or `\i`/`\j`, white space, `}` (required after a letter accent). The letter is kept with
 * the accent's mark after it, not composed: the mark folds to nothing, and it keeps `\^and` from reading as ` and `.
 */
function accented(raw: string, from: number, mark: number, braced: boolean): number {
  let j = from;
  while (isSpace(raw.charCodeAt(j))) j++;
  if (raw.charCodeAt(j) === 123) for (j++; isSpace(raw.charCodeAt(j)); j++);
  else if (braced) return -1;
  const c = raw.charCodeAt(j);
  if (c === 92) {
    const l = raw.charCodeAt(j + 1);
    if ((l !== 105 && l !== 106) || isAsciiLetter(raw.charCodeAt(j + 2))) return -1;
    put(l);
    j += 2;
  } else if (isLetter(c)) {
    put(c);
    // Marks after the letter are part of it; one beyond the BMP is not read here.
    for (j++; ; j++) {
      const m = raw.charCodeAt(j);
      if (m >= 0xd800 && m <= 0xdfff) return -1;
      if (m < 0x300 || m !== m || kind(m) !== 2) break;
      put(m);
    }
  } else return -1;
  put(mark);
  while (isSpace(raw.charCodeAt(j))) j++;
  if (raw.charCodeAt(j) === 125) j++;
  else if (braced) return -1;
  return j;
}

/** Decodes `raw` into `text`; false for a form not read here. */
function decode(raw: string): boolean {
  length = 0;
  for (let i = 0; i < raw.length;) {
    const c = raw.charCodeAt(i);
    if (c === 92) {
      i = backslash(raw, i);
      if (i < 0) return false;
      continue;
    }
    i++;
    if (c === 123 || c === 125 || c === 36) continue;
    if (c === 126 || isSpace(c)) space();
    // The private-use stand-ins displayLatex uses, and the one character whose NFC form is a separator (`;`).
    else if ((c >= 0xe000 && c <= 0xe00a) || c === 0x37e) return false;
    else put(c);
  }
  if (length > 0 && text[length - 1] === 32) length--;
  return true;
}

/** Writes the words of `text[from, to)` to `out`. */
function wordsOf(from: number, to: number, out: WordBytes): void {
  out.end();
  for (let k = from; k < to; k++) {
    let c = text[k]!;
    if (c < 128) {
      if (isAlnum(c)) out.add(c >= 65 && c <= 90 ? c + 32 : c);
      else if (separates(c)) out.end();
      continue;
    }
    if (separates(c)) {
      out.end();
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && k + 1 < to) {
      const d = text[k + 1]!;
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
        k++;
      }
    }
    const f = foldChar(c);
    for (let x = 0; x < f.length; x++) out.add(f.charCodeAt(x));
  }
  out.end();
}

/** Writes the words of displayLatex(raw) to `out`; false (nothing written) for a form not read here. */
export function textWords(raw: string, out: WordBytes): boolean {
  if (!decode(raw)) return false;
  wordsOf(0, length, out);
  return true;
}

/**
 * Writes the words of each author's family name in a raw name list to `out`, as rawFamilies reads them (authors split
 * at ` and `; the family before the first comma, else after the last space); false (nothing written) for a form not
 * read here.
 */
export function familyWords(raw: string, out: WordBytes): boolean {
  if (!decode(raw)) return false;
  let start = 0;
  for (let k = 0; k <= length; k++) {
    // ` and ` (the white space around it is one space now) ends an author, as does the end.
    const last = k === length;
    if (
      !last &&
      !(
        text[k] === 32 &&
        text[k + 1] === 97 &&
        text[k + 2] === 110 &&
        text[k + 3] === 100 &&
        text[k + 4] === 32 &&
        k + 4 < length
      )
    )
      continue;
    let comma = -1;
    let lastSpace = start - 1;
    for (let m = start; m < k; m++) {
      if (text[m] === 44) {
        comma = m;
        break;
      }
      if (text[m] === 32) lastSpace = m;
    }
    if (comma >= 0) wordsOf(start, comma, out);
    else wordsOf(lastSpace + 1, k, out);
    start = k + 5;
    k += 4;
  }
  return true;
}
