import { setLongTimeout, systemClock, type Clock, type LongTimeout } from '@podconfig/core';

/**
 * The abort reason of a cancelled timer. `abort()` without a reason builds a DOMException (with a
 * stack) each time, and the reconciler cancels a timer on every handler call (the call timeout,
 * the previous resync): a shared reason keeps that off the hot path.
 */
const CANCELLED: unknown = Object.freeze({ cancelled: true });

/** A pending callback on a {@link ClockTimers}. */
export interface Timer {
  /** The clock's `monotonic()` reading when it fires (not a wall-clock time). */
  readonly due: number;
  cancel(): void;
}

export interface ClockTimersOptions {
  readonly clock: Clock;
  /** Called when the clock's `sleep` rejects (the callback is then not run). */
  readonly onError: (err: unknown) => void;
}

/**
 * Callbacks after a delay, on the injected clock, each cancellable, all cancellable at once
 * (shutdown leaves no timer behind). Each timer has its own abort signal, so cancelling one costs
 * O(1) and no shared signal collects listeners.
 *
 * On core's `systemClock` a timer is a plain `setTimeout` (the same delay, no abort signal, promise
 * or listener): the reconciler starts and cancels two timers per handler call (the call timeout,
 * the resync), and those allocations showed in the profile. Any other clock goes through its
 * `sleep()`.
 */
export class ClockTimers {
  readonly #clock: Clock;
  readonly #onError: (err: unknown) => void;
  readonly #live = new Set<AbortController>();
  readonly #native = new Set<NativeTimer>();

  constructor(options: ClockTimersOptions) {
    this.#clock = options.clock;
    this.#onError = options.onError;
  }

  /** Timers not yet fired or cancelled. */
  get size(): number {
    return this.#live.size + this.#native.size;
  }

  after(ms: number, fn: () => void): Timer {
    if (this.#clock === systemClock) return new NativeTimer(this.#native, ms, fn);
    const controller = new AbortController();
    this.#live.add(controller);
    const cancel = (): void => {
      this.#live.delete(controller);
      controller.abort(CANCELLED);
    };
    const due = this.#clock.monotonic() + ms;
    void this.#clock.sleep(ms, controller.signal).then(
      () => {
        if (controller.signal.aborted) return;
        this.#live.delete(controller);
        fn();
      },
      (err: unknown) => {
        this.#live.delete(controller);
        if (!controller.signal.aborted) this.#onError(err);
      },
    );
    return { due, cancel };
  }

  cancelAll(): void {
    for (const controller of this.#live) controller.abort(CANCELLED);
    this.#live.clear();
    for (const timer of this.#native) timer.cancel();
  }
}

/** A {@link Timer} on the system clock: core's `setLongTimeout`, as `systemClock.sleep` uses it. */
class NativeTimer implements Timer {
  readonly due: number;
  readonly #set: Set<NativeTimer>;
  readonly #handle: LongTimeout;

  constructor(set: Set<NativeTimer>, ms: number, fn: () => void) {
    this.due = performance.now() + ms; // systemClock.monotonic()
    this.#set = set;
    set.add(this);
    this.#handle = setLongTimeout(() => {
      this.#set.delete(this);
      fn();
    }, ms);
  }

  cancel(): void {
    if (this.#set.delete(this)) this.#handle.clear();
  }
}
