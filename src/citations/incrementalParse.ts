/**
 * Re-reading a .bib after text was appended to it (what Insert Citation does) without parsing it all again: the
 * appended part is parsed alone and joined to the earlier parse, which gives exactly what `parseBibFile` gives for
 * the whole text (tested) when the earlier text ends with a line break, has no error (an unclosed entry could
 * swallow the new text), no unclosed `@comment{` (the new text could close it) and no `@` after its last entry (a
 * head the new text could complete). Keeps a 10,000-entry bibliography's second and later inserts cheap. Pure.
 *
 * An extended parse's text is the old text joined to the appended one, and nothing here reads the whole of it: what an
 * append needs (the last characters, the keys taken) is carried from parse to parse. V8 joins two strings without
 * copying them, but the first read of the joined string copies it whole (32 MB for a 16 MB file of two-byte text), and
 * that copy and its garbage were most of an insert's time.
 */
import { MAX_LISTED_DIAGNOSTICS, parseBibFile, type BibDiagnostic, type BibFile } from '../bib/bibFile';
import { pieceIndex, sliceText, type TextPiece } from '../bib/textPieces';
import { countBreaks, LineIndex, type Position, type Range } from '../bib/edit';

const lineCounts = new WeakMap<BibFile, number>();

/** How many of a text's last characters are kept with its parse: more than appendText or canAppendTo read. */
const END_LENGTH = 1024;
const ends = new WeakMap<BibFile, string>();

/** The last characters of the file's text (at most END_LENGTH), without reading the rest of it. */
export function textEnd(file: BibFile): string {
  let end = ends.get(file);
  if (end === undefined) {
    end = sliceText(file, Math.max(0, file.text.length - END_LENGTH), file.text.length);
    ends.set(file, end);
  }
  return end;
}

/**
 * The first entry's start per lower-case key of a parse (duplicates are reported against it). One map serves a chain
 * of appends: each extension takes over its parent's and adds its own keys; a parse extended a second time builds its
 * own again.
 */
const firstKeys = new WeakMap<BibFile, Map<string, number>>();

/** The lower-case keys of the file's entries, each with where its first entry starts (kept with the parse). */
export function takenKeys(file: BibFile): ReadonlyMap<string, number> {
  let map = firstKeys.get(file);
  if (!map) {
    map = takeFirstKeys(file);
    firstKeys.set(file, map);
  }
  return map;
}

/** The map of `file`, for its extension to extend: `file` no longer owns it. */
function takeFirstKeys(file: BibFile): Map<string, number> {
  const held = firstKeys.get(file);
  firstKeys.delete(file);
  if (held) return held;
  const map = new Map<string, number>();
  for (const e of file.entries) if (!map.has(e.key.toLowerCase())) map.set(e.key.toLowerCase(), e.start);
  return map;
}

/** Number of line breaks in the file's text, as VS Code counts them (memoised per parse). */
function breaks(file: BibFile): number {
  let n = lineCounts.get(file);
  if (n === undefined) {
    const last = file.pieces?.at(-1);
    n = last ? last.line + countBreaks(last.text) : countBreaks(file.text);
    lineCounts.set(file, n);
  }
  return n;
}

/** Where the last entry, directive or diagnostic of a parse ends. */
function lastItemEnd(file: BibFile): number {
  let end = 0;
  const last = <T extends { end: number }>(list: readonly T[]): void => {
    if (list.length) end = Math.max(end, list[list.length - 1]!.end);
  };
  last(file.entries);
  last(file.directives);
  for (const d of file.diagnostics) end = Math.max(end, d.end);
  return end;
}

/** Whether `text` is `file.text` with something appended that can be parsed on its own. */
export function canExtend(file: BibFile, text: string): boolean {
  return text.length > file.text.length && canAppendTo(file) && text.startsWith(file.text);
}

/** Whether text appended to `file.text` (ours: the prefix is known) can be parsed on its own. */
export function canAppendTo(file: BibFile): boolean {
  const length = file.text.length;
  if (length === 0 || file.omitted) return false;
  const end = textEnd(file);
  if (!end.endsWith('\n')) return false;
  if (file.diagnostics.some((d) => d.severity === 'error') || file.directives.some((d) => d.unclosed)) return false;
  // No `@` after the last item: looked for in the end kept with the parse when the last item ends inside it.
  const after = lastItemEnd(file);
  const endStart = length - end.length;
  if (after >= endStart) return end.indexOf('@', after - endStart) < 0;
  return file.pieces ? !sliceText(file, after, length).includes('@') : file.text.indexOf('@', after) < 0;
}

