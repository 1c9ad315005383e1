import { describe, expect, it } from 'vitest';
import type { Volume } from '@podconfig/core';
import {
  validateConfigMapVolume, validateCsiVolume, validateEphemeralVolume, validatePersistentVolumeClaim, validateSecretVolume,
} from './validate-object-volume-sources.js';

type Source<K extends keyof Volume> = NonNullable<Volume[K]>;
type Ephemeral = Source<'ephemeral'>;
const check = <T>(validate: (source: T, at: string, errors: string[]) => void, source: T, at: string): string[] => {
  const errors: string[] = [];
  validate(source, at, errors);
  return errors;
};
const ephemeral = (source: Ephemeral, pod = 'web-node-a', volume = 'scratch'): string[] => {
  const errors: string[] = [];
  validateEphemeralVolume(source, 'spec.volumes[0].ephemeral', 'spec.volumes[0]', { pod, volume }, errors);
  return errors;
};
const claim = (spec: Record<string, unknown>, metadata?: Record<string, unknown>): Ephemeral =>
  ({ volumeClaimTemplate: { ...(metadata ? { metadata } : {}), spec } });
const storage = { requests: { storage: '1Gi' } };

describe('secret and configMap volumes', () => {
  it('accept a name, a default mode and items with keys and relative paths', () => {
    expect(check(validateSecretVolume, { secretName: 'tls', defaultMode: 0o400, items: [{ key: 'tls.crt', path: 'certs/tls.crt', mode: 0o444 }] }, 'spec.volumes[0].secret')).toEqual([]);
    expect(check(validateConfigMapVolume, { name: 'app', items: [{ key: 'app.conf', path: 'app.conf' }] }, 'spec.volumes[0].configMap')).toEqual([]);
  });

  it('require the name, and check the default mode and each item', () => {
    expect(check(validateSecretVolume, { defaultMode: 0o1000, items: [{ key: '', path: '' }, { key: 'k', path: '..data/k', mode: -1 }] }, 'spec.volumes[0].secret')).toEqual([
      'spec.volumes[0].secret.secretName: Required value',
      'spec.volumes[0].secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive',
      'spec.volumes[0].secret.items[0].key: Required value',
      'spec.volumes[0].secret.items[0].path: Required value',
      'spec.volumes[0].secret.items[1].path: Invalid value: "..data/k": must not start with \'..\'',
      'spec.volumes[0].secret.items[1].mode: Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive',
    ]);
    expect(check(validateConfigMapVolume, { items: [{ key: 'k', path: '/etc/k' }] }, 'spec.volumes[0].configMap')).toEqual([
      'spec.volumes[0].configMap.name: Required value',
      'spec.volumes[0].configMap.items[0].path: Invalid value: "/etc/k": must be a relative path',
    ]);
  });
});

