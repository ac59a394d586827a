/**
 * Insert Answer: an agent answer's markers (`[1.2]` = quote 2 of citation 1, `[3]` = citation 3, groups `[1.1, 2]`
 * or `[1.1; 2]`, the grammar of src/render/citeMarkers.ts) turned into the document's citations, given a cite key
 * per paper_id (the editor side first ensures every cited paper has an entry: bibFile.ensureEntry). Pure.
 *
 * - One citation per group, papers de-duplicated in order: `[1.1, 1.2, 2]` → `[@a; @b]` / `\cite{a,b}` / `@a @b`.
 * - Footnotes (Pandoc only, optional): a quoted marker becomes `[^1.2]`, and a footnote `[^1.2]: "quote" [@a].`
 *   is appended, so the quote is kept and the paper still cited; bare markers stay citations.
 * - Markers inside code (fenced blocks, indented blocks, inline code) and escaped ones (`\[1]`) are left alone; a
 *   marker whose citation or key is unknown is kept as written and reported.
 * - A citation is set apart from the words around it as the format needs (syntax.ts fitCitation): `[1][2]` becomes
 *   `[@a] [@b]` (Pandoc would read `[@a][@b]` as a reference link), `results [1]` becomes `results~\cite{a}`.
 *
 * The answer is the service's text: everything here reads it in linear time (code regions are found line by line and
 * by backtick runs, not by a pattern that tries every run length again).
 */
import type { Citation } from '../api/schemas';
import { FIT_CONTEXT, fitCitation, formatCitation, type CiteFlavour, type CiteOptions } from './syntax';

export interface AnswerOptions extends CiteOptions {
  flavour: CiteFlavour;
  /** Cite key per paper_id. */
  keys: ReadonlyMap<string, string>;
  /** Pandoc: quotes as footnotes. */
  footnotes?: boolean;
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
  for (let start = 0; start < text.length; ) {
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
  for (let i = 0; i < runs.length; ) {
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

const markerKey = (item: string): string => {
  const [n, m] = item.split('.');
  return m === undefined ? String(Number(n)) : `${Number(n)}.${Number(m)}`;
};

/** Convert an answer's markers. */
export function convertAnswer(response: string, citations: readonly Citation[], options: AnswerOptions): ConvertedAnswer {
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
    for (let left = count; left > 0; ) {
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
        notes.push(`[^${item}]`);
        if (!noted.has(item)) {
          noted.add(item);
          footnotes.push(`[^${item}]: “${quote.replace(/\s+/gu, ' ').trim()}” ${formatCitation('pandoc', [key], options)}.`);
        }
      } else if (!keys.has(key)) {
        keys.add(key);
        cited.push(c);
      }
      used.add(key);
    }
    if (!keys.size && !notes.length) continue;
    const list = [...keys];
    const cite = !list.length ? '' : options.flavour === 'plain' ? (options.plain ? options.plain(cited) : list.join(', ')) : citationOf(list);
    emit(response.slice(copied, m.index));
    copied = m.index + whole.length;
    let lead = '';
    let trail = '';
    if (cite && options.flavour !== 'plain') {
      const fit = fitCitation(options.flavour, cite, notes.length ? `${tail}[^]` : tail, response.slice(copied, copied + FIT_CONTEXT));
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
