/**
 * Completion's index of one parsed bibliography: each entry's key in lower case and the folded words of its title and
 * authors as one string (` w1 w2 …`), built in slices (`build(until)`) while the editor does other work, so a prefix is
 * matched against 10,000 entries with a few string searches each. The words are read from the raw fields in one pass
 * (latexWords.ts). It ranks exactly as citeMatch.matchRank does on an entry's list data (tested); the title a list
 * shows comes from citeMatch.entryTitle, decoded then, and the rest of an entry's list data on resolve. Pure.
 */
import type { BibEntry } from '../bib/bibFile';
import { asciiFold } from '../bib/names';
import { words } from './citeMatch';
import { rawFamilies, rawText } from './entryText';
import { familyWords, textWords, WordBytes } from './latexWords';

/** A typed prefix in the forms ranking compares: as typed, lower case, folded. */
export interface Prefix {
  raw: string;
  lower: string;
  folded: string;
}

export const prefixOf = (raw: string): Prefix => {
  const lower = raw.toLowerCase();
  return { raw, lower, folded: asciiFold(lower).toLowerCase() };
};

/**
 * Writes ` w1 w2 …` of an entry to `out`: the folded words of its authors' (or editors') family names, then of its
 * title, read from the raw fields in one pass (a form that pass does not read: decoded and split the long way).
 */
export function writeEntryWords(entry: BibEntry, out: WordBytes): void {
  const names = entry.field('author') ?? entry.field('editor');
  if (names && !familyWords(names, out)) for (const f of rawFamilies(names)) out.addWords(words(f));
  const title = entry.field('title');
  if (title && !textWords(title, out)) out.addWords(words(rawText(title)));
}

/** ` w1 w2 …` of an entry ('' without words). */
export function entryWords(entry: BibEntry): string {
  const out = new WordBytes();
  writeEntryWords(entry, out);
  return out.string();
}

export class CiteIndex {
  /** Scratch for the words of a slice's entries. */
  private static readonly bytes = new WordBytes();
  private keys: string[] = [];
  private words: string[] = [];

  /** `entries` may still grow (a parse in progress): `build` indexes what is there. */
  constructor(readonly entries: readonly BibEntry[]) {}

  /**
   * An index of `entries` that starts from what `old` has indexed of the entries both lists start with (the same
   * objects: a file appended to keeps its earlier entries), so a citation added to a large file indexes only its entry.
   */
  static after(old: CiteIndex | undefined, entries: readonly BibEntry[]): CiteIndex {
    const index = new CiteIndex(entries);
    if (!old) return index;
    const max = Math.min(old.indexed, entries.length);
    let same = 0;
    while (same < max && old.entries[same] === entries[same]) same++;
    index.keys = old.keys.slice(0, same);
    index.words = old.words.slice(0, same);
    return index;
  }

  /** How many entries are indexed (from the first on). */
  get indexed(): number {
    return this.words.length;
  }

  /**
   * Indexes entries until `now()` passes `until` (checked every few entries) or every entry there is indexed; returns
   * whether all are. Without arguments, indexes all.
   */
  build(until = Infinity, now: () => number = () => performance.now()): boolean {
    const { entries } = this;
    const out = CiteIndex.bytes;
    // The words of the entries of this slice are written one after the other and read back as one string, of which
    // each entry keeps its part.
    out.clear();
    const ends: number[] = [];
    const first = this.words.length;
    for (let i = first; i < entries.length; i++) {
      const e = entries[i]!;
      // The key itself when it is in lower case already (most are): not a copy of each.
      const lower = e.key.toLowerCase();
      this.keys.push(lower === e.key ? e.key : lower);
      writeEntryWords(e, out);
      ends.push(out.length);
      if ((i & 31) === 31 && until !== Infinity && now() >= until) break;
    }
    const all = out.string();
    let start = 0;
    for (const end of ends) {
      this.words.push(all.slice(start, end));
      start = end;
    }
    return this.words.length >= entries.length;
  }

  /**
   * matchRank of entry `i` (indexed): 0 when its key starts with the prefix, 1 when the key contains it, 2 when a word
   * of its title or authors starts with it (accents ignored); undefined when nothing matches.
   */
  rank(i: number, prefix: Prefix): number | undefined {
    if (!prefix.raw) return 0;
    const k = this.keys[i]!;
    if (k.startsWith(prefix.lower)) return 0;
    if (k.includes(prefix.lower)) return 1;
    if (!prefix.folded) return undefined;
    // Words are letters and digits, one space before each: a word starts with the prefix where ` prefix` occurs.
    return this.words[i]!.includes(` ${prefix.folded}`) ? 2 : undefined;
  }
}
