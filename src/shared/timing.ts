/**
 * Waits scheduled from values the service sends (`poll_after_seconds`, `max_wait_seconds`) or that were stored from
 * them. `setTimeout` takes a signed 32-bit delay: anything above 2^31-1 ms (about 24.8 days), a NaN or a negative
 * delay fires at once, so an absurd hint would turn polling into a busy loop. Every such wait goes through
 * `boundedSeconds` first. No `vscode` import.
 */

/** The longest delay `setTimeout` honours. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Seconds between two polls of a running thread: the spec says 30. Under a second is a busy loop (the spec's unit is
 * whole seconds); past 5 minutes a pro run's whole ceiling would pass between two polls.
 */
export const POLL_AFTER_BOUNDS = { min: 1, max: 300, fallback: 30 } as const;
/**
 * How long a run is followed before "still running" is said: the spec says about 180 (pro) or 600 (deep). An hour is
 * six times the deep ceiling (a run still going then can be followed further) and far inside what a timer can hold.
 */
export const MAX_WAIT_BOUNDS = { min: 1, max: 3600, fallback: 600 } as const;

/** `value` (seconds) within [min, max]; a missing or non-finite value gives `fallback`. */
export function boundedSeconds(value: unknown, bounds: { min: number; max: number; fallback: number }): number {
  const v = typeof value === 'number' && Number.isFinite(value) ? value : bounds.fallback;
  return Math.min(Math.max(v, bounds.min), bounds.max);
}

/**
 * A delay in ms that `setTimeout` honours: 0 for NaN or negative values, at most `MAX_TIMEOUT_MS` (Infinity included).
 */
export function timeoutMs(ms: number): number {
  return Number.isNaN(ms) || ms <= 0 ? 0 : Math.min(Math.round(ms), MAX_TIMEOUT_MS);
}

/** Resolves true after `ms` (bounded by `timeoutMs`), false when `signal` aborts first. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (v: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(v);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(true), timeoutMs(ms));
    signal.addEventListener('abort', onAbort);
  });
}
