/**
 * The BibTeX reader, loaded once: `@retorquere/bibtex-parser` (BibTeX → Unicode, the parser of Better BibTeX for
 * Zotero). It publishes a working ES module only (its CommonJS build misses dependencies), so it is loaded with
 * `import()`: call `loadBibtexLibrary()` once (the editor side does it when the core starts a citation command);
 * everything in src/cite that needs it is synchronous after that. In the esbuild bundle the `import()` resolves to
 * the bundled code at once. (Writing BibTeX is texText.ts's: forms measured in the programs that read them.)
 */
import type { Library, Options } from '@retorquere/bibtex-parser' with { 'resolution-mode': 'import' };

export interface BibtexLibrary {
  /** Parse BibTeX text; LaTeX in field values is turned into Unicode, names into parts. */
  parse(input: string): Library;
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
    const parser = await import('@retorquere/bibtex-parser');
    const lib: BibtexLibrary = {
      // The parser reads TeX's spacing grave accent `\`{}` (how a backtick is written for pandoc and LaTeX) as a lone
      // combining accent; a braced backtick is the character itself to it.
      parse: (input) => parser.parse(input.includes('\\`{}') ? input.replaceAll('\\`{}', '{`}') : input, PARSE_OPTIONS),
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
