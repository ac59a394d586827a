/**
 * The one link rule of the answer view: only absolute `https:` URLs with a host and no
 * credentials. Used by the Markdown renderer (as markdown-it's `validateLink`, whose default
 * lets `command:`, `vscode:` and `file:` through), for citation URLs, and meant to be used
 * again by the host before `env.openExternal` (a URL from the webview is never trusted).
 */

const MAX_URL_LENGTH = 2048;

/**
 * The canonical form of `url` (WHATWG serialisation) when it is an allowed link, else undefined.
 * Rejected: every scheme but `https:` (also `http:` and `mailto:`), scheme-relative and relative
 * URLs, URLs with whitespace, control characters or backslashes anywhere (the URL parser would
 * silently drop tabs and newlines: `java\tscript:`), credentials (`https://bank.com@evil.example`),
 * single-label hosts (`https://intranet/`),
 * and anything over 2,048 characters.
 */
export function safeHttpsUrl(url: unknown): string | undefined {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL_LENGTH) return undefined;
  if (!/^https:\/\//i.test(url)) return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f-\u009f\\\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f\u3000\ufeff]/.test(url)) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'https:' || u.username !== '' || u.password !== '') return undefined;
  // A public host name (with a dot) or an IPv6 literal: refuses `https://user/` left over from
  // `https://user:pass@…` by linkify, and intranet single-label names.
  if (!u.hostname.includes('.') && !u.hostname.startsWith('[')) return undefined;
  return u.href;
}

/** Whether `url` is an allowed link (see `safeHttpsUrl`). */
export function isSafeHttpsUrl(url: unknown): url is string {
  return safeHttpsUrl(url) !== undefined;
}
