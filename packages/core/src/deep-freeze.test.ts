import { describe, expect, it } from 'vitest';
import { deepFreeze } from './deep-freeze.js';

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
});
