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
});
