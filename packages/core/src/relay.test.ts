import { describe, expect, it } from 'vitest';
import { relay } from './relay.js';

/** An async generator over `values` that records how it ended; throws `error` after them if given. */
function recordingSource(values: readonly number[], log: string[], error?: Error): AsyncGenerator<number, void, undefined> {
  return (async function* () {
    try {
      for (const v of values) yield v;
      if (error !== undefined) throw error;
      log.push('source ended');
    } finally {
      log.push('source finally');
    }
  })();
}

describe(relay.name, () => {
  it('opens on the first next(), passes each value on after each(), and runs finish("ended") at the end', async () => {
    const log: string[] = [];
    const relayed = relay(() => {
      log.push('open');
      return {
        source: recordingSource([1, 2], log),
        each: (v) => log.push(`each ${v}`),
        finish: (how) => { log.push(`finish ${how}`); return Promise.resolve(); },
      };
    });
    expect(log).toEqual([]);
    const read: number[] = [];
    for await (const v of relayed) {
      log.push(`read ${v}`);
      read.push(v);
    }
    expect(read).toEqual([1, 2]);
    expect(log).toEqual(['open', 'each 1', 'read 1', 'each 2', 'read 2', 'source ended', 'source finally', 'finish ended']);
  });

  it('rejects with finish\'s error after the source ended', async () => {
    const relayed = relay(() => ({ source: recordingSource([], []), finish: () => Promise.reject(new Error('the source failed')) }));
    await expect(relayed.next()).rejects.toThrow('the source failed');
    expect(await relayed.next()).toEqual({ done: true, value: undefined });
  });

  it('on an early return, returns the source and then runs finish("stopped"), whose error it does not throw away', async () => {
    const log: string[] = [];
    const relayed = relay(() => ({
      source: recordingSource([1, 2, 3], log),
      finish: (how) => { log.push(`finish ${how}`); return Promise.resolve(); },
    }));
    for await (const v of relayed) {
      expect(v).toBe(1);
      break;
    }
    expect(log).toEqual(['source finally', 'finish stopped']);

    const failing = relay(() => ({ source: recordingSource([1], []), finish: () => Promise.reject(new Error('cleanup failed')) }));
    await failing.next();
    await expect(failing.return()).rejects.toThrow('cleanup failed');
  });

  it('ends a next() waiting on the source when the consumer returns', async () => {
    const log: string[] = [];
    let release!: () => void;
    const source: AsyncIterator<number, void, undefined> = {
      next: () => new Promise((resolve) => { release = () => resolve({ done: true, value: undefined }); }),
      return: () => { log.push('source returned'); release(); return Promise.resolve({ done: true, value: undefined }); },
    };
    const relayed = relay(() => ({
      source: { [Symbol.asyncIterator]: () => source },
      finish: (how) => { log.push(`finish ${how}`); return Promise.resolve(); },
    }));
    const waiting = relayed.next();
    await new Promise((resolve) => setImmediate(resolve));
    await relayed.return();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(log).toEqual(['source returned', 'finish stopped']);
  });

  it('runs finish once when a next() waiting on the source rejects because the consumer returned', async () => {
    const log: string[] = [];
    let fail!: () => void;
    const source: AsyncIterator<number, void, undefined> = {
      next: () => new Promise((_resolve, reject) => { fail = () => reject(new Error('source stopped')); }),
      return: () => { log.push('source returned'); fail(); return Promise.resolve({ done: true, value: undefined }); },
    };
    const relayed = relay(() => ({
      source: { [Symbol.asyncIterator]: () => source },
      finish: (how) => { log.push(`finish ${how}`); return Promise.resolve(); },
    }));
    const waiting = relayed.next().then(() => undefined, (e: unknown) => e);
    await new Promise((resolve) => setImmediate(resolve));
    await relayed.return();
    expect(await waiting).toMatchObject({ message: 'source stopped' });
    expect(log).toEqual(['source returned', 'finish stopped']);
  });

  it('runs finish("stopped") when the source throws, then rejects with the source\'s error', async () => {
    const log: string[] = [];
    const relayed = relay(() => ({
      source: recordingSource([1], log, new Error('source broke')),
      finish: (how) => { log.push(`finish ${how}`); return Promise.resolve(); },
    }));
    expect(await relayed.next()).toEqual({ done: false, value: 1 });
    await expect(relayed.next()).rejects.toThrow('source broke');
    expect(log).toEqual(['source finally', 'finish stopped']);
  });

  it('when each() throws, returns the source, runs finish("stopped") and rejects with that error', async () => {
    const log: string[] = [];
    const relayed = relay(() => ({
      source: recordingSource([1, 2], log),
      each: () => { throw new Error('each broke'); },
      finish: (how) => { log.push(`finish ${how}`); return Promise.resolve(); },
    }));
    await expect(relayed.next()).rejects.toThrow('each broke');
    expect(log).toEqual(['source finally', 'finish stopped']);
    expect(await relayed.next()).toEqual({ done: true, value: undefined });
  });

  it('needs no finish: passes the values on and ends with the source, or returns it early', async () => {
    const log: string[] = [];
    const read: number[] = [];
    for await (const v of relay(() => ({ source: recordingSource([1, 2], log) }))) read.push(v);
    expect(read).toEqual([1, 2]);
    const early = relay(() => ({ source: recordingSource([1, 2], log) }));
    await early.next();
    await early.return();
    expect(log).toEqual(['source ended', 'source finally', 'source finally']);
  });

  it('a return() before the first next() opens nothing', async () => {
    let opened = false;
    const relayed = relay(() => {
      opened = true;
      return { source: recordingSource([1], []), finish: () => Promise.resolve() };
    });
    await relayed.return();
    expect(await relayed.next()).toEqual({ done: true, value: undefined });
    expect(opened).toBe(false);
  });
});
