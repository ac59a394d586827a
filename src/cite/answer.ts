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
 */
import type { Citation } from '../api/schemas';
import { formatCitation, type CiteFlavour, type CiteOptions } from './syntax';

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
/** Code regions: fenced blocks, indented blocks after a blank line, inline code spans. */
const CODE = /^(```|~~~)[^\n]*\n[\s\S]*?(?:^\1[^\n]*$|(?![\s\S]))|(?:^|\n)\n((?: {4}|\t)[^\n]*(?:\n|$))+|(`+)[^`]*?\3/gmu;

const markerKey = (item: string): string => {
  const [n, m] = item.split('.');
  return m === undefined ? String(Number(n)) : `${Number(n)}.${Number(m)}`;
};

/** Convert an answer's markers. */
export function convertAnswer(response: string, citations: readonly Citation[], options: AnswerOptions): ConvertedAnswer {
  const byN = new Map<number, Citation>();
  for (const c of citations) if (!byN.has(c.n)) byN.set(c.n, c);
  const quoteOf = (key: string): string | undefined => {
    const [n] = key.split('.');
    const c = byN.get(Number(n));
    const snip = c?.snippets?.find((s) => markerKey(s.marker.replace(/^\[|\]$/gu, '')) === key);
    return snip?.quote ?? undefined;
  };
  const code: [number, number][] = [];
  for (const m of response.matchAll(CODE)) code.push([m.index, m.index + m[0].length]);
  const inCode = (i: number): boolean => code.some(([s, e]) => i >= s && i < e);

  const used: string[] = [];
  const unresolved: string[] = [];
  const footnotes: string[] = [];
  const noted = new Set<string>();
  const nl = options.newline ?? '\n';
  const useFootnotes = options.footnotes === true && options.flavour === 'pandoc';

  const text = response.replace(GROUP, (whole: string, esc: string, body: string, offset: number) => {
    if (esc || inCode(offset)) return whole;
    const items = body.split(/ *[,;] */u).map(markerKey);
    const keys: string[] = [];
    const cited: Citation[] = [];
    const notes: string[] = [];
    for (const item of items) {
      const c = byN.get(Number(item.split('.')[0]));
      const key = c?.paper_id ? options.keys.get(c.paper_id) : undefined;
      if (!c || !key) {
        if (!unresolved.includes(item)) unresolved.push(item);
        continue;
      }
      const quote = item.includes('.') ? quoteOf(item) : undefined;
      if (useFootnotes && quote) {
        notes.push(`[^${item}]`);
        if (!noted.has(item)) {
          noted.add(item);
          footnotes.push(`[^${item}]: “${quote.replace(/\s+/gu, ' ').trim()}” ${formatCitation('pandoc', [key], options)}.`);
        }
      } else if (!keys.includes(key)) {
        keys.push(key);
        cited.push(c);
      }
      if (!used.includes(key)) used.push(key);
    }
    if (!keys.length && !notes.length) return whole;
    const cite = !keys.length ? '' : options.flavour === 'plain' ? (options.plain ? options.plain(cited) : keys.join(', ')) : formatCitation(options.flavour, keys, { ...options, locator: undefined });
    return cite + notes.join('');
  });
  return {
    text: footnotes.length ? `${text.replace(/\s*$/u, '')}${nl}${nl}${footnotes.join(nl)}${nl}` : text,
    keys: used,
    unresolved,
  };
}
