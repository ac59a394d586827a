/**
 * Unicode text as LaTeX that the programs writers compile with all read back as the same text. Pure.
 *
 * Four programs read what Research Desk writes: pdflatex (with BibTeX or Biber in between), pandoc and Typst. They
 * disagree: pandoc drops `\cyrchar…`, `{\DJ}`, `{\TH}` and `\textbraceleft`; Typst prints `$\alpha$` as math of
 * its own and ``` ``…'' ``` as written; pdflatex stops at a character its fonts lack (β, ễ, Cyrillic). So each
 * character is written in a form every reader reads, chosen from forms measured in all four (the toolchain suite
 * compiles every character of the tables below through each program and fails on any difference):
 *
 * - ASCII letters, digits and plain punctuation as they are; the LaTeX specials escaped (`\#`, `\{`,
 *   `\textbackslash{}`…); `<`, `>`, `|` as they are (T1 fonts have them).
 * - A Latin letter with accents that have LaTeX macros: the macros, braced (`{\"u}`, `{\~{\^e}}` for ễ), so BibTeX
 *   sorts, purifies and abbreviates it as a letter; ø, ł, ß, æ, œ, å, ı as their letter macros (`{\o}`).
 * - Curly quotes as `\textquoteleft{}`…: pandoc would re-quote a raw ‘…’ as “…”.
 * - Any other character that LaTeX's UTF-8 input typesets with T1 fonts (Đ, Þ, ð, ŋ, ș, –, …, °, ±, €: the set below,
 *   measured in TeX Live 2022) as UTF-8, which pandoc, Typst and Biber read natively.
 * - Greek letters and math symbols: `{$\beta$}` for documents built with LaTeX or pandoc; UTF-8 for Typst, which
 *   cannot read the math form (target `'unicode'`). A backtick likewise: `\`{}` (pandoc reads a raw one as a
 *   quote) or, for Typst, as it is.
 * - Everything else (other scripts: CJK, Cyrillic, Arabic…; letters T1 fonts lack, such as Vietnamese ư and ả) as
 *   UTF-8: pandoc, Typst and Biber read it; pdflatex needs fonts for it (`pdflatexCannot` names such characters, so
 *   the writer can be told).
 *
 * Pieces are joined with `{}` where TeX would eat a space after a control word or form a ligature (`--`, ` `` `,
 * `''`, `<<`, `,,`, `!``).
 */

import { lazy } from '../shared/lazy';
import type { CiteFlavour } from './syntax';
import { ACCENTS, latexReadsUtf8, LETTERS, MATH, QUOTES, SPECIALS, T1_ONLY } from './texTables';

/** Which readers the text is written for: `tex` (LaTeX with BibTeX or Biber, and pandoc) or `unicode` (Typst). */
export type TexTarget = 'tex' | 'unicode';

/** The target for a .bib cited from a document of this flavour. */
export const texTargetFor = (flavour: CiteFlavour): TexTarget => (flavour === 'typst' ? 'unicode' : 'tex');

/**
 * Whether two characters side by side form a TeX ligature or a math delimiter (`--`, ` `` `, `''`, `<<`, `,,`, `!``,
 * `$$`).
 */
const ligature = (a: string, b: string): boolean =>
  (a === b && "-`'<>,$".includes(a)) || ((a === '!' || a === '?') && b === '`');

/**
 * Join LaTeX pieces so that each reads as written: `{}` after a control word (TeX would eat the next space or glue
 * the next letter to it) and between two characters that would form a ligature.
 */
export function joinTex(pieces: readonly string[], sep = ''): string {
  let out = '';
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    out += p;
    if (i === pieces.length - 1) break;
    const next = sep || pieces[i + 1]!;
    const last = p.charCodeAt(p.length - 1);
    const letter = (last >= 65 && last <= 90) || (last >= 97 && last <= 122);
    if (
      (letter && p.includes('\\') && /\\[A-Za-z]+$/u.test(p)) ||
      (!sep && ligature(p[p.length - 1] ?? '', next[0] ?? ''))
    )
      out += '{}';
    out += sep;
  }
  return out;
}

/**
 * A Latin letter with accents that all have macros. One accent: the macro over the ASCII letter (`{\'{e}}`), which
 * BibTeX sorts and abbreviates as the letter. More than one: one accent kept with the letter where LaTeX reads that
 * letter as UTF-8 (ê, ă), the others as macros around it (`{\~{ê}}` for ễ, `{\d{ă}}` for ặ): BibTeX and pdflatex read
 * it, and Biber, which decodes nested macros into misplaced marks, reads it right too. Undefined when a mark has no
 * macro (Vietnamese horn and hook above).
 */
