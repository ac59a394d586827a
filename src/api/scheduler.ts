/**
 * The one request scheduler: a minimum interval per rate class (search = every request that is
 * not a list or a poll, list, poll), foreground before background within a class, FIFO
 * otherwise, abortable while queued. The clock is injectable so tests can run it without
 * real waits.
 *
 * The service counts a request when it arrives, which this machine cannot see: it lies between
 * sending and receiving the answer. So the next request of a class starts at least one interval
 * after the previous one started (`acquire`) AND one interval after its answer came back
 * (`done`); only then is the published rate guaranteed at the service, even when the previous
 * request was slowed by connection setup.
 */

export type RateClass = 'search' | 'list' | 'poll';
export type Priority = 'foreground' | 'background';
/** Requests per second per class; `Infinity` (or 0/negative) disables the limit for that class. */
export type RateLimits = Partial<Record<RateClass, number>>;

/** Published limits: 1/s for search (and other requests), 1/s for listing threads, 3/s for polling. */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateClass, number>> = { search: 1, list: 1, poll: 3 };

/** Monotonic clock in milliseconds plus an abortable sleep. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const onAbort = () => {
        clearTimeout(timer);
        reject(abortReason(signal!));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}

/** Safety margin added to each interval so arrival jitter does not trip the service's own counter. */
export const INTERVAL_MARGIN_MS = 10;

interface Waiter {
  priority: Priority;
  seq: number;
  resolve: () => void;
  reject: (e: Error) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface Lane {
  intervalMs: number;
  nextAt: number;
  queue: Waiter[];
  pumping: boolean;
}

export class Scheduler {
  private readonly lanes: Record<RateClass, Lane>;
  private seq = 0;

  constructor(
    limits: RateLimits = {},
    private readonly clock: Clock = realClock,
  ) {
    const lane = (c: RateClass): Lane => {
      const rate = limits[c] ?? DEFAULT_RATE_LIMITS[c];
      const intervalMs = Number.isFinite(rate) && rate > 0 ? Math.ceil(1000 / rate) + INTERVAL_MARGIN_MS : 0;
      return { intervalMs, nextAt: -Infinity, queue: [], pumping: false };
    };
    this.lanes = { search: lane('search'), list: lane('list'), poll: lane('poll') };
  }

  /** Interval in ms enforced for a class (0 when disabled). */
  intervalOf(c: RateClass): number {
    return this.lanes[c].intervalMs;
  }

  /** Number of requests waiting in a class. */
  pending(c: RateClass): number {
    return this.lanes[c].queue.length;
  }

  /** Record that a request of this class got its answer (or failed): the next waits a full interval from now. */
  done(c: RateClass): void {
    const lane = this.lanes[c];
    if (lane.intervalMs) lane.nextAt = Math.max(lane.nextAt, this.clock.now() + lane.intervalMs);
  }

  /** Resolve when a request of this class may start; rejects with the signal's reason if aborted while queued. */
  acquire(c: RateClass, priority: Priority = 'foreground', signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const lane = this.lanes[c];
    if (lane.intervalMs === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = { priority, seq: this.seq++, resolve, reject, signal, onAbort: undefined };
      if (signal) {
        w.onAbort = () => {
          const i = lane.queue.indexOf(w);
          if (i >= 0) lane.queue.splice(i, 1);
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      // Insert keeping foreground first, FIFO within a priority.
      const rank = (x: Waiter) => (x.priority === 'foreground' ? 0 : 1);
      let i = lane.queue.length;
      while (i > 0 && rank(lane.queue[i - 1]!) > rank(w)) i--;
      lane.queue.splice(i, 0, w);
      void this.pump(lane);
    });
  }

  private async pump(lane: Lane): Promise<void> {
    if (lane.pumping) return;
    lane.pumping = true;
    try {
      while (lane.queue.length) {
        const wait = lane.nextAt - this.clock.now();
        if (wait > 0) {
          await this.clock.sleep(wait);
          continue;
        }
        const w = lane.queue.shift()!;
        if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
        lane.nextAt = this.clock.now() + lane.intervalMs;
        w.resolve();
      }
    } finally {
      lane.pumping = false;
    }
  }
}