/**
 * The parse of `text` from the parse of its prefix `file.text` (check `canExtend` first). `appended`, when the caller
 * has it, is `text` after the prefix: not sliced again from a text of megabytes, and kept as a piece of the text.
 */
export function extendParse(file: BibFile, text: string, appended?: string): BibFile {
  const tail = parseBibFile(appended ?? text.slice(file.text.length));
  return joinParse(file, tail, text, appended !== undefined) ?? parseBibFile(text);
}

/**
 * The parse of `file.text + tail.text` from the parse of each (check `canAppendTo(file)` first), or undefined when
 * which problems are listed depends on the whole text (past MAX_LISTED_DIAGNOSTICS): parse the whole text then.
 * `text` is that joined text when the caller holds it already; `inPieces` keeps the result's text as the pieces it
 * was joined from (`BibFile.pieces`), so that nothing reads it whole.
 */
export function joinParse(
  file: BibFile,
  tail: BibFile,
  text = file.text + tail.text,
  inPieces = true,
): BibFile | undefined {
  const base = file.text.length;
  const lines = breaks(file);
  if (tail.omitted || file.diagnostics.length + tail.diagnostics.length > MAX_LISTED_DIAGNOSTICS) return undefined;
  const shiftRange = (r: Range): Range => ({
    start: { line: r.start.line + lines, character: r.start.character },
    end: { line: r.end.line + lines, character: r.end.character },
  });
  const entries = [...file.entries, ...tail.entries.map((e) => e.moved(base))];
  const directives = [
    ...file.directives,
    ...tail.directives.map((d) => ({ ...d, start: d.start + base, end: d.end + base })),
  ];
  const isDup = (d: BibDiagnostic): boolean => d.code === 'duplicate';
  const own: BibDiagnostic[] = tail.diagnostics
    .filter((d) => !isDup(d))
    .map((d) => ({ ...d, start: d.start + base, end: d.end + base, range: shiftRange(d.range) }));
  const pieces: TextPiece[] | undefined = inPieces
    ? [...(file.pieces ?? [{ start: 0, line: 0, text: file.text }]), { start: base, line: lines, text: tail.text }]
    : undefined;
  const position = positions(text, pieces);
  // Duplicate keys as parseBibFile reports them for the whole text: each later entry against the first with its key.
  const first = takeFirstKeys(file);
  const dups: BibDiagnostic[] = [];
  for (const e of entries.slice(file.entries.length)) {
    const k = e.key.toLowerCase();
    const at = first.get(k);
    if (at === undefined) {
      first.set(k, e.start);
      continue;
    }
    const end = e.keyStart + e.key.length;
    dups.push({
      severity: 'warning',
      code: 'duplicate',
      message: `Duplicate key ${e.key} (also at line ${position(at).line + 1}).`,
      key: e.key,
      start: e.keyStart,
      end,
      range: { start: position(e.keyStart), end: position(end) },
    });
  }
  // parseBibFile lists the structural diagnostics in text order, then the duplicate keys.
  const diagnostics = [
    ...file.diagnostics.filter((d) => !isDup(d)),
    ...own,
    ...file.diagnostics.filter(isDup),
    ...dups,
  ];
  if (diagnostics.length > MAX_LISTED_DIAGNOSTICS) return undefined;
  const joined: BibFile = {
    text,
    entries,
    directives,
    brokenKeys: [...file.brokenKeys, ...tail.brokenKeys],
    diagnostics,
    omitted: 0,
    newline: file.newline,
  };
  if (pieces) joined.pieces = pieces;
  const blocker = file.blocker ?? own.find((d) => d.code === 'unclosed' || d.code === 'quote' || d.code === 'comment');
  if (blocker) joined.blocker = blocker;
  lineCounts.set(joined, lines + breaks(tail));
  firstKeys.set(joined, first);
  const end = tail.text.length >= END_LENGTH ? tail.text : textEnd(file) + tail.text;
  ends.set(joined, end.slice(-END_LENGTH));
  return joined;
}

/** Line and column of an offset in `text`, read from the piece that holds it when the text is in pieces. */
function positions(text: string, pieces: readonly TextPiece[] | undefined): (offset: number) => Position {
  if (!pieces) {
    let index: LineIndex | undefined;
    return (offset) => (index ??= new LineIndex(text)).position(offset);
  }
  const indexes = new Map<TextPiece, LineIndex>();
  return (offset) => {
    const piece = pieces[pieceIndex(pieces, offset)]!;
    let index = indexes.get(piece);
    if (!index) indexes.set(piece, (index = new LineIndex(piece.text)));
    const at = index.position(offset - piece.start);
    return { line: piece.line + at.line, character: at.character };
  };
}
