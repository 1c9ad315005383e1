import { setLongTimeout, type Clock, type LongTimeout } from '@podconfig/core';

/**
 * Resolves `true` once `clock.monotonic()` has reached `at`, or `false` as soon as `signal` aborts (it never
 * rejects). Abort it when the wait is no longer wanted: that clears its timer and its abort listener.
 *
 * For a deadline that runs **alongside** I/O (D9's grace SET while a poll is in flight), where `clock.sleep()`
 * does not fit: a virtual clock's sleep (`InstantClock`) moves time itself, at once, so a sleep raced against a
 * request would always win, and every poll would look late. Here a timer wakes after the time the clock says
 * is left and the clock decides. On the system clock the first wake-up finds the deadline reached (another
 * absorbs timer skew). On a virtual clock the deadline is reached only when something moves that clock (a sleep
 * elsewhere, a test's `advance()`) while the I/O runs; until then the wait checks again every `at − monotonic()`
 * ms (at least 1 ms).
 */
export function whenClockReaches(clock: Clock, at: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    let timer: LongTimeout | undefined;
    const finish = (reached: boolean): void => {
      timer?.clear();
      signal.removeEventListener('abort', onAbort);
      resolve(reached);
    };
    const onAbort = (): void => finish(false);
    const check = (): void => {
      const left = at - clock.monotonic();
      if (left <= 0) finish(true);
      else timer = setLongTimeout(check, Math.max(1, Math.ceil(left)));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
