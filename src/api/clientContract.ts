/**
 * What the client offers (`Client`) and what it takes (`ClientOptions`, the per-request options), apart from how
 * client.ts does it. Types only.
 */
import type { Dispatcher } from 'undici';
import type { ListThreadsParams, SearchParams, ThreadRequest } from './params';
import type { Clock, RateLimits } from './scheduler';
import type { SearchResponse, Thread, ThreadDispatch, ThreadList } from './schemas';

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export interface ClientOptions {
  /** e.g. `https://api.consensus.app` or the emulator's URL. */
  baseUrl: string;
  /** The key, or a function read before every request (e.g. from secret storage). */
  apiKey: string | (() => Promise<string | undefined> | string | undefined);
  /** `x-api-key` (default) or `bearer` (`Authorization: Bearer`, enterprise keys). */
  authScheme?: 'x-api-key' | 'bearer';
  /** Requests per second per class (defaults 1/1/3); `Infinity` disables a class's limit. */
  rateLimits?: RateLimits;
  /** Per-attempt timeout in ms (default 30 000). */
  timeoutMs?: number;
  /** Retries for safe requests, at most 2 (default 2). */
  maxRetries?: number;
  /** Proxy URL (e.g. VS Code's `http.proxy`); without it HTTPS_PROXY/NO_PROXY are honoured. */
  proxy?: string;
  logger?: Partial<Logger>;
  /** Dispatcher to use instead of an owned one (tests); it is not closed by `close()`. */
  dispatcher?: Dispatcher;
  /**
   * Wall clock as the service sees it, used to match a thread's `last_activity_at` when a POST
   * is reconciled (2 min tolerance). Default: this machine's clock. Against an emulator whose
   * clock was moved, pass `() => emulator.control.now()`; a mismatch only makes reconciliation
   * answer "cannot tell" (never a duplicate).
   */
  now?: () => Date;
  /** Monotonic clock and sleep for rate limits, backoff and polling (tests). */
  clock?: Clock;
  /** Random source for backoff jitter (tests). */
  random?: () => number;
  userAgent?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface GetThreadOptions extends RequestOptions {
  includeTrace?: boolean;
  /** Read an earlier interaction (only the latest carries response and citations otherwise). */
  interactionId?: string;
}

export interface ListThreadsOptions extends ListThreadsParams, RequestOptions {}

export interface WaitForThreadOptions extends RequestOptions {
  /** Called with every polled thread (running ones included). */
  onUpdate?: (thread: Thread) => void;
  /**
   * Seconds between polls (default: the dispatch's value, else 30), bounded to 0.1..300: a caller
   * may poll faster than the service may ask (the poll class's 3/s limit still spaces real polls).
   */
  pollAfterSeconds?: number;
  /**
   * Give up after this many seconds (default: the dispatch's value, else 180 for pro / 600 for deep), bounded to
   * 1..3600.
   */
  maxWaitSeconds?: number;
}

export interface Client {
  search(params: SearchParams, options?: RequestOptions): Promise<SearchResponse>;
  /** @deprecated `GET /v1/quick_search` is removed on 2027-02-07; use `search`. */
  quickSearch(params: SearchParams, options?: RequestOptions): Promise<SearchResponse>;
  createThread(body: ThreadRequest, options?: RequestOptions): Promise<ThreadDispatch>;
  getThread(threadId: string, options?: GetThreadOptions): Promise<Thread>;
  addInteraction(threadId: string, body: ThreadRequest, options?: RequestOptions): Promise<ThreadDispatch>;
  listThreads(options?: ListThreadsOptions): Promise<ThreadList>;
  /** Poll until the thread is `idle` or `failed`; accepts a thread id or the dispatch response. */
  waitForThread(thread: string | ThreadDispatch, options?: WaitForThreadOptions): Promise<Thread>;
  /** Release the owned connection pool. */
  close(): Promise<void>;
}
