/**
 * Retry policy (pure): which failures may be retried, how long to wait, and how Retry-After
 * is read. A request that can spend or create something — a thread POST, or a billed search
 * (`GET /v1/search`, `/v1/quick_search`) — is retried only when it provably never reached the
 * service: a network failure before anything was sent (refused connection, no address), or the
 * per-second 429, which the service rejects before doing anything. After a 5xx, a dropped
 * connection, a truncated or unreadable body or a timeout it may already have been charged, so
 * it is not repeated (the caller says so and lets the writer decide). Free requests (polling a
 * thread, listing threads) also retry after network errors and 5xx. Never retried:
 * quota_exhausted, 401, 402, 403, 404, 409, 422, invalid responses, timeouts, aborts.
 */
import { type ApiError } from './errors';

/** What the retry decision needs to know about a request. */
export interface RetryRequest {
  method: string;
  /** A GET that is charged (a search): as careful as a POST. */
  billable?: boolean;
}

/** Hard ceiling on retries per request (the `maxRetries` option is clamped to it). */
export const MAX_RETRIES = 2;
export const RETRY_AFTER_MAX_SECONDS = 60;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;

export function shouldRetry(
  request: RetryRequest,
  error: ApiError,
  retriesSoFar: number,
  maxRetries = MAX_RETRIES,
): boolean {
  if (retriesSoFar >= Math.min(maxRetries, MAX_RETRIES)) return false;
  if (error.kind === 'rate_limited') return true;
  if (request.method !== 'GET' || request.billable) return error.kind === 'network' && !error.mayHaveTakenEffect;
  return error.kind === 'network' || error.kind === 'server';
}

/**
 * Seconds from a Retry-After header (delta-seconds or HTTP-date), or undefined when absent,
 * unparsable or outside 0..60 s (then the client's own backoff applies).
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  let seconds: number;
  if (/^\s*[-+]?\d+(\.\d+)?\s*$/.test(v)) seconds = Number(v);
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.max(0, (at - nowMs) / 1000);
  }
  return seconds >= 0 && seconds <= RETRY_AFTER_MAX_SECONDS ? seconds : undefined;
}

/**
 * Wait before retry number `retriesSoFar + 1`: Retry-After when given (and sane), otherwise
 * exponential backoff 0.5 s, 1 s, 2 s … capped at 8 s, with up to 25 % jitter taken off.
 */
export function backoffMs(
  retriesSoFar: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterSeconds !== undefined && retryAfterSeconds >= 0 && retryAfterSeconds <= RETRY_AFTER_MAX_SECONDS)
    return retryAfterSeconds * 1000;
  const base = Math.min(BASE_DELAY_MS * 2 ** retriesSoFar, MAX_DELAY_MS);
  return Math.round(base * (1 - 0.25 * random()));
}
