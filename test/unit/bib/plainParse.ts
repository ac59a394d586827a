/**
 * A parse as plain data, the entries' field values included: an entry reads them from the text when asked, so a deep
 * comparison of entries alone would not see them.
 */
import type { BibEntry, BibFile } from '../../../src/bib/bibFile';

export function plainEntry(e: BibEntry): object {
  const raw = e.raw;
  // `field` reads what `raw` holds, name by name (the last value of a name given twice).
  for (const [name, value] of Object.entries(raw))
    if (e.field(name) !== value) throw new Error(`field(${name}) of ${e.key}`);
  return { type: e.type, key: e.key, start: e.start, end: e.end, keyStart: e.keyStart, raw };
}

export const plainEntries = (entries: readonly BibEntry[]): object[] => entries.map(plainEntry);

export const plainFile = (f: BibFile): object => ({ ...f, entries: plainEntries(f.entries) });
