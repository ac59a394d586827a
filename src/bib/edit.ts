/** Text edits and positions shared by the pure citation code (the editor side maps them with `positionAt`). */

/** Replace `length` characters at `offset` with `text` (length 0 = insert). Offsets are UTF-16 code units. */
export interface TextEdit {
  offset: number;
  length: number;
  text: string;
}

/** Zero-based line and UTF-16 column, like `vscode.Position`. */
export interface Position {
  line: number;
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}

/**
 * Start offsets of the lines after the first, counted as VS Code counts lines: "\r\n", a lone "\r" and "\n" each end
 * one (U+2028 and U+0085 do not end a line there).
 */
function lineStarts(text: string, out: number[]): void {
  // Most files have no CR: indexOf then finds every break far faster than a loop over the characters.
  if (text.indexOf('\r') < 0) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
    return;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) out.push(i + 1);
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      out.push(i + 1);
    }
  }
}

/** Offsets → positions for one text (line starts computed once), counting lines as VS Code does. */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    lineStarts(text, this.starts);
  }
  /** Number of lines (line breaks + 1). */
  get lineCount(): number {
    return this.starts.length;
  }
  position(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo]! };
  }
  range(start: number, end: number): Range {
    return { start: this.position(start), end: this.position(end) };
  }
}

/** Number of line breaks in a text, counted as `LineIndex` counts them. */
export function countBreaks(text: string): number {
  let n = 0;
  if (text.indexOf('\r') < 0) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
    return n;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) n++;
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      n++;
    }
  }
  return n;
}

/** The file's dominant line break ("\r\n" when most breaks are CRLF; "\n" for a file without breaks). */
export function newlineOf(text: string): '\n' | '\r\n' {
  let crlf = 0;
  let all = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
    all++;
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
  }
  const lf = all - crlf;
  return crlf > lf ? '\r\n' : '\n';
}

/** Apply edits (non-overlapping, any order) to a text. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.offset - a.offset))
    out = out.slice(0, e.offset) + e.text + out.slice(e.offset + e.length);
  return out;
}
