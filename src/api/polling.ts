/**
 * Polling a thread until its answer is final (`Client.waitForThread`): the interval and the ceiling bounded (a
 * dispatch may come from storage rather than from the parser), a transient failure polled through, the wait
 * cancellable. Apart from client.ts, which hands it the GET.
 */
import { ApiError, isApiError, type ApiErrorKind } from './errors';
import type { Logger, WaitForThreadOptions } from './clientContract';
import type { Clock, Priority } from './scheduler';
import { defaultMaxWaitSeconds, type Thread, type ThreadDispatch } from './schemas';
import { boundedSeconds, MAX_WAIT_BOUNDS, POLL_AFTER_BOUNDS } from '../shared/timing';

/** Poll interval a caller may choose (see `WaitForThreadOptions.pollAfterSeconds`). */
const POLL_OPTION_SECONDS = { ...POLL_AFTER_BOUNDS, min: 0.1 } as const;

/** Failures that may pass: after the request's own retries, the next poll may still succeed. */
export const TRANSIENT: ReadonlySet<ApiErrorKind> = new Set(['server', 'network', 'timeout', 'rate_limited']);

export interface PollDeps {
  getThread(threadId: string, o: { signal?: AbortSignal; priority: Priority }): Promise<Thread>;
  clock: Clock;
  log: Pick<Logger, 'warn'>;
}

/** Polls `threadId` until it is not running (and, given its dispatch, shows that interaction). */
export async function waitForThread(
  deps: PollDeps,
  threadId: string,
  dispatch: ThreadDispatch | undefined,
  o: WaitForThreadOptions,
): Promise<Thread> {
  // Bounded here too: a dispatch may come from storage rather than from the parser.
  const pollAfter =
    o.pollAfterSeconds !== undefined
      ? boundedSeconds(o.pollAfterSeconds, POLL_OPTION_SECONDS)
      : boundedSeconds(dispatch?.poll_after_seconds, POLL_AFTER_BOUNDS);
  const askedMax = boundedSeconds(o.maxWaitSeconds ?? dispatch?.max_wait_seconds, {
    ...MAX_WAIT_BOUNDS,
    fallback: NaN,
  });
  let maxWait = Number.isNaN(askedMax) ? undefined : askedMax;
  const start = deps.clock.now();
  for (;;) {
    let polled: Thread | undefined;
    try {
      polled = await deps.getThread(threadId, { signal: o.signal, priority: 'background' });
    } catch (e) {
      // A transient failure (after the GET's own retries) does not end the wait; anything else does.
      if (!isApiError(e) || !TRANSIENT.has(e.kind)) throw e;
      deps.log.warn(`waitForThread ${threadId}: poll failed (${e.kind}); polling on`);
    }
    if (polled) {
      o.onUpdate?.(polled);
      // Given a dispatch, the answer is only final once the thread shows that interaction.
      const known =
        !dispatch ||
        !polled.interactions.length ||
        polled.interactions.some((i) => i.interaction_id === dispatch.interaction_id);
      if (polled.status !== 'running' && known) return polled;
      maxWait ??= defaultMaxWaitSeconds(polled.interactions.at(-1)?.mode);
    }
    const remaining = start + (maxWait ?? 600) * 1000 - deps.clock.now();
    if (remaining <= 0)
      throw new ApiError(
        'timeout',
        `Thread ${threadId} is still running after ${maxWait ?? 600} s, the suggested polling ceiling. It keeps running on the service: check it again later or open it from the threads list.`,
        { threadId },
      );
    try {
      await deps.clock.sleep(Math.min(pollAfter * 1000, remaining), o.signal);
    } catch {
      throw new ApiError(
        'aborted',
        `Waiting for thread ${threadId} was cancelled (the thread keeps running on the service).`,
        { threadId },
      );
    }
  }
}
