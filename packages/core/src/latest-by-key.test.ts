import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { LatestByKey } from './latest-by-key.js';

/** Reads `n` values from a drain without ending it. */
async function read<V>(drain: AsyncIterator<V>, n: number): Promise<V[]> {
  const out: V[] = [];
  for (let i = 0; i < n; i++) {
    const next = await drain.next();
    if (next.done === true) throw new Error(`drain ended after ${i} values`);
    out.push(next.value);
  }
  return out;
}

describe(LatestByKey.name, () => {
  describe('put()', () => {
    it('keeps only the latest value per key', () => {
      const box = new LatestByKey<string, number>();
      for (let i = 0; i < 1000; i++) box.put(i % 2 === 0 ? 'a' : 'b', i);
      expect(box.size).toBe(2);
    });

    it('combines a pending value with the next one through combine(pending, next)', async () => {
      const calls: [number[], number[]][] = [];
      const box = new LatestByKey<string, number[]>((pending, next) => {
        calls.push([pending, next]);
        return [...pending, ...next];
      });
      box.put('k', [1]);
      box.put('k', [2]);
      box.put('k', [3]);
      box.close();
      const drained: number[][] = [];
      for await (const value of box.drain(new AbortController().signal)) drained.push(value);
      expect(drained).toEqual([[1, 2, 3]]);
      expect(calls).toEqual([[[1], [2]], [[1, 2], [3]]]);
    });
  });

  describe('drain()', () => {
    it('yields keys in the order they first became pending, with their latest values', async () => {
      const box = new LatestByKey<string, string>();
      box.put('b', 'b1');
      box.put('a', 'a1');
      box.put('b', 'b2');
      box.put('c', 'c1');
      box.close();
      const drained: string[] = [];
      for await (const value of box.drain(new AbortController().signal)) drained.push(value);
      expect(drained).toEqual(['b2', 'a1', 'c1']);
    });

    it('waits for a put when nothing is pending and wakes on it', async () => {
      const box = new LatestByKey<string, string>();
      const controller = new AbortController();
      const drain = box.drain(controller.signal);
      const first = drain.next();
      box.put('a', 'x');
      expect(await first).toEqual({ done: false, value: 'x' });
      const second = drain.next();
      box.put('a', 'y');
      box.put('b', 'z');
      expect(await second).toEqual({ done: false, value: 'y' });
      expect(await read(drain, 1)).toEqual(['z']);
      controller.abort();
      expect(await drain.next()).toEqual({ done: true, value: undefined });
    });

    it('wakes a waiting consumer once per macrotask, after the puts of every microtask in it', async () => {
      const box = new LatestByKey<string, number>((pending, next) => pending + next);
      const controller = new AbortController();
      const drain = box.drain(controller.signal);
      const first = drain.next();
      for (let i = 1; i <= 100; i++) {
        box.put('a', i);
        await Promise.resolve(); // a producer applying the events of one chunk: microtasks only
      }
      expect(await first).toEqual({ done: false, value: 5050 });
      controller.abort();
      expect(await drain.next()).toEqual({ done: true, value: undefined });
    });

    it("with wake: 'microtask', wakes a waiting consumer once the put's synchronous caller is done, before the next macrotask", async () => {
      const box = new LatestByKey<string, number>((pending, next) => pending + next, { wake: 'microtask' });
      const controller = new AbortController();
      const drain = box.drain(controller.signal);
      const seen: string[] = [];
      const first = drain.next().then((r) => seen.push(`took ${String(r.value)}`));
      await Promise.resolve(); // the consumer is waiting
      const macrotask = new Promise<void>((resolve) => setImmediate(() => { seen.push('macrotask'); resolve(); }));
      box.put('a', 1);
      box.put('a', 2); // same synchronous run: combined with the first
      await Promise.all([first, macrotask]);
      expect(seen).toEqual(['took 3', 'macrotask']);
      controller.abort();
      expect(await drain.next()).toEqual({ done: true, value: undefined });
    });

    it('keeps a key pending again after its value was taken, behind keys already pending', async () => {
      const box = new LatestByKey<string, string>();
      const controller = new AbortController();
      const drain = box.drain(controller.signal);
      box.put('a', 'a1');
      box.put('b', 'b1');
      expect(await read(drain, 1)).toEqual(['a1']);
      box.put('a', 'a2');
      expect(await read(drain, 2)).toEqual(['b1', 'a2']);
      await drain.return();
    });

    it('yields what is pending after close() and then returns; later puts are ignored', async () => {
      const box = new LatestByKey<string, number>();
      box.put('a', 1);
      box.close();
      box.put('b', 2);
      const drained: number[] = [];
      for await (const value of box.drain(new AbortController().signal)) drained.push(value);
      expect(drained).toEqual([1]);
      expect(box.size).toBe(0);
    });

    it('returns when closed while waiting', async () => {
      const box = new LatestByKey<string, number>();
      const drain = box.drain(new AbortController().signal);
      const waiting = drain.next();
      box.close();
      expect(await waiting).toEqual({ done: true, value: undefined });
    });

    it('returns when the signal aborts while waiting, and removes its abort listener', async () => {
      const box = new LatestByKey<string, number>();
      const controller = new AbortController();
      const drain = box.drain(controller.signal);
      const waiting = drain.next();
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      controller.abort();
      expect(await waiting).toEqual({ done: true, value: undefined });
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });

    it('removes its abort listener when the consumer stops early', async () => {
      const box = new LatestByKey<string, number>();
      const controller = new AbortController();
      box.put('a', 1);
      for await (const value of box.drain(controller.signal)) {
        expect(value).toBe(1);
        break;
      }
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });

    it('ends a waiting next() with done when the consumer returns, and removes its abort listener', async () => {
      const box = new LatestByKey<string, number>();
      const controller = new AbortController();
      const drain = box.drain(controller.signal);
      const waiting = drain.next();
      await Promise.resolve();
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      expect(await drain.return()).toEqual({ done: true, value: undefined });
      expect(await waiting).toEqual({ done: true, value: undefined });
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      box.put('a', 1);
      expect(await drain.next()).toEqual({ done: true, value: undefined });
      expect(box.size).toBe(1);
    });

    it('serves next() calls made before the first has settled one after the other, in order', async () => {
      const box = new LatestByKey<string, string>();
      const drain = box.drain(new AbortController().signal);
      const first = drain.next();
      const second = drain.next();
      box.put('a', 'a1');
      await Promise.resolve();
      box.put('b', 'b1');
      expect(await first).toEqual({ done: false, value: 'a1' });
      expect(await second).toEqual({ done: false, value: 'b1' });
      await drain.return();
    });

    it('yields nothing when the signal is already aborted', async () => {
      const box = new LatestByKey<string, number>();
      box.put('a', 1);
      const drained: number[] = [];
      for await (const value of box.drain(AbortSignal.abort())) drained.push(value);
      expect(drained).toEqual([]);
      expect(box.size).toBe(1);
    });
  });
});
