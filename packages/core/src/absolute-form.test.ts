import { describe, expect, it } from 'vitest';
import { toAbsoluteForm } from './absolute-form.js';

describe(toAbsoluteForm.name, () => {
  it('joins origin and path as they are: a path starting with // stays on the origin\'s host', () => {
    expect(toAbsoluteForm({ origin: 'http://manifests.test', path: '//evil.test/pods?x=1' }, undefined).path)
      .toBe('http://manifests.test//evil.test/pods?x=1');
    expect(toAbsoluteForm({ origin: new URL('http://[fd00::1]:8080/'), path: '/api' }, undefined).path).toBe('http://[fd00::1]:8080/api');
  });

  it('keeps every value of a repeated header in order, whatever shape the headers come in', () => {
    expect(toAbsoluteForm({ origin: 'http://h', path: '/', headers: ['X-Tag', 'one', 'X-Tag', 'two'] }, undefined).headers)
      .toEqual(['X-Tag', 'one', 'X-Tag', 'two']);
    expect(toAbsoluteForm({ origin: 'http://h', path: '/', headers: { 'x-tag': ['one', 'two'], skip: undefined, n: 1 } }, undefined).headers)
      .toEqual(['x-tag', 'one', 'x-tag', 'two', 'n', '1']);
    expect(toAbsoluteForm({ origin: 'http://h', path: '/', headers: new Map([['x-tag', 'one']]) }, undefined).headers).toEqual(['x-tag', 'one']);
    expect(toAbsoluteForm({ origin: 'http://h', path: '/', headers: [['x-tag', 'one'], ['x-tag', ['two', 'three']]] }, undefined).headers)
      .toEqual(['x-tag', 'one', 'x-tag', 'two', 'x-tag', 'three']);
  });

  it('adds the proxy\'s Proxy-Authorization unless the request sets one', () => {
    expect(toAbsoluteForm({ origin: 'http://h', path: '/', headers: ['a', 'b'] }, 'Basic eA==').headers).toEqual(['a', 'b', 'proxy-authorization', 'Basic eA==']);
    expect(toAbsoluteForm({ origin: 'http://h', path: '/', headers: ['Proxy-Authorization', 'Bearer mine'] }, 'Basic eA==').headers)
      .toEqual(['Proxy-Authorization', 'Bearer mine']);
  });
});
