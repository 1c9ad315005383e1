import { PodConfigError } from '@podconfig/core';
import { InstantClock } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { callWithTimeout } from './call-with-timeout.js';
import { ClockTimers } from './clock-timers.js';

function options(parent = new AbortController().signal) {
  const clock = new InstantClock();
  return { parent, timers: new ClockTimers({ clock, onError: () => undefined }), timeoutMs: 5_000, what: 'h syncPod' };
}

describe('callWithTimeout()', () => {
  it('resolves with the value of a call that settles', async () => {
    await expect(callWithTimeout(async () => 42, options())).resolves.toEqual({ outcome: 'success', value: 42 });
  });

  it('turns a rejection and a synchronous throw into an error outcome', async () => {
    const err = new Error('boom');
    await expect(callWithTimeout(() => Promise.reject(err), options())).resolves.toEqual({ outcome: 'error', err });
    await expect(callWithTimeout(() => { throw err; }, options())).resolves.toEqual({ outcome: 'error', err });
  });

  it('takes a call that returns a plain value instead of a promise (a synchronous JavaScript hook) as a success', async () => {
    const sync = (() => 7) as unknown as () => Promise<number>;
    await expect(callWithTimeout(sync, options())).resolves.toEqual({ outcome: 'success', value: 7 });
  });

  it('aborts the call\'s signal and resolves with PODCONFIG_HANDLER_TIMEOUT when the call never settles', async () => {
    let seen: AbortSignal | undefined;
    const result = await callWithTimeout((signal) => {
      seen = signal;
      return new Promise<never>(() => undefined);
    }, options());
    expect(result.outcome).toBe('timeout');
    expect(result.outcome === 'timeout' && PodConfigError.is(result.err, 'PODCONFIG_HANDLER_TIMEOUT')).toBe(true);
    expect(seen?.aborted).toBe(true);
  });

  it('aborts the call\'s signal when the parent aborts', async () => {
    const parent = new AbortController();
    const result = callWithTimeout((signal) => new Promise<void>((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    }), options(parent.signal));
    parent.abort();
    await expect(result).resolves.toMatchObject({ outcome: 'error' });
  });
});
