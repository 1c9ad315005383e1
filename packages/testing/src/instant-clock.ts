import type { Clock } from '@podconfig/core';

/**
 * A clock whose sleeps return at once (on the next macrotask, so I/O still progresses) and
 * advance virtual time. `sleeps` records every requested delay, so tests assert schedules
 * (backoff, periods) without waiting. Throws after `maxSleeps` to turn a runaway loop into a
 * failure instead of a hang. Sleeps and `advance()` move both readings; `stepWall()` moves only
 * the wall clock, as NTP or an operator does.
 */
export class InstantClock implements Clock {
  readonly sleeps: number[] = [];
  #now: number;
  #monotonic = 0;
  readonly #maxSleeps: number;

  constructor(options: { start?: number; maxSleeps?: number } = {}) {
    this.#now = options.start ?? Date.UTC(2026, 0, 1);
    this.#maxSleeps = options.maxSleeps ?? 1000;
  }

  now(): number {
    return this.#now;
  }

  monotonic(): number {
    return this.#monotonic;
  }

  /** Moves virtual time forward without a sleep (both readings). */
  advance(ms: number): void {
    this.#now += ms;
    this.#monotonic += ms;
  }

  /** Steps the wall clock by `ms` (negative: backwards) while no time passes: `monotonic()` stays. */
  stepWall(ms: number): void {
    this.#now += ms;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    this.sleeps.push(ms);
    if (this.sleeps.length > this.#maxSleeps) {
      return Promise.reject(new Error(`InstantClock: more than ${this.#maxSleeps} sleeps (a loop that never ends?)`));
    }
    this.#now += ms;
    this.#monotonic += ms;
    return new Promise((resolve) => setImmediate(resolve));
  }
}
