import { describe, expect, it } from 'vitest';
import type { Volume } from '@podconfig/core';
import {
  validateAwsElasticBlockStore, validateAzureDisk, validateAzureFile, validateCephFs, validateCinder, validateFc, validateFlexVolume, validateFlocker,
  validateGcePersistentDisk, validateGlusterfs, validateIscsi, validatePhotonPersistentDisk, validatePortworxVolume, validateQuobyte, validateRbd,
  validateScaleIo, validateStorageOs, validateVsphereVolume,
} from './validate-disk-volume-sources.js';

type Source<K extends keyof Volume> = NonNullable<Volume[K]>;
const check = <T>(validate: (source: T, at: string, errors: string[]) => void, source: T, at = 'spec.volumes[0].x'): string[] => {
  const errors: string[] = [];
  validate(source, at, errors);
  return errors;
};
const iqn = 'iqn.2001-04.com.example:storage.disk1';

describe('iscsi', () => {
  const iscsi = (extra: Partial<Source<'iscsi'>>): Source<'iscsi'> => ({ targetPortal: '10.0.0.1:3260', iqn, lun: 0, ...extra });

  it('accepts iqn, eui and naa names, a LUN 0-255, CHAP with a secret', () => {
    expect(check(validateIscsi, iscsi({ lun: 255, initiatorName: 'iqn.2001-04.com.example:node1' }))).toEqual([]);
    expect(check(validateIscsi, iscsi({ iqn: `eui.${'0'.repeat(16)}`, initiatorName: `naa.${'a'.repeat(32)}` }))).toEqual([]);
    expect(check(validateIscsi, iscsi({ chapAuthSession: true, secretRef: { name: 'chap' } }))).toEqual([]);
  });

  it('requires a target portal and an IQN, in a known format, and a LUN 0-255', () => {
    expect(check(validateIscsi, { lun: 256 } as Source<'iscsi'>)).toEqual([
      'spec.volumes[0].x.targetPortal: Required value',
      'spec.volumes[0].x.iqn: Required value',
      'spec.volumes[0].x.lun: Invalid value: 256: must be between 0 and 255, inclusive',
    ]);
    expect(check(validateIscsi, iscsi({ iqn: 'disk1' }))).toEqual(['spec.volumes[0].x.iqn: Invalid value: "disk1": must be valid format starting with iqn, eui, or naa']);
    expect(check(validateIscsi, iscsi({ iqn: 'iqn.2001.com.example' }))).toEqual(['spec.volumes[0].x.iqn: Invalid value: "iqn.2001.com.example": must be valid format']);
  });

  it('requires a CHAP secret with CHAP, and a valid initiator name (an empty one too)', () => {
    expect(check(validateIscsi, iscsi({ chapAuthDiscovery: true, initiatorName: '' }))).toEqual([
      'spec.volumes[0].x.secretRef: Required value',
      'spec.volumes[0].x.initiatorname: Invalid value: "": must be valid format starting with iqn, eui, or naa',
    ]);
    expect(check(validateIscsi, iscsi({ initiatorName: 'eui.123' }))).toEqual(['spec.volumes[0].x.initiatorname: Invalid value: "eui.123": must be valid format']);
  });
});

