import { describe, expect, it } from 'vitest';
import { jsonEqual } from './json-equal.js';

describe('jsonEqual()', () => {
  it('compares nested objects and arrays by value, whatever the key order', () => {
    expect(jsonEqual({ a: [1, { b: 'x', c: true }] }, { a: [1, { c: true, b: 'x' }] })).toBe(true);
    expect(jsonEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });

  it('tells null, undefined, a missing key and empty objects and arrays apart', () => {
    expect(jsonEqual({ a: 1, b: null }, { a: 1 })).toBe(false);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false);
    expect(jsonEqual({ a: undefined }, { a: undefined })).toBe(true);
    expect(jsonEqual(null, undefined)).toBe(false);
    expect(jsonEqual({}, undefined)).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({ labels: {} }, { labels: {} })).toBe(true);
  });

  it('tells 0 from -0, and compares a parsed `__proto__` member as a member, not as the prototype', () => {
    expect(jsonEqual(-0, 0)).toBe(false);
    expect(jsonEqual({ a: [0] }, { a: [-0] })).toBe(false);
    expect(jsonEqual({ a: 0 }, { a: 0 })).toBe(true);
    const proto = (): unknown => JSON.parse('{"__proto__":{}}');
    expect(jsonEqual(proto(), { a: 1 })).toBe(false);
    expect(jsonEqual({ a: 1 }, proto())).toBe(false);
    expect(jsonEqual({ c: proto() }, { c: { b: 2 } })).toBe(false);
    expect(jsonEqual(proto(), proto())).toBe(true);
  });
});
