import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import type { QueueEntry } from './linked-queue.js';

/** A queued item, named. */
class Item implements QueueEntry<Item> {
  queuePrev: Item | undefined;
  queueNext: Item | undefined;
  queuedIn: object | undefined;
  constructor(readonly name: string) {}
}

/** One item per name, the same object each time. */
function itemsByName(): (name: string) => Item {
  const items = new Map<string, Item>();
  return (name) => {
    let item = items.get(name);
    if (item === undefined) items.set(name, (item = new Item(name)));
    return item;
  };
}

/** A run function whose calls stay in flight until the test finishes them. */
class HeldRuns {
  readonly started: string[] = [];
  readonly #finishers = new Map<string, () => void>();
  readonly #waiters: { n: number; resolve: () => void }[] = [];

  readonly run = (_lane: number, item: Item, done: () => void): void => {
    this.started.push(item.name);
    for (const waiter of this.#waiters.filter((w) => this.started.length >= w.n)) waiter.resolve();
    this.#finishers.set(item.name, done);
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
      const item = itemsByName();
      const dispatcher = new Dispatcher<Item>({ concurrency: 2, lanes: 1, run: runs.run });
      for (const name of ['a', 'b', 'c', 'd']) dispatcher.enqueue(0, item(name));
      expect(runs.started).toEqual(['a', 'b']);
      expect(dispatcher.inFlight).toBe(2);
      runs.finish('a');
      await runs.started$(3);
      expect(runs.started).toEqual(['a', 'b', 'c']);
      expect(dispatcher.isQueued(0, item('d'))).toBe(true);
      runs.finish('b');
      await runs.started$(4);
      runs.finish('c');
      runs.finish('d');
      await dispatcher.drained();
      expect(dispatcher.inFlight).toBe(0);
      expect(runs.started).toEqual(['a', 'b', 'c', 'd']);
    });

    it('starts the next item when a run frees its slot synchronously (nothing to run), without recursion', async () => {
      const started: string[] = [];
      let finishFirst = (): void => undefined;
      const dispatcher = new Dispatcher<Item>({
        concurrency: 1,
        lanes: 1,
        run: (_lane, item, done) => {
          started.push(item.name);
          if (item.name === '0') finishFirst = done;
          else done();
        },
      });
      const items = 100_000;
      for (let i = 0; i < items; i++) dispatcher.enqueue(0, new Item(String(i)));
      expect(started).toEqual(['0']);
      finishFirst();
      expect(started).toHaveLength(items);
      expect(dispatcher.inFlight).toBe(0);
      await dispatcher.drained();
    });

    it('does not count as drained between a run that ended synchronously and the next one', async () => {
      const held = new Map<string, () => void>();
      const dispatcher = new Dispatcher<Item>({
        concurrency: 1,
        lanes: 1,
        run: (_lane, item, done) => {
          if (item.name.startsWith('sync')) done();
          else held.set(item.name, done);
        },
      });
      for (const name of ['held1', 'sync', 'held2']) dispatcher.enqueue(0, new Item(name));
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
      const item = itemsByName();
      const dispatcher = new Dispatcher<Item>({ concurrency: 1, lanes: 1, run: runs.run });
      dispatcher.enqueue(0, item('a'));
      dispatcher.enqueue(0, item('b'));
      dispatcher.enqueue(0, item('b'));
      expect(dispatcher.dequeue(0, item('b'))).toBe(true);
      expect(dispatcher.dequeue(0, item('b'))).toBe(false);
    });

    it('keeps a slot for every other lane while one lane is saturated', async () => {
      const runs = new HeldRuns();
      const item = itemsByName();
      const dispatcher = new Dispatcher<Item>({ concurrency: 3, lanes: 2, run: runs.run });
      for (const name of ['slow1', 'slow2', 'slow3', 'slow4']) dispatcher.enqueue(0, item(name));
      expect(runs.started).toEqual(['slow1', 'slow2']);
      dispatcher.enqueue(1, item('fast1'));
      dispatcher.enqueue(1, item('fast2'));
      expect(runs.started).toEqual(['slow1', 'slow2', 'fast1']);
      runs.finish('fast1');
      await runs.started$(4);
      expect(runs.started).toEqual(['slow1', 'slow2', 'fast1', 'fast2']);
    });

    it('takes lanes in turn', async () => {
      const runs = new HeldRuns();
      const item = itemsByName();
      const dispatcher = new Dispatcher<Item>({ concurrency: 1, lanes: 2, run: runs.run });
      for (const name of ['a1', 'a2', 'a3']) dispatcher.enqueue(0, item(name));
      for (const name of ['b1', 'b2']) dispatcher.enqueue(1, item(name));
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
      const item = itemsByName();
      const dispatcher = new Dispatcher<Item>({ concurrency: 1, lanes: 1, run: runs.run });
      dispatcher.enqueue(0, item('a'));
      dispatcher.enqueue(0, item('b'));
      dispatcher.pause();
      const drained = dispatcher.drained();
      runs.finish('a');
      await drained;
      expect(runs.started).toEqual(['a']);
      expect(dispatcher.isQueued(0, item('b'))).toBe(true);
    });
  });
});
