/**
 * Time, injectable so tests never sleep for real. Two readings, as Go's `time.Time` carries: `now()` is
 * the wall clock, for timestamps (a log time, `config.seen`, a status field); `monotonic()` never steps,
 * for durations and due times (a retry, a resync, a deadline), which a wall clock stepped by NTP or by
 * hand would otherwise stall (stepped back) or fire early (stepped forward).
 */
export interface Clock {
  /** Wall-clock milliseconds since the epoch: for timestamps, never for measuring or scheduling. */
  now(): number;
  /**
   * Milliseconds from an arbitrary origin, never stepped and never going backwards: only differences
   * mean anything. For elapsed times and due times. `systemClock`: `performance.now()`.
   */
  monotonic(): number;
  /** Resolves after `ms`, or early (without rejecting) when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/**
 * The longest delay `setTimeout` takes (2^31 − 1 ms, ~596 hours): a longer one fires after 1 ms, with a
 * TimeoutOverflowWarning. Durations a user sets are bounded by it; timers built on a user's duration (a
 * resync at 1.5 × syncFrequency) wait in steps of it ({@link setLongTimeout}).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timer from {@link setLongTimeout}. */
export interface LongTimeout {
  clear(): void;
}

/**
 * `setTimeout` for any delay: one longer than {@link MAX_TIMER_MS} waits in steps of it, by the
 * monotonic clock (`performance.now()`), instead of firing at once.
 */
export function setLongTimeout(fn: () => void, ms: number): LongTimeout {
  const due = performance.now() + Math.max(0, ms);
  let handle: NodeJS.Timeout;
  const arm = (delay: number): void => {
    handle = setTimeout(() => {
      const left = due - performance.now();
      if (left > 0 && delay === MAX_TIMER_MS) arm(Math.min(left, MAX_TIMER_MS));
      else fn();
    }, delay);
  };
  arm(Math.min(Math.max(0, ms), MAX_TIMER_MS));
  return { clear: () => clearTimeout(handle) };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) {
        resolve();
        return;
      }
      const onAbort = (): void => {
        timer.clear();
        resolve();
      };
      const timer = setLongTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    }),
};
