/**
 * Declaring a bibliography in a document that has none (offered after Insert Citation wrote to the default or a
 * chosen .bib, which LaTeX, Pandoc and Typst would not otherwise read). Pure: the text edit only.
 *
 *   LaTeX     biblatex (\usepackage{biblatex} / \addbibresource anywhere): `\addbibresource{refs.bib}` before
 *             \begin{document}; otherwise `\bibliography{refs}` before \end{document} (or at the end)
 *   Pandoc    `bibliography: refs.bib` in the YAML front matter (one is created when there is none)
 *   Typst     `#bibliography("refs.bib")` at the end
 */
import type { TextEdit } from '../bib/edit';
import { newlineOf } from '../bib/edit';
import { frontMatter } from '../bib/locate';
import type { CiteFlavour } from '../bib/syntax';

/**
 * Whether `relPath` can be written in the flavour's declaration as it is: the path comes from a setting or a file
 * name, so it could otherwise close the LaTeX argument (`}`), start a comment (`%`), run a command (`\`) or end the
 * YAML or Typst string (a line break). LaTeX: letters, digits and `._-/+` only (BibTeX reads no spaces or commas in
 * `\bibliography`); YAML and Typst: anything printable (quoted and escaped).
 */
export function declarablePath(flavour: CiteFlavour, relPath: string): boolean {
  if (!relPath || relPath.length > 1000) return false;
  if (flavour === 'latex') return /^[\p{L}\p{N}._\-/+]+$/u.test(relPath);
  return !/[\p{Cc}\p{Zl}\p{Zp}\u0085]/u.test(relPath);
}

/** `relPath`: the .bib relative to the document, with forward slashes (undefined when it is not `declarablePath`). */
export function declarationEdit(text: string, flavour: CiteFlavour, relPath: string): TextEdit | undefined {
  if (!declarablePath(flavour, relPath)) return undefined;
  const nl = newlineOf(text);
  if (flavour === 'latex') {
    if (/\\usepackage\s*(?:\[[^\]]*\])?\s*\{[^}]*\bbiblatex\b/u.test(text)) {
      const begin = /^[ \t]*\\begin\s*\{document\}/mu.exec(text);
      const at = begin ? begin.index : 0;
      return { offset: at, length: 0, text: `\\addbibresource{${relPath}}${nl}` };
    }
    const name = relPath.replace(/\.bib$/iu, '');
    const end = /^[ \t]*\\end\s*\{document\}/mu.exec(text);
    if (end) return { offset: end.index, length: 0, text: `\\bibliography{${name}}${nl}` };
    return {
      offset: text.length,
      length: 0,
      text: `${text.endsWith('\n') || !text ? '' : nl}\\bibliography{${name}}${nl}`,
    };
  }
  if (flavour === 'pandoc') {
    const value = /^[\w./-]+$/u.test(relPath) ? relPath : `"${relPath.replace(/["\\]/gu, '\\$&')}"`;
    const fm = frontMatter(text);
    if (fm !== undefined) {
      // Right after the opening `---` line.
      const open = /^\uFEFF?---[ \t]*\r?\n/u.exec(text);
      if (open) return { offset: open[0].length, length: 0, text: `bibliography: ${value}${nl}` };
    }
    const bom = text.startsWith('\uFEFF') ? 1 : 0;
    return { offset: bom, length: 0, text: `---${nl}bibliography: ${value}${nl}---${nl}${nl}` };
  }
  if (flavour === 'typst') {
    const lit = relPath.replace(/["\\]/gu, '\\$&');
    return {
      offset: text.length,
      length: 0,
      text: `${text.endsWith('\n') || !text ? '' : nl}#bibliography("${lit}")${nl}`,
    };
  }
  return undefined;
}

/** `to` relative to the folder `fromDir` (both URI paths with forward slashes). */
export function relativePath(fromDir: string, to: string): string {
  const a = fromDir.split('/').filter(Boolean);
  const b = to.split('/').filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
}
