/**
 * pdflatex with T1 fonts cannot print every letter a paper's metadata holds (CJK, Cyrillic, Arabic; Vietnamese ư;
 * through Biber also ạ, ễ, which it hands over as UTF-8). The entry is still right: BibTeX, Biber, pandoc and Typst
 * read it, and LuaLaTeX or XeLaTeX print it. The writer is told once per document and session when a new entry for a
 * LaTeX document holds such letters, so a build error later is not a surprise.
 */
import * as vscode from 'vscode';
import { pdflatexCannotTypeset, type CitablePaper } from '../bib/bibtex';
import { flavourOf } from '../bib/syntax';
import { showInfo } from '../platform/notify';
import { lazy } from '../shared/lazy';

/** Scripts named in the note, by the first that matches. */
const SCRIPTS = lazy((): readonly [RegExp, string][] => [
  [/\p{Script=Cyrillic}/u, 'Cyrillic'],
  [/\p{Script=Greek}/u, 'Greek'],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'Japanese'],
  [/\p{Script=Hangul}/u, 'Korean'],
  [/\p{Script=Han}/u, 'Chinese characters'],
  [/\p{Script=Arabic}/u, 'Arabic'],
  [/\p{Script=Hebrew}/u, 'Hebrew'],
  [/\p{Script=Devanagari}/u, 'Devanagari'],
  [/\p{Script=Thai}/u, 'Thai'],
  [/\p{Script=Latin}/u, 'Latin letters outside T1 fonts'],
]);

/**
 * Whether a LaTeX document's bibliography goes through Biber (biblatex) rather than BibTeX: read in its preamble (the
 * first 200,000 characters at most; one white-space run per position, so the pattern reads in linear time).
 */
export function usesBiber(text: string): boolean {
  const begin = text.indexOf('\\begin{document}');
  const preamble = text.slice(0, Math.min(begin < 0 ? text.length : begin, 200_000));
  return (
    /\\addbibresource\b|\\usepackage\s*(?:\[[^\]]{0,500}\]\s*)?\{[^}]{0,200}\bbiblatex\b/u.test(preamble) ||
    /\\addbibresource\b/u.test(text.slice(0, 200_000))
  );
}

/** The note for papers cited into a LaTeX document, or undefined when pdflatex prints all of them. */
export function pdflatexNote(documentText: string, papers: readonly CitablePaper[]): string | undefined {
  const via = usesBiber(documentText) ? 'biber' : 'bibtex';
  const chars = new Set<string>();
  for (const p of papers) for (const c of pdflatexCannotTypeset(p, via)) chars.add(c);
  if (!chars.size) return undefined;
  const all = [...chars].join('');
  const scripts = [
    ...new Set(
      SCRIPTS()
        .filter(([re]) => re.test(all))
        .map(([, name]) => name),
    ),
  ];
  const shown = [...chars].slice(0, 12).join(' ');
  return vscode.l10n.t(
    'The new bibliography entries hold letters pdflatex cannot print with its standard (T1) fonts: {0}{1} ({2}). {3} reads them; to print them, compile with LuaLaTeX or XeLaTeX, or load fonts for them.',
    shown,
    chars.size > 12 ? ' …' : '',
    scripts.join(', '),
    via === 'biber' ? 'Biber' : 'BibTeX',
  );
}

/** Shows the note once per document and session. */
export class PdflatexNotes {
  private readonly told = new Set<string>();
  /** What the last note said (tests). */
  last: string | undefined;

  /** Tells the writer, when the document is LaTeX and some of the papers hold letters pdflatex cannot print. */
  afterInsert(document: vscode.TextDocument, papers: readonly CitablePaper[]): string | undefined {
    if (flavourOf(document.languageId, document.fileName) !== 'latex' || this.told.has(document.uri.toString()))
      return undefined;
    const note = pdflatexNote(document.getText(), papers);
    if (!note) return undefined;
    this.told.add(document.uri.toString());
    this.last = note;
    void showInfo(note);
    return note;
  }
}
