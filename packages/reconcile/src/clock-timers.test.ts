import { systemClock } from '@podconfig/core';
import { InstantClock } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { ClockTimers } from './clock-timers.js';

describe(ClockTimers.name, () => {
  describe('after()', () => {
    it('runs the callback after the delay on the injected clock, and reports its due time on the monotonic reading', async () => {
      const clock = new InstantClock();
      const timers = new ClockTimers({ clock, onError: () => undefined });
      clock.stepWall(-3_600_000); // a wall-clock step moves no due time
      const start = clock.monotonic();
      let timer;
      await new Promise<void>((resolve) => {
        timer = timers.after(1_234, resolve);
      });
      expect(timer).toMatchObject({ due: start + 1_234 });
      expect(clock.sleeps).toEqual([1_234]);
      expect(timers.size).toBe(0);
    });

    it('never runs a cancelled callback, and cancelAll() leaves no timer behind', async () => {
      const timers = new ClockTimers({ clock: systemClock, onError: () => undefined });
      let ran = 0;
      timers.after(60_000, () => { ran += 1; }).cancel();
      timers.after(60_000, () => { ran += 1; });
      timers.after(60_000, () => { ran += 1; });
      expect(timers.size).toBe(2);
      timers.cancelAll();
      expect(timers.size).toBe(0);
      await new Promise<void>((resolve) => timers.after(1, resolve)); // a later timer still works
      expect(ran).toBe(0);
    });

    it('hands a failing clock to onError instead of running the callback', async () => {
      const clock = new InstantClock({ maxSleeps: 0 });
      const errors: unknown[] = [];
      await new Promise<void>((resolve) => {
        const timers = new ClockTimers({ clock, onError: (err) => { errors.push(err); resolve(); } });
        timers.after(5, () => errors.push('ran'));
      });
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(Error);
    });
  });
});
