import { getEventListeners } from 'node:events';
import { systemClock, type Clock } from '@podconfig/core';
import { InstantClock } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { whenClockReaches } from './when-clock-reaches.js';

/** Active (referenced) `setTimeout` timers of the process, read synchronously. */
const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe(whenClockReaches.name, () => {
  it('resolves true once the clock reaches the time, without a sleep on the clock', async () => {
    const clock = new InstantClock();
    const reached = whenClockReaches(clock, 5, new AbortController().signal);
    clock.advance(5);
    await expect(reached).resolves.toBe(true);
    expect(clock.sleeps).toEqual([]);
  });

  it('resolves true on the system clock when the time comes', async () => {
    await expect(whenClockReaches(systemClock, systemClock.monotonic() + 1, new AbortController().signal)).resolves.toBe(true);
  });

  it('asks the clock again when a timer fires and the clock says the time has not come (a virtual clock standing still)', async () => {
    const inner = new InstantClock();
    let reads = 0;
    // Stands still for the first three readings, then has moved past the time.
    const clock: Clock = { now: () => inner.now(), monotonic: () => (++reads > 3 ? 2 : 0), sleep: (ms, signal) => inner.sleep(ms, signal) };
    await expect(whenClockReaches(clock, 1, new AbortController().signal)).resolves.toBe(true);
    expect(reads).toBe(4);
  });

  it('resolves true at once, without a timer, for a time already reached', async () => {
    const clock = new InstantClock();
    clock.advance(10);
    const before = timers();
    const reached = whenClockReaches(clock, 10, new AbortController().signal);
    expect(timers()).toBe(before);
    await expect(reached).resolves.toBe(true);
  });

  it('resolves false when the signal aborts, leaving no timer and no abort listener behind', async () => {
    const clock = new InstantClock();
    const controller = new AbortController();
    const before = timers();
    const reached = whenClockReaches(clock, 60_000, controller.signal);
    expect(timers()).toBe(before + 1);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(timers()).toBe(before);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await expect(reached).resolves.toBe(false);
  });

  it('resolves false for a signal aborted already', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(whenClockReaches(new InstantClock(), 0, controller.signal)).resolves.toBe(false);
  });
});
