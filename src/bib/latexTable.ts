/**
 * A Markdown table of an agent answer as LaTeX that fits the text width with base LaTeX alone: `p{…}` columns whose
 * widths are estimated from the cells' text (each column its longest unbreakable word, the rest shared by need), each
 * cell a ragged paragraph, a long table split into several tabulars so that pages can break between them. Apart from
 * markup.ts because the width estimate is a subject of its own; the cells' text is markupText.ts's. Pure.
 */
import type MarkdownIt from 'markdown-it';
import { inline, PH_OPEN, PLACEHOLDER } from './markupText';

type Token = MarkdownIt.Token;

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
export function latexTable(tokens: readonly Token[], open: number): { text: string; end: number } {
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
      row.cells.push(
        `\\raggedright ${cell.startsWith(PH_OPEN) ? '' : '\\hspace{0pt}'}${header ? `\\textbf{${cell}}` : cell}`,
      );
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
  const spec = widths
    .map((w) => `p{\\dimexpr(\\linewidth-${gaps})*${Math.max(1, Math.floor((1000 * w) / budget))}/1000\\relax}`)
    .join('');
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
    .map(
      (body, k) =>
        `\\noindent\\begin{tabular}{${spec}}\n${k === 0 ? '\\hline\n' : ''}${body.join('')}${k === tabulars.length - 1 ? '\\hline\n' : ''}\\end{tabular}\n\n`,
    )
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
