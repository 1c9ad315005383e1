import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PodConfigError, type Clock } from '@podconfig/core';
import { describe, expect, it } from 'vitest';
import { CallDeadlines, deadlineResolutionMs } from './call-deadlines.js';
import type { CallResult } from './call-with-timeout.js';
import { ClockTimers } from './clock-timers.js';

/** A clock the test moves by hand; `expire()` ends the sleeps due by now. */
class HandClock implements Clock {
  time = Date.UTC(2026, 0, 1);
  readonly sleeps: { readonly at: number; readonly wake: () => void; readonly signal: AbortSignal }[] = [];

  now(): number {
    return this.time;
  }

  monotonic(): number {
    return this.time;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => this.sleeps.push({ at: this.time + ms, wake: resolve, signal }));
  }

  /** Sleeps neither cancelled nor woken yet. */
  pending(): number[] {
    return this.sleeps.filter((s) => !s.signal.aborted).map((s) => s.at);
  }

  expire(): void {
    for (const s of this.sleeps.splice(0)) {
      if (s.at <= this.time) s.wake();
      else this.sleeps.push(s);
    }
  }
}

function setUp(timeoutMs = 5_000): { clock: HandClock; parent: AbortController; deadlines: CallDeadlines } {
  const clock = new HandClock();
  const parent = new AbortController();
  const timers = new ClockTimers({ clock, onError: (err) => { throw err; } });
  return { clock, parent, deadlines: new CallDeadlines({ timers, clock, timeoutMs, parent: parent.signal }) };
}

/** A call the test settles by hand; `signal` is the one it was given. */
function heldCall(): { fn: (signal: AbortSignal) => Promise<void>; signal: () => AbortSignal; finish: () => void; fail: (err: unknown) => void } {
  let given: AbortSignal | undefined;
  let finish = (): void => undefined;
  let fail = (_err: unknown): void => undefined;
  return {
    fn: (signal) => {
      given = signal;
      return new Promise<void>((resolve, reject) => {
        finish = resolve;
        fail = reject;
      });
    },
    signal: () => given!,
    finish: () => finish(),
    fail: (err) => fail(err),
  };
}

/** `run()`'s outcome, as a promise. */
const outcomeOf = (deadlines: CallDeadlines, fn: (signal: AbortSignal) => Promise<void>, what: string): Promise<CallResult<void>> =>
  new Promise((resolve) => deadlines.run(fn, what, resolve));

