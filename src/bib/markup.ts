/**
 * Insert Answer into LaTeX and Typst: the agent's Markdown (headings, paragraphs, lists, emphasis, code, links,
 * quotes, tables) written in the document's own markup, every other character escaped so the answer can never
 * break the document (`15%` is not a LaTeX comment, `#` is not Typst code). Pure.
 *
 * Citations are not Markdown: the caller replaces each marker group by a placeholder (`citePlaceholder(i)`, private
 * use characters that no escaping touches) before calling `answerMarkup`, and passes `cite(i)` to write the
 * citation itself, set apart from the words around it as the format needs (syntax.ts fitCitation): LaTeX gets a tie
 * before a citation that follows a word (`results~\cite{a}`), Typst a space where the placeholder is glued to a word
 * on either side (`x@a` reads oddly, `@a-based` is another key).
 *
 *   LaTeX   # → \section*, ## → \subsection*, ### → \subsubsection*, deeper → \paragraph; itemize/enumerate;
 *           \textbf, \emph, \texttt; links \href (hyperref), bare URLs \url; quote; verbatim; tabular with p{}
 *           columns that fit the text width (base LaTeX); paired straight double quotes as ``…''.
 *   Typst   = headings (same level), - / + lists, #strong[], #emph[], raw, #link, #quote(block: true), #table.
 *
 * This file writes the blocks; the text inside them (escaping, quotes, links, inline runs) is markupText.ts's, and a
 * LaTeX table, whose column widths take estimating, is latexTable.ts's.
 */
import MarkdownIt from 'markdown-it';
import { plainParagraphs, splitForMarkdown } from '../render/escape';
import { latexTable } from './latexTable';
import {
  inline,
  latexProse,
  markupText,
  pairQuotes,
  PLACEHOLDER,
  typstLineStart,
  type MarkupFlavour,
} from './markupText';
import { FIT_CONTEXT, fitCitation } from './syntax';

export interface MarkupOptions {
  /** The citation for placeholder `i` (already in the target syntax). */
  cite: (i: number) => string;
  /** Line break of the document (default "\n"). */
  newline?: string;
}

let engine: MarkdownIt.MarkdownIt | undefined;
function md(): MarkdownIt.MarkdownIt {
  engine ??= new MarkdownIt('default', { html: false, linkify: false, typographer: false });
  return engine;
}

/**
 * A code block in LaTeX: `verbatim` when it is printable ASCII; else (pdflatex cannot typeset other characters in
 * `verbatim`) typewriter lines through the text escaper, spaces kept as ties so columns stay aligned.
 */
function latexCode(content: string): string {
  if (/^[\x20-\x7e\t\n\r]*$/u.test(content))
    return `\\begin{verbatim}\n${content.replace(/\\end\{verbatim\}/gu, '\\end {verbatim}')}\\end{verbatim}\n\n`;
  // Spaces become ties before escaping: a space the escaper writes belongs to its macro.
  const lines = content
    .replace(/\r?\n$/u, '')
    .split(/\r?\n/u)
    .map((l) => l.replace(/\t/gu, '    ').split(' ').map(latexProse).join('~') || '\\mbox{}');
  return `\\par\\noindent{\\ttfamily ${lines.join('\\\\\n')}\\par}\n\n`;
}

const LATEX_HEADINGS = ['\\section*', '\\subsection*', '\\subsubsection*', '\\paragraph', '\\paragraph', '\\paragraph'];

