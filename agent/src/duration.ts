import { ConfigInvalidError, parseDuration as parseGoDuration } from '@podconfig/core';

export { formatDuration } from '@podconfig/core';

/**
 * A Go duration in milliseconds; `what` names the flag or field in the error. A negative one (`-1s`) is Go
 * syntax but never a period: it is refused as negative, not as bad syntax; `-0` is 0, as Go reads it.
 */
export function parseDuration(text: string, what: string): number {
  const negative = text.startsWith('-');
  const ms = parseGoDuration(negative ? text.slice(1) : text);
  if (ms === undefined || (negative && text.startsWith('-+'))) {
    throw new ConfigInvalidError(`${what}: invalid duration "${text}" (use Go syntax like 20s, 1m30s, 500ms)`);
  }
  if (negative && ms > 0) throw new ConfigInvalidError(`${what}: must not be negative, got "${text}"`);
  return ms;
}
