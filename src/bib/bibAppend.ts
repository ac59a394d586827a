/**
 * Adding entries at the end of a .bib: whether anything may be appended (`appendBlocker`: not after an entry, quoted
 * value or `@comment` a reader would read on from), the text appended (`appendText`, the file's line breaks), and the
 * one call the editor makes on insert (`ensureEntry`: the paper's entry reused, else a new key and the edit). Only the
 * end of the file is looked at or touched. Apart from the parse (bibFile.ts) and from tidying (bibTidy.ts). Pure.
 */
import { toBibtex, type BibtexOptions, type CitablePaper } from './bibtex';
import { concatBytes, decodeUtf8 } from './bibBytes';
import { findEntry } from './bibEntry';
import { entryKeys, parseBibFile, type BibFile } from './bibFile';
import { sliceText } from './textPieces';
import { newlineOf, type TextEdit } from './edit';
import { citeKey, DEFAULT_KEY_SCHEME } from './keys';

/**
 * Why nothing may be appended to a file: BibTeX would not read what comes after the first entry (or `@string`,
 * `@preamble`) that is not closed, nor Biber after an unclosed quoted value or `@comment{`, so an entry appended at
 * the end could be swallowed by it. `line` is 1-based.
 */
export interface AppendBlocker {
  reason: 'unclosed' | 'quote' | 'comment';
  line: number;
  /** The key of the entry (absent for `@string`, `@preamble`, `@comment`). */
  key?: string;
  /** One sentence for the writer (English; the editor words its own). */
  message: string;
}

/** The first problem that would make BibTeX or Biber read an appended entry as part of an earlier one, if any. */
export function appendBlocker(file: BibFile): AppendBlocker | undefined {
  const bad = file.blocker;
  if (!bad) return undefined;
  const line = bad.range.start.line + 1;
  const what = bad.key ? `Entry ${bad.key}` : 'An @string or @preamble';
  return {
    reason: bad.code === 'quote' ? 'quote' : bad.code === 'comment' ? 'comment' : 'unclosed',
    line,
    ...(bad.key ? { key: bad.key } : {}),
    message:
      bad.code === 'comment'
        ? `The @comment at line ${line} is not closed: Biber would read an entry added after it as part of it.`
        : bad.code === 'quote'
          ? `${what} (line ${line}) has a quoted value that is not closed: Biber would read an entry added after it as part of it.`
          : `${what} (line ${line}) is not closed: BibTeX would read an entry added after it as part of it.`,
  };
}

/** How many of a text's last characters appendText reads. */
const APPEND_READS = 256;

/**
 * The text appended for new entries: one blank line before them, the file's line breaks (`newline`, else the file's
 * dominant one). Looks only at the end of the text.
 */
export function appendText(text: string, entryText: string, newline: '\n' | '\r\n' = newlineOf(text)): string {
  const nl = newline;
  const body = entryText.replace(/\r\n|\r|\n/gu, nl);
  if (!text.length) return `${body}${nl}`;
  // The last line break, and whether the line before it is blank: then the file already ends with a blank line.
  const end = text.slice(-APPEND_READS);
  const last = /(?:\r\n|\r|\n)$/u.exec(end);
  const sep = !last ? nl + nl : /(?:^|\r\n|\r|\n)[ \t]*$/u.test(end.slice(0, last.index)) && last.index > 0 ? '' : nl;
  return `${sep}${body}${nl}`;
}

/** The end of the file's text: all that appendText reads of it (the rest may be unjoined pieces). */
const endOf = (file: BibFile): string =>
  sliceText(file, Math.max(0, file.text.length - APPEND_READS), file.text.length);

/** The edit appending `entryText` at the end of the file: one blank line before it, the file's line breaks kept. */
export function appendEntryEdit(text: string, entryText: string): TextEdit {
  return { offset: text.length, length: 0, text: appendText(text, entryText) };
}

export interface EnsureResult {
  key: string;
  /** True when the paper was already in the file (no edit). */
  existing: boolean;
  /** The edit adding the entry (absent when existing, or blocked). */
  edit?: TextEdit;
  /** The entry text added. */
  entryText?: string;
  /** Set (and no edit) when the file has a problem an appended entry would fall into. */
  blocked?: AppendBlocker;
}

/**
 * The one call the editor side needs on insert: reuse the paper's entry if the file has it, else choose a free key
 * and return the append edit (none when `appendBlocker` finds a reason). Needs `loadBibtexLibrary()`.
 */
export function ensureEntry(
  file: BibFile,
  paper: CitablePaper,
  options: BibtexOptions & { keyScheme?: string; reservedKeys?: Iterable<string> } = {},
): EnsureResult {
  const hit = findEntry(file, paper);
  if (hit) return { key: hit.key, existing: true };
  const key = citeKey(
    paper,
    [...entryKeys(file), ...(options.reservedKeys ?? [])],
    options.keyScheme ?? DEFAULT_KEY_SCHEME,
  );
  const entryText = toBibtex(paper, key, options);
  const blocked = appendBlocker(file);
  if (blocked) return { key, existing: false, entryText, blocked };
  return {
    key,
    existing: false,
    edit: { offset: file.text.length, length: 0, text: appendText(endOf(file), entryText, file.newline) },
    entryText,
  };
}

/** An append to a UTF-8 .bib, planned on its bytes. */
export type ByteAppend =
  | {
      ok: true;
      /** The whole file after the append: the bytes before, then the appended text in UTF-8. */
      bytes: Uint8Array;
      /** The text appended (line breaks as the file's). */
      appended: string;
      /** The parse of the file before. */
      file: BibFile;
    }
  | { ok: false; reason: 'encoding'; encoding: 'utf16' | 'invalid' }
  | { ok: false; reason: 'blocked'; blocked: AppendBlocker };

/**
 * Entries appended to UTF-8 bytes (what the editor writes for a file no editor has unsaved changes in): refused when
 * the bytes are not UTF-8 (never re-encoded) or when BibTeX would not read what is appended (`appendBlocker`).
 */
export function appendToUtf8(before: Uint8Array, entryText: string, file?: BibFile): ByteAppend {
  const read = decodeUtf8(before);
  if (!read.ok) return { ok: false, reason: 'encoding', encoding: read.reason };
  const parsed = file ?? parseBibFile(read.text);
  const blocked = appendBlocker(parsed);
  if (blocked) return { ok: false, reason: 'blocked', blocked };
  const appended = appendText(read.text, entryText, parsed.newline);
  return { ok: true, bytes: concatBytes(before, new TextEncoder().encode(appended)), appended, file: parsed };
}
