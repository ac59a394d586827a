/**
 * Insert Answer: an agent answer's markers (`[1.2]` = quote 2 of citation 1, `[3]` = citation 3, groups `[1.1, 2]`
 * or `[1.1; 2]`, the grammar of src/render/citeMarkers.ts) turned into the document's citations, given a cite key
 * per paper_id (the editor side first ensures every cited paper has an entry: bibAppend.ensureEntry). Pure.
 *
 * - One citation per group, papers de-duplicated in order: `[1.1, 1.2, 2]` → `[@a; @b]` / `\cite{a,b}` / `@a @b`.
 * - Footnotes (Pandoc only, optional): a quoted marker becomes `[^1.2]`, and a footnote `[^1.2]: "quote" [@a].`
 *   is appended, so the quote is kept and the paper still cited; bare markers stay citations. Labels the document
 *   already uses are avoided: a later answer's are `[^a2-1.2]`, `[^a3-1.2]`….
 * - Markers inside code (fenced blocks, indented blocks, inline code) and escaped ones (`\[1]`) are left alone; a
 *   marker whose citation or key is unknown is kept as written and reported.
 * - A citation is set apart from the words around it as the format needs (syntax.ts fitCitation): `[1][2]` becomes
 *   `[@a] [@b]` (Pandoc would read `[@a][@b]` as a reference link), `results [1]` becomes `results~\cite{a}`.
 *
 * The answer is the service's text: everything here reads it in linear time (code regions are found line by line and
 * by backtick runs, not by a pattern that tries every run length again).
 */
import type { Citation } from '../api/schemas';
import { answerMarkup } from './markup';
import { citePlaceholder } from './markupText';
import { FIT_CONTEXT, fitCitation, formatCitation, type CiteFlavour, type CiteOptions } from './syntax';

export interface AnswerOptions extends CiteOptions {
  flavour: CiteFlavour;
  /** Cite key per paper_id. */
  keys: ReadonlyMap<string, string>;
  /** Pandoc: quotes as footnotes. */
  footnotes?: boolean;
  /**
   * Footnote labels the document already uses (footnoteLabelsIn): the answer's labels avoid them, so a second
   * answer's `[^1.1]` never meets the first one's (pandoc keeps one definition per label).
   */
  footnoteLabelsInUse?: ReadonlySet<string>;
  /** Plain documents: the in-text form for a set of citations (e.g. reference.inTextCitation). */
  plain?: (citations: readonly Citation[]) => string;
  /** Line break for appended footnotes (default "\n"). */
  newline?: string;
}

export interface ConvertedAnswer {
  text: string;
  /** Keys cited, in order of first use. */
  keys: string[];
  /** Markers left as written because their citation or key is unknown ("4", "1.9"). */
  unresolved: string[];
}

