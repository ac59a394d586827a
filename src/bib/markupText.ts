/**
 * The text of an agent answer in LaTeX or Typst markup, for the blocks markup.ts writes: every special character
 * escaped (`15%` is not a LaTeX comment, `#` is not Typst code), LaTeX prose through texText so pdflatex typesets any
 * character, bare URLs and Markdown links as links, paired straight double quotes as ``…'' in LaTeX, and Markdown's
 * inline runs (emphasis, code, breaks) in the target markup. Citation placeholders pass through untouched, to be
 * replaced by their citations at the end. Apart from markup.ts because headings, list items, paragraphs and table
 * cells (latexTable.ts) all write their text through it. Pure.
 */
import type MarkdownIt from 'markdown-it';
import { texText } from './texText';

type Token = MarkdownIt.Token;
export type MarkupFlavour = 'latex' | 'typst';

export const PH_OPEN = '\uE000';
const PH_CLOSE = '\uE001';
/** A citation placeholder; group 1: the citation's index. */
export const PLACEHOLDER = /\uE000(\d+)\uE001/gu;

/** The placeholder standing for citation `i` in the Markdown handed to `answerMarkup`. */
export const citePlaceholder = (i: number): string => `${PH_OPEN}${i}${PH_CLOSE}`;

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
export function latexProse(s: string): string {
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
export interface Quotes {
  kinds: QuoteKind[];
  next: number;
}

/**
 * Pairs the straight double quotes of `context` (an inline run's text, code as a stand-in letter): a quote opens
 * after white space, an opening bracket or dash (or at the start) when text follows it, and closes after anything
 * else while one is open. A quote that finds no partner stays as it is.
 */
export function pairQuotes(context: string): Quotes {
  const kinds: QuoteKind[] = [];
  let open = -1;
  for (let i = context.indexOf('"'); i >= 0; i = context.indexOf('"', i + 1)) {
    const prev = context[i - 1];
    const next = context[i + 1];
    const opens =
      (prev === undefined || /[\s([{<\u2013\u2014/-]/u.test(prev)) && next !== undefined && !/\s/u.test(next);
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
export const typstLineStart = (line: string): string =>
  line.replace(/^(\s*)(=+|[-+/]|\d+\.)(?=\s|$)/u, (_m, ws: string, mark: string) =>
    /^\d/u.test(mark) ? `${ws}${mark.slice(0, -1)}\\.` : `${ws}\\${mark}`,
  );

/**
 * Text of the answer in the target markup; bare URLs become links. LaTeX: straight double quotes become ``…'' as
 * `quotes` (the kinds of the run's quotes, consumed in order) pairs them.
 */
export function markupText(s: string, flavour: MarkupFlavour, quotes?: Quotes): string {
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

export function inline(children: readonly Token[], flavour: MarkupFlavour): string {
  const latex = flavour === 'latex';
  let out = '';
  const linkClose: string[] = [];
  const quotes = latex ? pairQuotes(inlineContext(children)) : undefined;
  for (const t of children) {
    switch (t.type) {
      case 'text':
        out += markupText(t.content, flavour, quotes);
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
        out += markupText(t.content, flavour, quotes);
        break;
      default:
        // s_open/s_close (strikethrough) and anything else: the text survives, the formatting does not.
        break;
    }
  }
  return out;
}
