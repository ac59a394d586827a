/**
 * The BibTeX library, loaded once: `@retorquere/bibtex-parser` (BibTeX → Unicode, the parser of Better BibTeX for
 * Zotero) and `unicode2latex` (Unicode → LaTeX, the same author's tables). Both publish working ES modules only
 * (their CommonJS builds miss dependencies), so they are loaded with `import()`: call `loadBibtexLibrary()` once
 * (the editor side does it when the core starts a citation command); everything in src/cite that needs the
 * library is synchronous after that. In the esbuild bundle the `import()` resolves to the bundled code at once.
 */
import type { Library, Options } from '@retorquere/bibtex-parser' with { 'resolution-mode': 'import' };
import type { Transform } from 'unicode2latex' with { 'resolution-mode': 'import' };

export interface BibtexLibrary {
  /** Parse BibTeX text; LaTeX in field values is turned into Unicode, names into parts. */
  parse(input: string): Library;
  /** Unicode → LaTeX for field text (specials escaped, accents as macros, CJK/Arabic kept as UTF-8). */
  text: Transform;
  /** Unicode → LaTeX for name parts: like `text`, but accented letters braced (`{\L}ukasz`) so BibTeX's name parser keeps them whole. */
  creator: Transform;
}

let loaded: BibtexLibrary | undefined;
let loading: Promise<BibtexLibrary> | undefined;

/** Our parse options: no sentence-casing, no "English" case meddling, unknown commands kept as written. */
const PARSE_OPTIONS: Options = {
  english: false,
  sentenceCase: false,
  caseProtection: false,
  unsupported: (_node, tex) => tex,
};

/** Load the library (idempotent; concurrent callers share one load). */
export function loadBibtexLibrary(): Promise<BibtexLibrary> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= (async (): Promise<BibtexLibrary> => {
    const [parser, u2l] = await Promise.all([import('@retorquere/bibtex-parser'), import('unicode2latex')]);
    const lib: BibtexLibrary = {
      // The parser reads TeX's spacing grave accent `\`{}` (how a backtick is written for pandoc and LaTeX) as a lone
      // combining accent; a braced backtick is the character itself to it.
      parse: (input) => parser.parse(input.includes('\\`{}') ? input.replaceAll('\\`{}', '{`}') : input, PARSE_OPTIONS),
      text: new u2l.Transform('bibtex'),
      creator: new u2l.Transform('bibtex-creator'),
    };
    loaded = lib;
    return lib;
  })();
  return loading;
}

/** The loaded library; throws if `loadBibtexLibrary()` has not completed (a programming error). */
export function bibtexLibrary(): BibtexLibrary {
  if (!loaded) throw new Error('The BibTeX library is not loaded yet: await loadBibtexLibrary() first.');
  return loaded;
}
