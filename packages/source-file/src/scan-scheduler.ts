import { linked, type Clock, type LinkedSignal } from '@podconfig/core';

export interface ScanSchedulerOptions {
  readonly clock: Clock;
  /** Fixed-rate period of the safety-net re-scan (the kubelet's `fileCheckFrequency` ticker). */
  readonly periodMs: number;
  /** Quiet period after the last filesystem event before the re-scan (D3). */
  readonly debounceMs: number;
  /** Under a continuous stream of events, re-scan at least this often. */
  readonly maxDebounceMs: number;
}

/** Why the next scan runs. */
export type ScanReason = 'change' | 'period' | 'timer';

/**
 * Decides when the file source scans next: after a debounced filesystem event, at the next tick of
 * a fixed-rate ticker (ticks a slow consumer missed are dropped, as with Go's `time.Ticker`), or
 * at a requested time (re-arming a failed watch). Event callbacks only call {@link touch}.
 */
export class ScanScheduler {
  readonly #o: ScanSchedulerOptions;
  #nextTick: number;
  #timerAt: number | undefined;
  #dirty = false;
  #wake: LinkedSignal | undefined;

  /**
   * The first tick is one period after `start` (the caller scans once at `start` itself). Times are
   * `clock.monotonic()` readings: a wall-clock step neither stalls nor hurries a tick, a requested time or the
   * debounce.
   */
  constructor(options: ScanSchedulerOptions, start: number) {
    this.#o = options;
    this.#nextTick = start + options.periodMs;
  }

  /** Something changed on disk: scan once things have been quiet for `debounceMs`. */
  touch(): void {
    this.#dirty = true;
    this.#wake?.abort();
  }

  /** Also return from {@link next} at `at`, a `clock.monotonic()` reading (or no longer, with `undefined`). */
  wakeAt(at: number | undefined): void {
    this.#timerAt = at;
    this.#wake?.abort();
  }

  /** Waits for the next reason to scan; `undefined` when `signal` aborted. */
  async next(signal: AbortSignal): Promise<ScanReason | undefined> {
    const { clock, periodMs } = this.#o;
    for (;;) {
      if (signal.aborted) return undefined;
      if (this.#dirty) {
        await this.#quiet(signal);
        return signal.aborted ? undefined : 'change';
      }
      const now = clock.monotonic();
      if (now >= this.#nextTick) {
        // The next tick after now, on the period's grid (ticks missed while a scan ran are not made up), in one step:
        // a loop would take as many turns as ticks were missed.
        this.#nextTick += (Math.floor((now - this.#nextTick) / periodMs) + 1) * periodMs;
        if (this.#nextTick <= now) this.#nextTick = now + periodMs; // rounding at a tiny period
        return 'period';
      }
      if (this.#timerAt !== undefined && now >= this.#timerAt) {
        this.#timerAt = undefined;
        return 'timer';
      }
      await this.#sleep(Math.min(this.#nextTick, this.#timerAt ?? Infinity) - now, signal);
    }
  }

  async #quiet(signal: AbortSignal): Promise<void> {
    const { clock, debounceMs, maxDebounceMs } = this.#o;
    const start = clock.monotonic();
    do {
      this.#dirty = false;
      await this.#sleep(debounceMs, signal);
    } while (this.#dirty && !signal.aborted && clock.monotonic() - start < maxDebounceMs);
    // Events up to here are covered by the scan that follows; later ones set the flag again.
    this.#dirty = false;
  }

  async #sleep(ms: number, signal: AbortSignal): Promise<void> {
    const wake = linked(signal);
    this.#wake = wake;
    try {
      await this.#o.clock.sleep(ms, wake.signal);
    } finally {
      wake.dispose();
      if (this.#wake === wake) this.#wake = undefined;
    }
  }
}
