/**
 * URL helpers with no `vscode` import, so both bundles and the pure layer may use them: the service address rules
 * (loopback, base URL) and the one link rule of the whole extension (`checkHttpsUrl`), which every link shown or
 * opened passes: Open Paper, Open DOI, the results view's tooltips, the answer view and its references, the
 * citation hovers and links, Open Thread in Browser.
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** True for `http://127.0.0.1…`, `http://localhost…` and `http://[::1]…` only. */
export function isLoopbackHttpUrl(value: string): boolean {
  const url = parseUrl(value);
  return url !== undefined && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** An http(s) URL with no credentials, query or fragment; undefined otherwise. */
export function parseServiceUrl(value: string): URL | undefined {
  const url = parseUrl(value.trim());
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return undefined;
  if (url.username || url.password || url.search || url.hash) return undefined;
  return url;
}

/** The base URL without a trailing slash, as shown to people and passed to the client. */
export function normalizeBaseUrl(value: string): string {
  return value.trim().replace(/\/+$/, '');
}

export function originOf(value: string): string | undefined {
  return parseUrl(value)?.origin;
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------------ the one link rule

/** Longest link accepted, as written and as opened. */
export const MAX_LINK_LENGTH = 2048;

/** Why a link was refused, so a caller can say it in one sentence. */
export type LinkRefusal = 'missing' | 'tooLong' | 'notHttps' | 'characters' | 'malformed' | 'credentials' | 'host';

export type LinkCheck = { ok: true; url: string } | { ok: false; refusal: LinkRefusal };

/**
 * Whitespace, control and format characters (zero-width, bidi overrides and isolates, soft hyphen, BOM), lone
 * surrogates, private-use characters, and the backslash: the URL parser would silently drop tabs and newlines
 * (`java\tscript:`) or read `\` as `/`, and the invisible ones make a link read as another.
 */
const UNSEEN_OR_AMBIGUOUS = /[\p{Cc}\p{Cf}\p{Z}\p{Cs}\p{Co}\\]/u;

/**
 * The one link rule: an absolute `https://` URL with a host name that has a dot (or an IPv6 literal), no
 * credentials, no whitespace, control, invisible characters or backslashes anywhere, at most 2,048 characters.
 * Accepted, it gives the canonical form (WHATWG serialisation: host lower-cased, an IDN in punycode, the default
 * port dropped), which is what is opened or linked, never the text as written.
 *
 * Refused: every scheme but `https:` (`http:`, `javascript:`, `command:`, `vscode:`, `file:`, `mailto:`, `data:`),
 * entity- or percent-encoded schemes (`&#106;avascript:`, `%68ttps://`), scheme-relative, relative and
 * slash-less URLs (`https:x.org`), leading or trailing whitespace (trim service text before, if wanted),
 * any `@` before the host (`https://bank.example@evil.example`, `https://@x.org`), single-label hosts
 * (`https://intranet/`, `https://user/` left over from `https://user:pass@…` by a linkifier), and what the URL
 * parser refuses (a port over 65535, a malformed host).
 */
export function checkHttpsUrl(url: unknown): LinkCheck {
  if (typeof url !== 'string' || url.length === 0) return { ok: false, refusal: 'missing' };
  if (url.length > MAX_LINK_LENGTH) return { ok: false, refusal: 'tooLong' };
  if (!/^https:\/\//i.test(url)) return { ok: false, refusal: 'notHttps' };
  if (UNSEEN_OR_AMBIGUOUS.test(url)) return { ok: false, refusal: 'characters' };
  // The authority as written (no backslash is left, so it ends at the first / ? or #): an `@` in it is userinfo,
  // even an empty one the parser would drop.
  if (url.slice('https://'.length).split(/[/?#]/, 1)[0]!.includes('@')) return { ok: false, refusal: 'credentials' };
  const u = parseUrl(url);
  if (!u || u.protocol !== 'https:') return { ok: false, refusal: 'malformed' };
  if (u.username !== '' || u.password !== '') return { ok: false, refusal: 'credentials' };
  if (!u.hostname.includes('.') && !u.hostname.startsWith('[')) return { ok: false, refusal: 'host' };
  if (u.href.length > MAX_LINK_LENGTH) return { ok: false, refusal: 'tooLong' };
  return { ok: true, url: u.href };
}

/** The canonical form of `url` when the link rule allows it (see `checkHttpsUrl`), else undefined. */
export function safeHttpsUrl(url: unknown): string | undefined {
  const check = checkHttpsUrl(url);
  return check.ok ? check.url : undefined;
}

/** Whether `url` is an allowed link (see `checkHttpsUrl`). */
export function isSafeHttpsUrl(url: unknown): url is string {
  return checkHttpsUrl(url).ok;
}
