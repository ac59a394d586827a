/**
 * A parse's text kept as the strings it was read or appended as (`BibFile.pieces`), and reading a part of it from them.
 * V8 joins two strings without copying, but the first read of the joined string (a slice, a search) copies all of it:
 * for a 16 MB file of two-byte text, 32 MB allocated and first touched at once on the extension host's thread. Pure.
 */
/** A part of a parse's text held as a string of its own: `start` is its offset in the whole text, `line` its line. */
export interface TextPiece {
  start: number;
  line: number;
  text: string;
}

/** A text, whole or in pieces (a parse: `BibFile`). */
export interface PiecedText {
  /**
   * The whole text. When `pieces` is set it is their concatenation, which V8 keeps unjoined until something reads it
   * as one string (a slice, a search): read a part through the pieces instead (`pieceAt`, `sliceText`).
   */
  text: string;
  /** The text as the strings it was read or appended as, in order (absent: `text` is one string). */
  pieces?: readonly TextPiece[];
}

/** The index in `pieces` of the piece that holds `offset` (pieces in order, the first at 0). */
export function pieceIndex(pieces: readonly TextPiece[], offset: number): number {
  let lo = 0;
  let hi = pieces.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (pieces[mid]!.start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The piece of the text that holds `offset` (the whole text when it is not in pieces). */
export function pieceAt(file: PiecedText, offset: number): TextPiece {
  const pieces = file.pieces;
  return pieces?.length ? pieces[pieceIndex(pieces, offset)]! : { start: 0, line: 0, text: file.text };
}

/**
 * `file.text.slice(start, end)` (offsets from 0 to the text's length), read from the pieces that hold the range: the
 * whole text is never joined for it.
 */
export function sliceText(file: PiecedText, start: number, end: number): string {
  const pieces = file.pieces;
  if (!pieces?.length) return file.text.slice(start, end);
  let out = '';
  for (let i = pieceIndex(pieces, start); i < pieces.length && pieces[i]!.start < end; i++) {
    const piece = pieces[i]!;
    out += piece.text.slice(Math.max(0, start - piece.start), end - piece.start);
  }
  return out;
}
