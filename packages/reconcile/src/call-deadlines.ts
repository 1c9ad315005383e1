import { setMaxListeners } from 'node:events';
import { PodConfigError, type Clock } from '@podconfig/core';
import type { CallResult } from './call-with-timeout.js';
import type { ClockTimers, Timer } from './clock-timers.js';

export interface CallDeadlinesOptions {
  readonly timers: ClockTimers;
  readonly clock: Clock;
  /** Each call gets at least this long before its signal aborts and it is abandoned. */
  readonly timeoutMs: number;
  /** Shutdown: every call's signal aborts with it (the calls still get until their deadline). */
  readonly parent: AbortSignal;
}

/** Every successful call's result: one object, not one per call. */
const SUCCESS: CallResult<void> = Object.freeze({ outcome: 'success', value: undefined });

/** A call of a deadline; `what` names it in its timeout error. */
interface PendingCall {
  /**
   * Takes the call's outcome; cleared when the call settles or times out (a late settlement is then
   * ignored). A deadline keeps its calls until it is dropped, up to a resolution step after its first,
   * and this callback's closure holds the call's pod: a settled call must not keep it. Kept, the pods of
   * the last step's calls outlived young-generation GCs (latency-2000: 1.14 MB survived each scavenge and
   * 0.8 MB was promoted; 0.72 and 0.3 MB without).
   */
  onResult: ((result: CallResult<void>) => void) | undefined;
  readonly what: string;
}

/** One deadline shared by every call whose rounded deadline it is. */
interface Deadline {
  readonly due: number;
  /** performance.now() at creation: only calls started within one resolution step join it. */
  readonly created: number;
  readonly controller: AbortController;
  /**
   * Every call that joined it, settled or not: an array appended to, not a Set added to and deleted
   * from per call (each delete that empties a small Map or Set reallocates its table).
   */
  readonly calls: PendingCall[];
  /** Calls not settled yet. */
  unsettled: number;
  timer: Timer | undefined;
}

/**
 * The resolution of call deadlines: 1 % of the timeout, as a power of ten (60 s → 100 ms), at least
 * 1 ms and at most 1 s. Nobody can tell a 60.1 s timeout from a 60 s one; everyone can tell one
 * timer and abort signal per handler call from one per 100 ms.
 */
export function deadlineResolutionMs(timeoutMs: number): number {
  const onePercent = Math.max(1, Math.min(1000, timeoutMs / 100));
  return 10 ** Math.floor(Math.log10(onePercent));
}

/**
 * Per-call time limits for handler calls, like {@link callWithTimeout} but without an
 * `AbortController`, a parent listener and a timer per call, which were a tenth of the reconciler's
 * time per call: a call's deadline is its start plus `timeoutMs`, rounded up to
 * {@link deadlineResolutionMs}, and calls with the same deadline share one signal and one timer. A
 * call's signal therefore aborts no earlier than `timeoutMs` after it started (and at most one
 * resolution step later), or when `parent` aborts. On its deadline a call still running ends as
 * `timeout` and is abandoned: a late settlement is ignored. A deadline keeps the calls that joined
 * it (within one resolution step) until it is dropped.
 */
export class CallDeadlines {
  readonly #o: CallDeadlinesOptions;
  readonly #resolutionMs: number;
  /** Deadlines whose timer has not fired; the newest is the one new calls join. */
  readonly #live = new Set<Deadline>();
  #newest: Deadline | undefined;

  constructor(options: CallDeadlinesOptions) {
    this.#o = options;
    this.#resolutionMs = deadlineResolutionMs(options.timeoutMs);
    // One listener for every call, instead of one per call.
    options.parent.addEventListener('abort', () => {
      for (const deadline of this.#live) deadline.controller.abort(options.parent.reason);
    }, { once: true });
  }

  /**
   * Calls `fn` with the signal of its deadline and hands its outcome to `onResult`: once, never
   * synchronously, and never a rejection. A callback, not a promise: a promise to await per call cost
   * the reconciler two more promises and a closure per handler call. `what` names the call in its
   * timeout error, e.g. `h syncPod`. `onResult` must not throw.
   */
  run(fn: (signal: AbortSignal) => Promise<void>, what: string, onResult: (result: CallResult<void>) => void): void {
    const deadline = this.#deadline();
    const call: PendingCall = { onResult, what };
    deadline.calls.push(call);
    deadline.unsettled++;
    let promise: Promise<void>;
    try {
      // Promise.resolve: a JavaScript handler may return nothing (it did its work synchronously).
      promise = Promise.resolve(fn(deadline.controller.signal));
    } catch (err: unknown) {
      queueMicrotask(() => this.#settle(deadline, call, { outcome: 'error', err }));
      return;
    }
    void promise.then(
      () => this.#settle(deadline, call, SUCCESS),
      (err: unknown) => this.#settle(deadline, call, { outcome: 'error', err }),
    );
  }

  #settle(deadline: Deadline, call: PendingCall, result: CallResult<void>): void {
    const onResult = call.onResult;
    if (onResult === undefined) return; // timed out: abandoned
    call.onResult = undefined;
    deadline.unsettled--;
    this.#release(deadline);
    onResult(result);
  }

  #deadline(): Deadline {
    const step = this.#resolutionMs;
    const due = Math.ceil((this.#o.clock.monotonic() + this.#o.timeoutMs) / step) * step;
    const newest = this.#newest;
    const now = performance.now();
    // Real time, whatever the injected clock says: a clock that stands still while real time passes
    // must not add a call to a deadline whose timer (relative) was set long ago and would cut it short.
    if (newest !== undefined && newest.due === due && now - newest.created < step) return newest;
    const deadline: Deadline = { due, created: now, controller: new AbortController(), calls: [], unsettled: 0, timer: undefined };
    // Calls in flight share the signal, and each may listen to it (undici does): no leak warning at 11.
    setMaxListeners(0, deadline.controller.signal);
    if (this.#o.parent.aborted) deadline.controller.abort(this.#o.parent.reason);
    deadline.timer = this.#o.timers.after(due - this.#o.clock.monotonic(), () => this.#expire(deadline));
    this.#live.add(deadline);
    this.#newest = deadline;
    if (newest !== undefined && newest.unsettled === 0) this.#drop(newest);
    return deadline;
  }

  /** A call of `deadline` settled: a deadline no call is waiting for and none will join is dropped. */
  #release(deadline: Deadline): void {
    if (deadline.unsettled === 0 && deadline !== this.#newest) this.#drop(deadline);
  }

  #drop(deadline: Deadline): void {
    deadline.timer?.cancel();
    this.#live.delete(deadline);
  }

  #expire(deadline: Deadline): void {
    this.#live.delete(deadline);
    if (this.#newest === deadline) this.#newest = undefined;
    const timeoutMs = this.#o.timeoutMs;
    deadline.controller.abort(new PodConfigError('PODCONFIG_HANDLER_TIMEOUT', `handler call did not finish within ${timeoutMs} ms`, { retryable: true }));
    deadline.unsettled = 0;
    for (const call of deadline.calls) {
      const onResult = call.onResult;
      if (onResult === undefined) continue;
      call.onResult = undefined;
      onResult({
        outcome: 'timeout',
        err: new PodConfigError('PODCONFIG_HANDLER_TIMEOUT', `${call.what} did not finish within ${timeoutMs} ms`, { retryable: true }),
      });
    }
  }
}
