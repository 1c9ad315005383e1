/**
 * A `Retry-After` header (RFC 9110 §10.2.3) as a wait in ms from `nowMs`: delay-seconds, or an HTTP-date in any of
 * the three forms a recipient must accept (§5.6.7; a date in the past is 0). Undefined when absent or unreadable
 * (then the backoff alone decides).
 */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number.parseInt(text, 10) * 1000;
  const at = httpDate(text, nowMs);
  return at === undefined ? undefined : Math.max(0, at - nowMs);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
// IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT", asctime "Sun Nov  6 08:49:37 1994".
const IMF_FIXDATE = /^[A-Z][a-z]{2}, (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 = /^[A-Z][a-z]{5,8}, (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^[A-Z][a-z]{2} ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** An HTTP-date as Unix ms (all three forms are UTC), or undefined. Not `Date.parse`: it reads "12" or "1e3" too, and asctime as local time. */
function httpDate(text: string, nowMs: number): number | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m !== null) return utc(Number(m[3]), m[2]!, Number(m[1]), m.slice(4, 7));
  m = RFC_850.exec(text);
  if (m !== null) {
    // §5.6.7: a two-digit year whose date looks more than 50 years ahead is the most recent past year with those digits.
    const fields = m;
    const inYear = (year: number): number | undefined => utc(year, fields[2]!, Number(fields[1]), fields.slice(4, 7));
    const thisYear = new Date(nowMs).getUTCFullYear();
    const year = thisYear - (thisYear % 100) + Number(m[3]);
    const fiftyYearsOn = new Date(nowMs);
    fiftyYearsOn.setUTCFullYear(thisYear + 50);
    const at = inYear(year);
    return at !== undefined && at > fiftyYearsOn.getTime() ? inYear(year - 100) : at;
  }
  m = ASCTIME.exec(text);
  if (m !== null) return utc(Number(m[6]), m[1]!, Number(m[2]!.trim()), m.slice(3, 6));
  return undefined;
}

function utc(year: number, monthName: string, day: number, hms: readonly (string | undefined)[]): number | undefined {
  const month = MONTHS.indexOf(monthName);
  const [h, min, s] = hms.map(Number) as [number, number, number];
  if (month < 0 || h > 23 || min > 59 || s > 60) return undefined;
  const at = Date.UTC(year, month, day, h, min, s);
  // Date.UTC rolls a 30 February over into March: a day the month does not have is no date.
  return new Date(at).getUTCDate() === day ? at : undefined;
}
