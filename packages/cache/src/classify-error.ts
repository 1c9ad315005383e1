import { PodConfigError, type StatusError } from '@podconfig/core';

/**
 * How the Reflector treats a failure (decision D11):
 * - `expired`: 410 Gone / Expired → relist (or, for a list, retry at the most recent RV).
 * - `too-large`: "too large resource version" → the same as `expired`.
 * - `throttled`: 429 → back off and retry the same request; never counts towards a relist.
 * - `transient`: transport errors, resets, TLS hiccups, timeouts, 5xx → back off and re-watch at the last RV.
 * - `rejected`: 400 / 422, the server refused the request's parameters (for watch-list: it does not support it;
 *   on a plain watch, like `transient`).
 * - `decode`: an undecodable stream → relist.
 * - `fatal`: any other API error (401, 403, 404, …): a list backs off and retries; a watch-list falls back to a
 *   list for this sync; a plain watch, like `transient` (D11: relist only after 5 failed attempts).
 */
export type ErrorClass = 'expired' | 'too-large' | 'throttled' | 'transient' | 'rejected' | 'decode' | 'fatal';

export function isStatusError(err: unknown): err is StatusError {
  return PodConfigError.is(err) && typeof (err as Partial<StatusError>).statusCode === 'number';
}

export function classifyError(err: unknown): ErrorClass {
  if (isStatusError(err)) {
    if (err.isResourceVersionTooLarge) return 'too-large';
    if (err.code === 'PODCONFIG_WATCH_EXPIRED') return 'expired';
    if (err.statusCode === 429) return 'throttled';
    if (err.statusCode >= 500) return 'transient';
    if (err.statusCode === 400 || err.statusCode === 422) return 'rejected';
    return 'fatal';
  }
  if (PodConfigError.is(err)) {
    switch (err.code) {
      case 'PODCONFIG_WATCH_EXPIRED':
        return 'expired';
      case 'PODCONFIG_WATCH_DECODE':
        return 'decode';
      case 'PODCONFIG_SOURCE_UNAVAILABLE':
      case 'PODCONFIG_TLS':
      case 'PODCONFIG_TIMEOUT':
      case 'PODCONFIG_WATCH_SHORT':
        return 'transient';
      default:
        return err.retryable ? 'transient' : 'fatal';
    }
  }
  // Anything else escaped a client's error mapping: a transport failure as far as we can tell.
  return 'transient';
}
