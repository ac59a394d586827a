/**
 * Raw BibTeX field text as display text for the Quick Pick and completion (accents, escapes, letter and math macros
 * and braces approximated without the BibTeX library, so 10,000 entries list at once). It reads back at least every
 * form src/bib/texText.ts writes. Pure.
 */
import { TEX_TABLES } from '../bib/texTables';
import { oneLine } from '../shared/plainText';

export const ACCENTS: Record<string, string> = {
  '"': '\u0308',
  "'": '\u0301',
  '`': '\u0300',
  '^': '\u0302',
  '~': '\u0303',
  '=': '\u0304',
  '.': '\u0307',
  c: '\u0327',
  v: '\u030C',
  u: '\u0306',
  H: '\u030B',
  k: '\u0328',
  d: '\u0323',
  b: '\u0331',
  r: '\u030A',
};
const MACROS = new Map<string, string>(
  Object.entries({
    TeX: 'TeX',
    LaTeX: 'LaTeX',
    BibTeX: 'BibTeX',
    o: 'ø',
    O: 'Ø',
    ss: 'ß',
    aa: 'å',
    AA: 'Å',
    ae: 'æ',
    AE: 'Æ',
    oe: 'œ',
    OE: 'Œ',
    l: 'ł',
    L: 'Ł',
    i: 'ı',
    j: 'ȷ',
    TH: 'Þ',
    th: 'þ',
    DH: 'Ð',
    dh: 'ð',
    DJ: 'Đ',
    dj: 'đ',
    NG: 'Ŋ',
    ng: 'ŋ',
    textendash: '–',
    textemdash: '—',
    textquoteright: '’',
    textquoteleft: '‘',
    textquotedblleft: '“',
    textquotedblright: '”',
    textellipsis: '…',
    ldots: '…',
    S: '§',
    textless: '<',
    textgreater: '>',
    textbar: '|',
    textasciitilde: '~',
    textasciicircum: '^',
    textbackslash: '\\',
    textbraceleft: '{',
    textbraceright: '}',
    textasciigrave: '`',
    lbrace: '{',
    rbrace: '}',
  }),
);
// Greek letters and math symbols by their macro names, as texText writes them.
for (const [char, name] of Object.entries(TEX_TABLES.math)) MACROS.set(name, char);

/** A letter or math macro's text (`\o`: ø); '' for one not known (`\relax`, `\emph`, `\constructor`). */
export const macroText = (name: string): string => MACROS.get(name) ?? '';

/**
 * Characters that must survive the brace, dollar and tilde rules (private-use stand-ins): escaped specials, and
 * what the text macros above produce. `\~{}` and `\^{}` are the characters; `\~n`, `\~{n}` and `\^o` are accents.
 */
const SPECIALS = '&%$#_{}~^\\`';
const STANDIN = 0xe000;
const standIn = (c: string): string =>
  c.length === 1 && SPECIALS.includes(c) ? String.fromCharCode(STANDIN + SPECIALS.indexOf(c)) : c;

/** An accent over one letter (a Unicode letter with its marks, or `\i`/`\j`), braced or not. */
const SYMBOL_ACCENT = /\\([`'^"~=.])\s*(?:\{\s*)?(\\[ij](?![A-Za-z])|\p{L}\p{M}*)\s*\}?/gu;
const LETTER_ACCENT = /\\([cvuHkdbr])\s*\{\s*(\\[ij](?![A-Za-z])|\p{L}\p{M}*)\s*\}/gu;
// `\'{\i}` is í: TeX drops the dot to set the accent, Unicode writes the plain letter with the mark.
const accent = (_m: string, a: string, l: string): string => (l.startsWith('\\') ? l.slice(1) : l) + (ACCENTS[a] ?? '');

/** The pieces of the rewriting, for the tests' reference that runs every step. */
export const DISPLAY_STEPS = {
  standIn,
  accent,
  SYMBOL_ACCENT,
  LETTER_ACCENT,
  macro: (name: string): string => standIn(macroText(name)),
  special: (c: string): string => SPECIALS[c.charCodeAt(0) - STANDIN]!,
};

const ESCAPED = /\\([&%$#_{}])(?:\{\})?|\\([~^])\{\}/gu;
const BRACES_OR_DOLLAR = /[{}$]/u;
const STANDINS = /[\ue000-\ue00a]/u;
/** Only characters below the combining marks: such a text is in NFC already (tested for every pair). */
// eslint-disable-next-line no-control-regex
const MAY_COMPOSE = /[^\u0000-\u02ff]/u;

/**
 * A raw BibTeX field as display text. Each rewriting step runs only when its text is there (no backslash: none of the
 * macro and accent steps; the same result, tested against running them all), which keeps listing 10,000 entries cheap.
 */
export function displayLatex(raw: string): string {
  let t = raw;
  if (t.includes('\\')) {
    t = t
      .replace(ESCAPED, (_m, c: string | undefined, s: string | undefined) => standIn((c ?? s)!))
      // TeX's spacing grave accent: a backtick.
      .replace(/\\`\{\}/gu, standIn('`'));
    // Nested accents (ễ as \~{\^e}) take a second pass: each pass reads one level.
    for (let pass = 0; pass < 2 && t.includes('\\'); pass++)
      t = t.replace(SYMBOL_ACCENT, accent).replace(LETTER_ACCENT, accent);
    if (t.includes('\\')) t = t.replace(/\\([A-Za-z]+)\s*/gu, (_m, name: string) => standIn(macroText(name)));
  }
  // Dashes before braces go: `-{}-` is two hyphens kept apart on purpose.
  if (t.includes('--')) t = t.replace(/---/gu, '—').replace(/--/gu, '–');
  if (BRACES_OR_DOLLAR.test(t)) t = t.replace(/[{}$]/gu, '');
  if (t.includes('~')) t = t.replace(/~/gu, ' ');
  if (STANDINS.test(t)) t = t.replace(/[\ue000-\ue00a]/gu, (c) => SPECIALS[c.charCodeAt(0) - STANDIN]!);
  return oneLine(MAY_COMPOSE.test(t) ? t.normalize('NFC') : t);
}
