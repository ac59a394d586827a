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
 *           \textbf, \emph, \texttt; links \href (hyperref), bare URLs \url; quote; verbatim; tabular.
 *   Typst   = headings (same level), - / + lists, #strong[], #emph[], raw, #link, #quote(block: true), #table.
 */
import MarkdownIt from 'markdown-it';
import { plainParagraphs, splitForMarkdown } from '../render/escape';
import { FIT_CONTEXT, fitCitation } from './syntax';

type Token = MarkdownIt.Token;
export type MarkupFlavour = 'latex' | 'typst';

const PH_OPEN = '\uE000';
const PH_CLOSE = '\uE001';
const PLACEHOLDER = /\uE000(\d+)\uE001/gu;

/** The placeholder standing for citation `i` in the Markdown handed to `answerMarkup`. */
export const citePlaceholder = (i: number): string => `${PH_OPEN}${i}${PH_CLOSE}`;

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

const URL_IN_TEXT = /https?:\/\/[^\s<>"\uE000\uE001]+[^\s<>"\uE000\uE001.,;:!?)\]]/gu;

const LATEX_SPECIAL: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  $: '\\$',
  '&': '\\&',
  '%': '\\%',
  '#': '\\#',
  _: '\\_',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '<': '\\textless{}',
  '>': '\\textgreater{}',
  '|': '\\textbar{}',
  '`': '\\textasciigrave{}',
};

/**
 * A URL as an argument of `\href` or `\url` in a document: `%` and `#` escaped (safe even where the command is inside
 * another command's argument), and braces, backslashes and white space, which belong in no URL, percent-encoded.
 */
