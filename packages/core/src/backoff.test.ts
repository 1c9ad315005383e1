import { InstantClock } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { exponentialBackoff, type ExponentialBackoffOptions } from './backoff.js';
import { ConfigInvalidError } from './errors.js';

const delays = (backoff: { next(): number }, n: number): number[] => Array.from({ length: n }, () => backoff.next());

describe('exponentialBackoff()', () => {
  describe('options', () => {
    it('rejects a negative or non-finite delay, a cap below the initial delay, a shrinking factor and a negative jitter, naming the option', () => {
      const cases: [Partial<ExponentialBackoffOptions>, string][] = [
        [{ initialMs: -1 }, 'initialMs'],
        [{ initialMs: Number.NaN }, 'initialMs'],
        [{ maxMs: 50 }, 'maxMs'],
        [{ maxMs: Number.POSITIVE_INFINITY }, 'maxMs'],
        [{ factor: 0.5 }, 'factor'],
        [{ jitter: -2 }, 'jitter'],
        [{ resetAfterMs: -1 }, 'resetAfterMs'],
      ];
      for (const [patch, option] of cases) {
        const build = (): unknown => exponentialBackoff({ initialMs: 100, maxMs: 1000, ...patch });
        expect(build, JSON.stringify(patch)).toThrow(ConfigInvalidError);
        expect(build, JSON.stringify(patch)).toThrow(option);
      }
    });

    it('accepts a zero initial delay and a cap equal to it', () => {
      expect(delays(exponentialBackoff({ initialMs: 0, maxMs: 0 }), 2)).toEqual([0, 0]);
      expect(delays(exponentialBackoff({ initialMs: 100, maxMs: 100 }), 2)).toEqual([100, 100]);
    });
  });

  describe('next()', () => {
    it('doubles from the initial delay up to the cap without jitter', () => {
      expect(delays(exponentialBackoff({ initialMs: 800, maxMs: 30_000 }), 8))
        .toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
    });

    it('uses the given factor', () => {
      expect(delays(exponentialBackoff({ initialMs: 100, maxMs: 1000, factor: 3 }), 4)).toEqual([100, 300, 900, 1000]);
    });

    it('puts each delay in [d, 2d) with jitter 1, as client-go (checklist 69)', () => {
      const low = exponentialBackoff({ initialMs: 800, maxMs: 30_000, jitter: 1, random: () => 0 });
      const high = exponentialBackoff({ initialMs: 800, maxMs: 30_000, jitter: 1, random: () => 0.999_999 });
      const base = [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000];
      expect(delays(low, 8)).toEqual(base);
      const upper = delays(high, 8);
      upper.forEach((d, i) => {
        expect(d).toBeGreaterThanOrEqual(base[i]!);
        expect(d).toBeLessThan(2 * base[i]!);
      });
    });

    it('scales the jitter: 0.5 gives [d, 1.5d)', () => {
      expect(exponentialBackoff({ initialMs: 1000, maxMs: 10_000, jitter: 0.5, random: () => 0.5 }).next()).toBe(1250);
    });

    it('stays within [d, 2d) with Math.random', () => {
      const backoff = exponentialBackoff({ initialMs: 10, maxMs: 40, jitter: 1 });
      for (const base of [10, 20, 40, 40, 40]) {
        const d = backoff.next();
        expect(d).toBeGreaterThanOrEqual(base);
        expect(d).toBeLessThan(2 * base);
      }
    });
  });

  describe('reset()', () => {
    it('starts over at the initial delay', () => {
      const backoff = exponentialBackoff({ initialMs: 800, maxMs: 30_000 });
      delays(backoff, 5);
      backoff.reset();
      expect(delays(backoff, 2)).toEqual([800, 1600]);
    });
  });

  describe('resetAfterMs (D12)', () => {
    it('goes back to the initial delay after that long without a failure', () => {
      const clock = new InstantClock();
      const backoff = exponentialBackoff({ initialMs: 800, maxMs: 30_000, resetAfterMs: 120_000, clock });
      expect(delays(backoff, 3)).toEqual([800, 1600, 3200]);
      clock.advance(119_999);
      expect(backoff.next()).toBe(6400);
      clock.advance(120_000);
      expect(delays(backoff, 2)).toEqual([800, 1600]);
    });

    it('never resets during a long outage with failures less than 2 minutes apart (not the apimachinery drift)', () => {
      const clock = new InstantClock();
      const backoff = exponentialBackoff({ initialMs: 800, maxMs: 30_000, resetAfterMs: 120_000, clock });
      const seen: number[] = [];
      for (let i = 0; i < 40; i++) {
        seen.push(backoff.next());
        clock.advance(30_000); // 20 minutes of failures in total
      }
      expect(seen.slice(0, 7)).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000]);
      expect(seen.slice(7).every((d) => d === 30_000)).toBe(true);
    });

    it('measures the time without a failure on the monotonic clock: a wall-clock step neither resets nor keeps it', () => {
      const clock = new InstantClock();
      const backoff = exponentialBackoff({ initialMs: 800, maxMs: 30_000, resetAfterMs: 120_000, clock });
      expect(delays(backoff, 2)).toEqual([800, 1600]);
      clock.stepWall(3_600_000); // NTP steps the wall clock an hour ahead: no time passed
      expect(backoff.next()).toBe(3200);
      clock.advance(120_000);
      clock.stepWall(-3_600_000); // and back, while two minutes pass
      expect(backoff.next()).toBe(800);
    });

    it('does nothing without a clock', () => {
      const backoff = exponentialBackoff({ initialMs: 800, maxMs: 30_000, resetAfterMs: 1 });
      expect(delays(backoff, 3)).toEqual([800, 1600, 3200]);
    });
  });
});
