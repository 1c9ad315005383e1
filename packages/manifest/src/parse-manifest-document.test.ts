import { describe, expect, it } from 'vitest';
import { parseManifestDocument } from './parse-manifest-document.js';

describe('parseManifestDocument()', () => {
  it('drops null members at every depth and keeps nulls in sequences', () => {
    expect(parseManifestDocument('a: ~\nb:\n  c: null\n  d: [1, ~, {e: ~, f: 2}]\n  g: x\n')).toEqual({ b: { d: [1, null, { f: 2 }], g: 'x' } });
    expect(parseManifestDocument('{"a": null, "b": [null, {"c": null, "d": 1}], "e": {"f": null}}')).toEqual({ b: [null, { d: 1 }], e: {} });
  });

  it('keeps the member order of an object it copies to drop a null', () => {
    expect(Object.keys(parseManifestDocument('z: 1\ny: ~\nx: 2\nw: {v: ~}\n'))).toEqual(['z', 'x', 'w']);
  });

  it('names where a __proto__ key or a value nested too deep sits', () => {
    expect(() => parseManifestDocument('metadata:\n  labels:\n    __proto__: x\n')).toThrow('metadata.labels.__proto__: the key "__proto__" is not allowed');
    expect(() => parseManifestDocument('{"spec": {"c": [{"__proto__": 1}]}}')).toThrow('spec.c[0].__proto__: the key "__proto__" is not allowed');
    const deep = `{"spec": {"a": [${'['.repeat(70)}${']'.repeat(70)}]}}`;
    expect(() => parseManifestDocument(deep)).toThrow(`spec.a${'[0]'.repeat(63)}: nested more than 64 levels deep`);
  });
});
