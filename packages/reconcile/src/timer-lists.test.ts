import type { Clock } from '@podconfig/core';
import { describe, expect, it } from 'vitest';
import { ClockTimers } from './clock-timers.js';
import { TimerLists, type TimerLink, type TimerListEntry } from './timer-lists.js';

/** Time moves only when told; each sleep is kept with its due time until then. */
class SteppedClock implements Clock {
  #now = 1_000_000;
  /** The wall clock's distance from monotonic time (`stepWall`). */
  #wallOffset = 0;
  readonly sleeps = new Set<{ readonly at: number; readonly ms: number; readonly wake: () => void }>();

  now(): number {
    return this.#now + this.#wallOffset;
  }

  monotonic(): number {
    return this.#now;
  }

  /** Steps the wall clock by `ms` (negative: backwards) while no time passes. */
  stepWall(ms: number): void {
    this.#wallOffset += ms;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const sleep = { at: this.#now + ms, ms, wake: (): void => { this.sleeps.delete(sleep); resolve(); } };
      this.sleeps.add(sleep);
      signal.addEventListener('abort', sleep.wake, { once: true });
    });
  }

  /** Sets the time to `at` (ms after the start) and lets every sleep due by then end, and its callbacks run. */
  async at(at: number): Promise<void> {
    this.#now = 1_000_000 + at;
    for (const sleep of [...this.sleeps]) if (sleep.at <= this.#now) sleep.wake();
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Delays of the sleeps still pending. */
  pending(): number[] {
    return [...this.sleeps].map((s) => s.ms).sort((a, b) => a - b);
  }
}

class Entry implements TimerListEntry<Entry> {
  timerLink: TimerLink<Entry> | undefined;
  constructor(readonly name: string) {}
}

function setup(onDue?: (entry: Entry, lists: TimerLists<Entry>) => void): { clock: SteppedClock; lists: TimerLists<Entry>; due: string[] } {
  const clock = new SteppedClock();
  const timers = new ClockTimers({ clock, onError: (err) => { throw err; } });
  const due: string[] = [];
  const lists: TimerLists<Entry> = new TimerLists<Entry>({
    timers,
    clock,
    onDue: (entry) => {
      due.push(`${entry.name}@${clock.monotonic() - 1_000_000}`);
      onDue?.(entry, lists);
    },
  });
  return { clock, lists, due };
}

describe(TimerLists.name, () => {
  it('keeps one timer per distinct delay and ends each wait when it is due, in order', async () => {
    const { clock, lists, due } = setup();
    const [a, b, c] = [new Entry('a'), new Entry('b'), new Entry('c')];
    lists.schedule(a, 100);
    lists.schedule(c, 300);
    await clock.at(40);
    lists.schedule(b, 100);
    expect([lists.size, lists.lists]).toEqual([3, 2]);
    expect(clock.pending()).toEqual([100, 300]); // b joined a's list: no timer of its own
    await clock.at(100);
    expect(due).toEqual(['a@100']);
    expect(clock.pending()).toEqual([40, 300]); // the 100 ms list's timer again, for b (due at 140); c's
    await clock.at(140);
    await clock.at(300);
    expect(due).toEqual(['a@100', 'b@140', 'c@300']);
    expect([lists.size, lists.lists, clock.pending().length]).toEqual([0, 0, 0]);
    expect([lists.has(a), lists.has(b), lists.has(c)]).toEqual([false, false, false]);
  });

  it('keeps every due time when the wall clock is stepped back or forward: waits end by the monotonic clock', async () => {
    const { clock, lists, due } = setup();
    const [a, b, c] = [new Entry('a'), new Entry('b'), new Entry('c')];
    lists.schedule(a, 100);
    clock.stepWall(-10_000); // stepped back: a is still due at 100, not 10 s later
    await clock.at(50);
    lists.schedule(b, 100);
    clock.stepWall(20_000); // stepped forward: b (due at 150) does not end with a
    await clock.at(100);
    expect(due).toEqual(['a@100']);
    expect(clock.pending()).toEqual([50]);
    lists.schedule(c, 100);
    clock.stepWall(-20_000);
    await clock.at(150);
    await clock.at(200);
    expect(due).toEqual(['a@100', 'b@150', 'c@200']);
    expect(lists.size).toBe(0);
  });

  it('cancels a wait in O(1) and stops the timer of a list it empties; scheduling again replaces the wait', async () => {
    const { clock, lists, due } = setup();
    const [a, b, c] = [new Entry('a'), new Entry('b'), new Entry('c')];
    lists.schedule(a, 100);
    lists.schedule(b, 100);
    lists.schedule(c, 500);
    lists.cancel(b);
    lists.cancel(b); // no-op
    lists.cancel(c);
    expect([lists.size, lists.lists, lists.has(b)]).toEqual([1, 1, false]);
    expect(clock.pending()).toEqual([100]);
    lists.schedule(a, 200); // a leaves the 100 ms list: it is empty, and its timer goes
    expect(clock.pending()).toEqual([200]);
    await clock.at(100);
    expect(due).toEqual([]);
    await clock.at(200);
    expect(due).toEqual(['a@200']);
    expect(lists.size).toBe(0);
  });

  it('a head cancelled before it was due leaves the timer to wake early and wait on for the next entry', async () => {
    const { clock, lists, due } = setup();
    const [a, b] = [new Entry('a'), new Entry('b')];
    lists.schedule(a, 100);
    await clock.at(60);
    lists.schedule(b, 100);
    lists.cancel(a);
    await clock.at(100);
    expect(due).toEqual([]);
    expect(clock.pending()).toEqual([60]);
    await clock.at(160);
    expect(due).toEqual(['b@160']);
  });

  it('an entry scheduled again from onDue into its own list does not hold back the entries due before it', async () => {
    const { clock, lists, due } = setup((entry, l) => {
      if (entry.name === 'a' && due.length === 1) l.schedule(entry, 100);
    });
    const [a, b] = [new Entry('a'), new Entry('b')];
    lists.schedule(a, 100);
    await clock.at(50);
    lists.schedule(b, 100);
    await clock.at(100); // a ends, and waits 100 ms again (due at 200): b is due at 150
    await clock.at(150);
    await clock.at(200);
    expect(due).toEqual(['a@100', 'b@150', 'a@200']);
  });

  it('an entry cancelled from onDue may empty a list, and a new list for that delay still works', async () => {
    const [a, b, c] = [new Entry('a'), new Entry('b'), new Entry('c')];
    const { clock, lists, due } = setup((entry, l) => {
      if (entry.name === 'a') {
        l.cancel(b);
        l.schedule(c, 100);
      }
    });
    lists.schedule(a, 100);
    await clock.at(10);
    lists.schedule(b, 100);
    await clock.at(100);
    expect([lists.size, lists.lists]).toEqual([1, 1]);
    await clock.at(200);
    expect(due).toEqual(['a@100', 'c@200']);
    expect([lists.size, lists.lists]).toEqual([0, 0]);
  });
});
