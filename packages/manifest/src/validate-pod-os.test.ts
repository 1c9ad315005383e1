import { describe, expect, it } from 'vitest';
import type { Container, PodSpec } from '@podconfig/core';
import { validatePodOs } from './validate-pod-os.js';

const run = (spec: Partial<PodSpec>): string[] => {
  const errors: string[] = [];
  validatePodOs({ containers: [{ name: 'main', image: 'x' }], ...spec }, errors);
  return errors;
};
const withContext = (securityContext: NonNullable<Container['securityContext']>): Container => ({ name: 'main', image: 'x', securityContext });

describe(validatePodOs.name, () => {
  it('accepts a pod that names no OS, or linux or windows with options of its own', () => {
    expect(run({ securityContext: { windowsOptions: { runAsUserName: 'x' } } })).toEqual([]);
    expect(run({ os: { name: 'linux' }, securityContext: { runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } } })).toEqual([]);
    expect(run({ os: { name: 'windows' }, securityContext: { windowsOptions: { runAsUserName: 'ContainerUser' } } })).toEqual([]);
  });

  it('requires a known OS name', () => {
    expect(run({ os: { name: '' } })).toEqual(['spec.os.name: Required value: cannot be empty']);
    expect(run({ os: { name: 'darwin' } })).toEqual(['spec.os: Unsupported value: "darwin": supported values: "linux", "windows"']);
  });

  it('forbids windows options in a linux pod', () => {
    expect(run({
      os: { name: 'linux' }, securityContext: { windowsOptions: {} },
      initContainers: [withContext({ windowsOptions: { hostProcess: true } })], containers: [withContext({})],
    })).toEqual([
      'spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
      'spec.initContainers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
    ]);
  });

  it('forbids Linux security options in a windows pod', () => {
    expect(run({
      os: { name: 'windows' }, hostPID: true, shareProcessNamespace: false, securityContext: { runAsUser: 1000, sysctls: [{ name: 'net.x', value: '1' }] },
      containers: [withContext({ privileged: false, capabilities: {} })],
    })).toEqual([
      'spec.hostPID: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.sysctls: Forbidden: cannot be set for a windows pod',
      'spec.shareProcessNamespace: Forbidden: cannot be set for a windows pod',
      'spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod',
      'spec.containers[0].securityContext.capabilities: Forbidden: cannot be set for a windows pod',
      'spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod',
    ]);
  });
});
