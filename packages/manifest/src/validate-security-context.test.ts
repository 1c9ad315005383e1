import { describe, expect, it } from 'vitest';
import type { Container, PodSpec } from '@podconfig/core';
import { validateContainerSecurityContext, validatePodSecurityContext } from './validate-security-context.js';

type SecurityContext = NonNullable<Container['securityContext']>;
const podErrors = (spec: Partial<PodSpec>): string[] => {
  const errors: string[] = [];
  validatePodSecurityContext({ containers: [], ...spec }, errors);
  return errors;
};
/** The pod security context, with the fields newer than the pod types (supplementalGroupsPolicy, seLinuxChangePolicy). */
type PodSecurityContext = NonNullable<PodSpec['securityContext']> & { supplementalGroupsPolicy?: string; seLinuxChangePolicy?: string };
const context = (securityContext: PodSecurityContext, spec: Partial<PodSpec> = {}): string[] => podErrors({ securityContext, ...spec });
const containerErrors = (securityContext: SecurityContext, hostUsers = true): string[] => {
  const errors: string[] = [];
  validateContainerSecurityContext(securityContext, 'spec.containers[0].securityContext', hostUsers, errors);
  return errors;
};
const at = 'spec.securityContext';
const c = 'spec.containers[0].securityContext';

describe(validatePodSecurityContext.name, () => {
  it('accepts a well-formed pod security context', () => {
    expect(context({
      runAsUser: 1000, fsGroup: 2000, fsGroupChangePolicy: 'OnRootMismatch', supplementalGroupsPolicy: 'Strict', seLinuxChangePolicy: 'MountOption',
      seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' }, appArmorProfile: { type: 'RuntimeDefault' },
      sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }, { name: 'kernel.shm_rmid_forced', value: '1' }],
    })).toEqual([]);
  });

  it('checks seccomp profiles: a known type, and a relative local profile only for Localhost', () => {
    expect(context({ seccompProfile: { type: '' } })).toEqual([`${at}.seccompProfile.type: Required value: type is required when seccompProfile is set`]);
    expect(context({ seccompProfile: { type: 'Default' } })).toEqual([
      `${at}.seccompProfile.type: Unsupported value: "Default": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
    ]);
    expect(context({ seccompProfile: { type: 'Localhost' } })).toEqual([`${at}.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost`]);
    expect(context({ seccompProfile: { type: 'Localhost', localhostProfile: '/etc/../x.json' } })).toEqual([
      `${at}.seccompProfile.localhostProfile: Invalid value: "/etc/../x.json": must be a relative path`,
      `${at}.seccompProfile.localhostProfile: Invalid value: "/etc/../x.json": must not contain '..'`,
    ]);
    expect(context({ seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'x.json' } })).toEqual([
      `${at}.seccompProfile.localhostProfile: Invalid value: can only be set when seccomp type is Localhost`,
    ]);
  });

  it('checks AppArmor profiles: a known type, and an unpadded local profile of at most 4095 bytes only for Localhost', () => {
    expect(context({ appArmorProfile: { type: '' } })).toEqual([`${at}.appArmorProfile.type: Required value: type is required when appArmorProfile is set`]);
    expect(context({ appArmorProfile: { type: 'Enforce' } })).toEqual([
      `${at}.appArmorProfile.type: Unsupported value: "Enforce": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
    ]);
    expect(context({ appArmorProfile: { type: 'Localhost' } })).toEqual([`${at}.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost`]);
    expect(context({ appArmorProfile: { type: 'Localhost', localhostProfile: '' } })).toEqual([`${at}.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost`]);
    expect(context({ appArmorProfile: { type: 'Localhost', localhostProfile: ' k8s-nginx' } })).toEqual([
      `${at}.appArmorProfile.localhostProfile: Invalid value: " k8s-nginx": must not be padded with whitespace`,
    ]);
    expect(context({ appArmorProfile: { type: 'Localhost', localhostProfile: 'p'.repeat(4096) } })).toEqual([
      `${at}.appArmorProfile.localhostProfile: Too long: may not be more than 4095 bytes`,
    ]);
    expect(context({ appArmorProfile: { type: 'Unconfined', localhostProfile: 'k8s-nginx' } })).toEqual([
      `${at}.appArmorProfile.localhostProfile: Invalid value: can only be set when AppArmor type is Localhost`,
    ]);
  });

  it('checks sysctl names, duplicates, and namespaced sysctls of a namespace shared with the host', () => {
    expect(context({ sysctls: [
      { name: '', value: '1' }, { name: 'Net.IPv4', value: '1' }, { name: 'kernel.msgmax', value: '1' }, { name: 'kernel.msgmax', value: '2' },
    ] })).toEqual([
      `${at}.sysctls[0].name: Required value`,
      `${at}.sysctls[1].name: Invalid value: "Net.IPv4": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`,
      `${at}.sysctls[3].name: Duplicate value: "kernel.msgmax"`,
    ]);
    expect(context({ sysctls: [{ name: 'net/ipv4/ip_forward', value: '1' }, { name: 'fs.mqueue.msg_max', value: '1' }] }, { hostNetwork: true, hostIPC: true })).toEqual([
      `${at}.sysctls[0].name: Invalid value: "net/ipv4/ip_forward": may not be specified when 'hostNetwork' is true`,
      `${at}.sysctls[1].name: Invalid value: "fs.mqueue.msg_max": may not be specified when 'hostIPC' is true`,
    ]);
  });

  it('never shows a sysctl value', () => {
    expect(context({ sysctls: [{ name: 'Bad', value: 'SECRET-VALUE' }] }).join()).not.toContain('SECRET-VALUE');
  });

  it('checks fsGroupChangePolicy, supplementalGroupsPolicy and seLinuxChangePolicy values', () => {
    expect(context({ fsGroupChangePolicy: 'Never', supplementalGroupsPolicy: 'Union', seLinuxChangePolicy: 'Relabel' })).toEqual([
      `${at}.fsGroupChangePolicy: Unsupported value: "Never": supported values: "Always", "OnRootMismatch"`,
      `${at}.supplementalGroupsPolicy: Unsupported value: "Union": supported values: "Merge", "Strict"`,
      `${at}.seLinuxChangePolicy: Unsupported value: "Relabel": supported values: "MountOption", "Recursive"`,
    ]);
  });

  it('refuses shareProcessNamespace with hostPID', () => {
    expect(context({}, { shareProcessNamespace: true, hostPID: false })).toEqual([]);
    expect(context({}, { shareProcessNamespace: true, hostPID: true })).toEqual([
      `${at}.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled`,
    ]);
  });

  it('refuses the host namespaces to a pod outside the host\'s user namespace (validateHostUsers)', () => {
    expect(podErrors({ hostUsers: true, hostNetwork: true, hostPID: true, hostIPC: true })).toEqual([]);
    expect(podErrors({ hostUsers: false, hostNetwork: true, hostPID: true, hostIPC: true })).toEqual([
      'spec.hostNetwork: Forbidden: when `hostUsers` is false',
      'spec.HostPID: Forbidden: when `hostUsers` is false',
      'spec.HostIPC: Forbidden: when `hostUsers` is false',
    ]);
  });
});

