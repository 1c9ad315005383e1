import type { Clock } from './clock.js';
import { ConfigInvalidError } from './errors.js';

/** A sequence of delays: `next()` after a failure, `reset()` after a success. */
export interface Backoff {
  next(): number;
  reset(): void;
}

export interface ExponentialBackoffOptions {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Growth per step (default 2). */
  readonly factor?: number;
  /** Each delay is `d · (1 + jitter · random())`: with jitter 1 it lies in [d, 2d) (client-go). Default 0. */
  readonly jitter?: number;
  readonly random?: () => number;
  /**
   * Decision D12: go back to `initialMs` by itself once this long has passed **without a
   * failure** (without a `next()` call), by `clock.monotonic()`. Needs `clock`. Unset: only `reset()` resets.
   */
  readonly resetAfterMs?: number;
  readonly clock?: Clock;
}

/**
 * Exponential backoff with client-go's numbers (the reflector uses
 * `{ initialMs: 800, maxMs: 30_000, jitter: 1, resetAfterMs: 120_000 }`).
 */
export function exponentialBackoff(o: ExponentialBackoffOptions): Backoff {
  validateBackoffOptions(o);
  const factor = o.factor ?? 2;
  const jitter = o.jitter ?? 0;
  const random = o.random ?? Math.random;
  let current = o.initialMs;
  let lastFailure: number | undefined;
  return {
    next() {
      if (o.resetAfterMs !== undefined && o.clock !== undefined) {
        const now = o.clock.monotonic(); // elapsed time: a wall-clock step must not reset (or keep) the backoff
        if (lastFailure !== undefined && now - lastFailure >= o.resetAfterMs) current = o.initialMs;
        lastFailure = now;
      }
      const delay = current * (1 + jitter * random());
      current = Math.min(current * factor, o.maxMs);
      return delay;
    },
    reset() {
      current = o.initialMs;
      lastFailure = undefined;
    },
  };
}

/** Throws `ConfigInvalidError` naming the option: a negative, non-finite or decreasing sequence is a caller bug. */
function validateBackoffOptions(o: ExponentialBackoffOptions): void {
  const check = (name: string, value: unknown, ok: (v: number) => boolean, what: string): void => {
    if (typeof value !== 'number' || !Number.isFinite(value) || !ok(value)) {
      throw new ConfigInvalidError(`backoff: ${name} must be ${what} (got ${String(value)})`);
    }
  };
  check('initialMs', o.initialMs, (v) => v >= 0, 'a finite number >= 0');
  check('maxMs', o.maxMs, (v) => v >= o.initialMs, 'a finite number >= initialMs');
  if (o.factor !== undefined) check('factor', o.factor, (v) => v >= 1, 'a finite number >= 1');
  if (o.jitter !== undefined) check('jitter', o.jitter, (v) => v >= 0, 'a finite number >= 0');
  if (o.resetAfterMs !== undefined) check('resetAfterMs', o.resetAfterMs, (v) => v >= 0, 'a finite number >= 0');
}
