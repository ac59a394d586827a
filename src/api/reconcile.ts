/**
 * POST reconciliation rules (pure). After a 5xx, a dropped connection, a timeout or an unreadable
 * 2xx on a thread POST, the client compares what the service showed before sending with what it
 * shows now and decides: `found` (return what was created), `absent` (positively not created: one
 * resend is safe) or `unknown` (say so and do not resend). Only facts the spec guarantees count:
 * thread ids in the list (newest first), their interaction count and last activity, interaction
 * ids of a polled thread. A thread's title and preview are never compared with the brief: the
 * service generates them. A wrong `absent` would bill a duplicate, so every doubt is `unknown`.
 */
import { type Interaction, type Thread, type ThreadList, type ThreadSummary } from './schemas';
import { ApiError, isApiError } from './errors';

export type Outcome<T> = { kind: 'found'; value: T } | { kind: 'absent' } | { kind: 'unknown'; reason: string };

/** Allowed clock difference between this machine and the service when comparing times. */
export const CLOCK_TOLERANCE_MS = 120_000;

const time = (t: ThreadSummary): number => (t.last_activity_at ? Date.parse(t.last_activity_at) : NaN);

/**
 * Decide from the first page of the threads list read before `POST /v1/threads` (`before`) and the
 * first page read after it failed (`after`) whether the POST, sent at `sentAtMs` (service clock as
 * far as this machine knows it), created a thread:
 * - no snapshot → `unknown`;
 * - candidates are ids listed after but not before with at most one interaction (a new thread has
 *   one; a new id with more is an older thread that moved up the list); a candidate whose last
 *   activity is older than the request start minus {@link CLOCK_TOLERANCE_MS} (or, when the snapshot
 *   was only a first page, has no time) may be an older thread → `unknown`;
 * - exactly one candidate → `found` (the caller confirms it by polling: {@link confirmCreatedThread});
 *   several → `unknown` (another window or device may have created one meanwhile);
 * - none, and the after page would show a thread created by the request (no further page, or its
 *   last entry is older than the request start minus the tolerance) → `absent`; else `unknown`.
 */
export function matchCreatedThread(
  before: ThreadList | undefined,
  after: ThreadList,
  sentAtMs: number,
): Outcome<ThreadSummary> {
  if (!before) return { kind: 'unknown', reason: 'the threads list could not be read before sending' };
  const since = sentAtMs - CLOCK_TOLERANCE_MS;
  const known = new Set(before.threads.map((t) => t.thread_id));
  const candidates = new Map<string, ThreadSummary>();
  for (const t of after.threads) {
    if (known.has(t.thread_id) || candidates.has(t.thread_id) || (t.interaction_count ?? 1) > 1) continue;
    // Older activity than the request: a thread that was not visible yet, or (after a partial
    // snapshot) one that was further down. Without a time, only a complete snapshot proves it new.
    if (time(t) < since || (before.has_more && Number.isNaN(time(t))))
      return { kind: 'unknown', reason: 'a thread new to the list may be an older one' };
    candidates.set(t.thread_id, t);
  }
  if (candidates.size === 1) return { kind: 'found', value: [...candidates.values()][0]! };
  if (candidates.size > 1)
    return { kind: 'unknown', reason: `${candidates.size} new threads appeared since the list was read` };
  const last = after.threads.at(-1);
  if (!after.has_more || (last && time(last) < since)) return { kind: 'absent' };
  return { kind: 'unknown', reason: 'the first page of the threads list does not reach back to the request' };
}

/**
 * Confirm a candidate from {@link matchCreatedThread} by the polled thread: exactly one interaction,
 * and when the service shows that interaction's `input_message` (the spec does not promise it),
 * it is the message sent (leading and trailing white space aside).
 */
export function confirmCreatedThread(thread: Thread, message: string): Outcome<Interaction> {
  const ids = new Set(thread.interactions.map((i) => i.interaction_id));
  const first = thread.interactions[0];
  if (!first || ids.size !== 1)
    return { kind: 'unknown', reason: 'the new thread does not have exactly one interaction' };
  const shown = (first as { input_message?: unknown }).input_message;
  if (typeof shown === 'string' && shown.trim() !== message.trim())
    return { kind: 'unknown', reason: 'the new thread holds another message' };
  return { kind: 'found', value: first };
}

/**
 * Decide whether `POST /v1/threads/{id}/interactions` added an interaction, comparing the thread
 * polled before sending with the thread polled after the failure (ids compared as sets, so an
 * entry listed twice counts once): every earlier id still there and exactly one new id → `found`;
 * the same ids and nothing running → `absent`; anything else (no snapshot, an earlier id missing,
 * several new, running without a new id) → `unknown`.
 */
export function matchNewInteraction(before: Thread, after: Thread): Outcome<Interaction> {
  if (!before.interactions.length)
    return { kind: 'unknown', reason: 'the thread showed no interactions before sending' };
  const now = new Map(after.interactions.map((i) => [i.interaction_id, i]));
  const seen = new Set(before.interactions.map((i) => i.interaction_id));
  if ([...seen].some((id) => !now.has(id)))
    return { kind: 'unknown', reason: 'interactions shown before sending are missing now' };
  const added = [...now.values()].filter((i) => !seen.has(i.interaction_id));
  if (added.length === 1) return { kind: 'found', value: added[0]! };
  if (added.length > 1) return { kind: 'unknown', reason: `${added.length} new interactions appeared` };
  if (after.status !== 'running' && after.interactions.every((i) => i.status !== 'running')) return { kind: 'absent' };
  return { kind: 'unknown', reason: 'the thread is running without a new interaction' };
}

/** Reads done during reconciliation: an abort propagates, any other failure means "cannot tell". */
export async function tryRead<T>(read: () => Promise<T>): Promise<T | ApiError> {
  try {
    return await read();
  } catch (e) {
    if (isApiError(e) && e.kind === 'aborted') throw e;
    return isApiError(e) ? e : new ApiError('network', 'read failed');
  }
}

/** The error of a thread POST whose effect reconciliation could not establish: the writer checks before retrying. */
export function uncertain(what: string, cause: ApiError, reason: string, threadId?: string): ApiError {
  const kind =
    cause.kind === 'timeout' || cause.kind === 'server' || cause.kind === 'invalid_response' ? cause.kind : 'network';
  return new ApiError(
    kind,
    `${what} failed (${cause.message.replace(/\.$/, '')}) and the client could not tell whether it took effect (${reason}). It may have been created: check the threads list before trying again.`,
    { status: cause.status, threadId, mayHaveTakenEffect: true },
  );
}
