import { describe, expect, it } from 'vitest';
import { PodConfigError } from '@podconfig/core';
import { formatDuration, parseDuration } from './duration.js';

describe('parseDuration()', () => {
  it.each([
    ['20s', 20_000], ['1m30s', 90_000], ['500ms', 500], ['1.5h', 5_400_000], ['0', 0], ['2m', 120_000], ['1h2m3s4ms', 3_723_004], ['.5s', 500],
  ])('parses the Go duration %s', (text, ms) => {
    expect(parseDuration(text, '--sync-frequency')).toBe(ms);
  });

  it.each(['', '20', 's', '1x', '-5s', '20 s', '1m30'])('rejects %j with an error naming the flag', (text) => {
    let caught: unknown;
    try {
      parseDuration(text, '--file-check-frequency');
    } catch (err: unknown) {
      caught = err;
    }
    expect(PodConfigError.is(caught, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
    expect((caught as Error).message).toContain('--file-check-frequency');
  });
});

describe('parseDuration() of a negative duration', () => {
  it.each(['-5s', '-1m30s', '-.5s'])('refuses %j as negative (it is Go syntax), naming the flag', (text) => {
    expect(() => parseDuration(text, '--sync-frequency')).toThrow(`--sync-frequency: must not be negative, got "${text}"`);
  });

  it.each(['-0', '-0s'])('reads %j as 0, as Go does', (text) => {
    expect(parseDuration(text, '--sync-frequency')).toBe(0);
  });

  it.each(['-', '--5s', '-+5s', '-5'])('refuses %j as not a duration', (text) => {
    expect(() => parseDuration(text, '--sync-frequency')).toThrow(`--sync-frequency: invalid duration "${text}"`);
  });
});

describe('formatDuration()', () => {
  it.each([[20_000, '20s'], [90_000, '1m30s'], [500, '500ms'], [3_600_000, '1h0m0s'], [60_000, '1m0s'], [0, '0s']])('formats %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text, 'x')).toBe(ms);
  });
});
