import { ConfigInvalidError, MAX_TIMER_MS } from '@podconfig/core';

/**
 * Checks of a handler class's constructor options (what a library caller passes to `new`; the
 * factories validate the agent's text options first). Each failure is a {@link ConfigInvalidError}
 * naming the handler and the option, never quoting a value (values can be secrets).
 */
export function invalidOption(handler: string, key: string, problem: string): ConfigInvalidError {
  return new ConfigInvalidError(`handler "${handler}": option "${key}" ${problem}`);
}

/** A timeout or grace period: a finite number of milliseconds in (0, MAX_TIMER_MS], or absent for `defaultMs`. */
export function positiveMs(handler: string, key: string, value: unknown, defaultMs: number): number {
  if (value === undefined) return defaultMs;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw invalidOption(handler, key, `must be a positive number of milliseconds, at most ${MAX_TIMER_MS}`);
  }
  return value;
}

/** A program or a path: a non-empty string without a NUL byte. */
export function nonEmptyString(handler: string, key: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw invalidOption(handler, key, 'must be a non-empty string');
  if (value.includes('\0')) throw invalidOption(handler, key, 'has a NUL byte');
  return value;
}
