/** URL helpers with no `vscode` import. */

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
