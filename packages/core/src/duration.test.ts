import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration()', () => {
  it('reads Go-style durations in milliseconds', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('2m0.5s')).toBe(120_500);
    expect(parseDuration('1500us')).toBe(1.5);
    expect(parseDuration('+5s')).toBe(5_000); // as Go
    expect(parseDuration('+0')).toBe(0);
  });

  it('rejects text that is not a duration', () => {
    for (const text of ['', '+', '++5s', '30', 's', '-5s', '5 s', '5sec', '1d', '.s', '30s ', ' 30s', 'abc']) {
      expect(parseDuration(text), text).toBeUndefined();
    }
  });
});

describe('formatDuration()', () => {
  it("writes milliseconds as Go's time.Duration.String() does (the kubelet's --help defaults)", () => {
    expect([0, 500, 1_500, 20_000, 60_000, 90_000, 3_600_000, 5_400_500, 2_147_483_647].map(formatDuration))
      .toEqual(['0s', '500ms', '1.5s', '20s', '1m0s', '1m30s', '1h0m0s', '1h30m0.5s', '596h31m23.647s']);
    expect([1.5, 0.0005, -90_000].map(formatDuration)).toEqual(['1.5ms', '500ns', '-1m30s']);
    expect(formatDuration(0.25)).toBe('250µs');
  });

  it('gives text parseDuration reads back', () => {
    for (const ms of [500, 1_500, 60_000, 90_000, 3_600_000, 5_400_500, 0.25]) expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});
