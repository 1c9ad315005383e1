import { seededRandom } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { parseApiTime } from './api-time.js';

describe(parseApiTime.name, () => {
  it('reads canonical API times as Date.parse does, at every field boundary', () => {
    const times = [
      '2026-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '1000-01-01T00:00:00Z', '9999-12-31T23:59:59Z',
      '2024-02-29T12:34:56Z', '2026-02-31T00:00:00Z', '2026-04-31T10:00:00Z', '2023-11-14T22:13:20Z',
    ];
    for (const t of times) expect([t, parseApiTime(t)]).toEqual([t, Date.parse(t)]);
  });

  it('refuses an hour past 23 as Date.parse does, not rolling it over into the next day', () => {
    expect(parseApiTime('2026-01-01T24:30:00Z')).toBeNaN();
  });

  it('agrees with Date.parse on 2,000 random canonical times', () => {
    const random = seededRandom(7);
    const two = (n: number): string => String(n).padStart(2, '0');
    for (let i = 0; i < 2_000; i++) {
      const pick = (n: number): number => Math.floor(random() * n);
      const t = `${1000 + pick(9000)}-${two(1 + pick(12))}-${two(1 + pick(31))}T${two(pick(24))}:${two(pick(60))}:${two(pick(60))}Z`;
      expect([t, parseApiTime(t)]).toEqual([t, Date.parse(t)]);
    }
  });

  it('leaves every other form to Date.parse, including what it refuses', () => {
    const others = [
      '2026-01-01T00:00:00.123Z', '2026-01-01T01:00:00+01:00', '2026-01-01', '2026-13-01T00:00:00Z',
      '2026-01-01T23:59:60Z', '2026-00-10T00:00:00Z', '2026-01-00T00:00:00Z', '2026-01-01T24:00:00Z',
      '0099-01-01T00:00:00Z', '2026-01-01T00:00:0xZ', '2026-01-01 00:00:00Z', 'not a time', '',
    ];
    for (const t of others) expect([t, parseApiTime(t)]).toEqual([t, Date.parse(t)]);
  });
});
