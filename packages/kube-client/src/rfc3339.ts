/** `2006-01-02T15:04:05[.frac](Z|±07:00)`: Go's `time.RFC3339`, a fraction of a second allowed after the seconds. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Epoch milliseconds of an RFC 3339 timestamp as Go's `time.Parse(time.RFC3339, …)` reads it (client-go decodes a
 * `metav1.Time` so): the `T` and a zone (`Z` or `±hh:mm`) required, every field in range (a day its month has, no
 * second 60, a zone under 24 hours), digits after the seconds a fraction (kept to the millisecond); `undefined` for
 * anything else. `Date.parse` would take far more (`2026-01-01`, `Jan 1 2026`, a time without a zone, read as local).
 */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, y = '', mo = '', d = '', h = '', mi = '', sec = '', fraction = '', sign = '+', zh = '0', zm = '0'] = m;
  const [year, month, day, hour, minute, second, zoneHours, zoneMinutes] = [y, mo, d, h, mi, sec, zh, zm].map(Number) as
    [number, number, number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59 || zoneHours > 23 || zoneMinutes > 59) {
    return undefined;
  }
  // Date.UTC reads a year below 100 as 19xx: the year is set on its own.
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, '0'))));
  date.setUTCFullYear(year);
  return date.getTime() - (sign === '-' ? -1 : 1) * (zoneHours * 60 + zoneMinutes) * 60_000;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
}

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}
