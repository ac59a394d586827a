/**
 * The character tables texText.ts writes from: which code points pdflatex typesets from UTF-8, and the LaTeX forms
 * of accents, letters, specials, quotes and math symbols, each measured in pandoc, pdflatex with BibTeX and Biber,
 * and Typst (the toolchain suite compiles every character here through each program). Pure data.
 */

/** Code points LaTeX's UTF-8 input typesets with T1 and TS1 fonts (TeX Live 2022, measured by the toolchain suite). */
const LATEX_UTF8_RANGES =
  '00A0-0125,0128-0137,0139-013E,0141-0148,014A-0165,0168-017E,0192,01C4-01D4,01E2-01E3,01E6-01EB,01F0,01F4-01F5,' +
  '0218-021B,0232-0233,0237,02C6-02C7,02D8-02D9,02DB-02DD,0E3F,1E02-1E03,1E0D,1E1E-1E21,1E25,1E30-1E31,1E37,1E43,' +
  '1E45,1E47,1E5B,1E63,1E6D,1E8E-1E91,1E9E,1EF2-1EF3,200C,2010-2016,2018-201A,201C-201E,2020-2022,2026,2030-2031,' +
  '2039-203B,203D,2044,204E,2052,20A1,20A4,20A6,20A9,20AB-20AC,20B1,2103,2116-2117,211E,2120,2122,2126-2127,212E,' +
  '2190-2193,2329-232A,2422-2423,25E6,25EF,266A,27E8-27E9,3008-3009,FB00-FB06,FEFF';

const LATEX_UTF8: readonly [number, number][] = LATEX_UTF8_RANGES.split(',').map((r) => {
  const [a, b] = r.split('-');
  return [parseInt(a!, 16), parseInt(b ?? a!, 16)];
});

/** Whether pdflatex with T1 fonts typesets this character given as UTF-8. */
export function latexReadsUtf8(c: string): boolean {
  const cp = c.codePointAt(0) ?? 0;
  if (cp < 0x80) return true;
  let lo = 0;
  let hi = LATEX_UTF8.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = LATEX_UTF8[mid]!;
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Combining marks with a LaTeX accent macro that every reader knows. */
export const ACCENTS: Readonly<Record<string, string>> = {
  '\u0300': '`',
  '\u0301': "'",
  '\u0302': '^',
  '\u0303': '~',
  '\u0304': '=',
  '\u0306': 'u',
  '\u0307': '.',
  '\u0308': '"',
  '\u030a': 'r',
  '\u030b': 'H',
  '\u030c': 'v',
  '\u0323': 'd',
  '\u0327': 'c',
  '\u0328': 'k',
  '\u0331': 'b',
};

/** Letters written as their LaTeX macros (every reader knows them; BibTeX sorts and abbreviates them as letters). */
export const LETTERS: Readonly<Record<string, string>> = {
  ø: '\\o',
  Ø: '\\O',
  ł: '\\l',
  Ł: '\\L',
  ß: '\\ss',
  æ: '\\ae',
  Æ: '\\AE',
  œ: '\\oe',
  Œ: '\\OE',
  å: '\\aa',
  Å: '\\AA',
  ı: '\\i',
  ȷ: '\\j',
};

/** LaTeX's specials and the ASCII characters T1 fonts would draw as something else. */
export const SPECIALS: Readonly<Record<string, string>> = {
  '#': '\\#',
  $: '\\$',
  '%': '\\%',
  '&': '\\&',
  _: '\\_',
  '\\': '\\textbackslash{}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
};

/**
 * ASCII characters T1 fonts draw as themselves but the older OT1 ones (and readers that assume them, such as the
 * BibTeX parser Research Desk reads files with) as something else: `<` as ¡, `>` as ¿.
 */
export const T1_ONLY: Readonly<Record<string, string>> = { '<': '\\textless{}', '>': '\\textgreater{}' };

/** Curly quotes: pandoc would read raw ones as quotation marks and draw them again in its own style. */
export const QUOTES: Readonly<Record<string, string>> = {
  '‘': '\\textquoteleft{}',
  '’': '\\textquoteright{}',
  '“': '\\textquotedblleft{}',
  '”': '\\textquotedblright{}',
};

/**
 * Greek letters and math symbols that base LaTeX writes in math mode, each with the macro pandoc's math reader turns
 * back into the same character (ε is `\varepsilon`, ϵ is `\epsilon`; φ is `\varphi`, ϕ is `\phi`). Left out because
 * pandoc reads their macro as another character: ϱ, √, ∗, ∖.
 */
export const MATH: Readonly<Record<string, string>> = {
  α: 'alpha',
  β: 'beta',
  γ: 'gamma',
  δ: 'delta',
  ε: 'varepsilon',
  ϵ: 'epsilon',
  ζ: 'zeta',
  η: 'eta',
  θ: 'theta',
  ϑ: 'vartheta',
  ι: 'iota',
  κ: 'kappa',
  λ: 'lambda',
  μ: 'mu',
  ν: 'nu',
  ξ: 'xi',
  π: 'pi',
  ϖ: 'varpi',
  ρ: 'rho',
  σ: 'sigma',
  ς: 'varsigma',
  τ: 'tau',
  υ: 'upsilon',
  φ: 'varphi',
  ϕ: 'phi',
  χ: 'chi',
  ψ: 'psi',
  ω: 'omega',
  Γ: 'Gamma',
  Δ: 'Delta',
  Θ: 'Theta',
  Λ: 'Lambda',
  Ξ: 'Xi',
  Π: 'Pi',
  Σ: 'Sigma',
  Υ: 'Upsilon',
  Φ: 'Phi',
  Ψ: 'Psi',
  Ω: 'Omega',
  '≤': 'leq',
  '≥': 'geq',
  '≠': 'neq',
  '≈': 'approx',
  '≡': 'equiv',
  '∼': 'sim',
  '≃': 'simeq',
  '≅': 'cong',
  '∝': 'propto',
  '∞': 'infty',
  '∂': 'partial',
  '∇': 'nabla',
  '∑': 'sum',
  '∏': 'prod',
  '∫': 'int',
  '∈': 'in',
  '∉': 'notin',
  '⊂': 'subset',
  '⊃': 'supset',
  '⊆': 'subseteq',
  '⊇': 'supseteq',
  '∪': 'cup',
  '∩': 'cap',
  '∀': 'forall',
  '∃': 'exists',
  '∅': 'emptyset',
  '∧': 'wedge',
  '∨': 'vee',
  '⇒': 'Rightarrow',
  '⇐': 'Leftarrow',
  '⇔': 'Leftrightarrow',
  '↔': 'leftrightarrow',
  '↦': 'mapsto',
  '⋅': 'cdot',
  '∘': 'circ',
  '∓': 'mp',
  '≪': 'll',
  '≫': 'gg',
  '′': 'prime',
  '∠': 'angle',
  '⊥': 'perp',
  '∥': 'parallel',
  '⊕': 'oplus',
  '⊗': 'otimes',
  ℓ: 'ell',
  ℏ: 'hbar',
  ℵ: 'aleph',
};

/** Where the characters of `MATH`, the accents and letter macros come from, for the tests. */
export const TEX_TABLES = {
  accents: ACCENTS,
  letters: LETTERS,
  math: MATH,
  quotes: QUOTES,
  specials: SPECIALS,
} as const;
