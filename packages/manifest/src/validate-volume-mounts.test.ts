import { describe, expect, it } from 'vitest';
import type { Container, Volume } from '@podconfig/core';
import { validateVolumeMountsAndDevices } from './validate-volume-mounts.js';

type Mount = NonNullable<Container['volumeMounts']>[number];
type Device = NonNullable<Container['volumeDevices']>[number];
const volumes = new Map<string, Volume>([
  ['data', { name: 'data', emptyDir: {} }],
  ['tools', { name: 'tools', image: { reference: 'tools:1', pullPolicy: 'IfNotPresent' } } as Volume],
  ['block', { name: 'block', persistentVolumeClaim: { claimName: 'disk' } }],
]);
const run = (mounts: Mount[], extra: Partial<Container> = {}): string[] => {
  const errors: string[] = [];
  validateVolumeMountsAndDevices({ name: 'main', image: 'x', volumeMounts: mounts, ...extra }, volumes, 'spec.containers[0]', errors);
  return errors;
};

describe(validateVolumeMountsAndDevices.name, () => {
  it('accepts mounts with sub-paths, propagation and recursive read-only modes that fit', () => {
    expect(run([
      { name: 'data', mountPath: '/a', subPath: 'logs' },
      { name: 'data', mountPath: '/b', mountPropagation: 'HostToContainer' },
      { name: 'data', mountPath: '/c', readOnly: true, recursiveReadOnly: 'Enabled', mountPropagation: 'None' },
      { name: 'data', mountPath: '/d', recursiveReadOnly: 'Disabled', mountPropagation: 'Bidirectional' },
      { name: 'tools', mountPath: '/tools' },
    ], { securityContext: { privileged: true } })).toEqual([]);
  });

  it('checks mount propagation: a known mode, Bidirectional only for a privileged container', () => {
    expect(run([{ name: 'data', mountPath: '/a', mountPropagation: 'Shared' }, { name: 'data', mountPath: '/b', mountPropagation: 'Bidirectional' }])).toEqual([
      'spec.containers[0].volumeMounts[0].mountPropagation: Unsupported value: "Shared": supported values: "Bidirectional", "HostToContainer", "None"',
      'spec.containers[0].volumeMounts[1].mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers',
    ]);
  });

  it('allows a recursive read-only mount only when read-only and propagating nothing', () => {
    expect(run([
      { name: 'data', mountPath: '/a', recursiveReadOnly: 'IfPossible' },
      { name: 'data', mountPath: '/b', readOnly: true, recursiveReadOnly: 'Enabled', mountPropagation: 'HostToContainer' },
      { name: 'data', mountPath: '/c', readOnly: true, recursiveReadOnly: 'Always' },
    ])).toEqual([
      'spec.containers[0].volumeMounts[0].recursiveReadOnly: Forbidden: may only be specified when readOnly is true',
      'spec.containers[0].volumeMounts[1].recursiveReadOnly: Forbidden: may only be specified when mountPropagation is None or not specified',
      'spec.containers[0].volumeMounts[2].recursiveReadOnly: Unsupported value: "Always": supported values: "Disabled", "Enabled", "IfPossible"',
    ]);
  });

  it('refuses subPath with subPathExpr; takes a sub-path of an image volume (ImageVolume takes them since 1.33)', () => {
    expect(run([
      { name: 'data', mountPath: '/a', subPath: 'x', subPathExpr: '$(POD_NAME)' },
      { name: 'tools', mountPath: '/b', subPath: 'bin' },
      { name: 'tools', mountPath: '/c', subPathExpr: '$(POD_NAME)' },
    ])).toEqual([
      'spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: "$(POD_NAME)": subPathExpr and subPath are mutually exclusive',
    ]);
  });

  it('checks volume devices: a block volume, unique names and paths, no backsteps, nothing a mount uses', () => {
    const devices: Device[] = [
      { name: 'block', devicePath: '/dev/xvda' }, { name: 'data', devicePath: '/dev/../xvdb' }, { name: 'gone', devicePath: '/dev/xvda' },
      { name: '', devicePath: '' }, { name: 'block', devicePath: '/a' },
    ];
    expect(run([{ name: 'data', mountPath: '/a' }], { volumeDevices: devices })).toEqual([
      'spec.containers[0].volumeMounts[0].name: Invalid value: "data": must not already exist in volumeDevices',
      'spec.containers[0].volumeMounts[0].mountPath: Invalid value: "/a": must not already exist as a path in volumeDevices',
      'spec.containers[0].volumeDevices[1].name: Invalid value: "data": can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode',
      'spec.containers[0].volumeDevices[1].devicePath: Invalid value: "/dev/../xvdb": can not contain backsteps (\'..\')',
      'spec.containers[0].volumeDevices[1].name: Invalid value: "data": must not already exist in volumeMounts',
      'spec.containers[0].volumeDevices[2].name: Not found: "gone"',
      'spec.containers[0].volumeDevices[2].devicePath: Invalid value: "/dev/xvda": must be unique',
      'spec.containers[0].volumeDevices[3].name: Required value',
      'spec.containers[0].volumeDevices[3].devicePath: Required value',
      'spec.containers[0].volumeDevices[4].name: Invalid value: "block": must be unique',
      'spec.containers[0].volumeDevices[4].devicePath: Invalid value: "/a": must not already exist as a path in volumeMounts',
    ]);
    expect(run([], { volumeDevices: [{ name: 'block', devicePath: '/dev/xvda' }] })).toEqual([]);
  });
});
