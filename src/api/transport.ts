/**
 * HTTP transport: one attempt of one request over undici `request`, through a dispatcher the
 * client owns (a `ProxyAgent` when a proxy is given; an `EnvHttpProxyAgent` honouring
 * HTTPS_PROXY/NO_PROXY when the environment names a proxy; else a plain `Agent`; or an injected
 * dispatcher); never the global dispatcher. Redirects are
 * not followed (a 3xx becomes `invalid_response`), so the key never reaches another origin.
 * Joins the caller's AbortSignal with the per-attempt timeout (the whole attempt, body included)
 * and maps failures to `aborted`, `timeout` and `network`.
 */
import { Agent, EnvHttpProxyAgent, ProxyAgent, request, type Dispatcher } from 'undici';
import { ApiError, redact } from './errors';

export interface TransportOptions {
  baseUrl: string;
  timeoutMs: number;
  proxy?: string;
  dispatcher?: Dispatcher;
  userAgent?: string;
}

export interface Attempt {
  method: 'GET' | 'POST';
  /** Path below the base URL, e.g. `/v1/search`. */
  path: string;
  /** Serialised query string without `?` (may be empty). */
  query: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Secret to scrub from anything that could reach a message. */
  secret?: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the raw text when the body is not JSON (undefined when empty). */
  body: unknown;
  /** True when the body was non-empty and not JSON. */
  notJson: boolean;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const isTimeout = (e: unknown) => typeof e === 'object' && e !== null && 'code' in e && TIMEOUT_CODES.has(String(e.code));

/** Validate and normalise a base URL: http(s), no credentials, no query, no trailing slash. */
export function normalizeBaseUrl(baseUrl: string): string {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new TypeError('baseUrl is not a valid URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new TypeError('baseUrl must use https: or http:');
  if (u.username || u.password) throw new TypeError('baseUrl must not contain credentials');
  if (u.search || u.hash) throw new TypeError('baseUrl must not contain a query or fragment');
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** Whether the environment names a proxy (then `EnvHttpProxyAgent` applies it and NO_PROXY; else a plain Agent, one hop less). */
function proxyFromEnv(): boolean {
  const e = process.env;
  return !!(e.HTTPS_PROXY || e.https_proxy || e.HTTP_PROXY || e.http_proxy);
}

export class Transport {
  readonly base: string;
  readonly origin: string;
  private readonly dispatcher: Dispatcher;
  private readonly owned: boolean;

  constructor(private readonly opts: TransportOptions) {
    this.base = normalizeBaseUrl(opts.baseUrl);
    this.origin = new URL(this.base).origin;
    this.owned = !opts.dispatcher;
    this.dispatcher = opts.dispatcher ?? (opts.proxy ? new ProxyAgent(opts.proxy) : proxyFromEnv() ? new EnvHttpProxyAgent() : new Agent());
  }

  async send(a: Attempt): Promise<RawResponse> {
    const where = `${a.method} ${a.path}`;
    // Per-attempt timeout joined with the caller's signal (a timer and a controller cost ~1 µs; no timer
    // or listener outlives the attempt).
    const ac = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort(new DOMException('The attempt timed out', 'TimeoutError'));
    }, this.opts.timeoutMs);
    const onAbort = () => ac.abort(a.signal?.reason);
    if (a.signal?.aborted) onAbort();
    else a.signal?.addEventListener('abort', onAbort, { once: true });
    const fail = (e: unknown): never => {
      const post = a.method === 'POST' ? ' It may already have taken effect: check the threads list before sending it again.' : '';
      if (a.signal?.aborted) throw new ApiError('aborted', `The request ${where} was cancelled.${post}`, { mayHaveTakenEffect: !!post });
      if (timedOut || isTimeout(e)) throw new ApiError('timeout', `No answer from the service within ${this.opts.timeoutMs < 1000 ? `${this.opts.timeoutMs} ms` : `${Math.round(this.opts.timeoutMs / 1000)} s`} (${where}).`);
      if (e instanceof ApiError) throw e;
      const code = typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : 'connection failed';
      throw new ApiError('network', redact(`Could not reach the service at ${this.origin} (${code}) for ${where}. Check the connection, proxy settings and base URL.`, a.secret));
    };
    try {
      const res = await request(`${this.base}${a.path}${a.query ? `?${a.query}` : ''}`, {
        method: a.method,
        headers: { accept: 'application/json', 'user-agent': this.opts.userAgent ?? 'research-desk', ...a.headers },
        body: a.body,
        signal: ac.signal,
        dispatcher: this.dispatcher,
      });
      if (res.statusCode >= 300 && res.statusCode < 400) {
        await res.body.dump();
        return { status: res.statusCode, headers: res.headers, body: undefined, notJson: false };
      }
      const length = Number(res.headers['content-length']);
      if (length > MAX_BODY_BYTES) {
        res.body.destroy();
        throw new ApiError('invalid_response', `The service's answer to ${where} is too large (${length} bytes).`, { status: res.statusCode });
      }
      const text = await res.body.text();
      if (text === '') return { status: res.statusCode, headers: res.headers, body: undefined, notJson: false };
      try {
        return { status: res.statusCode, headers: res.headers, body: JSON.parse(text) as unknown, notJson: false };
      } catch {
        return { status: res.statusCode, headers: res.headers, body: text, notJson: true };
      }
    } catch (e) {
      return fail(e);
    } finally {
      clearTimeout(timer);
      a.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Close the dispatcher if the client created it (an injected one is left to its owner). */
  async close(): Promise<void> {
    if (this.owned) await this.dispatcher.close();
  }
}
