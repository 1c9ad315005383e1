import { describe, expect, it } from 'vitest';
import { formatSeenTimestamp, formatTimestampWithOffset } from './format-seen-timestamp.js';

describe('formatSeenTimestamp()', () => {
  it('writes 9 fractional digits and Z at offset zero', () => {
    expect(formatTimestampWithOffset(Date.UTC(2021, 7, 29, 1, 50, 33, 334), 0)).toBe('2021-08-29T01:50:33.334000000Z');
    expect(formatTimestampWithOffset(Date.UTC(2026, 0, 1), 0)).toBe('2026-01-01T00:00:00.000000000Z');
  });

  it('writes the wall-clock time and the offset of a zone east or west of UTC', () => {
    const ms = Date.UTC(2026, 0, 1, 23, 30, 0, 5);
    expect(formatTimestampWithOffset(ms, 330)).toBe('2026-01-02T05:00:00.005000000+05:30');
    expect(formatTimestampWithOffset(ms, -480)).toBe('2026-01-01T15:30:00.005000000-08:00');
  });

  it('fills the sub-millisecond digits from a fractional millisecond', () => {
    expect(formatTimestampWithOffset(Date.UTC(2026, 0, 1) + 1.25, 0)).toBe('2026-01-01T00:00:00.001250000Z');
  });

  it('never rounds the sub-millisecond digits up into the next millisecond', () => {
    expect(formatTimestampWithOffset(0.9999997, 0)).toBe('1970-01-01T00:00:00.000999999Z');
  });

  it('uses the local zone of this process and round-trips through Date.parse', () => {
    for (const ms of [Date.UTC(2026, 0, 15, 12), Date.UTC(2026, 6, 15, 12), 0]) {
      const text = formatSeenTimestamp(ms);
      const offset = -new Date(ms).getTimezoneOffset();
      expect(text).toBe(formatTimestampWithOffset(ms, offset));
      expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}(Z|[+-]\d{2}:\d{2})$/);
      expect(Date.parse(text)).toBe(ms);
    }
  });
});