describe('cloud disks', () => {
  it('accepts disks that name their volume, with a partition 0-255', () => {
    expect(check(validateGcePersistentDisk, { pdName: 'data', partition: 0 })).toEqual([]);
    expect(check(validateAwsElasticBlockStore, { volumeID: 'vol-1', partition: 255 })).toEqual([]);
    expect(check(validateCinder, { volumeID: 'v', secretRef: { name: 's' } })).toEqual([]);
    expect(check(validateVsphereVolume, { volumePath: '[ds] vol.vmdk' })).toEqual([]);
    expect(check(validatePhotonPersistentDisk, { pdID: 'p' })).toEqual([]);
    expect(check(validatePortworxVolume, { volumeID: 'v' })).toEqual([]);
  });

  it('requires the volume, and a partition 0-255 (in the API\'s words, 1-255)', () => {
    expect(check(validateGcePersistentDisk, { partition: 256 } as Source<'gcePersistentDisk'>)).toEqual([
      'spec.volumes[0].x.pdName: Required value',
      'spec.volumes[0].x.partition: Invalid value: 256: must be between 1 and 255, inclusive',
    ]);
    expect(check(validateAwsElasticBlockStore, { partition: -1 } as Source<'awsElasticBlockStore'>)).toEqual([
      'spec.volumes[0].x.volumeID: Required value',
      'spec.volumes[0].x.partition: Invalid value: -1: must be between 1 and 255, inclusive',
    ]);
    expect(check(validateCinder, { secretRef: {} } as Source<'cinder'>)).toEqual(['spec.volumes[0].x.volumeID: Required value', 'spec.volumes[0].x.secretRef.name: Required value']);
    expect(check(validateVsphereVolume, {} as Source<'vsphereVolume'>)).toEqual(['spec.volumes[0].x.volumePath: Required value']);
    expect(check(validatePhotonPersistentDisk, {} as Source<'photonPersistentDisk'>)).toEqual(['spec.volumes[0].x.pdID: Required value']);
    expect(check(validatePortworxVolume, {} as Source<'portworxVolume'>)).toEqual(['spec.volumes[0].x.volumeID: Required value']);
  });

  it('checks azure disks: name, URI, caching mode, kind, and a URI that suits the kind', () => {
    const disk = { diskName: 'd', diskURI: 'https://acct.blob.core.windows.net/vhds/d.vhd', cachingMode: 'ReadWrite', kind: 'Shared' };
    expect(check(validateAzureDisk, disk)).toEqual([]);
    expect(check(validateAzureDisk, { ...disk, kind: 'Managed', diskURI: '/subscriptions/s/resourcegroups/g/providers/microsoft.compute/disks/d' })).toEqual([]);
    expect(check(validateAzureDisk, { cachingMode: 'Sometimes', kind: 'Rented' } as Source<'azureDisk'>)).toEqual([
      'spec.volumes[0].x.diskName: Required value',
      'spec.volumes[0].x.diskURI: Required value',
      'spec.volumes[0].x.cachingMode: Unsupported value: "Sometimes": supported values: "None", "ReadOnly", "ReadWrite"',
      'spec.volumes[0].x.kind: Unsupported value: "Rented": supported values: "Dedicated", "Managed", "Shared"',
      'spec.volumes[0].x.diskURI: Unsupported value: "": supported values: "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"',
    ]);
    expect(check(validateAzureDisk, { ...disk, kind: 'Managed' })).toEqual([
      'spec.volumes[0].x.diskURI: Unsupported value: "https://acct.blob.core.windows.net/vhds/d.vhd": supported values: "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"',
    ]);
  });

  it('checks azure files, ScaleIO and StorageOS volumes', () => {
    expect(check(validateAzureFile, { secretName: 's', shareName: 'share' })).toEqual([]);
    expect(check(validateAzureFile, {} as Source<'azureFile'>)).toEqual(['spec.volumes[0].x.secretName: Required value', 'spec.volumes[0].x.shareName: Required value']);
    expect(check(validateScaleIo, { gateway: 'https://gw', system: 's', volumeName: 'v', secretRef: { name: 's' } })).toEqual([]);
    expect(check(validateScaleIo, {} as Source<'scaleIO'>)).toEqual([
      'spec.volumes[0].x.gateway: Required value', 'spec.volumes[0].x.system: Required value', 'spec.volumes[0].x.volumeName: Required value',
    ]);
    expect(check(validateStorageOs, { volumeName: 'redis', volumeNamespace: 'default' })).toEqual([]);
    expect(check(validateStorageOs, { volumeNamespace: 'Prod', secretRef: {} })).toEqual([
      'spec.volumes[0].x.volumeName: Required value',
      'spec.volumes[0].x.volumeNamespace: Invalid value: "Prod": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      'spec.volumes[0].x.secretRef.name: Required value',
    ]);
  });
});

