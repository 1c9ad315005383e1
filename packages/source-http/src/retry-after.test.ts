import { describe, expect, it } from 'vitest';
import { retryAfterMs } from './retry-after.js';

describe('retryAfterMs()', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it('reads delay-seconds and an HTTP-date in each of its three forms (a past one is 0), and nothing else', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 12:01:30 GMT', now)).toBe(90_000);
    expect(retryAfterMs('Thursday, 01-Jan-26 12:01:30 GMT', now)).toBe(90_000); // RFC 850
    expect(retryAfterMs('Thu Jan  1 12:01:30 2026', now)).toBe(90_000); // asctime, UTC whatever the local zone
    expect(retryAfterMs('Thu, 01 Jan 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('Friday, 01-Jan-99 00:00:00 GMT', now)).toBe(0); // 1999: more than 50 years ahead is the past
    expect(retryAfterMs('Thursday, 01-Jan-76 12:01:30 GMT', now)).toBe(0); // 1976: 2076 would be 50 years and 90 s ahead
    for (const bad of [undefined, '', '-5', '1.5', '1e3', 'soon', 'Thu, 99 Foo 2026 GMT', 'Thu, 01 Jan 2026 12:01:30 CET', 'Thu, 32 Jan 2026 12:00:00 GMT', 'Mon, 30 Feb 2026 12:00:00 GMT', 'Thu Apr 31 12:00:00 2026']) {
      expect(retryAfterMs(bad, now), String(bad)).toBeUndefined();
    }
  });
});
