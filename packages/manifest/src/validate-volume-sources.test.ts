import { describe, expect, it } from 'vitest';
import type { Volume } from '@podconfig/core';
import { validateVolumeSource } from './validate-volume-sources.js';

const run = (source: Omit<Volume, 'name'> & { image?: { reference?: string; pullPolicy?: string } }): string[] => {
  const errors: string[] = [];
  validateVolumeSource({ name: 'v', ...source }, 'spec.volumes[0]', errors);
  return errors;
};

describe(validateVolumeSource.name, () => {
  it('accepts the volumes a static pod usually has', () => {
    expect(run({ emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } })).toEqual([]);
    expect(run({ hostPath: { path: '/etc/kubernetes/pki', type: 'DirectoryOrCreate' } })).toEqual([]);
    expect(run({ downwardAPI: { defaultMode: 0o644, items: [
      { path: 'labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' } },
      { path: 'limits/cpu', resourceFieldRef: { containerName: 'main', resource: 'limits.cpu', divisor: '1m' }, mode: 0o400 },
    ] } })).toEqual([]);
    expect(run({ image: { reference: 'registry.k8s.io/pause:3.10', pullPolicy: 'IfNotPresent' } })).toEqual([]);
    expect(run({ nfs: { server: 'nfs.example.com', path: '/exports' } })).toEqual([]);
  });

  it('refuses a negative emptyDir size limit', () => {
    expect(run({ emptyDir: { sizeLimit: '-1Gi' } })).toEqual(['spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity']);
    expect(run({ emptyDir: { sizeLimit: '0' } })).toEqual([]);
  });

  it('checks file modes: 0 to 0777', () => {
    expect(run({ downwardAPI: { defaultMode: 0o1000, items: [{ path: 'name', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' }, mode: -1 }] } })).toEqual([
      'spec.volumes[0].downwardAPI.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive',
      'spec.volumes[0].downwardAPI.items[0].mode: Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive',
    ]);
    expect(run({ projected: { defaultMode: 0o777, sources: [] } })).toEqual([]);
    expect(run({ projected: { defaultMode: 0o1777, sources: [] } }))
      .toEqual(['spec.volumes[0].projected.defaultMode: Invalid value: 1023: must be a number between 0 and 0777 (octal), both inclusive']);
  });

  it('keeps downwardAPI files inside the volume, off the kubelet\'s reserved names', () => {
    const file = (path: string): NonNullable<NonNullable<Volume['downwardAPI']>['items']>[number] => ({ path, fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } });
    expect(run({ downwardAPI: { items: [file(''), file('/etc/name'), file('a/../../b'), file('..data'), file('a..b')] } })).toEqual([
      'spec.volumes[0].downwardAPI.items[0].path: Required value',
      'spec.volumes[0].downwardAPI.items[1].path: Invalid value: "/etc/name": must be a relative path',
      'spec.volumes[0].downwardAPI.items[2].path: Invalid value: "a/../../b": must not contain \'..\'',
      'spec.volumes[0].downwardAPI.items[3].path: Invalid value: "..data": must not start with \'..\'',
    ]);
  });

  it('takes only metadata fields in a volume file (no spec or status), and one source', () => {
    expect(run({ downwardAPI: { items: [
      { path: 'node', fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } },
      { path: 'tier', fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['tier']" } },
      { path: 'both', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' }, resourceFieldRef: { containerName: 'main', resource: 'limits.cpu' } },
      { path: 'none' },
    ] } })).toEqual([
      'spec.volumes[0].downwardAPI.items[0].fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"',
      'spec.volumes[0].downwardAPI.items[2]: Invalid value: "resource": fieldRef and resourceFieldRef can not be specified simultaneously',
      'spec.volumes[0].downwardAPI.items[3]: Required value: one of fieldRef and resourceFieldRef is required',
    ]);
  });

  it('requires a volume file\'s resourceFieldRef to name its container, then checks the resource and divisor', () => {
    expect(run({ downwardAPI: { items: [
      { path: 'a', resourceFieldRef: { resource: 'limits.cpu' } },
      { path: 'b', resourceFieldRef: { containerName: 'main', resource: 'limits.gpu' } },
      { path: 'c', resourceFieldRef: { containerName: 'main', resource: 'limits.memory', divisor: '1m' } },
    ] } })).toEqual([
      'spec.volumes[0].downwardAPI.items[0].resourceFieldRef.containerName: Required value',
      'spec.volumes[0].downwardAPI.items[1].resourceFieldRef.resource: Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"',
      'spec.volumes[0].downwardAPI.items[2].resourceFieldRef.divisor: Invalid value: "limits.memory": only divisor\'s values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource',
    ]);
  });

  it('checks projected downwardAPI files: one projection per source, no path twice', () => {
    const name = { path: 'name', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } };
    expect(run({ projected: { sources: [
      { downwardAPI: { items: [name] } },
      { downwardAPI: { items: [{ ...name, path: '/abs' }, name] } },
      { downwardAPI: { items: [] }, serviceAccountToken: { path: 'token', expirationSeconds: 3600 } },
    ] } })).toEqual([
      'spec.volumes[0].projected.sources[1].downwardAPI.items[0].path: Invalid value: "/abs": must be a relative path',
      'spec.volumes[0].projected.sources[1].downwardAPI.items[1].path: Invalid value: "name": conflicting duplicate paths',
      'spec.volumes[0].projected.sources[2]: Forbidden: may not specify more than 1 volume type per source',
    ]);
  });

  it('requires an image volume\'s reference and a known pull policy', () => {
    expect(run({ image: {} })).toEqual(['spec.volumes[0].image.reference: Required value', 'spec.volumes[0].image.pullPolicy: Required value']);
    expect(run({ image: { reference: 'busybox', pullPolicy: 'Sometimes' } })).toEqual([
      'spec.volumes[0].image.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
    ]);
  });

  it('checks nfs and gitRepo volumes', () => {
    expect(run({ nfs: { server: '', path: 'exports' } })).toEqual([
      'spec.volumes[0].nfs.server: Required value',
      'spec.volumes[0].nfs.path: Invalid value: "exports": must be an absolute path',
    ]);
    expect(run({ gitRepo: { repository: '', directory: '../up' } })).toEqual([
      'spec.volumes[0].gitRepo.repository: Required value',
      'spec.volumes[0].gitRepo.directory: Invalid value: "../up": must not contain \'..\'',
    ]);
    expect(run({ gitRepo: { repository: 'https://example.com/r.git', directory: '.' } })).toEqual([]);
  });

  it('takes the first source in the API\'s order and refuses each further one at the API\'s name for it, unchecked', () => {
    expect(run({ cephfs: { monitors: [] }, downwardAPI: { defaultMode: -1 }, emptyDir: {} })).toEqual([
      'spec.volumes[0].cephFS: Forbidden: may not specify more than 1 volume type',
      'spec.volumes[0].downwarAPI: Forbidden: may not specify more than 1 volume type',
    ]);
    expect(run({ gcePersistentDisk: { pdName: '' } })).toEqual(['spec.volumes[0].persistentDisk.pdName: Required value']);
    expect(run({ cephfs: { monitors: [] } })).toEqual(['spec.volumes[0].cephfs.monitors: Required value']);
  });

  it('requires <volume name>:<target portal> under 64 characters for an iSCSI volume with an initiator name', () => {
    const iscsi = { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:disk', lun: 0, initiatorName: 'iqn.2001-04.com.example:node' };
    expect(run({ iscsi })).toEqual([]);
    const errors: string[] = [];
    validateVolumeSource({ name: 'v'.repeat(51), iscsi }, 'spec.volumes[0]', errors);
    expect(errors).toEqual([`spec.volumes[0].name: Invalid value: "${'v'.repeat(51)}": Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.`]);
  });

  it('checks secret, configMap and service account token projections', () => {
    const at = 'spec.volumes[0].projected';
    expect(run({ projected: { sources: [
      { secret: { name: 'tls', items: [{ key: 'tls.crt', path: 'tls.crt' }] } },
      { configMap: { name: 'ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { serviceAccountToken: { path: 'token', expirationSeconds: 600 } },
    ] } })).toEqual([]);
    expect(run({ projected: { sources: [
      { secret: { items: [{ key: 'tls.crt', path: 'tls.crt' }] } },
      { configMap: { name: 'ca', items: [{ key: 'ca.crt', path: 'tls.crt' }, { key: '', path: '/ca' }] } },
      { serviceAccountToken: { path: '', expirationSeconds: 599 } },
      { serviceAccountToken: { path: '../token', expirationSeconds: 2 ** 32 + 1 } },
    ] } })).toEqual([
      `${at}.sources[0].secret.name: Required value`,
      `${at}.sources[1].configMap.items[0].path: Invalid value: "tls.crt": conflicting duplicate paths`,
      `${at}.sources[1].configMap.items[1].key: Required value`,
      `${at}.sources[1].configMap.items[1].path: Invalid value: "/ca": must be a relative path`,
      `${at}.sources[2].serviceAccountToken.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes`,
      // The API names the projected volume's path, not the token's.
      `${at}.path: Required value`,
      `${at}.sources[3].serviceAccountToken.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds`,
      `${at}.path: Invalid value: "../token": must not contain '..'`,
    ]);
  });

  it('counts the paths of ClusterTrustBundle and PodCertificate projections among the projected files', () => {
    expect(run({ projected: { sources: [
      { downwardAPI: { items: [{ path: 'ca.pem', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } }] } },
      { clusterTrustBundle: { signerName: 'example.com/ca', path: 'ca.pem' } },
      { podCertificate: { signerName: 'example.com/s', keyType: 'ED25519', credentialBundlePath: 'ca.pem' } },
    ] } } as Omit<Volume, 'name'>)).toEqual([
      'spec.volumes[0].projected.sources[1].clusterTrustBundle.path: Invalid value: "ca.pem": conflicting duplicate paths',
      'spec.volumes[0].projected.sources[2].podCertificate.credentialBundlePath: Invalid value: "ca.pem": conflicting duplicate paths',
    ]);
  });
});
