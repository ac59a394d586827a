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

/** The parse without its pieces, which are checked to hold exactly its text (a whole parse has none). */
export function plainFile(f: BibFile): object {
  const { pieces, ...rest } = f;
  let start = 0;
  let line = 0;
  for (const p of pieces ?? []) {
    if (p.start !== start || p.line !== line || f.text.slice(start, start + p.text.length) !== p.text)
      throw new Error(`piece at ${p.start}, line ${p.line}: not the text's`);
    start += p.text.length;
    line += p.text.split(/\r\n|\r|\n/u).length - 1;
  }
  if (pieces && start !== f.text.length) throw new Error('the pieces do not reach the end of the text');
  return { ...rest, entries: plainEntries(f.entries) };
}
