/**
 * The BibTeX reader, loaded once: `@retorquere/bibtex-parser` (BibTeX → Unicode, the parser of Better BibTeX for
 * Zotero). It publishes a working ES module only (its CommonJS build misses dependencies), so it is loaded with
 * `import()`: call `loadBibtexLibrary()` once (the editor side does it when the core starts a citation command);
 * everything in src/bib that needs it is synchronous after that. In the esbuild bundle the `import()` resolves to
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

/**
 * Forms texText writes that the parser misreads, rewritten to forms it reads as the same character: TeX's spacing grave
 * accent `\`{}` (a backtick; the parser takes it for a lone combining accent) becomes a braced backtick, the macron
 * below `\b{B}` (unknown to it) the letter itself, and the math minus `{$-$}` (a hyphen to it) the minus sign.
 */
function readable(input: string): string {
  let t = input;
  if (t.includes('\\`{}')) t = t.replaceAll('\\`{}', '{`}');
  if (t.includes('{$-$}')) t = t.replaceAll('{$-$}', '\u2212');
  if (t.includes('\\b{')) t = t.replace(/\\b\{([A-Za-z])\}/gu, (_m, l: string) => `${l}\u0331`.normalize('NFC'));
  return t;
}

/** Load the library (idempotent; concurrent callers share one load). */
export function loadBibtexLibrary(): Promise<BibtexLibrary> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= (async (): Promise<BibtexLibrary> => {
    const parser = await import('@retorquere/bibtex-parser');
    const lib: BibtexLibrary = {
      parse: (input) => parser.parse(readable(input), PARSE_OPTIONS),
    };
    loaded = lib;
    return lib;
  })();
  return loading;
}

/** Whether the library is loaded (its first load costs tens of milliseconds on the thread). */
export const isBibtexLibraryLoaded = (): boolean => loaded !== undefined;

/** The loaded library; throws if `loadBibtexLibrary()` has not completed (a programming error). */
export function bibtexLibrary(): BibtexLibrary {
  if (!loaded) throw new Error('The BibTeX library is not loaded yet: await loadBibtexLibrary() first.');
  return loaded;
}
