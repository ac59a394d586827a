/** HTML escaping for text and double-quoted attribute values (both contexts, one function). */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const SPECIAL = /[&<>"']/;

export function escapeHtml(s: string): string {
  return SPECIAL.test(s) ? s.replace(/[&<>"']/g, (c) => ESCAPES[c]!) : s;
}

/**
 * Untrusted service text made plain: a string, with C0/C1 control characters (other than tab,
 * newline) and lone surrogates removed, trimmed and cut to `max` characters; undefined when empty.
 */
export function cleanText(s: unknown, max = 10_000): string | undefined {
  if (typeof s !== 'string') return undefined;
  let t = s
    .replace(
      // eslint-disable-next-line no-control-regex
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      '',
    )
    .trim();
  if (t.length > max) t = `${t.slice(0, max - 1)}…`;
  return t === '' ? undefined : t;
}

/**
 * How much of an answer is read as Markdown: about 15,000 words, far more than an answer holds. markdown-it reads in
 * linear time, but slowly on some hostile text (a run of `![` costs it microseconds a character) and the service may
 * send megabytes; what follows is shown as plain text, so nothing is hidden and no render takes seconds.
 */
export const MARKDOWN_LIMIT = 100_000;

/** `text` cut for Markdown reading: at the last blank line before `limit` (else at `limit`), and the rest. */
export function splitForMarkdown(text: string, limit = MARKDOWN_LIMIT): [markdown: string, rest: string] {
  if (text.length <= limit) return [text, ''];
  const blank = text.lastIndexOf('\n\n', limit);
  let at = blank > limit / 2 ? blank : limit;
  // Never between the two halves of a surrogate pair.
  const c = text.charCodeAt(at);
  if (c >= 0xdc00 && c <= 0xdfff) at--;
  return [text.slice(0, at), text.slice(at)];
}

/**
 * Plain text's paragraphs (line breaks as `\n`, split at blank lines, trimmed, empty ones dropped): what is shown past
 * the limit.
 */
export function plainParagraphs(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}
