/**
 * Cheap checks the entry bundle makes before it loads the core for a cite-key completion, hover or document
 * links. They look only at a little text around the cursor with one regular expression each, and they are a
 * superset of the core's exact rules (src/bib/syntax.ts: completionContext, keyAt, findCitations): when one of
 * these says "no", the core would have found nothing, so typing and hovering in a document without citations never
 * pays for loading dist/core.js. When they say "yes" the core decides. No vscode and no src/bib import: this file is
 * part of dist/extension.js (test/unit/shared/citeTrigger.test.ts holds it to the core's rules).
 */
import { citingFlavourOf, type CitingFlavour } from './citeFlavour';

/** The flavours the checks know: every one that has citations (src/shared/citeFlavour.ts). */
export type CheapFlavour = CitingFlavour;

/** How much text before the cursor the checks look at (a citation's key list is shorter than this). */
export const CITE_WINDOW = 400;

/** The flavour of a document from the shared table, as src/bib/syntax.ts flavourOf reads it but without 'plain'. */
export function cheapFlavour(languageId: string, fileName = ''): CheapFlavour | undefined {
  return citingFlavourOf(languageId, fileName);
}

/**
 * A LaTeX cite command up to its opening brace, read as src/bib/syntax.ts reads it: the name holds "cite" (checked by a
 * look-ahead, so a run of letters is read once), an optional argument holds no bracket (an unclosed `\cite[` is never
 * read past the next one). Every check here is linear in the text it is given.
 */
const LATEX_HEAD = String.raw`\\(?=[A-Za-z]*cite)[A-Za-z]+\*?\s*(?:\[[^[\]]*\]\s*){0,2}\{`;
/** Inside the braces of a LaTeX cite command (any of its keys, across lines). */
const LATEX_OPEN = new RegExp(`${LATEX_HEAD}[^{}]*$`, 'u');
/** Right after `@` and a (partial) key not glued to a word (never an e-mail address). */
const AT_KEY = /(?:^|[^\w.@\\])-?@[\w:.#$%&\-+?<>~/]*$/u;
/** The same for a key already written (Pandoc also reads `\@key` as a citation, and `@{key}` for any key). */
const AT_KEY_WRITTEN = /(?:^|[^\w.@])-?@(?:[\w:.#$%&\-+?<>~/]*|\{[^{}\s]*)$/u;
/** Typst `#cite(<partial`. */
const TYPST_FN = /#cite\(\s*<[^>\s]*$/u;
const TYPST_FN_WRITTEN = /#cite\(\s*(?:<[^<>]*|label\(\s*"(?:[^"\\]|\\.)*\\?)$/u;

/** Whether a cite-key completion may apply with `before` (the text before the cursor) in this flavour. */
export function mayCompleteCitation(before: string, flavour: CheapFlavour): boolean {
  const b = before.length > CITE_WINDOW ? before.slice(-CITE_WINDOW) : before;
  if (flavour === 'latex') return LATEX_OPEN.test(b);
  return AT_KEY.test(b) || (flavour === 'typst' && TYPST_FN.test(b));
}

/** The key characters of each flavour that may follow the cursor within the same key. */
const KEY_TAIL = /^[^\s,;{}[\]()<>@]*/u;

/**
 * Whether the position between `before` and `after` may be on a cite key (hover, Ctrl+click): the text up to the
 * end of the word under the cursor must end inside a citation's key list.
 */
export function mayBeOnCiteKey(before: string, after: string, flavour: CheapFlavour): boolean {
  const tail = KEY_TAIL.exec(after.length > CITE_WINDOW ? after.slice(0, CITE_WINDOW) : after)?.[0] ?? '';
  const b = before.length > CITE_WINDOW ? before.slice(-CITE_WINDOW) : before;
  if (flavour === 'latex') return LATEX_OPEN.test(b + tail);
  // The cursor on a key's first character: `before` ends with the `@`.
  return (flavour === 'pandoc' ? AT_KEY_WRITTEN : AT_KEY).test(b) || (flavour === 'typst' && TYPST_FN_WRITTEN.test(b));
}

const LATEX_ANY = new RegExp(LATEX_HEAD, 'u');
const PANDOC_GROUP = /\[(?:[^[\]]*[^\w.@[\]])?-?@[\w{]/u;
const TYPST_ANY = /(?:^|[^\w.@\\])@\w|#cite\(/mu;

/**
 * A `bibliography:` line after a `---` line: the first `---` line is found, then a `bibliography:` line after it (one
 * lazy pattern from every `---` line to the end would read the text again for each of them).
 */
function declaresBibliography(text: string): boolean {
  const open = /^---[ \t]*\r?$/mu.exec(text);
  if (!open) return false;
  const key = /^bibliography[ \t]*:/gmu;
  key.lastIndex = open.index;
  return key.test(text);
}

/**
 * Whether a document's text may hold citations worth links (the core then finds them exactly). Pandoc: a bracketed
 * `[@key]` or a `bibliography:` in the front matter (a Markdown README with an @mention does not load the core).
 */
export function mayHaveCitations(text: string, flavour: CheapFlavour): boolean {
  if (flavour === 'latex') return LATEX_ANY.test(text);
  if (flavour === 'pandoc') return PANDOC_GROUP.test(text) || declaresBibliography(text);
  return TYPST_ANY.test(text);
}

/** A LaTeX bibliography declared (BibTeX's `\bibliography{`, biblatex's `\addbibresource{`), or Typst's. */
const LATEX_BIB = /\\(?:bibliography|addbibresource)\s*(?:\[[^[\]]*\]\s*)?\{/u;
const TYPST_BIB = /#bibliography\(/u;

/**
 * Whether a document is one that cites: it has a citation (`mayHaveCitations`), or declares a bibliography though it
 * cites nothing yet.
 */
export function mayCite(text: string, flavour: CheapFlavour): boolean {
  if (mayHaveCitations(text, flavour)) return true;
  return flavour === 'latex' ? LATEX_BIB.test(text) : flavour === 'typst' && TYPST_BIB.test(text);
}

/** Inside an open `[` on the way to the cursor (a bracketed Pandoc citation). */
const OPEN_BRACKET = /\[[^[\]]*$/u;

/**
 * Pandoc's bare `@key` also reads as an @mention in any Markdown file. Before the core is loaded, a bare `@` counts
 * only where citations are plausible: inside `[…`, in a Quarto or R Markdown file, or in a document that already has
 * a bracketed citation or a `bibliography:` in its front matter. (Once the core is loaded it answers everywhere.)
 * LaTeX and Typst: always plausible.
 */
export function citationsPlausible(
  before: string,
  flavour: CheapFlavour,
  fileName: string,
  documentText: () => string,
): boolean {
  if (flavour !== 'pandoc') return true;
  if (OPEN_BRACKET.test(before.length > CITE_WINDOW ? before.slice(-CITE_WINDOW) : before)) return true;
  if (/\.(?:qmd|rmd)$/iu.test(fileName)) return true;
  return mayHaveCitations(documentText(), flavour);
}
