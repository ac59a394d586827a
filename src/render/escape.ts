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
  // eslint-disable-next-line no-control-regex
  let t = s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '').trim();
  if (t.length > max) t = `${t.slice(0, max - 1)}…`;
  return t === '' ? undefined : t;
}
