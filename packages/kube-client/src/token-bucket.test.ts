import { PodConfigError } from '@podconfig/core';
import { InstantClock } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

describe(TokenBucket.name, () => {
  describe('take()', () => {
    it('lets a burst through at once, then spaces requests 1/qps apart', async () => {
      const clock = new InstantClock();
      const bucket = new TokenBucket({ qps: 2, burst: 3, clock });
      const signal = new AbortController().signal;
      for (let i = 0; i < 6; i++) await bucket.take(signal);
      expect(clock.sleeps).toEqual([500, 500, 500]);
    });

    it('refills with time, up to the burst', async () => {
      const clock = new InstantClock();
      const bucket = new TokenBucket({ qps: 10, burst: 2, clock });
      const signal = new AbortController().signal;
      await bucket.take(signal);
      await bucket.take(signal);
      clock.advance(60_000);
      for (let i = 0; i < 3; i++) await bucket.take(signal);
      expect(clock.sleeps).toEqual([100]);
    });

    it('refills by the monotonic clock: a wall-clock step neither refills nor drains the bucket', async () => {
      const clock = new InstantClock();
      const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
      const signal = new AbortController().signal;
      await bucket.take(signal);
      clock.stepWall(60_000); // NTP steps the wall clock a minute ahead: no time passed
      await bucket.take(signal);
      clock.stepWall(-120_000); // and two minutes back
      await bucket.take(signal);
      expect(clock.sleeps).toEqual([1000, 1000]);
    });

    it('gives concurrent callers growing waits (reservations at the same instant)', async () => {
      // Time stands still while they queue: each caller reserves the next token.
      const sleeps: number[] = [];
      const clock = { now: () => 0, monotonic: () => 0, sleep: (ms: number) => Promise.resolve(void sleeps.push(ms)) };
      const bucket = new TokenBucket({ qps: 4, burst: 1, clock });
      const signal = new AbortController().signal;
      await Promise.all([bucket.take(signal), bucket.take(signal), bucket.take(signal)]);
      expect(sleeps).toEqual([250, 500]);
    });

    it('rejects with the abort reason when the signal aborts during the wait, and gives the token back', async () => {
      // Time stands still; while `block` is set a sleep ends only when its signal aborts.
      const sleeps: number[] = [];
      let block = true;
      const clock = {
        now: () => 0,
        monotonic: () => 0,
        sleep: (ms: number, signal: AbortSignal) => {
          sleeps.push(ms);
          return block ? new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())) : Promise.resolve();
        },
      };
      const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
      await bucket.take(new AbortController().signal);
      const controller = new AbortController();
      const reason = new Error('stop');
      const waiting = bucket.take(controller.signal);
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
      await expect(bucket.take(controller.signal)).rejects.toBe(reason);
      block = false;
      await bucket.take(new AbortController().signal);
      // 1 s for the next token, not 2 s: the aborted reservation was returned.
      expect(sleeps).toEqual([1000, 1000]);
    });

    it('never waits with qps Infinity', async () => {
      const clock = new InstantClock();
      const bucket = new TokenBucket({ qps: Infinity, burst: 1, clock });
      for (let i = 0; i < 100; i++) await bucket.take(new AbortController().signal);
      expect(clock.sleeps).toEqual([]);
    });

    it('refuses a qps or burst that cannot work', () => {
      const clock = new InstantClock();
      for (const [qps, burst] of [[0, 1], [-1, 1], [Number.NaN, 1], [1, 0], [1, 1.5]] as const) {
        expect(() => new TokenBucket({ qps, burst, clock })).toThrow(PodConfigError);
      }
    });
  });
});
