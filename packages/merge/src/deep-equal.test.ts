import { describe, expect, it } from 'vitest';
import { deepEqual } from './deep-equal.js';

describe('deepEqual()', () => {
  it('compares nested objects and arrays by value', () => {
    expect(deepEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
    expect(deepEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] })).toBe(false);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });

  it('treats null, undefined and a missing property alike (a nil Go field)', () => {
    expect(deepEqual({ a: 1, b: null }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1, c: null })).toBe(true);
    expect(deepEqual(null, undefined)).toBe(true);
  });

  it('tells a missing array from an empty one (Go nil ≠ empty), not a missing map from an empty one (D14)', () => {
    expect(deepEqual({ a: [] }, {})).toBe(false);
    expect(deepEqual({ a: {} }, {})).toBe(true);
    expect(deepEqual([], {})).toBe(false);
  });
});
