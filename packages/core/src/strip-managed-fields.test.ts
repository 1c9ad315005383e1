import { describe, expect, it } from 'vitest';
import { deepFreeze } from './deep-freeze.js';
import type { Pod } from './pod.js';
import { stripManagedFields } from './strip-managed-fields.js';

const MANAGED_FIELDS = [
  { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {} } } } },
  { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', subresource: 'status', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': {} } },
];

const makePod = (name: string): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] },
});

/** A pod as the API server sends it: managedFields between other metadata fields. */
function apiPod(): Pod {
  const pod = makePod('p');
  return {
    ...pod,
    metadata: { name: 'p', namespace: 'default', uid: 'u-1', resourceVersion: '42', managedFields: MANAGED_FIELDS, labels: { app: 'x' } },
  };
}

describe('stripManagedFields()', () => {
  it('drops metadata.managedFields and keeps every other field, in order, sharing the unchanged values', () => {
    const pod = apiPod();
    const stripped = stripManagedFields(pod);
    expect(stripped.metadata).not.toHaveProperty('managedFields');
    const { managedFields: _managedFields, ...expectedMetadata } = pod.metadata ?? {};
    expect(stripped).toEqual({ ...pod, metadata: expectedMetadata });
    expect(Object.keys(stripped)).toEqual(Object.keys(pod));
    expect(Object.keys(stripped.metadata ?? {})).toEqual(Object.keys(expectedMetadata));
    expect(stripped.spec).toBe(pod.spec);
    expect(stripped.metadata?.labels).toBe(pod.metadata?.labels);
  });

  it('leaves its input untouched, so a frozen object works too', () => {
    const pod = deepFreeze(apiPod());
    const stripped = stripManagedFields(pod);
    expect(stripped).not.toBe(pod);
    expect(stripped.metadata).not.toHaveProperty('managedFields');
    expect(pod.metadata?.managedFields).toEqual(MANAGED_FIELDS);
  });

  it('drops the field whatever its value (null, empty)', () => {
    for (const managedFields of [null, [], undefined]) {
      const object = { kind: 'Node', metadata: { name: 'n', managedFields } };
      expect(stripManagedFields(object)).toEqual({ kind: 'Node', metadata: { name: 'n' } });
      expect(Object.hasOwn(stripManagedFields(object).metadata, 'managedFields')).toBe(false);
    }
  });

  it('returns the same object when there is nothing to drop', () => {
    const pod = makePod('p');
    expect(stripManagedFields(pod)).toBe(pod);
    const bare = { kind: 'Status' };
    expect(stripManagedFields(bare)).toBe(bare);
    const odd = { metadata: null } as unknown as Pod;
    expect(stripManagedFields(odd)).toBe(odd);
  });

  it('is idempotent', () => {
    const once = stripManagedFields(apiPod());
    expect(stripManagedFields(once)).toBe(once);
  });
});
