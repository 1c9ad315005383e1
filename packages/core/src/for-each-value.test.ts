import { describe, expect, it } from 'vitest';
import { forEachValue } from './for-each-value.js';

describe(forEachValue.name, () => {
  it('calls each with every value in order and resolves when the iterable ends', async () => {
    const seen: number[] = [];
    await forEachValue((async function* () { yield* [1, 2, 3]; })(), (v) => seen.push(v));
    expect(seen).toEqual([1, 2, 3]);
  });

  it('rejects with the iterable\'s error after the values before it', async () => {
    const seen: number[] = [];
    const failing = (async function* () {
      yield 1;
      throw new Error('source broke');
    })();
    await expect(forEachValue(failing, (v) => seen.push(v))).rejects.toThrow('source broke');
    expect(seen).toEqual([1]);
  });

  it('rejects with each\'s error and returns the iterator, as for await does', async () => {
    const log: string[] = [];
    const source = (async function* () {
      try {
        yield 1;
        yield 2;
      } finally {
        log.push('source finally');
      }
    })();
    await expect(forEachValue(source, () => { throw new Error('each broke'); })).rejects.toThrow('each broke');
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['source finally']);
  });

  it('rejects when next() throws instead of returning a promise', async () => {
    const broken: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({ next: () => { throw new Error('next broke'); } }),
    };
    await expect(forEachValue(broken, () => undefined)).rejects.toThrow('next broke');
  });
});
