import { describe, expect, it } from 'vitest';
import { FifoSet } from './fifo-set.js';

const drain = <T>(set: FifoSet<T>): T[] => {
  const out: T[] = [];
  for (let item = set.shift(); item !== undefined; item = set.shift()) out.push(item);
  return out;
};

describe(FifoSet.name, () => {
  it('returns members oldest first; adding a member again keeps its place', () => {
    const set = new FifoSet<string>();
    for (const item of ['a', 'b', 'c', 'a']) set.add(item);
    expect(set.size).toBe(3);
    expect(drain(set)).toEqual(['a', 'b', 'c']);
    expect(set.size).toBe(0);
    expect(set.shift()).toBeUndefined();
  });

  it('skips deleted members, and a member deleted then added again goes to the end', () => {
    const set = new FifoSet<string>();
    for (const item of ['a', 'b', 'c', 'd']) set.add(item);
    expect(set.delete('b')).toBe(true);
    expect(set.delete('b')).toBe(false);
    set.delete('a');
    set.add('a');
    expect(set.has('a')).toBe(true);
    expect(set.has('b')).toBe(false);
    expect(drain(set)).toEqual(['c', 'd', 'a']);
  });

  it('keeps its order through many deletes and adds without a shift (compaction on add)', () => {
    const set = new FifoSet<number>();
    set.add(-1);
    for (let i = 0; i < 10_000; i++) {
      set.add(i);
      set.delete(i);
    }
    set.add(10_000);
    expect(set.size).toBe(2);
    expect(drain(set)).toEqual([-1, 10_000]);
  });

  it('keeps its order through compaction with many members taken from the front', () => {
    const set = new FifoSet<number>();
    for (let i = 0; i < 5000; i++) set.add(i);
    for (let i = 0; i < 5000; i += 3) set.delete(i);
    const taken: number[] = [];
    for (let i = 0; i < 2000; i++) taken.push(set.shift()!);
    for (let i = 5000; i < 5100; i++) set.add(i);
    taken.push(...drain(set));
    const expected = [...Array.from({ length: 5000 }, (_, i) => i).filter((i) => i % 3 !== 0), ...Array.from({ length: 100 }, (_, i) => 5000 + i)];
    expect(taken).toEqual(expected);
  });
});
