/**
 * Documents for the toolchain suite and the comparison of rendered text with the service's metadata.
 */
import { CORPORATE_AUTHORS, GROUP_AUTHORS } from '../emulator/vocab';
import { norm } from './toolchains';

/**
 * A LaTeX document citing `keys` (with `\nocite`, plus `body` when given) from refs.bib: natbib with plainnat for
 * BibTeX, biblatex (authoryear, every name printed) for Biber. T1 fonts, and the url package that BibTeX styles need
 * to print a URL or DOI holding `#` or `%`, as writers' preambles have them.
 */
export function latexDocument(
  via: 'bibtex' | 'biber',
  keys: readonly string[],
  body = '',
  options: { natbib?: string; biblatex?: string } = {},
): string {
  const preamble =
    via === 'bibtex'
      ? `\\usepackage[${options.natbib ?? 'authoryear'}]{natbib}\n\\usepackage{url}`
      : `\\usepackage[backend=biber,${options.biblatex ?? 'style=authoryear'},maxbibnames=99,maxcitenames=2]{biblatex}\n\\addbibresource{refs.bib}`;
  const bibliography = via === 'bibtex' ? '\\bibliographystyle{plainnat}\n\\bibliography{refs}' : '\\printbibliography';
  const nocite = keys.length ? `\\nocite{${keys.join(',')}}\n` : '';
  return `\\documentclass{article}\n\\usepackage[T1]{fontenc}\n${preamble}\n\\begin{document}\n${nocite}${body}\n${bibliography}\n\\end{document}\n`;
}

const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const CJK_GAP = new RegExp(`(?<=[${CJK}]) (?=[${CJK}])`, 'gu');
/** The comma some styles set before a generational suffix ("King, Jr."). */
const SUFFIX_COMMA = /, (?=(?:Jr|Sr|II|III|IV)\b)/gu;
/** The space CSL sets between initials ("A.B. Jones" → "A. B. Jones"). */
const INITIALS_GAP = /(?<=\b\p{Lu}\.) (?=\p{Lu}\.)/gu;
/**
 * Text before a letter that a sentence-case style capitalises: nothing but punctuation yet (the title's first letter),
 * or a subtitle or sentence boundary (": ", "? ", "! ", ". ") and punctuation ("…: ‘Real-world’", "…: $k$-means").
 */
const SENTENCE_START = /(?:^|[:?!.] )[^\p{L}\p{N}\s]*$/u;

/**
 * Rendered text against the service's: equal after NFC and white space, with what styles do to text by design
 * forgiven and nothing else: a typographic apostrophe or single quote for `'`, no space between two CJK characters
 * (CSL writes East Asian names without one), a comma before "Jr.", a space between initials; the period a style ends a
 * title or a name list with; and for titles a capital at a sentence start (sentence case capitalises a title, its
 * subtitle and each sentence in it).
 */
export function sameText(rendered: string, expected: string, options: { title?: boolean } = {}): boolean {
  const clean = (s: string): string =>
    norm(s).replace(/[’‘]/gu, "'").replace(CJK_GAP, '').replace(SUFFIX_COMMA, ' ').replace(INITIALS_GAP, '');
  let got = clean(rendered);
  const want = clean(expected);
  if (got.endsWith('.') && !want.endsWith('.')) got = got.slice(0, -1);
  if (got === want) return true;
  if (!options.title || got.length !== want.length) return false;
  for (let i = 0; i < got.length; i++) {
    if (got[i] === want[i]) continue;
    if (SENTENCE_START.test(want.slice(0, i)) && got[i]!.toLowerCase() === want[i]!.toLowerCase()) continue;
    return false;
  }
  return true;
}

const ORGANISATIONS = new Set<string>([...CORPORATE_AUTHORS, ...GROUP_AUTHORS]);

/**
 * An author as a style prints it: the service sometimes writes a person "Family, Given", which every style prints
 * given name first ("García Márquez, Ana" → "Ana García Márquez"). Organisations (the emulator's own list, not our
 * guess) and "Carter, Jr." stay as written.
 */
export const displayOrder = (author: string): string => {
  const m = /^([^,]+), ([^,]+)$/u.exec(author.trim());
  return m && !ORGANISATIONS.has(author) && !/^(?:Jr|Sr|II|III|IV)\.?$/u.test(m[2]!) ? `${m[2]!} ${m[1]!}` : author;
};
