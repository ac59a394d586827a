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
 */
import MarkdownIt from 'markdown-it';
import { plainParagraphs, splitForMarkdown } from '../render/escape';
import { FIT_CONTEXT, fitCitation } from './syntax';
import { texText } from './texText';

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

/**
 * The one way plain text of the answer becomes LaTeX (prose, headings, cells, code): texText, so that pdflatex with
 * T1 fonts typesets any text (β as `{$\beta$}`, accented letters as macros, specials escaped). Citation placeholders
 * pass through untouched, to be replaced by their citations at the end.
 */
function latexProse(s: string): string {
  let out = '';
  let last = 0;
  for (const m of s.matchAll(PLACEHOLDER)) {
    out += proseText(s.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + proseText(s.slice(last));
}

/** Text through texText, a line break allowed after each slash (TeX allows none, and a table cell is narrow). */
const proseText = (s: string): string => {
  const t = texText(s);
  return t.includes('/') ? t.replaceAll('/', '/\\allowbreak{}') : t;
};

/** What each straight double quote of an inline run is: the opening or closing one of a pair, or a lone one. */
type QuoteKind = 'open' | 'close' | 'lone';
/** The kinds of a run's quotes and how many of them were written (an index: shifting an array is linear). */
interface Quotes {
  kinds: QuoteKind[];
  next: number;
}

/**
 * Pairs the straight double quotes of `context` (an inline run's text, code as a stand-in letter): a quote opens
 * after white space, an opening bracket or dash (or at the start) when text follows it, and closes after anything
 * else while one is open. A quote that finds no partner stays as it is.
 */
function pairQuotes(context: string): Quotes {
  const kinds: QuoteKind[] = [];
  let open = -1;
  for (let i = context.indexOf('"'); i >= 0; i = context.indexOf('"', i + 1)) {
    const prev = context[i - 1];
    const next = context[i + 1];
    const opens = (prev === undefined || /[\s([{<\u2013\u2014/-]/u.test(prev)) && next !== undefined && !/\s/u.test(next);
    kinds.push('lone');
    if (open >= 0 && !opens) {
      kinds[open] = 'open';
      kinds[kinds.length - 1] = 'close';
      open = -1;
    } else if (opens) open = kinds.length - 1;
  }
  return { kinds, next: 0 };
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

/**
 * Text of the answer in the target markup; bare URLs become links. LaTeX: straight double quotes become ``…'' as
 * `quotes` (the kinds of the run's quotes, consumed in order) pairs them.
 */
function text(s: string, flavour: MarkupFlavour, quotes?: Quotes): string {
  let out = '';
  let last = 0;
  for (const m of s.matchAll(URL_IN_TEXT)) {
    out += esc(s.slice(last, m.index), flavour, quotes);
    out += flavour === 'latex' ? `\\url{${latexUrl(m[0])}}` : `#link(${typstString(m[0])})`;
    last = m.index + m[0].length;
  }
  return out + esc(s.slice(last), flavour, quotes);
}
const LATEX_QUOTE = { open: '``', close: "''" } as const;
function esc(s: string, flavour: MarkupFlavour, quotes?: Quotes): string {
  if (flavour !== 'latex') return escapeTypst(s);
  if (!s.includes('"')) return latexProse(s);
  return s
    .split('"')
    .map((piece, i) => {
      if (i === 0) return latexProse(piece);
      const kind = (quotes && quotes.kinds[quotes.next++]) ?? 'lone';
      return (kind === 'lone' ? latexProse('"') : LATEX_QUOTE[kind]) + latexProse(piece);
    })
    .join('');
}

function safeLink(href: string): string | undefined {
  return href && /^https?:\/\//iu.test(href) && !/[\s"<>]/u.test(href) ? href : undefined;
}

/** The text of an inline run as the quote pairing reads it: code and breaks stand in as a letter and a line break. */
function inlineContext(children: readonly Token[]): string {
  let out = '';
  for (const t of children) {
    if (t.type === 'text' || t.type === 'image' || t.type === 'html_inline') out += t.content;
    else if (t.type === 'code_inline') out += 'x';
    else if (t.type === 'softbreak' || t.type === 'hardbreak') out += '\n';
  }
  return out;
}

function inline(children: readonly Token[], flavour: MarkupFlavour): string {
  const latex = flavour === 'latex';
  let out = '';
  const linkClose: string[] = [];
  const quotes = latex ? pairQuotes(inlineContext(children)) : undefined;
  for (const t of children) {
    switch (t.type) {
      case 'text':
        out += text(t.content, flavour, quotes);
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
          ? `\\texttt{${latexProse(t.content)}}`
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
      case 'html_inline':
        out += text(t.content, flavour, quotes);
        break;
      default:
        // s_open/s_close (strikethrough) and anything else: the text survives, the formatting does not.
        break;
    }
  }
  return out;
}

/**
 * A code block in LaTeX: `verbatim` when it is printable ASCII; else (pdflatex cannot typeset other characters in
 * `verbatim`) typewriter lines through the text escaper, spaces kept as ties so columns stay aligned.
 */
function latexCode(content: string): string {
  if (/^[\x20-\x7e\t\n\r]*$/u.test(content)) return `\\begin{verbatim}\n${content.replace(/\\end\{verbatim\}/gu, '\\end {verbatim}')}\\end{verbatim}\n\n`;
  // Spaces become ties before escaping: a space the escaper writes belongs to its macro.
  const lines = content.replace(/\r?\n$/u, '').split(/\r?\n/u).map((l) => l.replace(/\t/gu, '    ').split(' ').map(latexProse).join('~') || '\\mbox{}');
  return `\\par\\noindent{\\ttfamily ${lines.join('\\\\\n')}\\par}\n\n`;
}

/** About how many characters of running text a table row holds across the text width, besides its column gaps. */
const ROW_CHARACTERS = 75;
/** Column gaps take their share: about 2.4 characters per column (2\tabcolsep of 6 pt at 10 pt). */
const GAP_CHARACTERS = 2.4;
/** A longer word is hyphenated rather than given a column of its own width. */
const LONGEST_WORD = 6;
/**
 * What a citation counts as: as wide as its widest part that cannot break ("[12]", "2021a]," of an author-year
 * citation); it never hyphenates.
 */
const CITATION = '\uE0002021a],';
/** Bold header text is wider than the body's. */
const BOLD = 1.3;
/**
 * Lines of one tabular at most (about a third of a page): a tabular never breaks across pages, so a longer table is
 * written as several, one after the other, with a page break possible between them.
 */
const LINES_PER_TABULAR = 16;

interface LatexRow {
  header: boolean;
  /** The cells in LaTeX. */
  cells: string[];
  /** How many characters each cell's text has, about (bold counted wider). */
  lengths: number[];
  /** Its longest word, up to LONGEST_WORD. */
  words: number[];
}

/**
 * How much of a word cannot break across lines, in characters: a citation whole; the parts of a compound whole (TeX
 * breaks after a hyphen or dash, and latexProse allows a break after a slash, but TeX hyphenates no word that holds
 * one); a word of letters up to LONGEST_WORD (it hyphenates); any other word (`CO<sub>2`: TeX neither hyphenates nor
 * breaks it) whole.
 */
function unbreakable(word: string): number {
  if (word === CITATION) return CITATION.length;
  const parts = word.split(/[-/\u2013\u2014]/u);
  if (parts.length > 1) return parts.reduce((longest, p) => Math.max(longest, p.length), 0);
  return /^\p{L}*$/u.test(word) ? Math.min(LONGEST_WORD, word.length) : word.length;
}

/**
 * The table whose `table_open` is `tokens[open]`, in LaTeX that fits the text width with base LaTeX alone: `p{…}`
 * columns whose widths add up to the text width less the column gaps, each cell a ragged paragraph (justified narrow
 * columns stretch their spaces), longer tables split into tabulars of LINES_PER_TABULAR lines. `end` is the index
 * of its `table_close`.
 */
function latexTable(tokens: readonly Token[], open: number): { text: string; end: number } {
  const rows: LatexRow[] = [];
  let header = false;
  let row: LatexRow | undefined;
  let end = open + 1;
  for (; end < tokens.length && tokens[end]!.type !== 'table_close'; end++) {
    const t = tokens[end]!;
    if (t.type === 'thead_open') header = true;
    else if (t.type === 'thead_close') header = false;
    else if (t.type === 'tr_open') rows.push((row = { header, cells: [], lengths: [], words: [] }));
    else if (t.type === 'inline' && row) {
      const cell = inline(t.children ?? [], 'latex').replace(/\n/gu, ' ');
      // A cell's first word is hyphenated only after some glue (\hspace{0pt}); a citation needs none.
      row.cells.push(`\\raggedright ${cell.startsWith(PH_OPEN) ? '' : '\\hspace{0pt}'}${header ? `\\textbf{${cell}}` : cell}`);
      const plain = t.content.replace(PLACEHOLDER, CITATION).trim();
      const scale = header ? BOLD : 1;
      let word = 1;
      for (const w of plain.split(/\s+/u)) word = Math.max(word, unbreakable(w));
      row.lengths.push(Math.max(1, plain.length) * scale);
      row.words.push(word * scale + 0.5);
    }
  }
  const cols = Math.max(1, rows[0]?.cells.length ?? 0);
  const { widths, budget } = columnWidths(rows, cols);
  const gaps = `${2 * cols}\\tabcolsep`;
  // Thousandths of the text width left by the gaps, rounded down so that they never add up to more.
  const spec = widths.map((w) => `p{\\dimexpr(\\linewidth-${gaps})*${Math.max(1, Math.floor((1000 * w) / budget))}/1000\\relax}`).join('');
  const tabulars: string[][] = [];
  let lines = Infinity;
  for (const r of rows) {
    let height = 1;
    for (let c = 0; c < cols; c++) height = Math.max(height, Math.ceil((r.lengths[c] ?? 0) / widths[c]!));
    if (lines + height > LINES_PER_TABULAR && !(r.header && tabulars.length)) {
      tabulars.push([]);
      lines = 0;
    }
    lines += height;
    const cells = Array.from({ length: cols }, (_, c) => r.cells[c] ?? '\\raggedright');
    // \\ would end a line of the last cell's \raggedright paragraph, not the row.
    tabulars[tabulars.length - 1]!.push(`${cells.join(' & ')} \\tabularnewline\n${r.header ? '\\hline\n' : ''}`);
  }
  const text = tabulars
    .map((body, k) => `\\noindent\\begin{tabular}{${spec}}\n${k === 0 ? '\\hline\n' : ''}${body.join('')}${k === tabulars.length - 1 ? '\\hline\n' : ''}\\end{tabular}\n\n`)
    .join('');
  return { text, end };
}

/**
 * Column widths in characters of running text: each column gets its longest word and, of what the row has left, a
 * share in proportion to how much more its longest cell needs; a table whose cells all fit keeps natural widths.
 */
function columnWidths(rows: readonly LatexRow[], cols: number): { widths: number[]; budget: number } {
  // No column narrower than a short word.
  const need = new Array<number>(cols).fill(3);
  const word = new Array<number>(cols).fill(3);
  for (const r of rows)
    for (let c = 0; c < cols; c++) {
      need[c] = Math.max(need[c]!, r.lengths[c] ?? 0, r.words[c] ?? 0);
      word[c] = Math.max(word[c]!, r.words[c] ?? 0);
    }
  const budget = Math.max(cols * 3, ROW_CHARACTERS - GAP_CHARACTERS * cols);
  const total = need.reduce((a, b) => a + b, 0);
  const least = word.reduce((a, b) => a + b, 0);
  const widths =
    total <= budget
      ? need
      : least >= budget
        ? word.map((w) => (w * budget) / least)
        : word.map((w, c) => w + ((budget - least) * (need[c]! - w)) / (total - least));
  return { widths, budget };
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
        if (latex) {
          const table = latexTable(tokens, i);
          block(table.text);
          i = table.end;
          break;
        }
        let cols = 0;
        for (let j = i + 1; j < tokens.length && tokens[j]!.type !== 'tr_close'; j++) if (tokens[j]!.type === 'th_open' || tokens[j]!.type === 'td_open') cols++;
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
  for (const p of plainParagraphs(rest)) block(latex ? `${text(p, flavour, pairQuotes(p))}\n\n` : `${text(p, flavour).split('\n').map(typstLineStart).join('\n')}\n\n`);
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
