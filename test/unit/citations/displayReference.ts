/**
 * The editor's list text as it was computed before the fast paths, every step always run: the reference the property
 * tests hold displayLatex, words and the completion index to.
 */
import { asciiFold } from '../../../src/bib/names';
import { DISPLAY_STEPS as S } from '../../../src/citations/display';

/** oneLine before its fast path. */
export const oneLineReference = (text: string | null | undefined): string =>
  text ? text.replace(/\s+/g, ' ').trim() : '';

/** displayLatex with every step run. */
export function displayLatexReference(raw: string): string {
  let t = raw
    .replace(/\\([&%$#_{}])(?:\{\})?|\\([~^])\{\}/gu, (_m, c: string | undefined, s: string | undefined) =>
      S.standIn((c ?? s)!),
    )
    .replace(/\\`\{\}/gu, S.standIn('`'));
  for (let pass = 0; pass < 2; pass++) t = t.replace(S.SYMBOL_ACCENT, S.accent).replace(S.LETTER_ACCENT, S.accent);
  return oneLineReference(
    t
      .replace(/\\([A-Za-z]+)\s*/gu, (_m, name: string) => S.macro(name))
      .replace(/---/gu, '—')
      .replace(/--/gu, '–')
      .replace(/[{}$]/gu, '')
      .replace(/~/gu, ' ')
      .replace(/[\ue000-\ue00a]/gu, S.special)
      .normalize('NFC'),
  );
}

/** citeMatch's words as they were: split on separators, each part asciiFold-ed and lower-cased, empty ones dropped. */
export const wordsReference = (text: string): string[] =>
  text
    .split(/[\s\-‐–—/:;,.!?()[\]{}"“”'’]+/u)
    .map((w) => asciiFold(w).toLowerCase())
    .filter(Boolean);

/** citeMatch's rawFamilies as it was. */
export function familiesReference(raw: string | undefined): string[] {
  const text = raw ? displayLatexReference(raw) : '';
  if (!text) return [];
  return text
    .split(/\s+and\s+/u)
    .map((a) => (a.includes(',') ? a.split(',')[0]! : (a.split(' ').pop() ?? a)).trim())
    .filter(Boolean);
}

/** Pieces of LaTeX-ish field text, hostile ones included, for random values. */
export const LATEX_PIECES = [
  'a',
  'Z',
  'é',
  'ü',
  'u\u0308',
  'ß',
  'ø',
  'ﬁ',
  'İ',
  'ẞ',
  'Σ',
  'Ａ',
  '𝐀',
  '😀',
  '张敏',
  'Козлов',
  'Ễ',
  'ı',
  '\ud800',
  '\udc00',
  '0',
  '7',
  ' ',
  '  ',
  '\n',
  '\t',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\ufeff',
  ',',
  ';',
  '.',
  '-',
  '--',
  '---',
  '’',
  '“',
  '{',
  '}',
  '{}',
  '$',
  '~',
  '\\',
  '\\\\',
  '\\"',
  "\\'",
  '\\`',
  '\\^',
  '\\~',
  '\\=',
  '\\.',
  '\\c',
  '\\v',
  '\\u',
  '\\H',
  '\\k',
  '\\d',
  '\\b',
  '\\r',
  '{\\"u}',
  '{\\"{u}}',
  "\\'{\\i}",
  '\\v Z',
  '{\\v Z}',
  '\\c{c}',
  '\\~{\\^e}',
  '\\o',
  '\\ss',
  '\\i',
  '\\j',
  '\\l',
  '{\\o}',
  '\\textendash',
  '\\textquotedblleft{}',
  '\\relax{}',
  '{\\relax{}К}',
  '\\cyrchar\\CYRK',
  '\\alpha',
  '$\\beta$',
  '\\&',
  '\\%',
  '\\_',
  '\\#',
  '\\$',
  '\\{',
  '\\}',
  '\\~{}',
  '\\^{}',
  '\\`{}',
  '\\emph{',
  '\\TeX',
  ' and ',
  'and',
  ' and  ',
  '~and~',
  '{and}',
  'Smith, Anna',
  'Sandk{\\"u}hler, Tom{\\\'a}s',
  '\ue000',
  '\ue005',
  '\ue00a',
  '\ue00b',
  '@',
  '#',
  '%',
  '=',
  '"',
  '(',
  ')',
  '[',
  ']',
  '/',
  ':',
  '!',
  '?',
];

/** A random value of `n` pieces. */
export function randomLatex(rnd: () => number, n: number, pieces: readonly string[] = LATEX_PIECES): string {
  let s = '';
  for (let i = 0; i < n; i++) s += pieces[Math.floor(rnd() * pieces.length)]!;
  return s;
}
