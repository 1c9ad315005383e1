import { jsonEqual } from '@podconfig/core';
import { seededRandom } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { compareJson, DIFFERENT, EXACT, SEMANTIC } from './compare-json.js';

/**
 * An oracle written another way: Go's DeepEqual on decoded JSON, with D14's empty maps equal to missing ones, is
 * jsonEqual after dropping nil members (`null` or `undefined`) and empty-map members (`{}`) from objects, reading a
 * nil array item as `null`, and NaN as equal to itself.
 */
/** `out[key] = value` as an own member, also for `__proto__` (as JSON.parse makes it). */
const put = (out: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
};
const withoutNil = (value: unknown): unknown => {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  if (Object.is(value, -0)) return 0; // Go's == on floats
  if (Array.isArray(value)) return value.map(withoutNil);
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || member === null) continue;
    const kept = withoutNil(member);
    if (!isEmptyMap(kept)) put(out, key, kept);
  }
  return out;
};
const isEmptyMap = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
const expected = (a: unknown, b: unknown): number =>
  (jsonEqual(a, b) ? EXACT : jsonEqual(withoutNil(a), withoutNil(b)) ? SEMANTIC : DIFFERENT);

describe(compareJson.name, () => {
  it('answers EXACT where jsonEqual holds, SEMANTIC where only Go DeepEqual would, else DIFFERENT', () => {
    expect(compareJson({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(EXACT);
    expect(compareJson({ a: 1, b: null }, { a: 1 })).toBe(SEMANTIC);
    expect(compareJson([{ a: null }, { b: 1 }], [{}, { b: 1 }])).toBe(SEMANTIC);
    expect(compareJson({ a: undefined }, { a: undefined })).toBe(EXACT);
    expect(compareJson({ a: undefined }, {})).toBe(SEMANTIC);
    expect(compareJson(null, undefined)).toBe(SEMANTIC);
    expect(compareJson({ a: [] }, {})).toBe(DIFFERENT); // Go: a nil slice is not an empty one
    expect(compareJson({ a: {} }, {})).toBe(SEMANTIC); // D14: an empty map is a missing one
    expect(compareJson({}, { a: {}, b: null })).toBe(SEMANTIC);
    expect(compareJson({ a: {} }, { a: null })).toBe(SEMANTIC);
    expect(compareJson({ a: { b: null, c: {} } }, {})).toBe(SEMANTIC);
    expect(compareJson({ a: { b: 1 } }, {})).toBe(DIFFERENT);
    expect(compareJson({ a: {} }, { a: [] })).toBe(DIFFERENT);
    expect(compareJson({ a: {}, c: 1 }, { c: 2 })).toBe(DIFFERENT);
    expect(compareJson({ c: 1 }, { a: {}, c: 2 })).toBe(DIFFERENT);
    expect(compareJson({ a: [1, { b: null }] }, { a: [1, { b: 'y' }] })).toBe(DIFFERENT);
    expect(compareJson([], {})).toBe(DIFFERENT);
    expect(compareJson({ a: [0] }, { a: [-0] })).toBe(SEMANTIC);
    expect(compareJson(JSON.parse('{"__proto__":{}}'), { a: 1 })).toBe(DIFFERENT);
    expect(compareJson({ a: 1 }, JSON.parse('{"__proto__":{}}'))).toBe(DIFFERENT);
    expect(compareJson(JSON.parse('{"__proto__":{"b":null}}'), JSON.parse('{"__proto__":{}}'))).toBe(SEMANTIC);
  });

  it('agrees with jsonEqual, and with DeepEqual as jsonEqual without nil members, on random pairs of nearly equal values', () => {
    const random = seededRandom(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const leaf = (): unknown => pick([null, undefined, 0, -0, 1, '', 'a', true, false, Number.NaN]);
    const value = (depth: number): unknown => {
      if (depth > 3 || random() < 0.3) return leaf();
      if (random() < 0.4) return Array.from({ length: Math.floor(random() * 3) }, () => value(depth + 1));
      const out: Record<string, unknown> = {};
      for (const key of ['a', 'b', '__proto__']) if (random() < 0.6) put(out, key, value(depth + 1));
      return out;
    };
    // A copy with a few changes: mostly equal values, with nil and empty ones moved around.
    const mutate = (v: unknown): unknown => {
      if (random() < 0.08) return value(2);
      if (Array.isArray(v)) return v.map(mutate);
      if (typeof v !== 'object' || v === null) return v;
      const out: Record<string, unknown> = {};
      for (const [key, member] of Object.entries(v)) if (random() > 0.05) put(out, key, mutate(member));
      if (random() < 0.1) out.d = pick([null, undefined, {}]);
      return out;
    };
    const seen = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      const a = value(0);
      const b = mutate(a);
      const answer = compareJson(a, b);
      seen.add(answer);
      expect(answer, JSON.stringify([a, b])).toBe(expected(a, b));
      expect(compareJson(b, a)).toBe(expected(b, a));
    }
    expect([...seen].sort()).toEqual([EXACT, SEMANTIC, DIFFERENT]);
  });
});