function latexUrl(url: string): string {
  return url
    .trim()
    .replace(/%(?![0-9A-Fa-f]{2})/gu, '%25')
    .replace(/[{}\\\s]/gu, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
    .replace(/[%#]/gu, (c) => `\\${c}`);
}

/** LaTeX text: every special character escaped (Unicode kept: LaTeX reads UTF-8 since 2018). */
export function escapeLatex(s: string): string {
  return s.replace(/[\\{}$&%#_~^<>|`]/gu, (c) => LATEX_SPECIAL[c] ?? c);
}

/** Typst markup text: every markup character escaped; `//` and `/*` cannot start a comment. */
export function escapeTypst(s: string): string {
  return s.replace(/[\\#*_`$@<>[\]~]|\/(?=[/*])/gu, (c) => `\\${c}`);
}

/** A Typst string literal. */
const typstString = (s: string): string => `"${s.replace(/[\\"]/gu, (c) => `\\${c}`).replace(/\r?\n/gu, ' ')}"`;

/** Typst: a line of a paragraph that would start a heading, list, term or enumeration is escaped. */
const typstLineStart = (line: string): string => line.replace(/^(\s*)(=+|[-+/]|\d+\.)(?=\s|$)/u, (_m, ws: string, mark: string) =>
    /^\d/u.test(mark) ? `${ws}${mark.slice(0, -1)}\\.` : `${ws}\\${mark}`,
  );

function text(s: string, flavour: MarkupFlavour): string {
  let out = '';
  let last = 0;
  for (const m of s.matchAll(URL_IN_TEXT)) {
    out += esc(s.slice(last, m.index), flavour);
    out += flavour === 'latex' ? `\\url{${latexUrl(m[0])}}` : `#link(${typstString(m[0])})`;
    last = m.index + m[0].length;
  }
  return out + esc(s.slice(last), flavour);
}
const esc = (s: string, flavour: MarkupFlavour): string => (flavour === 'latex' ? escapeLatex(s) : escapeTypst(s));

function safeLink(href: string): string | undefined {
  return href && /^https?:\/\//iu.test(href) && !/[\s"<>]/u.test(href) ? href : undefined;
}

function inline(children: readonly Token[], flavour: MarkupFlavour): string {
  const latex = flavour === 'latex';
  let out = '';
  const linkClose: string[] = [];
  for (const t of children) {
    switch (t.type) {
      case 'text':
        out += text(t.content, flavour);
        break;
      case 'softbreak':
        out += '\n';
        break;
      case 'hardbreak':
        out += latex ? '\\\\\n' : '\\\n';
        break;
      case 'strong_open':
        out += latex ? '\\textbf{' : '#strong[';
        break;
      case 'strong_close':
        out += latex ? '}' : ']';
        break;
      case 'em_open':
        out += latex ? '\\emph{' : '#emph[';
        break;
      case 'em_close':
        out += latex ? '}' : ']';
        break;
      case 'code_inline':
        out += latex
          ? `\\texttt{${escapeLatex(t.content)}}`
          : t.content.includes('`') || !t.content.trim()
            ? `#raw(${typstString(t.content)})`
            : `\`${t.content}\``;
        break;
      case 'link_open': {
        const href = safeLink(String(t.attrGet('href') ?? ''));
        if (href) {
          out += latex ? `\\href{${latexUrl(href)}}{` : `#link(${typstString(href)})[`;
          linkClose.push(latex ? '}' : ']');
        } else linkClose.push('');
        break;
      }
      case 'link_close':
        out += linkClose.pop() ?? '';
        break;
      case 'image':
        out += text(t.content, flavour);
        break;
      case 'html_inline':
        out += text(t.content, flavour);
        break;
      default:
        // s_open/s_close (strikethrough) and anything else: the text survives, the formatting does not.
        break;
    }
  }
  return out;
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
  let table: { cols: number; cell: number; header: boolean } | undefined;
  let typstCell = '';
  const indent = (): string => '  '.repeat(Math.max(0, lists.length - 1));
  const block = (s: string): void => void out.push(s);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    switch (t.type) {
      case 'heading_open': {
        const level = Number(t.tag.slice(1));
        const body = inline(tokens[i + 1]?.children ?? [], flavour).replace(/\n/gu, ' ');
        block(latex ? `${LATEX_HEADINGS[level - 1] ?? '\\paragraph'}{${body}}\n\n` : `${'='.repeat(level)} ${body}\n\n`);
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
          if (latex) block(`${table.cell > 0 ? ' & ' : ''}${table.header ? `\\textbf{${cell}}` : cell}`);
          else typstCell = table.header ? `#strong[${cell}]` : cell;
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
        if (latex) block(`\\begin{verbatim}\n${content.replace(/\\end\{verbatim\}/gu, '\\end {verbatim}')}\\end{verbatim}\n\n`);
        else {
          // Longer than any run of backticks inside (a loop: spreading a million runs into Math.max overflows the stack).
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
        let cols = 0;
        for (let j = i + 1; j < tokens.length && tokens[j]!.type !== 'tr_close'; j++) if (tokens[j]!.type === 'th_open' || tokens[j]!.type === 'td_open') cols++;
        table = { cols: Math.max(1, cols), cell: 0, header: false };
        block(latex ? `\\begin{tabular}{${'l'.repeat(table.cols)}}\n\\hline\n` : `#table(\n  columns: ${table.cols},\n`);
        break;
      }
      case 'thead_open':
        if (table) table.header = true;
        break;
      case 'thead_close':
        if (table) table.header = false;
        if (latex) block('\\hline\n');
        break;
      case 'tr_open':
        if (table) table.cell = 0;
        if (!latex) block('  ');
        break;
      case 'th_close':
      case 'td_close':
        if (table) table.cell++;
        if (!latex) {
          block(`[${typstCell}], `);
          typstCell = '';
        }
        break;
      case 'tr_close':
        block(latex ? ' \\\\\n' : '\n');
        break;
      case 'table_close':
        table = undefined;
        block(latex ? '\\hline\n\\end{tabular}\n\n' : ')\n\n');
        break;
      default:
        break;
    }
  }
  // Past the Markdown limit: plain paragraphs, escaped like any other text.
  for (const p of plainParagraphs(rest)) block(latex ? `${text(p, flavour)}\n\n` : `${text(p, flavour).split('\n').map(typstLineStart).join('\n')}\n\n`);
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
    const fit = fitCitation(flavour, c, text.slice(Math.max(0, m.index - FIT_CONTEXT), m.index), text.slice(end, end + FIT_CONTEXT));
    // The spaces a tie replaces lie after the last placeholder (which ends in a non-space).
    out.push(text.slice(copied, m.index - fit.remove), fit.lead, c, fit.trail);
    copied = end;
  }
  out.push(text.slice(copied));
  return out.join('');
}
