/**
 * Milliseconds since the epoch of a time as the API server writes it, what `Date.parse` gives (`NaN`
 * when it cannot be read). A `metav1.Time` in its canonical form, `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339 in
 * UTC, to the second), is read digit by digit: `Date.parse` of every pod's `creationTimestamp` was a
 * fifth of sorting a first ADD of 50,000 pods. Any other form goes to `Date.parse`.
 */
export function parseApiTime(text: string): number {
  return canonicalTime(text) ?? Date.parse(text);
}

const DASH = 45;
const COLON = 58;
const T = 84;
const Z = 90;

function canonicalTime(s: string): number | undefined {
  if (
    s.length !== 20 || s.charCodeAt(4) !== DASH || s.charCodeAt(7) !== DASH || s.charCodeAt(10) !== T ||
    s.charCodeAt(13) !== COLON || s.charCodeAt(16) !== COLON || s.charCodeAt(19) !== Z
  ) return undefined;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  // Date.UTC reads years 0–99 as 19xx and rolls every field over; within these ranges it agrees with
  // Date.parse (which rolls a day past the month's end over too, and refuses a 13th month or a 60th second).
  if (!(year >= 1000 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59)) {
    return undefined;
  }
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** The decimal number in `count` characters from `at`; NaN when one of them is not a digit. */
function digits(s: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}
