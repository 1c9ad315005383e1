import { describe, expect, it } from 'vitest';
import { retryAfterMs } from './retry-after.js';

describe('retryAfterMs()', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it('reads delay-seconds and an HTTP-date (a past one is 0), and nothing else', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 12:01:30 GMT', now)).toBe(90_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 11:00:00 GMT', now)).toBe(0);
    for (const bad of [undefined, '', '-5', '1.5', '1e3', 'soon', 'Thu, 99 Foo 2026 GMT']) expect(retryAfterMs(bad, now), String(bad)).toBeUndefined();
  });
});
