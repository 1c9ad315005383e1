import { describe, expect, it } from 'vitest';
import type { Clock } from '@podconfig/core';
import { InstantClock } from '@podconfig/testing';
import { ScanScheduler } from './scan-scheduler.js';

/** An InstantClock that runs `onSleep(n)` as the n-th sleep starts (to inject events mid-wait). */
function hookedClock(inner: InstantClock, onSleep: (n: number) => void): Clock {
  return {
    now: () => inner.now(),
    monotonic: () => inner.monotonic(),
    sleep: (ms, signal) => {
      const p = inner.sleep(ms, signal);
      onSleep(inner.sleeps.length);
      return p;
    },
  };
}

describe(ScanScheduler.name, () => {
  describe('next()', () => {
    it('returns at each tick of a fixed-rate ticker', async () => {
      const inner = new InstantClock();
      const scheduler = new ScanScheduler({ clock: inner, periodMs: 20_000, debounceMs: 100, maxDebounceMs: 1_000 }, inner.monotonic());
      const signal = new AbortController().signal;
      expect(await scheduler.next(signal)).toBe('period');
      inner.advance(5_000); // a scan that took 5 s does not push the next tick back
      expect(await scheduler.next(signal)).toBe('period');
      inner.advance(45_000); // late: one tick is due at once, the ones missed are dropped, the phase is kept
      expect(await scheduler.next(signal)).toBe('period');
      expect(await scheduler.next(signal)).toBe('period');
      expect(inner.sleeps).toEqual([20_000, 15_000, 15_000]);
    });

    it('finds the next tick in one step, however many were missed (a sub-millisecond period after days of uptime)', async () => {
      const inner = new InstantClock();
      const scheduler = new ScanScheduler({ clock: inner, periodMs: 1e-6, debounceMs: 100, maxDebounceMs: 1_000 }, inner.monotonic());
      inner.advance(2 ** 34); // ~199 days: a loop of 1 ns steps would take 1.7e16 turns, and from here never end
      const signal = new AbortController().signal;
      expect(await scheduler.next(signal)).toBe('period');
      expect(await scheduler.next(signal)).toBe('period');
    });

    it('waits for a quiet period after the last event before returning', async () => {
      const inner = new InstantClock();
      const ref: { scheduler?: ScanScheduler } = {};
      // Events arrive during the first two debounce sleeps: each restarts the quiet period.
      const clock = hookedClock(inner, (n) => {
        if (n === 1 || n === 2) ref.scheduler?.touch();
      });
      const scheduler = (ref.scheduler = new ScanScheduler({ clock, periodMs: 60_000, debounceMs: 100, maxDebounceMs: 10_000 }, inner.monotonic()));
      scheduler.touch();
      expect(await scheduler.next(new AbortController().signal)).toBe('change');
      expect(inner.sleeps).toEqual([100, 100, 100]);
    });

    it('gives up waiting for quiet after maxDebounceMs', async () => {
      const inner = new InstantClock();
      const ref: { scheduler?: ScanScheduler } = {};
      const clock = hookedClock(inner, () => ref.scheduler?.touch()); // an endless stream of events
      const scheduler = (ref.scheduler = new ScanScheduler({ clock, periodMs: 60_000, debounceMs: 100, maxDebounceMs: 300 }, inner.monotonic()));
      scheduler.touch();
      expect(await scheduler.next(new AbortController().signal)).toBe('change');
      expect(inner.sleeps).toEqual([100, 100, 100]);
    });

    it('returns at a requested time before the next tick', async () => {
      const inner = new InstantClock();
      const scheduler = new ScanScheduler({ clock: inner, periodMs: 20_000, debounceMs: 100, maxDebounceMs: 1_000 }, inner.monotonic());
      scheduler.wakeAt(inner.monotonic() + 1_000);
      const signal = new AbortController().signal;
      expect(await scheduler.next(signal)).toBe('timer');
      expect(await scheduler.next(signal)).toBe('period');
      expect(inner.sleeps).toEqual([1_000, 19_000]);
    });

    it('times ticks, requested times and the debounce on the monotonic clock, whatever the wall clock does', async () => {
      const inner = new InstantClock();
      const ref: { scheduler?: ScanScheduler } = {};
      // The wall clock steps an hour ahead as each sleep starts; events arrive during the 2nd and 3rd sleeps.
      const clock = hookedClock(inner, (n) => {
        inner.stepWall(3_600_000);
        if (n === 2 || n === 3) ref.scheduler?.touch();
      });
      const scheduler = (ref.scheduler = new ScanScheduler({ clock, periodMs: 20_000, debounceMs: 100, maxDebounceMs: 10_000 }, inner.monotonic()));
      const signal = new AbortController().signal;
      scheduler.wakeAt(inner.monotonic() + 1_000);
      expect(await scheduler.next(signal)).toBe('timer');
      scheduler.touch();
      expect(await scheduler.next(signal)).toBe('change');
      expect(await scheduler.next(signal)).toBe('period');
      expect(inner.sleeps).toEqual([1_000, 100, 100, 100, 18_700]);
    });

    it('returns undefined at once when the signal is aborted', async () => {
      const inner = new InstantClock();
      const scheduler = new ScanScheduler({ clock: inner, periodMs: 20_000, debounceMs: 100, maxDebounceMs: 1_000 }, inner.monotonic());
      const controller = new AbortController();
      controller.abort();
      scheduler.touch();
      expect(await scheduler.next(controller.signal)).toBeUndefined();
      expect(inner.sleeps).toEqual([]);
    });
  });
});
