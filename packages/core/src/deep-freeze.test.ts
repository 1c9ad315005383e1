import { describe, expect, it } from 'vitest';
import { deepFreeze, deepFreezeParsed } from './deep-freeze.js';

describe(deepFreeze.name, () => {
  it('freezes nested objects and arrays: writes throw and leave the value as it was', () => {
    const pod = { metadata: { name: 'p', labels: { a: '1' } }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] }, n: null };
    expect(deepFreeze(pod)).toBe(pod);
    expect(() => { pod.metadata.labels.a = '2'; }).toThrow(TypeError);
    expect(() => { pod.spec.containers[0]!.ports[0]!.containerPort = 81; }).toThrow(TypeError);
    expect(() => pod.spec.containers.push({ name: 'd', ports: [] })).toThrow(TypeError);
    expect(() => { delete (pod as { n?: null }).n; }).toThrow(TypeError);
    expect(pod).toEqual({ metadata: { name: 'p', labels: { a: '1' } }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] }, n: null });
  });

  it('returns primitives as they are and leaves class instances alone', () => {
    expect(deepFreeze('x')).toBe('x');
    expect(deepFreeze(null)).toBeNull();
    const date = new Date(0);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { k: { v: 1 } });
    deepFreeze({ date, bare });
    expect(Object.isFrozen(date)).toBe(false);
    expect(Object.isFrozen(bare.k)).toBe(true);
  });

  it('skips subtrees that are already frozen, so a new version of a pod costs only its new parts', () => {
    const status = deepFreeze({ phase: 'Running', conditions: [{ type: 'Ready' }] });
    const spec = { containers: [{ name: 'c' }] };
    const pod = { spec, status };
    deepFreeze(pod);
    expect(Object.isFrozen(pod.spec.containers[0])).toBe(true);
    expect(pod.status).toBe(status);
  });

  it('trusts an object frozen by someone else to be frozen all the way down: it does not descend into it', () => {
    const inner = { phase: 'Running' };
    const shallow = Object.freeze({ inner });
    deepFreeze({ status: shallow });
    expect(Object.isFrozen(inner)).toBe(false);
  });
});

describe(deepFreezeParsed.name, () => {
  /** Every object and array of a JSON value. */
  const parts = (value: unknown): object[] =>
    typeof value !== 'object' || value === null ? [] : [value, ...Object.values(value).flatMap(parts)];

  it('freezes every object and array of a parsed value, as deepFreeze does', () => {
    const text = JSON.stringify({ metadata: { name: 'p', labels: { a: '1' } }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }], args: [] }] }, n: null });
    const parsed = JSON.parse(text) as { metadata: { labels: Record<string, string> } };
    expect(deepFreezeParsed(parsed)).toBe(parsed);
    expect(parts(parsed).length).toBe(9);
    for (const part of parts(parsed)) expect(Object.isFrozen(part)).toBe(true);
    expect(() => { parsed.metadata.labels.a = '2'; }).toThrow(TypeError);
    expect(parsed).toEqual(JSON.parse(text));
    const list = JSON.parse('[{"a":[{"b":1}]},[2]]') as unknown[];
    deepFreezeParsed(list);
    for (const part of parts(list)) expect(Object.isFrozen(part)).toBe(true);
    expect(deepFreezeParsed('x')).toBe('x');
    expect(deepFreezeParsed(null)).toBeNull();
  });

  it('keeps a frozen member of the top level as it is, and freezes the rest around it', () => {
    const spec = deepFreeze({ containers: [{ name: 'c' }] });
    const pod = { ...(JSON.parse('{"metadata":{"name":"p"},"status":{"conditions":[{"type":"Ready"}]}}') as object), spec };
    deepFreezeParsed(pod);
    expect(pod.spec).toBe(spec);
    for (const part of parts(pod)) expect(Object.isFrozen(part)).toBe(true);
  });
});
