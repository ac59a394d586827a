/**
 * POST reconciliation rules (pure). After a 5xx, a dropped connection or a timeout on a thread
 * POST, the client looks at the service to decide whether the POST took effect:
 * `found` (return what was created), `absent` (positively not created: one retry is safe) or
 * `unknown` (say so and do not retry). A wrong `absent` would create a duplicate, so every
 * doubt resolves to `unknown`.
 */
import { type Interaction, type Thread, type ThreadList, type ThreadSummary } from './schemas';

export type Outcome<T> = { kind: 'found'; value: T } | { kind: 'absent' } | { kind: 'unknown'; reason: string };

/** Allowed clock difference between this machine and the service when comparing times. */
export const CLOCK_TOLERANCE_MS = 120_000;

const norm = (s: string) => s.replace(/(…|\.\.\.)\s*$/, '').replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * Whether a list preview (or title) shows the start of `message`: after trimming a trailing
 * ellipsis and folding whitespace and case, one is a prefix of the other and the preview is at
 * least 20 characters long (or the whole message).
 */
export function previewMatches(preview: string | null | undefined, message: string): boolean {
  if (!preview) return false;
  const p = norm(preview);
  const m = norm(message);
  if (!p || p.length < Math.min(m.length, 20)) return false;
  return m.startsWith(p) || p.startsWith(m);
}

/**
 * Decide from the first page of the threads list (newest first) whether `POST /v1/threads`
 * with `message`, sent at `startedAtMs` (service clock as far as this machine knows it), created
 * a thread. The rule:
 * - a candidate is a listed thread whose preview (or, without one, its title) shows the start of
 *   the message, with at most one interaction, and last activity at or after the request start
 *   minus {@link CLOCK_TOLERANCE_MS};
 * - exactly one candidate → `found` (the caller confirms it by polling the thread);
 *   several → `unknown`;
 * - none, but some listed thread shows the same message (an older identical request, or a clock
 *   off by more than the tolerance) → `unknown`;
 * - none, but a new-looking thread (fresh, one interaction) without a preview or title to compare
 *   → `unknown` (a fresh thread whose preview shows another message is someone else's);
 * - none at all and the page reaches back past the request start (no further page, or its last
 *   entry is older than the start minus the tolerance) → `absent`; otherwise `unknown`.
 */
export function matchCreatedThread(list: ThreadList, message: string, startedAtMs: number): Outcome<ThreadSummary> {
  const since = startedAtMs - CLOCK_TOLERANCE_MS;
  const time = (t: ThreadSummary) => (t.last_activity_at ? Date.parse(t.last_activity_at) : NaN);
  const matches = list.threads.filter((t) => previewMatches(t.preview ?? t.title, message));
  const fresh = matches.filter((t) => time(t) >= since && (t.interaction_count ?? 1) <= 1);
  if (fresh.length === 1) return { kind: 'found', value: fresh[0]! };
  if (fresh.length > 1) return { kind: 'unknown', reason: `${fresh.length} recent threads start with the same message` };
  if (matches.length) return { kind: 'unknown', reason: 'a listed thread starts with the same message but is not clearly the new one' };
  if (list.threads.some((t) => !(time(t) < since) && (t.interaction_count ?? 1) <= 1 && !(t.preview ?? t.title)))
    return { kind: 'unknown', reason: 'a new thread is listed without a preview to compare' };
  const last = list.threads.at(-1);
  if (!list.has_more || (last && time(last) < since)) return { kind: 'absent' };
  return { kind: 'unknown', reason: 'the first page of the threads list does not reach back to the request' };
}

/**
 * Decide whether `POST /v1/threads/{id}/interactions` added an interaction, comparing the thread
 * polled before sending with the thread polled after the failure: exactly one new interaction id
 * → `found`; the same ids, same count and the thread not running → `absent`; anything else
 * (no snapshot, several new, ids changed, running without a new id) → `unknown`.
 */
export function matchNewInteraction(before: Thread, after: Thread): Outcome<Interaction> {
  if (!before.interactions.length) return { kind: 'unknown', reason: 'the thread showed no interactions before sending' };
  const seen = new Set(before.interactions.map((i) => i.interaction_id));
  const added = after.interactions.filter((i) => !seen.has(i.interaction_id));
  if (added.length === 1) return { kind: 'found', value: added[0]! };
  if (added.length > 1) return { kind: 'unknown', reason: `${added.length} new interactions appeared` };
  if (after.interactions.length === before.interactions.length && after.status !== 'running') return { kind: 'absent' };
  return { kind: 'unknown', reason: 'the thread changed without a clearly new interaction' };
}
