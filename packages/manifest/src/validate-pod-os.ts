import type { Container, PodSpec } from '@podconfig/core';
import { oneOf } from './validate-one-of.js';
import type { PodSecurityContextSince131 } from './validate-security-context.js';

const OS_NAMES = ['linux', 'windows'];
const LINUX_ONLY = 'cannot be set for a windows pod';

/**
 * validateOS, then validateLinux or validateWindows: a pod that names its OS may not set the other OS's
 * security options. A pod that names none is not checked for either, as by the API.
 */
export function validatePodOs(spec: PodSpec, errors: string[]): void {
  if (spec.os === undefined) return;
  const name = (spec.os.name as string | undefined) ?? '';
  if (name === '') {
    errors.push('spec.os.name: Required value: cannot be empty');
    return;
  }
  oneOf(name, OS_NAMES, 'spec.os', errors);
  if (name === 'linux') validateLinux(spec, errors);
  if (name === 'windows') validateWindows(spec, errors);
}

/** Containers in the API's visiting order (VisitContainersWithPath): init, regular, ephemeral. */
function containersWithPaths(spec: PodSpec): [Container, string][] {
  const containers = (spec.containers as readonly Container[] | undefined) ?? [];
  return [
    ...(spec.initContainers ?? []).map((c, i): [Container, string] => [c, `spec.initContainers[${i}]`]),
    ...containers.map((c, i): [Container, string] => [c, `spec.containers[${i}]`]),
    ...(spec.ephemeralContainers ?? []).map((c, i): [Container, string] => [c as Container, `spec.ephemeralContainers[${i}]`]),
  ];
}

function validateLinux(spec: PodSpec, errors: string[]): void {
  if (spec.securityContext?.windowsOptions !== undefined) {
    errors.push('spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod');
  }
  for (const [container, at] of containersWithPaths(spec)) {
    if (container.securityContext?.windowsOptions !== undefined) {
      errors.push(`${at}.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod`);
    }
  }
}

function validateWindows(spec: PodSpec, errors: string[]): void {
  const context = (spec.securityContext ?? {}) as PodSecurityContextSince131;
  const forbidden = (path: string, set: boolean): void => {
    if (set) errors.push(`${path}: Forbidden: ${LINUX_ONLY}`);
  };
  const scAt = 'spec.securityContext';
  forbidden(`${scAt}.appArmorProfile`, context.appArmorProfile !== undefined);
  forbidden(`${scAt}.seLinuxOptions`, context.seLinuxOptions !== undefined);
  forbidden('spec.hostUsers', spec.hostUsers !== undefined);
  forbidden('spec.hostPID', spec.hostPID === true);
  forbidden('spec.hostIPC', spec.hostIPC === true);
  forbidden(`${scAt}.seccompProfile`, context.seccompProfile !== undefined);
  forbidden(`${scAt}.fsGroup`, context.fsGroup !== undefined);
  forbidden(`${scAt}.fsGroupChangePolicy`, context.fsGroupChangePolicy !== undefined);
  forbidden(`${scAt}.sysctls`, (context.sysctls ?? []).length > 0);
  forbidden('spec.shareProcessNamespace', spec.shareProcessNamespace !== undefined);
  forbidden(`${scAt}.runAsUser`, context.runAsUser !== undefined);
  forbidden(`${scAt}.runAsGroup`, context.runAsGroup !== undefined);
  forbidden(`${scAt}.supplementalGroups`, context.supplementalGroups !== undefined);
  forbidden(`${scAt}.supplementalGroupsPolicy`, context.supplementalGroupsPolicy !== undefined);
  forbidden(`${scAt}.seLinuxChangePolicy`, context.seLinuxChangePolicy !== undefined);
  for (const [container, at] of containersWithPaths(spec)) {
    const sc = container.securityContext;
    if (sc === undefined) continue;
    const fields = [
      'appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem', 'privileged',
      'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup',
    ] as const;
    for (const field of fields) if (sc[field] !== undefined) errors.push(`${at}.securityContext.${field}: Forbidden: ${LINUX_ONLY}`);
  }
}
