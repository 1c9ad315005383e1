import { linked, PodConfigError } from '@podconfig/core';
import type { ClockTimers } from './clock-timers.js';

/** How a call ended; `err` is what it threw, or a `PODCONFIG_HANDLER_TIMEOUT` error. */
export type CallResult<T> =
  | { readonly outcome: 'success'; readonly value: T }
  | { readonly outcome: 'error'; readonly err: unknown }
  | { readonly outcome: 'timeout'; readonly err: PodConfigError };

export interface CallWithTimeoutOptions {
  /** The call's signal aborts with this one (shutdown). */
  readonly parent: AbortSignal;
  readonly timers: ClockTimers;
  readonly timeoutMs: number;
  /** For the timeout error's message, e.g. `syncPod`. */
  readonly what: string;
}

/**
 * Calls `fn` with a signal of its own that aborts when `parent` does or after `timeoutMs` (on the
 * injected clock). Never rejects. On timeout it resolves at once and abandons the call: a late
 * settlement is ignored, so a handler that ignores its signal cannot hold the caller.
 */
export function callWithTimeout<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  options: CallWithTimeoutOptions,
): Promise<CallResult<T>> {
  const call = linked(options.parent);
  let promise: Promise<T>;
  try {
    // Promise.resolve: a JavaScript handler may return nothing (it did its work synchronously).
    promise = Promise.resolve(fn(call.signal));
  } catch (err: unknown) {
    call.dispose();
    return Promise.resolve({ outcome: 'error', err });
  }
  return new Promise<CallResult<T>>((resolve) => {
    const timer = options.timers.after(options.timeoutMs, () => {
      const err = new PodConfigError('PODCONFIG_HANDLER_TIMEOUT', `${options.what} did not finish within ${options.timeoutMs} ms`, {
        retryable: true,
      });
      call.abort(err);
      call.dispose();
      resolve({ outcome: 'timeout', err });
    });
    void promise.then(
      (value) => {
        timer.cancel();
        call.dispose();
        resolve({ outcome: 'success', value });
      },
      (err: unknown) => {
        timer.cancel();
        call.dispose();
        resolve({ outcome: 'error', err });
      },
    );
  });
}