function accented(unit: string): string | undefined {
  const d = unit.normalize('NFD');
  const base = d[0]!;
  const marks = [...d.slice(1)];
  if (!marks.length || !/^[A-Za-zıȷ]$/u.test(base) || marks.some((m) => !ACCENTS[m])) return undefined;
  let core = base === 'ı' ? '\\i' : base === 'ȷ' ? '\\j' : base;
  if (marks.length > 1) {
    // A mark may go first only where that changes nothing (marks above and below commute; two above do not).
    const i = marks.findIndex((m, k) => {
      const c = (base + m).normalize('NFC');
      const rest = marks.filter((_, j) => j !== k).join('');
      return c.length === 1 && latexReadsUtf8(c) && (c + rest).normalize('NFC') === unit.normalize('NFC');
    });
    if (i >= 0) core = (base + marks.splice(i, 1)[0]!).normalize('NFC');
  }
  for (const m of marks) core = `\\${ACCENTS[m]!}{${core}}`;
  return `{${core}}`;
}

/**
 * Where text goes: running text, a part of a person's name, or a name kept whole (an organisation). Never math in a
 * name: BibTeX styles and pandoc print names without reading math, so a Greek letter in a name stays UTF-8.
 */
export type TexContext = 'text' | 'name' | 'whole name';

const memo = new Map<string, Map<string, string>>();

/** One character (with its combining marks) for a target. */
function unitTex(unit: string, target: TexTarget, context: TexContext): string {
  if (/^[A-Za-z0-9 ]$/u.test(unit)) return unit;
  const memoKey = `${target}:${context}`;
  let cache = memo.get(memoKey);
  if (!cache) memo.set(memoKey, (cache = new Map<string, string>()));
  let out = cache.get(unit);
  if (out !== undefined) return out;
  if (SPECIALS[unit]) out = SPECIALS[unit];
  else if (QUOTES[unit]) out = QUOTES[unit];
  else if (unit === '`') out = target === 'tex' ? '\\`{}' : '`';
  else if (target === 'tex' && T1_ONLY[unit]) out = T1_ONLY[unit];
  else if (unit.length === 1 && unit < '\u0080') out = unit;
  else if (target === 'unicode') out = unit;
  else if (LETTERS[unit]) out = `{${LETTERS[unit]}}`;
  // Braced: BibTeX styles lower-case a title outside braces, math macros too ($\Rightarrow$ would become →).
  else if (MATH[unit] && context === 'text') out = `{$\\${MATH[unit]}$}`;
  else if (unit === '−' && context === 'text') out = '{$-$}';
  else out = accented(unit) ?? unit;
  cache.set(unit, out);
  return out;
}

const HAS_GREEK = lazy(() => /\p{Script=Greek}/u);

/** The characters of a text with their combining marks (NFC first, so é is one character). */
const units = (text: string): string[] => text.normalize('NFC').match(/\P{M}\p{M}*|\p{M}+/gu) ?? [];

/**
 * A run of Greek letters that is a word, not symbols: three or more letters, or one without a math macro (tonos,
 * omicron, capitals that look Latin). A word stays UTF-8 (`$\lambda$` letter by letter would be nonsense); a lone
 * letter or a pair in Latin text (β-alanine, αβ T cells) is math.
 */
const GREEK_RUN = lazy(() => /\p{Script=Greek}+(?:\p{M}+\p{Script=Greek}*)*/gu);
const isGreekWord = (run: string): boolean =>
  run.normalize('NFC').length > 2 || [...run.normalize('NFC')].some((c) => !MATH[c]);

/**
 * Each character of `t` from `from` to `to` (or Greek word, kept whole for `tex`) and what it is written as; `t` is
 * NFC and `lone` its braces without a partner (loneBraces).
 */
/** Whether a UTF-16 unit at `i` starts a combining mark (checked only past ASCII). */
const MARK = /^\p{M}/u;
const isMarkAt = (t: string, i: number): boolean => t.charCodeAt(i) >= 0x300 && MARK.test(t.slice(i, i + 2));
/** ASCII written as it is that forms no ligature with a neighbour: letters, digits, space and `"()*+./:;=@[]|`. */
const PLAIN = new Uint8Array(128);
for (const c of ' "()*+./:;=@[]|0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz')
  PLAIN[c.charCodeAt(0)] = 1;
