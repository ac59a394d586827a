/**
 * Text from the service (titles, error messages, validation `loc`/`msg`) and from a repository's settings, made safe
 * for the places where VS Code renders more than text. Notifications and an input box's prompt or validation
 * message turn `[label](https:…|command:…|file:…)` into a clickable link (VS Code's `parseLinkedText`, matched
 * case-insensitively), so a 422 message could offer a `command:` link that runs any command; status-bar text,
 * Quick Pick labels and prompts draw `$(name)` as an icon. No `vscode` import: the unit tests hold it to that.
 *
 * Hand-written rather than taken from a Markdown escaper: these sinks are not Markdown (a backslash would show),
 * and what must not survive is exactly the two-character sequences `](` and `$(`. Every step is one pass of a
 * single character class (no nested quantifiers), so the time is linear in the length of the text.
 */

/**
 * Control characters other than whitespace, and invisible format characters (zero-width spaces and joiners,
 * bidirectional overrides and isolates, soft hyphen, BOM): removed, so that none can hide between `]` and `(`
 * from a reader while the renderer skips it, or reorder what is shown.
 */
const INVISIBLE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g;
const SPACES = /\s+/g;
/** `](` is where a Markdown-style link's target starts; `] (` is no link for VS Code or CommonMark. */
const LINK_TARGET = /\]\(/g;
/** `$(` starts an icon in labels, status-bar text and prompts. */
const ICON = /\$\(/g;
/** `<scheme:` starts an autolink for a Markdown renderer. */
const AUTOLINK = /<(?=[a-z][a-z0-9+.-]{1,31}:)/gi;

/**
 * Link, autolink and icon syntax made inert, every other character kept: `](` → `] (`, `<scheme:` → `< scheme:`,
 * `$(` → `$ (`. Each is one pass; the words stay readable. For text that keeps its length and lines (an error's
 * message and fields); `plainText` does this and more for what is shown on one line.
 */
export function defangLinks(text: string): string {
  return noIcons(text.replace(LINK_TARGET, '] (').replace(AUTOLINK, '< '));
}

/**
 * Icon syntax made inert (`$(` → `$ (`), nothing else changed: for text shown where VS Code draws `$(name)` as an
 * icon but renders no link (Quick Pick labels, descriptions and details).
 */
export function noIcons(text: string): string {
  return text.replace(ICON, '$ (');
}

/** White space at an end, two in a row, or other than a space: what oneLine changes (a test is cheaper). */
const NOT_ONE_LINE = /^\s|\s$|\s\s|[^\S ]/;

/** White space runs (line breaks included) as one space, trimmed; nothing else changed. Absent text is ''. */
export function oneLine(text: string | null | undefined): string {
  if (!text) return '';
  return NOT_ONE_LINE.test(text) ? text.replace(SPACES, ' ').trim() : text;
}

/**
 * At most `max` UTF-16 units: a longer text is cut and ends with an ellipsis (which counts), and a surrogate pair is
 * never split. `max` below 1 gives ''.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  if (!(max >= 1)) return '';
  let end = Math.floor(max) - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** The default bound: a notification shows about that much before it folds. */
export const PLAIN_TEXT_MAX = 1000;

/**
 * One line of plain text: invisible characters removed, whitespace runs (line breaks included) as one space, the
 * link and icon syntax broken (`] (`, `$ (`), at most `max` UTF-16 units (an ellipsis marks a cut; a surrogate
 * pair is never split).
 */
export function plainText(text: string | null | undefined, max = PLAIN_TEXT_MAX): string {
  if (!text) return '';
  // Only a prefix reaches the result: a prefix a little longer than the bound is read, and a longer one only while
  // white space and invisible characters shrink it below the bound, so a megabyte title costs what its start costs.
  // The result of a prefix is the whole's but near its end (a trailing space trimmed, `]` before a cut `(`, a `<` whose
  // scheme was cut), so past the bound by that reach the two clip alike.
  for (let take = 2 * max + 64; take < text.length; take *= 4) {
    const out = plainWhole(text.slice(0, take));
    if (out.length > max + PREFIX_REACH) return clip(out, max);
  }
  return clip(plainWhole(text), max);
}

/** How far from its end a prefix's result can differ from the whole's: `<` and a scheme of up to 32 characters. */
const PREFIX_REACH = 40;

const plainWhole = (text: string): string => defangLinks(oneLine(text.replace(INVISIBLE, '')));

/** An error's message (an `Error`'s, else the value as a string) as `plainText`: one line, no link or icon syntax. */
export function errorLine(err: unknown, max = PLAIN_TEXT_MAX): string {
  const message: unknown = err instanceof Error ? err.message : err;
  if (typeof message === 'string') return plainText(message, max);
  try {
    return plainText(String(message), max);
  } catch {
    // An object with no string form (no prototype, or a throwing toString).
    return plainText(Object.prototype.toString.call(message), max);
  }
}