describe('network file systems and block devices', () => {
  it('checks rbd, cephfs and glusterfs', () => {
    expect(check(validateRbd, { monitors: ['10.0.0.1:6789'], image: 'disk' })).toEqual([]);
    expect(check(validateRbd, { monitors: [] } as unknown as Source<'rbd'>)).toEqual(['spec.volumes[0].x.monitors: Required value', 'spec.volumes[0].x.image: Required value']);
    expect(check(validateCephFs, { monitors: ['10.0.0.1:6789'] })).toEqual([]);
    expect(check(validateCephFs, {} as Source<'cephfs'>)).toEqual(['spec.volumes[0].x.monitors: Required value']);
    expect(check(validateGlusterfs, { endpoints: 'glusterfs-cluster', path: 'vol' })).toEqual([]);
    expect(check(validateGlusterfs, {} as Source<'glusterfs'>)).toEqual(['spec.volumes[0].x.endpoints: Required value', 'spec.volumes[0].x.path: Required value']);
  });

  it('checks fibre channel: targetWWNs with a LUN, or wwids, not both', () => {
    expect(check(validateFc, { targetWWNs: ['500a0982991b8dc5'], lun: 2 })).toEqual([]);
    expect(check(validateFc, { wwids: ['3600508b400105e210000900000490000'] })).toEqual([]);
    expect(check(validateFc, {})).toEqual(['spec.volumes[0].x.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both']);
    expect(check(validateFc, { targetWWNs: ['a'], wwids: ['b'] })).toEqual([
      'spec.volumes[0].x.targetWWNs: Invalid value: ["a"]: targetWWNs and wwids can not be specified simultaneously',
      'spec.volumes[0].x.lun: Required value: lun is required if targetWWNs is specified',
    ]);
    expect(check(validateFc, { targetWWNs: ['a'], lun: 300 })).toEqual(['spec.volumes[0].x.lun: Invalid value: 300: must be between 0 and 255, inclusive']);
  });

  it('checks flex volumes: a driver, no option in the kubernetes.io or k8s.io namespaces', () => {
    expect(check(validateFlexVolume, { driver: 'example.com/lvm', options: { volumeID: 'v', 'example.com/size': '1' } })).toEqual([]);
    expect(check(validateFlexVolume, { options: { 'kubernetes.io/fsType': 'SECRET', 'storage.K8s.io': 'x' } } as unknown as Source<'flexVolume'>)).toEqual([
      'spec.volumes[0].x.driver: Required value',
      'spec.volumes[0].x.options[kubernetes.io/fsType]: Invalid value: "kubernetes.io/fsType": kubernetes.io and k8s.io namespaces are reserved',
      'spec.volumes[0].x.options[storage.K8s.io]: Invalid value: "storage.K8s.io": kubernetes.io and k8s.io namespaces are reserved',
    ]);
  });

  it('checks quobyte (host:port registries) and flocker (one dataset) volumes the pod types dropped', () => {
    expect(check(validateQuobyte, { registry: 'reg-1:7861,[fd00::1]:7861', volume: 'v' })).toEqual([]);
    expect(check(validateQuobyte, { registry: 'reg-1,a:b:c', volume: '' })).toEqual([
      'spec.volumes[0].x.registry: Invalid value: "reg-1,a:b:c": must be a host:port pair or multiple pairs separated by commas',
      'spec.volumes[0].x.registry: Invalid value: "reg-1,a:b:c": must be a host:port pair or multiple pairs separated by commas',
      'spec.volumes[0].x.volume: Required value',
    ]);
    expect(check(validateQuobyte, { registry: 'r:1', tenant: 't'.repeat(65), volume: 'v' }))
      .toEqual(['spec.volumes[0].x.tenant: Required value: must be a UUID and may not exceed a length of 64 characters']);
    expect(check(validateFlocker, { datasetName: 'data' })).toEqual([]);
    expect(check(validateFlocker, {})).toEqual(['spec.volumes[0].x: Required value: one of datasetName and datasetUUID is required']);
    expect(check(validateFlocker, { datasetName: 'a/b', datasetUUID: 'u' })).toEqual([
      'spec.volumes[0].x: Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously',
      'spec.volumes[0].x.datasetName: Invalid value: "a/b": must not contain \'/\'',
    ]);
  });
});