const GROUP = /(\\?)\[(\d{1,4}(?:\.\d{1,4})?(?: *[,;] *\d{1,4}(?:\.\d{1,4})?)*)\](?!\()/gu;

/**
 * Code regions as sorted [start, end) offsets: fenced blocks (a line starting with ``` or ~~~ to the next line
 * starting with the same three characters, or to the end), indented blocks (lines indented by four spaces or a tab
 * after an empty line), and the inline code spans outside them (a run of backticks to the next run of the same
 * length, as CommonMark reads them). One pass over the lines, one over the backtick runs.
 */
export function codeRegions(text: string): [number, number][] {
  const blocks: [number, number][] = [];
  let fence: string | undefined;
  let open = 0;
  let indented = false;
  let previousEmpty = false;
  for (let start = 0; start < text.length;) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    const head = text.slice(start, Math.min(end, start + 4));
    if (fence !== undefined) {
      if (head.startsWith(fence)) {
        blocks.push([open, end]);
        fence = undefined;
      }
    } else if (nl >= 0 && (head.startsWith('```') || head.startsWith('~~~'))) {
      if (indented) blocks.push([open, start]);
      indented = false;
      fence = head.slice(0, 3);
      open = start;
    } else if (head.startsWith('    ') || head.startsWith('\t')) {
      if (!indented && previousEmpty) {
        indented = true;
        open = start;
      }
    } else if (indented) {
      blocks.push([open, start]);
      indented = false;
    }
    previousEmpty = end === start;
    start = end + 1;
  }
  if (fence !== undefined || indented) blocks.push([open, text.length]);

  // Backtick runs outside blocks, each with the block that follows it; a span pairs a run with the next run of the
  // same length before that block (found for every run by one pass from the end).
  const runs: { start: number; end: number; block: number }[] = [];
  let b = 0;
  for (const m of text.matchAll(/`+/gu)) {
    while (b < blocks.length && blocks[b]![1] <= m.index) b++;
    if (b < blocks.length && m.index >= blocks[b]![0]) continue;
    runs.push({ start: m.index, end: m.index + m[0].length, block: b });
  }
  const nextSame = new Array<number>(runs.length);
  const last = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    const length = runs[i]!.end - runs[i]!.start;
    nextSame[i] = last.get(length) ?? -1;
    last.set(length, i);
  }
  const regions: [number, number][] = [];
  b = 0;
  for (let i = 0; i < runs.length;) {
    const j = nextSame[i]!;
    if (j < 0 || runs[j]!.block !== runs[i]!.block) {
      i++;
      continue;
    }
    while (b < blocks.length && blocks[b]![0] < runs[i]!.start) regions.push(blocks[b++]!);
    regions.push([runs[i]!.start, runs[j]!.end]);
    i = j + 1;
  }
  while (b < blocks.length) regions.push(blocks[b++]!);
  return regions;
}

/** An `@` pandoc would read as a citation: not after a letter or digit (an e-mail address), before a key's start. */
const STRAY_CITATION = /(?<![\p{L}\p{N}_\\])@(?=[\p{L}\p{N}_{])/gu;

/**
 * The service's Markdown with every `@` pandoc would read as a citation escaped (`\@`), outside code: a title such as
 * "the @WHO guidance" in an answer is text, and as a citation it would stay unresolved in the writer's document.
 */
export function escapeStrayCitations(markdown: string): string {
  if (!markdown.includes('@')) return markdown;
  const regions = codeRegions(markdown);
  return markdown.replace(STRAY_CITATION, (at: string, offset: number) => (inRegions(regions, offset) ? at : '\\@'));
}

/** Whether `i` falls in one of the sorted `regions` (binary search). */
function inRegions(regions: readonly [number, number][], i: number): boolean {
  let lo = 0;
  let hi = regions.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [s, e] = regions[mid]!;
    if (i < s) hi = mid - 1;
    else if (i >= e) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Every footnote label a Markdown text uses (`[^label]`, references and definitions), in lower case. */
export function footnoteLabelsIn(text: string): Set<string> {
  // A label holds no white space or brackets, so every run is read once.
  return new Set([...text.matchAll(/\[\^([^\s[\]^]+)\]/gu)].map((m) => m[1]!.toLowerCase()));
}

/**
 * The prefix of an answer's footnote labels: none (`[^1.2]`) when the document uses none of the labels the answer
 * could write, else the first `a<n>-` (`[^a2-1.2]`, "answer 2") that no label of the document starts with for one of
 * the answer's markers. One pass over the labels in use.
 */
function footnotePrefix(markers: Iterable<string>, inUse: ReadonlySet<string> | undefined): string {
  if (!inUse?.size) return '';
  const own = new Set([...markers].map((m) => m.toLowerCase()));
  const blocked = new Set<number>();
  for (const label of inUse) {
    if (own.has(label)) blocked.add(1);
    const m = /^a(\d{1,9})-(.+)$/u.exec(label);
    if (m && own.has(m[2]!)) blocked.add(Number(m[1]));
  }
  let n = 1;
  while (blocked.has(n)) n++;
  return n === 1 ? '' : `a${n}-`;
}

/** A line's containers (block quotes, one list marker) and an ATX heading's opening `#` run after them. */
const ATX_HEADING = /^((?:[ \t]*>)*[ \t]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?)#{1,6}(?=[ \t]|$)/u;
const SETEXT_UNDERLINE = /^[ \t]{0,3}(?:=+|-+)[ \t]*$/u;
/** A line that opens a container or another block: a setext underline after it is not a heading's. */
const NOT_PARAGRAPH = /^[ \t]*(?:>|[-+*][ \t]|\d{1,9}[.)][ \t]|\|)/u;

/**
 * The answer's headings (`## Short answer`, `Title` over `===`) as bold paragraphs (`**Short answer**`), so that
 * inserting an answer adds no sections to the writer's document: its headings belong to the answer, not to the
 * document's outline (Quarto numbers them, lists them in the table of contents and starts slides at them). Lines in
 * code are kept; containers (`> `, `- `) stay in front; a converted heading keeps a blank line (in its container)
 * on each side, as a heading needs none to end its paragraph. One pass over the lines.
 */
export function headingsAsParagraphs(markdown: string): string {
  const regions = codeRegions(markdown);
  const lines = markdown.split('\n');
  const out: string[] = [];
  /** Where the paragraph now being copied started in `out` (-1: none open). */
  let paragraph = -1;
  let offset = 0;
  const blankIn = (prefix: string): string =>
    prefix
      .replace(/(?:[-+*]|\d{1,9}[.)])[ \t]+$/u, '')
      .replace(/[^>]/gu, ' ')
      .trimEnd();
  const separate = (prefix: string, cr: string): void => {
    const last = out[out.length - 1];
    if (last !== undefined && last.trim() !== '' && last.trim() !== '>') out.push(blankIn(prefix) + cr);
  };
  let pendingBlank: string | undefined;
  for (const raw of lines) {
    const start = offset;
    offset += raw.length + 1;
    const cr = raw.endsWith('\r') ? '\r' : '';
    const line = cr ? raw.slice(0, -1) : raw;
    if (pendingBlank !== undefined) {
      if (line.trim() !== '') out.push(pendingBlank + cr);
      pendingBlank = undefined;
    }
    if (inRegions(regions, start)) {
      paragraph = -1;
      out.push(raw);
      continue;
    }
    const atx = ATX_HEADING.exec(line);
    if (atx) {
      const prefix = atx[1]!;
      const content = atxContent(line.slice(atx[0].length));
      separate(prefix, cr);
      out.push(content ? `${prefix}${bold(content)}${cr}` : prefix.trimEnd() + cr);
      pendingBlank = blankIn(prefix);
      paragraph = -1;
      continue;
    }
    if (line.trim() === '') {
      paragraph = -1;
      out.push(raw);
      continue;
    }
    if (SETEXT_UNDERLINE.test(line) && paragraph >= 0) {
      // The paragraph above is the heading's text: bold from its first character to its last.
      const first = out[paragraph]!;
      const lead = /^[ \t]*/u.exec(first)![0];
      const lastIndex = out.length - 1;
      const mark = boldMark(out.slice(paragraph).join('\n'));
      out[paragraph] = `${lead}${mark}${first.slice(lead.length)}`;
      out[lastIndex] = `${out[lastIndex]!.replace(/\r$/u, '').trimEnd()}${mark}${cr}`;
      pendingBlank = '';
      paragraph = -1;
      continue;
    }
    if (paragraph < 0 && !NOT_PARAGRAPH.test(line)) paragraph = out.length;
    else if (NOT_PARAGRAPH.test(line)) paragraph = -1;
    out.push(raw);
  }
  return out.join('\n');
}

/** What makes text bold: `**`, or `__` for text that holds `**` (one run would close the other); nothing for both. */
const boldMark = (text: string): string => (!text.includes('**') ? '**' : !text.includes('__') ? '__' : '');
const bold = (text: string): string => `${boldMark(text)}${text}${boldMark(text)}`;

/** An ATX heading's text: without its closing `#` run (one that follows white space) and the spaces around. */
function atxContent(rest: string): string {
  let text = rest.trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  if (end === 0) return '';
  if (end < text.length && (text[end - 1] === ' ' || text[end - 1] === '\t')) text = text.slice(0, end).trimEnd();
  return text;
}

const markerKey = (item: string): string => {
  const [n, m] = item.split('.');
  return m === undefined ? String(Number(n)) : `${Number(n)}.${Number(m)}`;
};

/** Convert an answer's markers. */
export function convertAnswer(
  response: string,
  citations: readonly Citation[],
  options: AnswerOptions,
): ConvertedAnswer {
  const byN = new Map<number, Citation>();
  for (const c of citations) if (!byN.has(c.n)) byN.set(c.n, c);
  // Each quote by its marker key, the first snippet of its citation that names it (as a search per marker found it).
  const quotes = new Map<string, string | null | undefined>();
  for (const c of byN.values()) {
    for (const snip of c.snippets ?? []) {
      const key = markerKey(snip.marker.replace(/^\[|\]$/gu, ''));
      if (key.split('.')[0] === String(c.n) && !quotes.has(key)) quotes.set(key, snip.quote);
    }
  }
  const regions = codeRegions(response);
  // The same papers are cited many times: each citation is written once.
  const written = new Map<string, string>();
  const citeOptions = { ...options, locator: undefined };
  const citationOf = (list: string[]): string => {
    const id = list.join('\u0000');
    let c = written.get(id);
    if (c === undefined) written.set(id, (c = formatCitation(options.flavour, list, citeOptions)));
    return c;
  };

  const used = new Set<string>();
  const unresolved = new Set<string>();
  const footnotes: string[] = [];
  const noted = new Set<string>();
  const nl = options.newline ?? '\n';
  const useFootnotes = options.footnotes === true && options.flavour === 'pandoc';
  const prefix = useFootnotes ? footnotePrefix(quotes.keys(), options.footnoteLabelsInUse) : '';

  // The text is rebuilt piece by piece; `tail` keeps its last characters for fitCitation (the text before a citation).
  const out: string[] = [];
  let tail = '';
  const emit = (piece: string): void => {
    if (!piece) return;
    out.push(piece);
    tail = piece.length >= FIT_CONTEXT ? piece.slice(-FIT_CONTEXT) : (tail + piece).slice(-FIT_CONTEXT);
  };
  const unemit = (count: number): void => {
    tail = tail.slice(0, tail.length - count);
    for (let left = count; left > 0;) {
      const piece = out.pop()!;
      if (piece.length > left) out.push(piece.slice(0, piece.length - left));
      left -= Math.min(left, piece.length);
    }
  };
  let copied = 0;
  for (const m of response.matchAll(GROUP)) {
    const [whole, esc, body] = m;
    if (esc || inRegions(regions, m.index)) continue;
    const keys = new Set<string>();
    const cited: Citation[] = [];
    const notes: string[] = [];
    for (const item of (/[,;]/u.test(body!) ? body!.split(/ *[,;] */u) : [body!]).map(markerKey)) {
      const c = byN.get(Number(item.split('.')[0]));
      const key = c?.paper_id ? options.keys.get(c.paper_id) : undefined;
      if (!c || !key) {
        unresolved.add(item);
        continue;
      }
      const quote = item.includes('.') ? (quotes.get(item) ?? undefined) : undefined;
      if (useFootnotes && quote) {
        notes.push(`[^${prefix}${item}]`);
        if (!noted.has(item)) {
          noted.add(item);
          footnotes.push(
            `[^${prefix}${item}]: “${escapeStrayCitations(quote.replace(/\s+/gu, ' ').trim())}” ${formatCitation('pandoc', [key], options)}.`,
          );
        }
      } else if (!keys.has(key)) {
        keys.add(key);
        cited.push(c);
      }
      used.add(key);
    }
    if (!keys.size && !notes.length) continue;
    const list = [...keys];
    const cite = !list.length
      ? ''
      : options.flavour === 'plain'
        ? options.plain
          ? options.plain(cited)
          : list.join(', ')
        : citationOf(list);
    emit(response.slice(copied, m.index));
    copied = m.index + whole.length;
    let lead = '';
    let trail = '';
    if (cite && options.flavour !== 'plain') {
      const fit = fitCitation(
        options.flavour,
        cite,
        notes.length ? `${tail}[^]` : tail,
        response.slice(copied, copied + FIT_CONTEXT),
      );
      unemit(fit.remove);
      lead = fit.lead;
      trail = fit.trail;
    }
    // Footnote references first, on the word: pandoc before 3 reads `[@a][^1.2]` as a link label, not a citation.
    emit(notes.join('') + lead + cite + trail);
  }
  emit(response.slice(copied));
  const text = out.join('');
  return {
    text: footnotes.length ? `${text.trimEnd()}${nl}${nl}${footnotes.join(nl)}${nl}` : text,
    keys: [...used],
    unresolved: [...unresolved],
  };
}

export interface DocumentAnswerOptions extends Pick<CiteOptions, 'latexCommand' | 'typstForm'> {
  flavour: 'pandoc' | 'latex' | 'typst';
  /** Cite key per paper_id. */
  keys: ReadonlyMap<string, string>;
  /** Pandoc: quotes as footnotes. */
  footnotes?: boolean;
  /** The document the answer goes into (its footnote labels are avoided). */
  documentText?: string;
  /** Line break of the document (default "\n"). */
  newline?: string;
}

/**
 * What Insert Answer writes into a document, its headings as bold paragraphs in every format: for Pandoc the answer's
 * Markdown with its markers as citations (or footnotes with labels the document does not use yet); for LaTeX and
 * Typst the answer in the document's markup (markup.ts) with each marker group as one citation.
 */
export function answerForDocument(
  response: string,
  citations: readonly Citation[],
  options: DocumentAnswerOptions,
): ConvertedAnswer {
  const { flavour, keys, newline } = options;
  if (flavour === 'pandoc') {
    return convertAnswer(escapeStrayCitations(headingsAsParagraphs(response)), citations, {
      flavour,
      keys,
      footnotes: options.footnotes,
      footnoteLabelsInUse:
        options.footnotes && options.documentText ? footnoteLabelsIn(options.documentText) : undefined,
      newline,
    });
  }
  const groups: string[][] = [];
  // Headings become bold paragraphs in every format: the answer goes into the middle of the writer's document, whose
  // sections (and their numbering) are the writer's.
  const converted = convertAnswer(headingsAsParagraphs(response), citations, {
    flavour: 'plain',
    keys,
    plain: (cs) => {
      groups.push([...new Set(cs.map((c) => keys.get(c.paper_id ?? '')).filter((k): k is string => k !== undefined))]);
      return citePlaceholder(groups.length - 1);
    },
  });
  const text = answerMarkup(converted.text, flavour, {
    cite: (i) =>
      formatCitation(flavour, groups[i] ?? [], { latexCommand: options.latexCommand, typstForm: options.typstForm }),
    newline,
  });
  return { ...converted, text };
}