describe('persistentVolumeClaim and csi volumes', () => {
  it('accept a claim name, and a driver with a valid node publish secret', () => {
    expect(check(validatePersistentVolumeClaim, { claimName: 'data' }, 'spec.volumes[0].persistentVolumeClaim')).toEqual([]);
    expect(check(validateCsiVolume, { driver: 'Secrets-Store.csi.k8s.io', nodePublishSecretRef: { name: 'creds' } }, 'spec.volumes[0].csi')).toEqual([]);
  });

  it('require a claim name, a driver name of at most 63 bytes that is a subdomain, and a valid secret name (reported at csi.name)', () => {
    expect(check(validatePersistentVolumeClaim, {} as Source<'persistentVolumeClaim'>, 'spec.volumes[0].persistentVolumeClaim'))
      .toEqual(['spec.volumes[0].persistentVolumeClaim.claimName: Required value']);
    expect(check(validateCsiVolume, { nodePublishSecretRef: {} } as Source<'csi'>, 'spec.volumes[0].csi'))
      .toEqual(['spec.volumes[0].csi.driver: Required value', 'spec.volumes[0].csi.nodePublishSecretRef.name: Required value']);
    const long = `${'d'.repeat(61)}.io`;
    expect(check(validateCsiVolume, { driver: long, nodePublishSecretRef: { name: 'Creds' } }, 'spec.volumes[0].csi')).toEqual([
      'spec.volumes[0].csi.driver: Too long: may not be more than 63 bytes',
      'spec.volumes[0].csi.name: Invalid value: "Creds": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    ]);
  });
});

describe(validateEphemeralVolume.name, () => {
  it('accepts a claim template with labels, annotations and a valid claim spec', () => {
    expect(ephemeral(claim({ accessModes: ['ReadWriteOncePod'], resources: storage, storageClassName: 'fast', volumeMode: 'Block',
      dataSource: { kind: 'PersistentVolumeClaim', name: 'seed' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'seed' } },
    { labels: { app: 'web' }, annotations: { 'example.com/owner': 'team' } }))).toEqual([]);
  });

  it('requires a claim template whose metadata holds labels and annotations only', () => {
    expect(ephemeral({})).toEqual(['spec.volumes[0].ephemeral.volumeClaimTemplate: Required value']);
    const at = 'spec.volumes[0].ephemeral.volumeClaimTemplate.metadata';
    expect(ephemeral(claim({ accessModes: ['ReadWriteOnce'], resources: storage }, { name: 'x', uid: 'u', labels: { 'a/b/c': 'v' }, finalizers: [] }))).toEqual([
      `${at}.labels: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      `${at}.name: Forbidden: cannot be set`,
      `${at}.uID: Forbidden: cannot be set`,
      `${at}.finalizers: Forbidden: cannot be set`,
    ]);
  });

  it('checks the claim spec: access modes, storage, classes, volume mode', () => {
    const at = 'spec.volumes[0].ephemeral.volumeClaimTemplate.spec';
    expect(ephemeral(claim({}))).toEqual([`${at}.accessModes: Required value: at least 1 access mode is required`, `${at}.resources[storage]: Required value`]);
    expect(ephemeral(claim({ accessModes: ['ReadWriteOncePod', 'ReadWriteOnce', 'WriteOnly'], resources: { requests: { storage: '0' } },
      storageClassName: 'Fast', volumeMode: 'Raw', volumeAttributesClassName: 'gold_1' }))).toEqual([
      `${at}.accessModes: Unsupported value: "WriteOnly": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`,
      `${at}.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes`,
      `${at}.resources[storage]: Invalid value: "0": must be greater than zero`,
      `${at}.storageClassName: Invalid value: "Fast": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `${at}.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"`,
      `${at}.volumeAttributesClassName: Invalid value: "gold_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });

  it('checks data sources: name and kind, a PVC in the core group, matching dataSource and dataSourceRef', () => {
    const at = 'spec.volumes[0].ephemeral.volumeClaimTemplate.spec';
    expect(ephemeral(claim({ accessModes: ['ReadWriteOnce'], resources: storage, dataSource: { kind: 'VolumeSnapshot' },
      dataSourceRef: { apiGroup: 'Snapshot.Storage', kind: 'VolumeSnapshot', name: 'snap' } }))).toEqual([
      `${at}.dataSource.name: Required value`,
      `${at}.dataSource: Invalid value: "VolumeSnapshot": must be 'PersistentVolumeClaim' when referencing the default apiGroup`,
      `${at}.dataSourceRef.apiGroup: Invalid value: "Snapshot.Storage": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      // The API's value is the path `dataSource`, which encoding/json writes as {}.
      `${at}: Invalid value: {}: must match dataSourceRef`,
    ]);
  });

  it('requires the claim it creates, <pod>-<volume>, to be a valid name', () => {
    expect(ephemeral(claim({ accessModes: ['ReadWriteOnce'], resources: storage }), 'p'.repeat(250), 'data')).toEqual([
      `spec.volumes[0].name: Invalid value: "data": PVC name "${'p'.repeat(250)}-data": must be no more than 253 characters`,
    ]);
  });
});
