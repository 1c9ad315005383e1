import { describe, expect, it } from 'vitest';
import { LinkedQueue, type QueueEntry } from './linked-queue.js';

class Item implements QueueEntry<Item> {
  queuePrev: Item | undefined;
  queueNext: Item | undefined;
  queuedIn: object | undefined;
  constructor(readonly name: string) {}
}

const items = (...names: string[]): Item[] => names.map((name) => new Item(name));

const drain = (queue: LinkedQueue<Item>): string[] => {
  const out: string[] = [];
  for (let item = queue.shift(); item !== undefined; item = queue.shift()) out.push(item.name);
  return out;
};

describe(LinkedQueue.name, () => {
  it('returns members oldest first; adding a member again keeps its place', () => {
    const queue = new LinkedQueue<Item>();
    const [a, b, c] = items('a', 'b', 'c');
    expect(queue.first).toBeUndefined();
    for (const item of [a!, b!, c!, a!]) queue.add(item);
    expect(queue.first).toBe(a);
    expect(queue.size).toBe(3);
    expect(drain(queue)).toEqual(['a', 'b', 'c']);
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeUndefined();
    expect(a!.queuedIn).toBeUndefined();
  });

  it('deletes from the front, the middle and the end; a member deleted then added again goes to the end', () => {
    const queue = new LinkedQueue<Item>();
    const [a, b, c, d, e] = items('a', 'b', 'c', 'd', 'e');
    for (const item of [a!, b!, c!, d!, e!]) queue.add(item);
    expect(queue.delete(c!)).toBe(true);
    expect(queue.delete(c!)).toBe(false);
    expect(queue.delete(a!)).toBe(true);
    expect(queue.delete(e!)).toBe(true);
    queue.add(a!);
    expect([queue.has(a!), queue.has(c!), queue.size]).toEqual([true, false, 3]);
    expect(drain(queue)).toEqual(['b', 'd', 'a']);
  });

  it('keeps its order through many adds and deletes, holding only its members', () => {
    const queue = new LinkedQueue<Item>();
    const first = new Item('first');
    queue.add(first);
    for (let i = 0; i < 10_000; i++) {
      const item = new Item(String(i));
      queue.add(item);
      if (i % 3 !== 0) queue.delete(item);
    }
    expect(queue.size).toBe(1 + 3_334);
    const names = drain(queue);
    expect(names).toEqual(['first', ...Array.from({ length: 3_334 }, (_, i) => String(i * 3))]);
  });

  it('refuses an item that waits in another queue', () => {
    const [one, two] = [new LinkedQueue<Item>(), new LinkedQueue<Item>()];
    const [a] = items('a');
    one.add(a!);
    expect(() => two.add(a!)).toThrow(/another queue/);
    expect(two.delete(a!)).toBe(false);
    expect([one.has(a!), two.has(a!), two.size]).toEqual([true, false, 0]);
  });
});
