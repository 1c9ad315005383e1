import { describe, expect, it } from 'vitest';
import { PullIterator } from './pull-iterator.js';

/** A result to pull, one that settles later, or a function that throws when pulled. */
type Step = IteratorResult<number, undefined> | Promise<IteratorResult<number, undefined>> | (() => never);

/** Pulls the given steps in order, then done; records its pulls and closes. */
class Scripted extends PullIterator<number> {
  readonly calls: string[] = [];
  readonly #script: Step[];

  constructor(script: readonly Step[]) {
    super();
    this.#script = [...script];
  }

  protected pull(): Promise<IteratorResult<number, undefined>> {
    this.calls.push('pull');
    const next = this.#script.shift();
    if (next === undefined) return Promise.resolve({ done: true, value: undefined });
    if (typeof next === 'function') return Promise.resolve().then(next);
    return Promise.resolve(next);
  }

  protected close(): Promise<void> {
    this.calls.push('close');
    return Promise.resolve();
  }
}

const value = (v: number): IteratorResult<number, undefined> => ({ done: false, value: v });
const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

describe(PullIterator.name, () => {
  it('is its own async iterator: for await reads its values', async () => {
    const read: number[] = [];
    for await (const v of new Scripted([value(1), value(2)])) read.push(v);
    expect(read).toEqual([1, 2]);
  });

  it('serves next() calls one after the other, in order, even when the first pull settles last', async () => {
    let release!: (r: IteratorResult<number, undefined>) => void;
    const iterator = new Scripted([new Promise((resolve) => { release = resolve; }), value(2)]);
    const first = iterator.next();
    const second = iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(iterator.calls).toEqual(['pull']); // the second pull waits for the first
    release(value(1));
    expect(await first).toEqual(value(1));
    expect(await second).toEqual(value(2));
  });

  it('does not pull again once a pull returned done or threw', async () => {
    const ended = new Scripted([DONE, value(9)]);
    expect(await ended.next()).toEqual(DONE);
    expect(await ended.next()).toEqual(DONE);
    expect(ended.calls).toEqual(['pull']);

    const failed = new Scripted([() => { throw new Error('boom'); }, value(9)]);
    await expect(failed.next()).rejects.toThrow('boom');
    expect(await failed.next()).toEqual(DONE);
    expect(failed.calls).toEqual(['pull']);
  });

  it('return() closes once and ends the iteration; a return() before the first next() closes without pulling', async () => {
    const iterator = new Scripted([value(1), value(2)]);
    expect(await iterator.next()).toEqual(value(1));
    expect(await iterator.return()).toEqual(DONE);
    expect(await iterator.return()).toEqual(DONE);
    expect(await iterator.next()).toEqual(DONE);
    expect(iterator.calls).toEqual(['pull', 'close']);

    const unused = new Scripted([value(1)]);
    await unused.return();
    expect(await unused.next()).toEqual(DONE);
    expect(unused.calls).toEqual(['close']);
  });

  it('a for await that breaks returns the iterator', async () => {
    const iterator = new Scripted([value(1), value(2)]);
    for await (const v of iterator) {
      expect(v).toBe(1);
      break;
    }
    expect(iterator.calls).toEqual(['pull', 'close']);
  });
});
