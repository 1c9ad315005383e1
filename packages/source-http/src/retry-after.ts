/**
 * A `Retry-After` header (RFC 9110 §10.2.3) as a wait in ms from `nowMs`: delay-seconds, or an HTTP-date (a
 * date in the past is 0). Undefined when absent or unreadable (then the backoff alone decides).
 */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number.parseInt(text, 10) * 1000;
  // Only the date form has letters and a comma or space: Date.parse would read "12" or "1e3" too.
  if (!/^[A-Za-z]{3},? /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
