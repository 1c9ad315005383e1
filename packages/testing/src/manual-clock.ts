import type { Clock } from '@podconfig/core';

/**
 * A clock whose sleeps end only when the test moves time past them with `advance()` (or their signal aborts): for
 * a state that lasts until a timer fires (a handler call's retry backoff, a resync) and must be looked at meanwhile.
 * `InstantClock` ends every sleep at once instead. `advance()` moves both readings; `stepWall()` only `now()`.
 */
export class ManualClock implements Clock {
  #now: number;
  #monotonic = 0;
  readonly #sleeps = new Set<{ readonly at: number; readonly wake: () => void }>();

  constructor(options: { start?: number } = {}) {
    this.#now = options.start ?? Date.UTC(2026, 0, 1);
  }

  now(): number {
    return this.#now;
  }

  monotonic(): number {
    return this.#monotonic;
  }

  /** Sleeps not ended yet. */
  get pendingSleeps(): number {
    return this.#sleeps.size;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const sleep = {
        at: this.#monotonic + ms,
        wake: (): void => {
          this.#sleeps.delete(sleep);
          signal.removeEventListener('abort', sleep.wake);
          resolve();
        },
      };
      signal.addEventListener('abort', sleep.wake, { once: true });
      this.#sleeps.add(sleep);
    });
  }

  /** Moves both readings forward by `ms`, ending every sleep due by then. */
  advance(ms: number): void {
    this.#now += ms;
    this.#monotonic += ms;
    for (const sleep of [...this.#sleeps]) if (sleep.at <= this.#monotonic) sleep.wake();
  }

  /** Steps the wall clock by `ms` (negative: backwards) while no time passes: sleeps and `monotonic()` stay. */
  stepWall(ms: number): void {
    this.#now += ms;
  }
}
