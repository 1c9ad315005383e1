import { sameHiddenClass } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { copyWith } from './copy-with.js';

describe(copyWith.name, () => {
  it("copies base's keys, then sets added's, and leaves both alone", () => {
    const base = Object.freeze({ a: '1', b: '2' });
    const added = { b: '3', c: '4' };
    const copy = copyWith(base, added);
    expect(copy).toEqual({ a: '1', b: '3', c: '4' });
    expect(Object.keys(copy)).toEqual(['a', 'b', 'c']);
    expect(copy).not.toBe(base);
    expect(base).toEqual({ a: '1', b: '2' });
    expect(added).toEqual({ b: '3', c: '4' });
  });

  it('copies nothing from a missing base', () => {
    expect(copyWith(undefined, { k: 'v' })).toEqual({ k: 'v' });
    expect(copyWith(null, { k: 'v' })).toEqual({ k: 'v' });
  });

  it('gives copies of decoded objects with the same keys one hidden class, however often it runs', () => {
    // The case it exists for: the merger adds its annotations to each decoded pod's. Object spreads
    // that add keys stopped sharing a map after the first few copies in Node 20.
    const copies = Array.from({ length: 200 }, (_, i) => copyWith(
      JSON.parse(`{"app.kubernetes.io/name":"web","bench/seq":"${i}"}`) as Record<string, string>,
      { 'kubernetes.io/config.source': 'api', 'kubernetes.io/config.seen': `t${i}` },
    ));
    const first = copies[0]!;
    expect(copies.filter((copy) => !sameHiddenClass(first, copy))).toHaveLength(0);
  });
});