/** The Markdown (with citation placeholders) in LaTeX or Typst markup. */
export function answerMarkup(markdown: string, flavour: MarkupFlavour, options: MarkupOptions): string {
  const latex = flavour === 'latex';
  const [markdownPart, rest] = splitForMarkdown(markdown);
  const tokens = md().parse(markdownPart, {});
  const out: string[] = [];
  /** Open lists: kind and the indentation of their items (Typst). */
  const lists: { ordered: boolean }[] = [];
  /** The Typst table being written (LaTeX tables are written whole by latexTable). */
  let table: { cols: number; header: boolean } | undefined;
  let typstCell = '';
  const indent = (): string => '  '.repeat(Math.max(0, lists.length - 1));
  const block = (s: string): void => void out.push(s);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    switch (t.type) {
      case 'heading_open': {
        const level = Number(t.tag.slice(1));
        const body = inline(tokens[i + 1]?.children ?? [], flavour).replace(/\n/gu, ' ');
        block(
          latex ? `${LATEX_HEADINGS[level - 1] ?? '\\paragraph'}{${body}}\n\n` : `${'='.repeat(level)} ${body}\n\n`,
        );
        i += 2;
        break;
      }
      case 'paragraph_open':
        break;
      case 'paragraph_close':
        block(t.hidden ? '' : '\n\n');
        break;
      case 'inline': {
        if (table) {
          const cell = inline(t.children ?? [], flavour).replace(/\n/gu, ' ');
          typstCell = table.header ? `#strong[${cell}]` : cell;
          break;
        }
        let body = inline(t.children ?? [], flavour);
        if (!latex) body = body.split('\n').map(typstLineStart).join('\n');
        if (lists.length) body = body.replace(/\n/gu, `\n${indent()}  `);
        block(body);
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open':
        // A nested list starts on its own line (a tight item's paragraph ends without one).
        if (lists.length) block('\n');
        lists.push({ ordered: t.type === 'ordered_list_open' });
        if (latex) block(`\\begin{${t.type === 'ordered_list_open' ? 'enumerate' : 'itemize'}}\n`);
        break;
      case 'bullet_list_close':
      case 'ordered_list_close': {
        const l = lists.pop();
        if (latex) block(`\\end{${l?.ordered ? 'enumerate' : 'itemize'}}\n`);
        if (!lists.length) block('\n');
        break;
      }
      case 'list_item_open':
        block(latex ? '\\item ' : `${indent()}${lists[lists.length - 1]?.ordered ? '+' : '-'} `);
        break;
      case 'list_item_close':
        block('\n');
        break;
      case 'blockquote_open':
        block(latex ? '\\begin{quote}\n' : '#quote(block: true)[\n');
        break;
      case 'blockquote_close':
        block(latex ? '\\end{quote}\n\n' : ']\n\n');
        break;
      case 'fence':
      case 'code_block': {
        const content = t.content.endsWith('\n') ? t.content : `${t.content}\n`;
        if (latex) block(latexCode(content));
        else {
          // Longer than any run of backticks inside (a loop: spreading a million runs into Math.max overflows the
          // stack).
          let longest = 2;
          for (const m of content.matchAll(/`+/gu)) longest = Math.max(longest, m[0].length);
          const ticks = '`'.repeat(longest + 1);
          const lang = /^[A-Za-z0-9_+-]{1,20}$/u.test(t.info.trim()) ? t.info.trim() : '';
          block(`${ticks}${lang}\n${content}${ticks}\n\n`);
        }
        break;
      }
      case 'hr':
        block(latex ? '\\noindent\\rule{\\linewidth}{0.4pt}\n\n' : '#line(length: 100%)\n\n');
        break;
      case 'table_open': {
        if (latex) {
          const table = latexTable(tokens, i);
          block(table.text);
          i = table.end;
          break;
        }
        let cols = 0;
        for (let j = i + 1; j < tokens.length && tokens[j]!.type !== 'tr_close'; j++)
          if (tokens[j]!.type === 'th_open' || tokens[j]!.type === 'td_open') cols++;
        table = { cols: Math.max(1, cols), header: false };
        block(`#table(\n  columns: ${table.cols},\n`);
        break;
      }
      case 'thead_open':
        if (table) table.header = true;
        break;
      case 'thead_close':
        if (table) table.header = false;
        break;
      case 'tr_open':
        block('  ');
        break;
      case 'th_close':
      case 'td_close':
        block(`[${typstCell}], `);
        typstCell = '';
        break;
      case 'tr_close':
        block('\n');
        break;
      case 'table_close':
        table = undefined;
        block(')\n\n');
        break;
      default:
        break;
    }
  }
  // Past the Markdown limit: plain paragraphs, escaped like any other text.
  for (const p of plainParagraphs(rest))
    block(
      latex
        ? `${markupText(p, flavour, pairQuotes(p))}\n\n`
        : `${markupText(p, flavour).split('\n').map(typstLineStart).join('\n')}\n\n`,
    );
  let result = out.join('').replace(/\n{3,}/gu, '\n\n');
  // Trailing white space becomes one line break (trimEnd: a `\s+$` pattern rereads every run of spaces to its end).
  const trimmed = result.trimEnd();
  if (trimmed.length < result.length) result = `${trimmed}\n`;
  result = withCitations(result, flavour, options.cite);
  const nl = options.newline ?? '\n';
  return nl === '\n' ? result : result.replace(/\n/gu, nl);
}

/** The placeholders replaced by their citations, each set apart from the text around it (fitCitation). */
function withCitations(text: string, flavour: MarkupFlavour, cite: (i: number) => string): string {
  const out: string[] = [];
  let copied = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    const c = cite(Number(m[1]));
    const end = m.index + m[0].length;
    // A placeholder right before stands for a citation: it counts as text to be set apart from.
    const fit = fitCitation(
      flavour,
      c,
      text.slice(Math.max(0, m.index - FIT_CONTEXT), m.index),
      text.slice(end, end + FIT_CONTEXT),
    );
    // The spaces a tie replaces lie after the last placeholder (which ends in a non-space).
    out.push(text.slice(copied, m.index - fit.remove), fit.lead, c, fit.trail);
    copied = end;
  }
  out.push(text.slice(copied));
  return out.join('');
}
