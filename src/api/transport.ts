/**
 * HTTP transport: one attempt of one request over undici `request`, through a dispatcher the
 * client owns (a `ProxyAgent` when a proxy is given; an `EnvHttpProxyAgent` honouring
 * HTTPS_PROXY/NO_PROXY when the environment names a proxy; else a plain `Agent`; or an injected
 * dispatcher); never the global dispatcher. Redirects are
 * not followed (a 3xx becomes `invalid_response`), so the key never reaches another origin.
 * Joins the caller's AbortSignal with the per-attempt timeout (the whole attempt, body included)
 * and maps failures to `aborted`, `timeout` and `network`.
 */
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { ApiError, redact } from './errors';

/**
 * undici, required on first use: the extension's core bundle loads it from its own file then (dist/undici.js, about
 * half the core's code), so loading the core for a command that sends nothing does not pay for it.
 */
let undici: typeof Undici | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const http = (): typeof Undici => (undici ??= require('undici') as typeof Undici);

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
  /**
   * Whether the request can spend or create something (a thread POST, a billed search): a failure
   * after it may have reached the service is then marked `mayHaveTakenEffect`.
   */
  effectful?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the raw text when the body is not JSON (undefined when empty). */
  body: unknown;
  /** True when the body was non-empty and not JSON. */
  notJson: boolean;
  /** Why the body was not read or parsed (too large, nested too deeply); `body` is then undefined. */
  unreadable?: string;
}

