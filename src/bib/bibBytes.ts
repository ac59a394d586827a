/**
 * A .bib file as bytes: read without changing what is read, appended to without touching a byte already there
 * (bibAppend.ts appendToUtf8 plans an append on them). The editor writes new entries this way instead of saving an
 * editor buffer, because VS Code's text model does not keep a file's bytes: opening a file turns mixed line breaks
 * (and every lone CR) into the dominant one, decodes invalid UTF-8 to U+FFFD, refuses a file with a NUL byte as
 * binary, and saving runs participants (trim trailing white space, format on save) over the whole file. Pure.
 */
const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/** How the bytes of a file decode as UTF-8. */
export type Utf8Reading = { ok: true; text: string; bom: boolean } | { ok: false; reason: 'utf16' | 'invalid' };

/** Whether the bytes start with UTF-8's byte order mark (not part of the text). */
export const hasUtf8Bom = (bytes: Uint8Array): boolean =>
  bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2];

/** The text of UTF-8 bytes (a leading BOM noted, not part of the text), or why they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): Utf8Reading {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    return { ok: false, reason: 'utf16' };
  const bom = hasUtf8Bom(bytes);
  try {
    return {
      ok: true,
      text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bom ? bytes.subarray(3) : bytes),
      bom,
    };
  } catch {
    return { ok: false, reason: 'invalid' };
  }
}

/**
 * Where to cut UTF-8 bytes (from `from`) into pieces of about `size` bytes or more, each cut just after a line break
 * that a `@` follows: where an entry usually starts, and never inside a character. The end of each piece, the last at
 * the end of the bytes.
 */
export function pieceEnds(bytes: Uint8Array, from: number, size: number): number[] {
  const ends: number[] = [];
  // Node finds the two bytes natively (in a 16 MB file); elsewhere byte by byte.
  const find =
    typeof Buffer === 'function'
      ? (at: number): number => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf('\n@', at)
      : (at: number): number => {
          for (let i = at; i + 1 < bytes.length; i++) if (bytes[i] === 0x0a && bytes[i + 1] === 0x40) return i;
          return -1;
        };
  for (let at = find(from + size); at >= 0; at = find(at + 1 + size)) ends.push(at + 1);
  ends.push(bytes.length);
  return ends;
}

/** Text for reading only (keys, hover): invalid sequences as U+FFFD, as VS Code shows them. Never for writing. */
export const decodeLossy = (bytes: Uint8Array): string =>
  new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/u, '');

/** Whether the bytes are only ASCII (every ASCII-compatible encoding reads them the same). */
export function isAscii(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b > 0x7f) return false;
  return true;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  // Node compares natively (a 16 MB file is checked before every append to it); elsewhere byte by byte.
  if (typeof Buffer === 'function')
    return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `before` followed by `tail`: every byte of `before` where it was. */
export function concatBytes(before: Uint8Array, tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(before.length + tail.length);
  out.set(before, 0);
  out.set(tail, before.length);
  return out;
}

/** The kinds of line break in a text ("\r\n", lone "\r", "\n"), counted. */
export function lineBreakKinds(text: string): { crlf: number; cr: number; lf: number } {
  let crlf = 0;
  let cr = 0;
  let lf = 0;
  if (text.indexOf('\r') < 0) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lf++;
    return { crlf, cr, lf };
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) {
        crlf++;
        i++;
      } else cr++;
    } else if (c === 10) lf++;
  }
  return { crlf, cr, lf };
}

/** Whether VS Code's editor keeps every line break of the text as it is (all one kind, and not a lone CR). */
export function editorKeepsLineBreaks(text: string): boolean {
  const k = lineBreakKinds(text);
  return k.cr === 0 && (k.crlf === 0 || k.lf === 0);
}