describe(CallDeadlines.name, () => {
  describe('run()', () => {
    it('resolves with the outcome of the call: success, or what it threw or rejected with', async () => {
      const { deadlines } = setUp();
      expect(await outcomeOf(deadlines, () => Promise.resolve(), 'h syncPod')).toEqual({ outcome: 'success', value: undefined });
      const boom = new Error('boom');
      expect(await outcomeOf(deadlines, () => Promise.reject(boom), 'h syncPod')).toEqual({ outcome: 'error', err: boom });
      expect(await outcomeOf(deadlines, () => { throw boom; }, 'h syncPod')).toEqual({ outcome: 'error', err: boom });
    });

    it('hands on each outcome once and never synchronously, a timeout included', async () => {
      const { clock, deadlines } = setUp(5_000);
      const outcomes: string[] = [];
      deadlines.run(() => { throw new Error('boom'); }, 'thrown', (r) => outcomes.push(`thrown:${r.outcome}`));
      const hung = heldCall();
      deadlines.run(hung.fn, 'hung', (r) => outcomes.push(`hung:${r.outcome}`));
      expect(outcomes).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
      clock.time += 5_000;
      clock.expire();
      await new Promise((resolve) => setImmediate(resolve));
      hung.finish();
      await new Promise((resolve) => setImmediate(resolve));
      expect(outcomes).toEqual(['thrown:error', 'hung:timeout']);
    });

    it('takes a handler that returns nothing (a JavaScript plugin working synchronously) as a success', async () => {
      const { deadlines } = setUp();
      const syncHandler = (() => undefined) as unknown as (signal: AbortSignal) => Promise<void>;
      expect(await outcomeOf(deadlines, syncHandler, 'h syncPod')).toEqual({ outcome: 'success', value: undefined });
    });

    it('gives calls with the same rounded deadline one signal and one timer, and later calls another', () => {
      const { clock, deadlines } = setUp(5_000); // resolution 10 ms
      const [a, b, c] = [heldCall(), heldCall(), heldCall()];
      clock.time += 1;
      void outcomeOf(deadlines, a.fn, 'a'); // +5,001 → +5,010
      clock.time += 8;
      void outcomeOf(deadlines, b.fn, 'b'); // +5,009 → +5,010
      clock.time += 10;
      void outcomeOf(deadlines, c.fn, 'c'); // +5,019 → +5,020
      expect(a.signal()).toBe(b.signal());
      expect(c.signal()).not.toBe(a.signal());
      expect(clock.pending()).toEqual([Date.UTC(2026, 0, 1) + 5_010, Date.UTC(2026, 0, 1) + 5_020]);
    });

    it('aborts the signal no earlier than timeoutMs after the call started, resolves it as timeout naming it, and ignores a late settlement', async () => {
      const { clock, deadlines } = setUp(5_000);
      clock.time += 1; // the deadline rounds up from +5,001 to +5,010
      const hung = heldCall();
      const result = outcomeOf(deadlines, hung.fn, 'h syncPod');
      clock.time += 5_000;
      clock.expire();
      expect(hung.signal().aborted).toBe(false);
      clock.time += 9;
      clock.expire();
      const outcome = await result;
      expect(outcome.outcome).toBe('timeout');
      expect(outcome.outcome === 'timeout' && outcome.err).toBeInstanceOf(PodConfigError);
      expect((outcome as { err: PodConfigError }).err).toMatchObject({ code: 'PODCONFIG_HANDLER_TIMEOUT', message: 'h syncPod did not finish within 5000 ms' });
      expect(hung.signal().aborted).toBe(true);
      expect(hung.signal().reason).toMatchObject({ code: 'PODCONFIG_HANDLER_TIMEOUT' });
      hung.fail(new Error('too late')); // abandoned: nothing happens
    });

    it('does not add a call to a deadline made more than one step of real time ago, whatever the wall clock says', async () => {
      const { clock, deadlines } = setUp(50); // resolution 1 ms
      const [a, b] = [heldCall(), heldCall()];
      void outcomeOf(deadlines, a.fn, 'a');
      // The wall clock stands still (or was stepped back) while real time passes: the old deadline's
      // relative timer would cut b short.
      const started = performance.now();
      while (performance.now() - started < 2) await new Promise((resolve) => setImmediate(resolve));
      void outcomeOf(deadlines, b.fn, 'b');
      expect(b.signal()).not.toBe(a.signal());
      expect(clock.pending()).toEqual([Date.UTC(2026, 0, 1) + 50, Date.UTC(2026, 0, 1) + 50]);
    });

    it('cancels the timer of a deadline once its calls settled and a newer deadline took over', async () => {
      const { clock, deadlines } = setUp(5_000);
      const first = heldCall();
      const done = outcomeOf(deadlines, first.fn, 'first');
      clock.time += 20;
      const second = heldCall();
      void outcomeOf(deadlines, second.fn, 'second');
      expect(clock.pending()).toHaveLength(2);
      first.finish();
      await done;
      expect(clock.pending()).toEqual([Date.UTC(2026, 0, 1) + 5_020]);
    });

    it('lets go of a settled call\'s callback, and of what it holds, while the deadline it joined lives on', async () => {
      // A handler call's callback holds its pod; a deadline keeps its calls for up to a resolution step.
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      const { deadlines } = setUp(5_000);
      const still = heldCall();
      void outcomeOf(deadlines, still.fn, 'still running'); // keeps the deadline live
      let pod: object | undefined = { metadata: { name: 'web' } };
      const held = new WeakRef(pod);
      const outcome = new Promise<CallResult<void>>((resolve) => {
        const onResult = ((captured: object) => (result: CallResult<void>) => {
          expect(captured).toBeDefined();
          resolve(result);
        })(pod!);
        deadlines.run(() => Promise.resolve(), 'settled', onResult);
      });
      pod = undefined;
      expect(await outcome).toEqual({ outcome: 'success', value: undefined });
      await new Promise((resolve) => setImmediate(resolve)); // WeakRefs are cleared after the job that made them
      gc();
      expect(held.deref()).toBeUndefined();
      still.finish();
    });

    it('aborts every running call’s signal with the parent, and the calls still resolve with their outcome', async () => {
      const { parent, deadlines } = setUp();
      const [a, b] = [heldCall(), heldCall()];
      const results = [outcomeOf(deadlines, a.fn, 'a'), outcomeOf(deadlines, b.fn, 'b')];
      parent.abort(new Error('shutdown'));
      expect(a.signal().aborted && b.signal().aborted).toBe(true);
      expect(a.signal().reason).toEqual(new Error('shutdown'));
      a.finish();
      b.fail(new Error('aborted'));
      expect(await Promise.all(results)).toEqual([{ outcome: 'success', value: undefined }, { outcome: 'error', err: new Error('aborted') }]);
      const late = heldCall();
      void outcomeOf(deadlines, late.fn, 'late');
      expect(late.signal().aborted).toBe(true);
    });
  });
});

describe(deadlineResolutionMs.name, () => {
  it('is 1 % of the timeout as a power of ten, between 1 ms and 1 s', () => {
    expect([50, 1_000, 7_777, 60_000, 100_000, 3_600_000].map(deadlineResolutionMs)).toEqual([1, 10, 10, 100, 1_000, 1_000]);
  });
});
