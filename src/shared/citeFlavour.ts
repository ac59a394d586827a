/**
 * Which citation syntax a document is written in, from its VS Code language id or, for an id not listed, its file
 * extension. The one table behind both src/bib/syntax.ts `flavourOf` (the core) and src/shared/citeTrigger.ts
 * `cheapFlavour` (the entry bundle's cheap checks, which may not import src/bib): kept here so the two can never
 * disagree. Pure; no vscode import.
 */

/** A syntax that has citations; a document in none of them is 'plain' to src/bib/syntax.ts. */
export type CitingFlavour = 'latex' | 'pandoc' | 'typst';

/** VS Code language ids (lower case). */
const BY_LANGUAGE = new Map<string, CitingFlavour>([
  ...['latex', 'tex', 'context', 'latex-expl3', 'doctex', 'rsweave'].map((id) => [id, 'latex'] as const),
  ...['markdown', 'quarto', 'rmd', 'rmarkdown', 'pandoc', 'mdx'].map((id) => [id, 'pandoc'] as const),
  ['typst', 'typst'],
]);

/** File extensions (lower case), read only when the language id is not in BY_LANGUAGE. */
const BY_EXTENSION = new Map<string, CitingFlavour>([
  ...['tex', 'ltx', 'sty', 'rnw'].map((ext) => [ext, 'latex'] as const),
  ...['md', 'markdown', 'qmd', 'rmd'].map((ext) => [ext, 'pandoc'] as const),
  ['typ', 'typst'],
]);

/** The citation syntax of a document (undefined: none, never a citation). */
export function citingFlavourOf(languageId: string, fileName = ''): CitingFlavour | undefined {
  const byId = BY_LANGUAGE.get(languageId.toLowerCase());
  if (byId) return byId;
  const ext = /\.([A-Za-z]+)$/u.exec(fileName)?.[1]?.toLowerCase();
  return ext === undefined ? undefined : BY_EXTENSION.get(ext);
}
