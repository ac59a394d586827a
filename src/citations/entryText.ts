/**
 * What a list shows of a .bib entry, read from its raw fields (display.ts's approximation: decoding 10,000 entries
 * with the BibTeX library would take seconds; the exact form comes on resolve): its title, authors' family names, year
 * and journal, and the byline made of them. No vscode and nothing of matching or writing, so the first list's bundle
 * (headList.ts) carries it alone.
 */
import type { BibEntry } from '../bib/bibFile';
import { displayLatex } from './display';

/**
 * A readable form of a raw BibTeX value for lists (display.ts, shared with the Quick Pick; approximate: the exact one
 * needs the library).
 */
export function rawText(raw: string | undefined): string {
  return raw ? displayLatex(raw) : '';
}

/** Family names of a raw `author` field ("Last, First and First Last"). */
export function rawFamilies(raw: string | undefined): string[] {
  const text = rawText(raw);
  if (!text) return [];
  const out: string[] = [];
  for (const a of text.split(/\s+and\s+/u)) {
    // "Last, First": before the comma; "First Last": after the last space.
    const comma = a.indexOf(',');
    const family = (comma >= 0 ? a.slice(0, comma) : a.slice(a.lastIndexOf(' ') + 1)).trim();
    if (family) out.push(family);
  }
  return out;
}

/** An entry's list data from its raw fields (what citeMatch.matchRank reads of it, and the rest of its byline). */
export interface EntryInfo {
  key: string;
  title: string;
  families: readonly string[];
  /** Folded words of title and authors, computed on the first prefix that needs them (citeMatch.matchRank). */
  words?: string[];
  year: string;
  journal: string;
}
const entryInfos = new WeakMap<BibEntry, EntryInfo>();
export function entryInfo(entry: BibEntry): EntryInfo {
  let info = entryInfos.get(entry);
  if (!info) {
    const raw = entry.raw;
    info = {
      key: entry.key,
      title: entryTitle(entry),
      families: rawFamilies(raw['author'] ?? raw['editor']),
      year: (raw['year'] ?? raw['date'] ?? '').trim().slice(0, 4),
      journal: rawText(raw['journal'] ?? raw['journaltitle'] ?? raw['booktitle']),
    };
    entryInfos.set(entry, info);
  }
  return info;
}

/** An entry's title from its raw field (all a list shows of it: the rest of entryInfo is read on resolve). */
const entryTitles = new WeakMap<BibEntry, string>();
export function entryTitle(entry: BibEntry): string {
  let title = entryTitles.get(entry);
  if (title === undefined) entryTitles.set(entry, (title = rawText(entry.field('title'))));
  return title;
}

/** Up to six authors then "et al.". */
export function shortAuthors(authors: readonly string[]): string {
  return authors.length > 6 ? `${authors.slice(0, 6).join(', ')}, et al.` : authors.join(', ');
}

/** "authors · year · journal", skipping what is unknown. */
export function byline(
  authors: readonly string[],
  year: string | number | undefined | null,
  journal: string | undefined | null,
): string {
  return [shortAuthors(authors), year ? String(year) : '', journal ?? ''].filter(Boolean).join(' · ');
}
