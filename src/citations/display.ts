/**
 * Raw BibTeX field text as display text for the Quick Pick (accents, escapes, letter macros and braces
 * approximated without the BibTeX library, so 10,000 entries list at once). Pure.
 */

const oneLine = (s: string): string => s.replace(/\s+/gu, ' ').trim();

export const ACCENTS: Record<string, string> = { '"': '\u0308', "'": '\u0301', '`': '\u0300', '^': '\u0302', '~': '\u0303', '=': '\u0304', '.': '\u0307', c: '\u0327', v: '\u030C', u: '\u0306', H: '\u030B', k: '\u0328' };
const MACROS: Record<string, string> = {
  TeX: 'TeX', LaTeX: 'LaTeX', BibTeX: 'BibTeX', o: 'ø', O: 'Ø', ss: 'ß', aa: 'å', AA: 'Å', ae: 'æ', AE: 'Æ', oe: 'œ', OE: 'Œ',
  l: 'ł', L: 'Ł', i: 'ı', j: 'ȷ', TH: 'Þ', th: 'þ', DH: 'Ð', dh: 'ð', DJ: 'Đ', dj: 'đ', textendash: '–', textemdash: '—',
  textquoteright: '’', textquoteleft: '‘', textquotedblleft: '“', textquotedblright: '”', textellipsis: '…', ldots: '…', S: '§',
};
const GREEK = 'alpha α beta β gamma γ delta δ epsilon ε zeta ζ eta η theta θ iota ι kappa κ lambda λ mu μ nu ν xi ξ pi π rho ρ sigma σ tau τ upsilon υ phi φ chi χ psi ψ omega ω Gamma Γ Delta Δ Theta Θ Lambda Λ Xi Ξ Pi Π Sigma Σ Phi Φ Psi Ψ Omega Ω'.split(' ');
for (let i = 0; i + 1 < GREEK.length; i += 2) MACROS[GREEK[i]!] = GREEK[i + 1]!;

/** Escaped specials, kept out of the way of the brace and tilde rules (private-use stand-ins). `\~{}` and `\^{}` are
 * the characters; `\~n`, `\~{n}` and `\^o` are accents (the accent rule below). */
const SPECIALS = '&%$#_{}~^';
const STANDIN = 0xe000;

/** A raw BibTeX field as display text. */
export function displayLatex(raw: string): string {
  return oneLine(
    raw
      .replace(/\\([&%$#_{}])(?:\{\})?|\\([~^])\{\}/gu, (_m, c: string | undefined, t: string | undefined) => String.fromCharCode(STANDIN + SPECIALS.indexOf((c ?? t)!)))
      .replace(/\\([`'^"~=.])\s*(?:\{\s*)?(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}?/gu, (_m, a: string, l: string) => (l.startsWith('\\') ? l.slice(1) : l) + (ACCENTS[a] ?? ''))
      .replace(/\\([cvuHk])\s*\{([A-Za-z])\}/gu, (_m, a: string, l: string) => l + (ACCENTS[a] ?? ''))
      .replace(/\\([A-Za-z]+)\s*/gu, (_m, name: string) => MACROS[name] ?? '')
      .replace(/[{}$]/gu, '')
      .replace(/~/gu, ' ')
      .replace(/---/gu, '—')
      .replace(/--/gu, '–')
      .replace(/[\ue000-\ue008]/gu, (c) => SPECIALS[c.charCodeAt(0) - STANDIN]!)
      .normalize('NFC'),
  );
}