describe(validateContainerSecurityContext.name, () => {
  it('accepts a well-formed container security context', () => {
    expect(containerErrors({
      allowPrivilegeEscalation: false, capabilities: { add: ['NET_BIND_SERVICE', 'SYS_ADMIN'] }, procMount: 'Default',
      seccompProfile: { type: 'RuntimeDefault' }, appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-nginx' },
    })).toEqual([]);
    expect(containerErrors({ procMount: 'Unmasked' }, false)).toEqual([]);
  });

  it('checks procMount values, and Unmasked only outside the host\'s user namespace', () => {
    expect(containerErrors({ procMount: 'Masked' })).toEqual([`${c}.procMount: Unsupported value: "Masked": supported values: "Default", "Unmasked"`]);
    expect(containerErrors({ procMount: 'Unmasked' })).toEqual([`${c}.procMount: Invalid value: "Unmasked": \`hostUsers\` must be false to use \`Unmasked\``]);
  });

  it('refuses allowPrivilegeEscalation false with privileged or CAP_SYS_ADMIN', () => {
    expect(containerErrors({ allowPrivilegeEscalation: false, privileged: true, capabilities: { add: ['CAP_SYS_ADMIN'] } })).toEqual([
      `${c}: Invalid value: cannot set \`allowPrivilegeEscalation\` to false and \`privileged\` to true`,
      `${c}: Invalid value: cannot set \`allowPrivilegeEscalation\` to false and \`capabilities.Add\` CAP_SYS_ADMIN`,
    ]);
    expect(containerErrors({ allowPrivilegeEscalation: true, privileged: true, capabilities: { add: ['CAP_SYS_ADMIN'] } })).toEqual([]);
  });

  it('checks the container\'s IDs, seccomp and AppArmor profiles', () => {
    expect(containerErrors({ runAsUser: -1, seccompProfile: { type: 'Localhost' }, appArmorProfile: { type: 'Unknown' } })).toEqual([
      `${c}.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive`,
      `${c}.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost`,
      `${c}.appArmorProfile.type: Unsupported value: "Unknown": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
    ]);
  });
});
