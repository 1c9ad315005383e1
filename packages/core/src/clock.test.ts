import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, setLongTimeout, systemClock } from './clock.js';

describe('setLongTimeout()', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits longer than setTimeout can, in steps of the longest timer, instead of firing at once', () => {
    const fired = vi.fn();
    setLongTimeout(fired, 2 * MAX_TIMER_MS + 5);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('fires a short delay once, and not at all when cleared, even between steps', () => {
    const short = vi.fn();
    setLongTimeout(short, 20);
    vi.advanceTimersByTime(20);
    expect(short).toHaveBeenCalledTimes(1);
    const cleared = vi.fn();
    const timer = setLongTimeout(cleared, MAX_TIMER_MS + 10);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    timer.clear();
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(cleared).not.toHaveBeenCalled();
  });

  it('measures the rest of a long wait on the monotonic clock: a wall clock stepped forward does not end it early', () => {
    const fired = vi.fn();
    setLongTimeout(fired, 2 * MAX_TIMER_MS + 5);
    vi.setSystemTime(Date.now() + 10 * MAX_TIMER_MS); // the wall clock only: performance.now() does not move
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(MAX_TIMER_MS + 5);
    expect(fired).toHaveBeenCalledTimes(1);
  });

  it('backs systemClock.sleep: a sleep longer than the longest timer does not end early', async () => {
    let ended = false;
    const slept = systemClock.sleep(MAX_TIMER_MS + 1_000, new AbortController().signal).then(() => { ended = true; });
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    await slept;
    expect(ended).toBe(true);
  });
});