/** Largest body read, whether announced by Content-Length or streamed (chunked): counted as it arrives. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Deepest nesting of arrays and objects accepted in a body (the service's answers nest about 6 deep). */
export const MAX_JSON_DEPTH = 64;
/**
 * Failures that happen before any byte of the request is written (no connection, no address,
 * a refused or failed TLS handshake): the service cannot have seen the request.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_)|CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/;
const codeOf = (e: unknown): string | undefined =>
  typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
function neverSent(e: unknown): boolean {
  const code = codeOf(e);
  if (code && (NOT_SENT_CODES.has(code) || TLS_CODE.test(code))) return true;
  // Several addresses tried in turn (happy eyeballs): never sent only if none was reached.
  return e instanceof AggregateError && e.errors.length > 0 && e.errors.every(neverSent);
}

/** The characters that open or close a string, an array or an object in JSON text. */
const STRUCTURAL = /["[\]{}]/g;

/**
 * Whether JSON text nests arrays or objects deeper than `limit`. A linear scan without recursion
 * (strings skipped): JSON.parse has no depth limit, and a deeply nested value would later overflow
 * the stack of anything that walks it (join, stringify, structured clone). The scan jumps from one
 * structural character to the next and over each string to its closing quote with the engine's
 * own searches: a character-by-character loop took as long as JSON.parse of the same text.
 */
export function nestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  STRUCTURAL.lastIndex = 0;
  while (STRUCTURAL.test(text)) {
    const at = STRUCTURAL.lastIndex - 1;
    const c = text.charCodeAt(at);
    if (c === 34) {
      // The closing quote: the first one after an even run of backslashes (an odd run escapes it).
      let end = text.indexOf('"', at + 1);
      for (;;) {
        if (end < 0) return false;
        let k = end - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((end - 1 - k) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      STRUCTURAL.lastIndex = end + 1;
    } else if (c === 91 || c === 123) {
      if (++depth > limit) return true;
    } else depth--;
  }
  return false;
}
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const isTimeout = (e: unknown) =>
  typeof e === 'object' && e !== null && 'code' in e && TIMEOUT_CODES.has(String(e.code));

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

/**
 * Whether the environment names a proxy (then `EnvHttpProxyAgent` applies it and NO_PROXY; else a plain Agent, one hop
 * less).
 */
function proxyFromEnv(): boolean {
  const e = process.env;
  return !!(e.HTTPS_PROXY || e.https_proxy || e.HTTP_PROXY || e.http_proxy);
}

/**
 * Parse a body that arrived whole (decoded as UTF-8, malformed bytes replaced). Anything that goes
 * wrong here is the answer's fault, not the network's: it never surfaces as a network error
 * (which could be retried).
 */
function parse(head: Pick<RawResponse, 'status' | 'headers'>, text: string): RawResponse {
  if (text === '') return { ...head, body: undefined, notJson: false };
  if (nestsDeeper(text, MAX_JSON_DEPTH))
    return {
      ...head,
      body: undefined,
      notJson: false,
      unreadable: `nested too deeply (more than ${MAX_JSON_DEPTH} levels)`,
    };
  try {
    return { ...head, body: JSON.parse(text) as unknown, notJson: false };
  } catch {
    return { ...head, body: text, notJson: true };
  }
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
    this.dispatcher =
      opts.dispatcher ??
      (opts.proxy
        ? new (http().ProxyAgent)(opts.proxy)
        : proxyFromEnv()
          ? new (http().EnvHttpProxyAgent)()
          : new (http().Agent)());
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
    // `reached`: the service answered (headers arrived), so it saw the request whatever failed next.
    const fail = (e: unknown, reached: boolean): never => {
      const mayHaveTakenEffect = !!a.effectful && (reached || !neverSent(e));
      const post =
        a.method === 'POST' ? ' It may already have taken effect: check the threads list before sending it again.' : '';
      if (a.signal?.aborted)
        throw new ApiError('aborted', `The request ${where} was cancelled.${mayHaveTakenEffect ? post : ''}`, {
          mayHaveTakenEffect,
        });
      if (timedOut || isTimeout(e))
        throw new ApiError(
          'timeout',
          `No answer from the service within ${this.opts.timeoutMs < 1000 ? `${this.opts.timeoutMs} ms` : `${Math.round(this.opts.timeoutMs / 1000)} s`} (${where}).`,
          { mayHaveTakenEffect },
        );
      if (e instanceof ApiError) throw e;
      const code = codeOf(e) ?? 'connection failed';
      const sent = !reached && neverSent(e) ? '; nothing was sent' : '';
      throw new ApiError(
        'network',
        redact(
          `Could not reach the service at ${this.origin} (${code}) for ${where}${sent}. Check the connection, proxy settings and base URL.`,
          a.secret,
        ),
        { mayHaveTakenEffect },
      );
    };
    let res: Dispatcher.ResponseData;
    try {
      res = await http().request(`${this.base}${a.path}${a.query ? `?${a.query}` : ''}`, {
        method: a.method,
        headers: { accept: 'application/json', 'user-agent': this.opts.userAgent ?? 'research-desk', ...a.headers },
        body: a.body,
        signal: ac.signal,
        dispatcher: this.dispatcher,
      });
    } catch (e) {
      clearTimeout(timer);
      a.signal?.removeEventListener('abort', onAbort);
      return fail(e, false);
    }
    try {
      const head = { status: res.statusCode, headers: res.headers };
      if (res.statusCode >= 300 && res.statusCode < 400) {
        await res.body.dump();
        return { ...head, body: undefined, notJson: false };
      }
      const tooLarge = {
        ...head,
        body: undefined,
        notJson: false,
        unreadable: `too large (over ${MAX_BODY_BYTES / 1024 / 1024} MB)`,
      };
      const length = Number(res.headers['content-length']);
      if (length > MAX_BODY_BYTES) {
        res.body.destroy();
        return tooLarge;
      }
      // A declared length is enforced by undici (a longer body fails), so the body is read whole.
      if (Number.isInteger(length) && length >= 0) return parse(head, await res.body.text());
      // Counted as it arrives: a chunked body has no Content-Length to check first.
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          res.body.destroy();
          return tooLarge;
        }
        chunks.push(chunk);
      }
      return parse(head, new TextDecoder().decode(Buffer.concat(chunks, size)));
    } catch (e) {
      return fail(e, true);
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
