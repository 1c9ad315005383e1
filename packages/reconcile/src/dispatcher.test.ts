import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';

/** A run function whose calls stay in flight until the test finishes them. */
class HeldRuns {
  readonly started: string[] = [];
  readonly #finishers = new Map<string, () => void>();
  readonly #waiters: { n: number; resolve: () => void }[] = [];

  readonly run = (_lane: number, item: string, done: () => void): void => {
    this.started.push(item);
    for (const waiter of this.#waiters.filter((w) => this.started.length >= w.n)) waiter.resolve();
    this.#finishers.set(item, done);
  };

  finish(item: string): void {
    this.#finishers.get(item)?.();
  }

  /** Resolves once `n` items have started. */
  started$(n: number): Promise<void> {
    if (this.started.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }
}

describe(Dispatcher.name, () => {
  describe('enqueue()', () => {
    it('runs at most `concurrency` items and starts the next when one finishes', async () => {
      const runs = new HeldRuns();
      const dispatcher = new Dispatcher<string>({ concurrency: 2, lanes: 1, run: runs.run });
      for (const item of ['a', 'b', 'c', 'd']) dispatcher.enqueue(0, item);
      expect(runs.started).toEqual(['a', 'b']);
      expect(dispatcher.inFlight).toBe(2);
      runs.finish('a');
      await runs.started$(3);
      expect(runs.started).toEqual(['a', 'b', 'c']);
      expect(dispatcher.isQueued(0, 'd')).toBe(true);
      runs.finish('b');
      await runs.started$(4);
      runs.finish('c');
      runs.finish('d');
      await dispatcher.drained();
      expect(dispatcher.inFlight).toBe(0);
      expect(runs.started).toEqual(['a', 'b', 'c', 'd']);
    });

    it('starts the next item when a run frees its slot synchronously (nothing to run), without recursion', async () => {
      const started: number[] = [];
      let finishFirst = (): void => undefined;
      const dispatcher = new Dispatcher<number>({
        concurrency: 1,
        lanes: 1,
        run: (_lane, item, done) => {
          started.push(item);
          if (item === 0) finishFirst = done;
          else done();
        },
      });
      const items = 100_000;
      for (let i = 0; i < items; i++) dispatcher.enqueue(0, i);
      expect(started).toEqual([0]);
      finishFirst();
      expect(started).toHaveLength(items);
      expect(dispatcher.inFlight).toBe(0);
      await dispatcher.drained();
    });

    it('does not count as drained between a run that ended synchronously and the next one', async () => {
      const held = new Map<string, () => void>();
      const dispatcher = new Dispatcher<string>({
        concurrency: 1,
        lanes: 1,
        run: (_lane, item, done) => {
          if (item.startsWith('sync')) done();
          else held.set(item, done);
        },
      });
      for (const item of ['held1', 'sync', 'held2']) dispatcher.enqueue(0, item);
      let drained = false;
      void dispatcher.drained().then(() => { drained = true; });
      held.get('held1')!();
      await new Promise((resolve) => setImmediate(resolve));
      expect([...held.keys()]).toEqual(['held1', 'held2']);
      expect(drained).toBe(false);
      held.get('held2')!();
      await new Promise((resolve) => setImmediate(resolve));
      expect(drained).toBe(true);
    });

    it('queues an item once however often it is enqueued', () => {
      const runs = new HeldRuns();
      const dispatcher = new Dispatcher<string>({ concurrency: 1, lanes: 1, run: runs.run });
      dispatcher.enqueue(0, 'a');
      dispatcher.enqueue(0, 'b');
      dispatcher.enqueue(0, 'b');
      expect(dispatcher.dequeue(0, 'b')).toBe(true);
      expect(dispatcher.dequeue(0, 'b')).toBe(false);
    });

    it('keeps a slot for every other lane while one lane is saturated', async () => {
      const runs = new HeldRuns();
      const dispatcher = new Dispatcher<string>({ concurrency: 3, lanes: 2, run: runs.run });
      for (const item of ['slow1', 'slow2', 'slow3', 'slow4']) dispatcher.enqueue(0, item);
      expect(runs.started).toEqual(['slow1', 'slow2']);
      dispatcher.enqueue(1, 'fast1');
      dispatcher.enqueue(1, 'fast2');
      expect(runs.started).toEqual(['slow1', 'slow2', 'fast1']);
      runs.finish('fast1');
      await runs.started$(4);
      expect(runs.started).toEqual(['slow1', 'slow2', 'fast1', 'fast2']);
    });

    it('takes lanes in turn', async () => {
      const runs = new HeldRuns();
      const dispatcher = new Dispatcher<string>({ concurrency: 1, lanes: 2, run: runs.run });
      for (const item of ['a1', 'a2', 'a3']) dispatcher.enqueue(0, item);
      for (const item of ['b1', 'b2']) dispatcher.enqueue(1, item);
      for (let n = 1; n < 5; n += 1) {
        runs.finish(runs.started[n - 1]!);
        await runs.started$(n + 1);
      }
      expect(runs.started).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
    });
  });

  describe('pause()', () => {
    it('starts nothing more, and drained() resolves once the running items end', async () => {
      const runs = new HeldRuns();
      const dispatcher = new Dispatcher<string>({ concurrency: 1, lanes: 1, run: runs.run });
      dispatcher.enqueue(0, 'a');
      dispatcher.enqueue(0, 'b');
      dispatcher.pause();
      const drained = dispatcher.drained();
      runs.finish('a');
      await drained;
      expect(runs.started).toEqual(['a']);
      expect(dispatcher.isQueued(0, 'b')).toBe(true);
    });
  });
});
