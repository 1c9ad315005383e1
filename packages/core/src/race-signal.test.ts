import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { raceSignal } from './race-signal.js';

describe('raceSignal()', () => {
  it('rejects with the abort reason while the promise is still pending, and handles its late rejection', async () => {
    const controller = new AbortController();
    let fail!: (err: Error) => void;
    const pending = new Promise<string>((_resolve, reject) => (fail = reject));
    const raced = raceSignal(pending, controller.signal);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(raced).rejects.toBe(reason);
    fail(new Error('late')); // no unhandled rejection: vitest would fail the run
    await expect(pending).rejects.toThrow('late');
  });

  it('settles with the promise and removes its abort listener', async () => {
    const controller = new AbortController();
    await expect(raceSignal(Promise.resolve(1), controller.signal)).resolves.toBe(1);
    await expect(raceSignal(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow('no');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('rejects at once for an aborted signal', async () => {
    const reason = new Error('gone');
    await expect(raceSignal(new Promise(() => undefined), AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});
