import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { AbortableWait } from './abortable-wait.js';

describe(AbortableWait.name, () => {
  it('resolves with each value, with one abort listener however many waits, and none after dispose()', async () => {
    const controller = new AbortController();
    const wait = new AbortableWait(controller.signal);
    for (let i = 0; i < 1000; i++) expect(await wait.for(Promise.resolve(i))).toBe(i);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    wait.dispose();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('resolves undefined when the signal aborts first, and passes rejections through', async () => {
    const controller = new AbortController();
    const wait = new AbortableWait(controller.signal);
    await expect(wait.for(Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const pending = wait.for(new Promise<number>(() => undefined));
    controller.abort();
    expect(await pending).toBeUndefined();
    expect(await wait.for(Promise.resolve(1))).toBeUndefined();
  });

  it('leaves no unhandled rejection when a promise rejects after its wait was cut short', async () => {
    const controller = new AbortController();
    let rejectLate: (err: Error) => void = () => undefined;
    const late = new Promise<number>((_resolve, reject) => {
      rejectLate = reject;
    });
    const cut = new AbortableWait(controller.signal).for(late);
    controller.abort();
    expect(await cut).toBeUndefined();
    rejectLate(new Error('late'));
    // Vitest fails the run on an unhandled rejection; give it the chance.
    await new Promise((resolve) => setImmediate(resolve));
  });
});
