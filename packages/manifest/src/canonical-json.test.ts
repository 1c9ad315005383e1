import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe(canonicalJson.name, () => {
  it('sorts keys recursively and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: 'x' } })).toBe('{"a":{"c":"x","d":[1,2]},"b":1}');
  });

  it('leaves out null, empty string, empty array and empty object members, also when they empty out', () => {
    expect(canonicalJson({ a: null, b: '', c: [], d: {}, e: { f: { g: null } }, h: 1 })).toBe('{"h":1}');
    expect(canonicalJson({ a: undefined })).toBe('null');
  });

  it('keeps false and 0, which are values', () => {
    expect(canonicalJson({ a: false, b: 0 })).toBe('{"a":false,"b":0}');
  });

  it('keeps array order and empty array items in place', () => {
    expect(canonicalJson({ args: ['b', '', 'a'], items: [{}, { x: null }, [], null] })).toBe('{"args":["b","","a"],"items":[{},{},[],null]}');
  });

  it('escapes strings and keys as JSON.stringify does', () => {
    expect(canonicalJson({ 'k"\n': 'é\u0001"' })).toBe(`{${JSON.stringify('k"\n')}:${JSON.stringify('é\u0001"')}}`);
  });

  it('writes strings as JSON.stringify does on both sides of the plain-ASCII shortcut', () => {
    const values = ['~ !#[]', 'x\\y', 'q"', '\u007f', '\u001f', '\ud800', 'a\u2028b', ''];
    const object = Object.fromEntries(values.map((v, i) => [`${i}${v}`, [v]]));
    const expected = `{${Object.keys(object).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(object[k])}`).join(',')}}`;
    expect(canonicalJson(object)).toBe(expected);
  });

  it('sorts keys by UTF-16 code units', () => {
    expect(canonicalJson({ b: 1, B: 2, 'ä': 3, a: 4 })).toBe('{"B":2,"a":4,"b":1,"ä":3}');
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ a: 1n })).toThrow(TypeError);
  });
});
