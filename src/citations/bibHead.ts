/**
 * The first entries of a large local .bib read from its head alone, exactly as the whole file's parse reads them:
 * what the first list after `\cite{` shows before the file is read whole. Used by the .bib cache
 * (bibliographyCache.ts) and, before the citation bundle is loaded, by the first list's own bundle (firstList.ts): so
 * it imports nothing of writing or matching.
 */
import * as vscode from 'vscode';
import { BibParser, type BibEntry } from '../bib/bibFile';
import { decodeUtf8 } from '../bib/bibBytes';
import { regularFile } from './bibliographyFind';
import { readHead } from './fileAccess';

/** Larger .bib files are not read (nor written): 64 MB is far beyond any real bibliography. */
export const MAX_BIB_BYTES = 64 * 1024 * 1024;

/**
 * A .bib on disk at least this large (some 400 entries) gives the first list from its head: the first entries of a 6
 * MB file are listed before the file is read whole (its text would be a 12 MB string, which also sets the garbage
 * collector working), and those of a smaller one before the rest is parsed.
 */
const HEAD_FROM_BYTES = 256 * 1024;
/**
 * How much of the head is read: the first size, then the next when it does not hold enough entries (a file shorter
 * than that is read whole, and parsed only as far as the list needs). 25 entries take some 16 KB in a writer's file
 * and 40 KB in a Zotero export with abstracts; decoding a larger head than needed was a millisecond per megabyte.
 */
const HEAD_BYTES = [64 << 10, 256 << 10, 1 << 20, 4 << 20] as const;
/**
 * How many entries a list from the head holds at most. The workbench takes as long to show 50 items as 500 (measured
 * in the same window: 114–118 ms either way), but the parse's code is not optimised yet on the first list: it reads
 * every character in the interpreter, so its cost is the entries' length (in a profile of the first list, 50 entries
 * of a Zotero export with abstracts took 7 ms of the extension host's thread, a third of the provider's time). The
 * widget shows a dozen items; the list is incomplete, so the first character typed asks again, and later lists hold
 * up to 100 (completion.ts MAX_ITEMS).
 */
export const HEAD_ENTRIES = 25;

/**
 * The stat of a .bib whose first entries may come from its head: a local regular file of HEAD_FROM_BYTES to
 * MAX_BIB_BYTES that no editor has open (an open buffer may hold unsaved changes). Undefined otherwise.
 */
export async function headCandidate(uri: vscode.Uri): Promise<vscode.FileStat | undefined> {
  if (uri.scheme !== 'file') return undefined;
  const id = uri.toString();
  if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === id && !d.isClosed)) return undefined;
  const stat = await regularFile(uri);
  return stat && stat.size >= HEAD_FROM_BYTES && stat.size <= MAX_BIB_BYTES ? stat : undefined;
}

/**
 * The first `count` entries of the .bib at `uri` from its head (cut after a line break, so no character is split):
 * only entries before the head's first problem count (the entry cut at its end is one). Undefined when the head is
 * not UTF-8 or does not hold that many; the caller then reads the whole file.
 */
export async function readHeadEntries(uri: vscode.Uri, count: number): Promise<BibEntry[] | undefined> {
  for (const size of HEAD_BYTES) {
    const bytes = await readHead(uri, size);
    if (!bytes) return undefined;
    const whole = bytes.length < size;
    const cut = whole ? bytes.length : bytes.lastIndexOf(10) + 1;
    const utf8 = cut > 0 ? decodeUtf8(bytes.subarray(0, cut)) : undefined;
    if (!utf8?.ok) return undefined;
    const parser = new BibParser(utf8.text);
    parser.run(Infinity, undefined, count);
    const problem = parser.firstProblem ?? Infinity;
    const entries = parser.entries.slice(0, count);
    if (entries.length === count && entries[count - 1]!.end <= problem) return entries;
    if (whole) return undefined;
  }
  return undefined;
}
