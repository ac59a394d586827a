/**
 * The data side of cite-key completion and hover, without vscode so plain Node tests hold it to the pure layer
 * (test/unit/citations/citeMatch.test.ts): prefix matching on key, title and authors (as entryText.ts reads them from
 * the raw fields), an index that answers bibEntry.findEntry's question (is this paper already in the bibliography?)
 * without scanning every entry per paper, and the key a paper would get (keys.ts citeKey against a prebuilt set).
 */
import { doiKey, entryDoi, findEntry, titleKey } from '../bib/bibEntry';
import type { BibEntry } from '../bib/bibFile';
import { yearOf } from '../bib/bibtex';
import { baseKey, suffix } from '../bib/keys';
import { asciiFold } from '../bib/names';
import { inSlices } from '../shared/slices';
import { rawText } from './entryText';
import { collectWords } from './latexWords';
import type { BibliographyEntry, CitePaper, LoadedBibliography } from './types';

/** Folded words (lower-case ASCII) of a text, for prefix matching. */
export function words(text: string): string[] {
  const out: string[] = [];
  collectWords(text, out);
  return out;
}

/** What matching needs of an entry or a recent paper (computed once per parsed entry / per list). */
export interface MatchInfo {
  key: string;
  title: string;
  families: readonly string[];
  /** Folded words of title and authors, computed on the first prefix that needs them. */
  words?: string[];
}

/**
 * 0: key starts with the prefix, 1: key contains it, 2: a word of the title/authors starts with it; undefined: no
 * match.
 */
export function matchRank(prefix: string, info: MatchInfo): number | undefined {
  if (!prefix) return 0;
  const p = prefix.toLowerCase();
  const k = info.key.toLowerCase();
  if (k.startsWith(p)) return 0;
  if (k.includes(p)) return 1;
  const fp = asciiFold(p).toLowerCase();
  if (!fp) return undefined;
  info.words ??= [...words(info.title), ...info.families.flatMap(words)];
  for (const w of info.words) if (w.startsWith(fp)) return 2;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Which recent papers are already in a bibliography.

/** Lookup of a document's bibliography entries by DOI and (through bibEntry.findEntry) by title and year. */
export class EntryIndex {
  private readonly byDoi = new Map<string, BibliographyEntry>();
  /** Per bibliography: `year:titleKey` of the raw title → entries (candidates for findEntry's exact check). */
  private readonly byTitle = new Map<LoadedBibliography, Map<string, BibEntry[]>>();
  private readonly byEntry = new Map<BibEntry, BibliographyEntry>();
  readonly keys = new Set<string>();

  constructor(readonly entries: readonly BibliographyEntry[]) {
    for (const e of entries) this.add(e);
  }

  /** The index of `entries`, built in slices (a 10,000-entry bibliography takes tens of milliseconds). */
  static async build(entries: readonly BibliographyEntry[]): Promise<EntryIndex> {
    const index = new EntryIndex([]);
    let i = 0;
    await inSlices((until) => {
      for (; i < entries.length; i++) {
        index.add(entries[i]!);
        if ((i & 63) === 63 && performance.now() >= until) return false;
      }
      return true;
    });
    return index;
  }

  private add(e: BibliographyEntry): void {
    const doi = entryDoi(e.entry);
    if (doi && !this.byDoi.has(doi)) this.byDoi.set(doi, e);
    this.byEntry.set(e.entry, e);
    this.keys.add(e.entry.key.toLowerCase());
    let titles = this.byTitle.get(e.bib);
    if (!titles) this.byTitle.set(e.bib, (titles = new Map<string, BibEntry[]>()));
    // What entryInfo reads of the raw fields, without decoding the rest (names, journal).
    const { entry } = e;
    const k = `${(entry.field('year') ?? entry.field('date') ?? '').trim().slice(0, 4)}:${titleKey(rawText(entry.field('title')))}`;
    const list = titles.get(k);
    if (list) list.push(e.entry);
    else titles.set(k, [e.entry]);
  }

  /**
   * The entry holding `paper` (bibEntry.findEntry's rule: DOI, else title and year that no other field contradicts);
   * needs the library.
   */
  find(paper: CitePaper): BibliographyEntry | undefined {
    const doi = doiKey(paper.doi);
    if (doi) {
      const hit = this.byDoi.get(doi);
      if (hit) return hit;
    }
    const year = yearOf(paper);
    const title = titleKey(paper.title ?? '');
    if (year === undefined || !title) return undefined;
    for (const [bib, titles] of this.byTitle) {
      // Only entries whose raw title reads the same are checked exactly (findEntry decodes them with the library).
      const candidates = titles.get(`${year}:${title}`);
      if (!candidates) continue;
      const hit = findEntry({ ...bib.file, entries: candidates }, paper);
      if (hit) return this.byEntry.get(hit);
    }
    return undefined;
  }
}

/** keys.ts citeKey against a prebuilt set of taken keys (lower case), reserving the key it returns. */
export function predictKey(paper: CitePaper, taken: Set<string>, scheme: string | undefined): string {
  const base = baseKey(paper, scheme);
  let key = base;
  for (let n = 0; taken.has(key.toLowerCase()); n++) key = base + suffix(n);
  taken.add(key.toLowerCase());
  return key;
}