const isPlainAscii = (c: number): boolean => c < 128 && PLAIN[c] === 1;
const ALL_PLAIN = /^[ "()*+./:;=@[\]|0-9A-Za-z]*$/u;

/**
 * Each character of `t` from `from` to `to` (or Greek word, kept whole for `tex`) and what it is written as, given to
 * `each`; `t` is NFC and `lone` its braces without a partner (loneBraces). Runs of plain ASCII (most of any text) are
 * one piece, written as they are. A hand-written loop: this reads every title and name.
 */
function encode(
  t: string,
  from: number,
  to: number,
  target: TexTarget,
  lone: Uint8Array,
  context: TexContext,
  each: (unit: string, tex: string) => void,
): void {
  const plain = (a: number, b: number): void => {
    let i = a;
    while (i < b) {
      let j = i;
      while (j < b && isPlainAscii(t.charCodeAt(j)) && !(j + 1 < b && isMarkAt(t, j + 1))) j++;
      if (j > i) {
        const run = t.slice(i, j);
        each(run, run);
        i = j;
        continue;
      }
      j = i + (t.codePointAt(i)! > 0xffff ? 2 : 1);
      while (j < b && isMarkAt(t, j)) j += t.codePointAt(j)! > 0xffff ? 2 : 1;
      const unit = t.slice(i, j);
      if (unit === '{' || unit === '}') each(unit, lone[i] ? LONE_BRACE[target][unit]! : `\\${unit}`);
      else {
        const tex = unitTex(unit, target, context);
        // A name's first letter kept as UTF-8 (Đặng, Þórunn, Иван) is braced after \relax: BibTeX then takes it for one
        // letter (its initial is {\relax{}Þ}., not half of a UTF-8 sequence), and natbib's \Citet capitalises it whole.
        const initial =
          context === 'name' &&
          target === 'tex' &&
          tex === unit &&
          unit.charCodeAt(0) >= 0x80 &&
          (i === 0 || t[i - 1] === ' ' || t[i - 1] === '-');
        each(unit, initial ? `{\\relax{}${unit}}` : tex);
      }
      i = j;
    }
  };
  let at = from;
  if (target === 'tex' && HAS_GREEK().test(t.slice(from, to))) {
    for (const m of t.slice(from, to).matchAll(GREEK_RUN())) {
      if (!isGreekWord(m[0])) continue;
      plain(at, from + m.index);
      each(m[0], m[0]);
      at = from + m.index + m[0].length;
    }
  }
  plain(at, to);
}

const NO_BRACES = new Uint8Array(0);
const bracesOf = (t: string): Uint8Array => (t.includes('{') || t.includes('}') ? loneBraces(t) : NO_BRACES);

/** Text as LaTeX for a field value, a name or a document's text (see the file comment). */
export function texText(text: string, target: TexTarget = 'tex', context: TexContext = 'text'): string {
  // Most calls are short runs of plain ASCII (markup.ts escapes an answer piece by piece): written as they are.
  if (ALL_PLAIN.test(text)) return text;
  const t = text.normalize('NFC');
  const out: string[] = [];
  encode(t, 0, t.length, target, bracesOf(t), context, (_unit, tex) => out.push(tex));
  return joinTex(out);
}

/**
 * LaTeX braced so that no style changes its case. A brace group that starts with a control sequence is a "special
 * character" to BibTeX, whose case it does change (`{\textquotedblleft{}Curly…}` would print “curly…”): such text gets
 * a second pair.
 */
export const protect = (tex: string): string => (tex.startsWith('\\') ? `{{${tex}}}` : `{${tex}}`);

/**
 * Words (separated by single spaces) as LaTeX, each word for which `keep` says so braced (a title's protected
 * capitals). Braces in the text are paired over the whole text, not word by word.
 */
export function texWords(text: string, target: TexTarget, keep: (word: string, index: number) => boolean): string {
  const t = text.normalize('NFC');
  const lone = bracesOf(t);
  const out: string[] = [];
  let at = 0;
  t.split(' ').forEach((word, i) => {
    const pieces: string[] = [];
    encode(t, at, at + word.length, target, lone, 'text', (_unit, tex) => pieces.push(tex));
    const tex = joinTex(pieces);
    out.push(keep(word, i) ? protect(tex) : tex);
    at += word.length + 1;
  });
  return joinTex(out, ' ');
}

/**
 * Offsets of the braces that have no partner. A pair is written `\{…\}`, which every reader reads; a lone one
 * cannot be: BibTeX counts `\{` as a brace, so it would unbalance the entry. It is written as math for LaTeX and
 * pandoc (which drops `\textbraceleft`), and `\textbraceleft{}` for Typst (which cannot read the math).
 */
const LONE_BRACE: Record<TexTarget, Record<string, string>> = {
  tex: { '{': '$\\lbrace$', '}': '$\\rbrace$' },
  unicode: { '{': '\\textbraceleft{}', '}': '\\textbraceright{}' },
};

function loneBraces(t: string): Uint8Array {
  const open: number[] = [];
  const lone = new Uint8Array(t.length);
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 123) open.push(i);
    else if (c === 125) {
      if (open.length) open.pop();
      else lone[i] = 1;
    }
  }
  for (const i of open) lone[i] = 1;
  return lone;
}

/**
 * The characters of `text` that pdflatex with T1 fonts cannot typeset, distinct, in order of first appearance. Through
 * BibTeX, those `texText` keeps as UTF-8 (other scripts, letters the fonts lack). Through Biber, also the letters it
 * writes as accent macros over a letter LaTeX does not read as UTF-8 (ạ, ễ): Biber turns every such macro into UTF-8
 * before pdflatex sees it (it leaves math alone).
 */
export function pdflatexCannot(
  text: string,
  via: 'bibtex' | 'biber' = 'bibtex',
  context: TexContext = 'text',
): string[] {
  const out = new Set<string>();
  const t = text.normalize('NFC');
  encode(t, 0, t.length, 'tex', bracesOf(t), context, (unit, tex) => {
    const raw = tex === unit || tex === `{\\relax{}${unit}}`;
    const accentMacro = !raw && tex.startsWith('{\\') && !LETTERS[unit];
    if (!raw && !(via === 'biber' && accentMacro)) return;
    for (const u of units(unit)) if (u.codePointAt(0)! >= 0x80 && !(u.length === 1 && latexReadsUtf8(u))) out.add(u);
  });
  return [...out];
}
