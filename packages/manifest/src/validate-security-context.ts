import type { Container, PodSpec } from '@podconfig/core';
import { SYSCTL_NAME_MAX_LENGTH, SYSCTL_NAME_PATTERN } from './name-rules.js';
import { oneOf } from './validate-one-of.js';
import { validateWindowsOptions } from './validate-windows-options.js';

type PodSecurityContext = NonNullable<PodSpec['securityContext']>;
type SecurityContext = NonNullable<Container['securityContext']>;
type SeccompProfile = NonNullable<SecurityContext['seccompProfile']>;
type AppArmorProfile = NonNullable<SecurityContext['appArmorProfile']>;
/** Fields k8s.io/api has and the pod types (kubernetes-types 1.30) do not. */
export type PodSecurityContextSince131 = PodSecurityContext & { supplementalGroupsPolicy?: string; seLinuxChangePolicy?: string };

/** apimachinery's IsValidUserID / IsValidGroupID: a Linux ID the API accepts. */
const MAX_ID = 2147483647;
const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];
const PROC_MOUNT_TYPES = ['Default', 'Unmasked'];
const FS_GROUP_CHANGE_POLICIES = ['Always', 'OnRootMismatch'];
const SUPPLEMENTAL_GROUPS_POLICIES = ['Merge', 'Strict'];
const SELINUX_CHANGE_POLICIES = ['MountOption', 'Recursive'];
/** AppArmor's PATH_MAX - 1. */
const MAX_APPARMOR_PROFILE_LENGTH = 4095;
const HOST_USERS_FALSE = 'when `hostUsers` is false';

/** The default for hostUsers is true: a pod leaves the host's user namespace only with `hostUsers: false`. */
export function usesHostUsers(spec: PodSpec): boolean {
  return spec.hostUsers !== false;
}

/**
 * validatePodSpecSecurityContext and validateHostUsers: IDs, shareProcessNamespace with hostPID, sysctls,
 * fsGroupChangePolicy, seccomp profile, Windows options, AppArmor profile, supplementalGroupsPolicy, seLinuxChangePolicy, and the host
 * namespaces a pod outside the host's user namespace may not share. Paths are the API's own: it keeps
 * shareProcessNamespace in the security context of its internal type, and spells `HostPID` and `HostIPC` so.
 */
export function validatePodSecurityContext(spec: PodSpec, errors: string[]): void {
  const context = spec.securityContext as PodSecurityContextSince131 | undefined;
  if (context !== undefined) {
    const at = 'spec.securityContext';
    validateId(context.fsGroup, `${at}.fsGroup`, errors);
    validateId(context.runAsUser, `${at}.runAsUser`, errors);
    validateId(context.runAsGroup, `${at}.runAsGroup`, errors);
    (context.supplementalGroups ?? []).forEach((id, i) => validateId(id, `${at}.supplementalGroups[${i}]`, errors));
    if (spec.shareProcessNamespace === true && spec.hostPID === true) {
      errors.push(`${at}.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled`);
    }
    validateSysctls(context, spec, `${at}.sysctls`, errors);
    oneOf(context.fsGroupChangePolicy, FS_GROUP_CHANGE_POLICIES, `${at}.fsGroupChangePolicy`, errors);
    validateSeccompProfile(context.seccompProfile, `${at}.seccompProfile`, errors);
    validateWindowsOptions(context.windowsOptions, `${at}.windowsOptions`, errors);
    validateAppArmorProfile(context.appArmorProfile, `${at}.appArmorProfile`, errors);
    oneOf(context.supplementalGroupsPolicy, SUPPLEMENTAL_GROUPS_POLICIES, `${at}.supplementalGroupsPolicy`, errors);
    oneOf(context.seLinuxChangePolicy, SELINUX_CHANGE_POLICIES, `${at}.seLinuxChangePolicy`, errors);
  }
  if (!usesHostUsers(spec)) {
    // A user namespace with the host's other namespaces gives permission errors no one expects.
    if (spec.hostNetwork === true) errors.push(`spec.hostNetwork: Forbidden: ${HOST_USERS_FALSE}`);
    if (spec.hostPID === true) errors.push(`spec.HostPID: Forbidden: ${HOST_USERS_FALSE}`);
    if (spec.hostIPC === true) errors.push(`spec.HostIPC: Forbidden: ${HOST_USERS_FALSE}`);
  }
}

/**
 * ValidateSecurityContext for one container: IDs, procMount (Unmasked only outside the host's user namespace),
 * seccomp profile, no privilege escalation switched off for what escalates anyway, Windows options, AppArmor profile.
 */
export function validateContainerSecurityContext(context: SecurityContext | undefined, at: string, hostUsers: boolean, errors: string[]): void {
  if (context === undefined) return;
  validateId(context.runAsUser, `${at}.runAsUser`, errors);
  validateId(context.runAsGroup, `${at}.runAsGroup`, errors);
  if (context.procMount !== undefined) {
    oneOf(context.procMount, PROC_MOUNT_TYPES, `${at}.procMount`, errors);
    if (hostUsers && context.procMount === 'Unmasked') {
      errors.push(`${at}.procMount: Invalid value: "Unmasked": \`hostUsers\` must be false to use \`Unmasked\``);
    }
  }
  validateSeccompProfile(context.seccompProfile, `${at}.seccompProfile`, errors);
  if (context.allowPrivilegeEscalation === false) {
    if (context.privileged === true) errors.push(`${at}: Invalid value: cannot set \`allowPrivilegeEscalation\` to false and \`privileged\` to true`);
    for (const capability of context.capabilities?.add ?? []) {
      // The API compares the literal name: `SYS_ADMIN`, the usual spelling, passes.
      if (capability === 'CAP_SYS_ADMIN') {
        errors.push(`${at}: Invalid value: cannot set \`allowPrivilegeEscalation\` to false and \`capabilities.Add\` CAP_SYS_ADMIN`);
      }
    }
  }
  validateWindowsOptions(context.windowsOptions, `${at}.windowsOptions`, errors);
  validateAppArmorProfile(context.appArmorProfile, `${at}.appArmorProfile`, errors);
}

function validateId(id: number | undefined, at: string, errors: string[]): void {
  if (id !== undefined && !(id >= 0 && id <= MAX_ID)) errors.push(`${at}: Invalid value: ${id}: must be between 0 and ${MAX_ID}, inclusive`);
}

/**
 * validateSysctls and ValidateHostSysctl: unique valid names, and no sysctl of a namespace the pod shares
 * with the host (AllowNamespacedSysctlsForHostNetAndHostIPC is off on create). Values are never shown.
 */
function validateSysctls(context: PodSecurityContext, spec: PodSpec, at: string, errors: string[]): void {
  const names = new Set<string>();
  (context.sysctls ?? []).forEach((sysctl, i) => {
    const path = `${at}[${i}].name`;
    const name = (sysctl.name as string | undefined) ?? '';
    if (name === '') errors.push(`${path}: Required value`);
    else if (name.length > SYSCTL_NAME_MAX_LENGTH || !SYSCTL_NAME_PATTERN.test(name)) {
      errors.push(`${path}: Invalid value: ${JSON.stringify(name)}: must have at most ${SYSCTL_NAME_MAX_LENGTH} characters and match regex ${SYSCTL_NAME_PATTERN.source}`);
    } else if (names.has(name)) errors.push(`${path}: Duplicate value: ${JSON.stringify(name)}`);
    const namespace = sysctlNamespace(name);
    if (spec.hostNetwork === true && namespace === 'net') {
      errors.push(`${path}: Invalid value: ${JSON.stringify(name)}: may not be specified when 'hostNetwork' is true`);
    } else if (spec.hostIPC === true && namespace === 'ipc') {
      errors.push(`${path}: Invalid value: ${JSON.stringify(name)}: may not be specified when 'hostIPC' is true`);
    }
    names.add(name);
  });
}

/** The kernel namespace of a sysctl (component-helpers' GetNamespace), after turning `net/ipv4/x` into `net.ipv4.x`. */
function sysctlNamespace(name: string): 'net' | 'ipc' | undefined {
  const separator = name.search(/[./]/);
  const dotted = separator >= 0 && name[separator] === '/' ? name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.')) : name;
  if (dotted.startsWith('net.')) return 'net';
  if (dotted === 'kernel.sem' || ['kernel.shm', 'kernel.msg', 'fs.mqueue.'].some((prefix) => dotted.startsWith(prefix))) return 'ipc';
  return undefined;
}

/** validateSeccompProfileField: a known type; a local profile, a relative path without `..`, only for Localhost. */
function validateSeccompProfile(profile: SeccompProfile | undefined, at: string, errors: string[]): void {
  if (profile === undefined) return;
  const type = (profile.type as string | undefined) ?? '';
  if (type === '') errors.push(`${at}.type: Required value: type is required when seccompProfile is set`);
  else oneOf(type, PROFILE_TYPES, `${at}.type`, errors);
  const local = profile.localhostProfile;
  if (type === 'Localhost') {
    if (local === undefined) errors.push(`${at}.localhostProfile: Required value: must be set when seccomp type is Localhost`);
    else {
      if (local.startsWith('/')) errors.push(`${at}.localhostProfile: Invalid value: ${JSON.stringify(local)}: must be a relative path`);
      if (local.split('/').includes('..')) errors.push(`${at}.localhostProfile: Invalid value: ${JSON.stringify(local)}: must not contain '..'`);
    }
  } else if (local !== undefined) {
    errors.push(`${at}.localhostProfile: Invalid value: can only be set when seccomp type is Localhost`);
  }
}

/** ValidateAppArmorProfileField: a known type; a local profile name, unpadded and at most 4095 bytes, only for Localhost. */
function validateAppArmorProfile(profile: AppArmorProfile | undefined, at: string, errors: string[]): void {
  if (profile === undefined) return;
  const type = (profile.type as string | undefined) ?? '';
  const local = profile.localhostProfile;
  switch (type) {
    case 'Localhost':
      if (local === undefined) {
        errors.push(`${at}.localhostProfile: Required value: must be set when AppArmor type is Localhost`);
        break;
      }
      if (local.trim() !== local) errors.push(`${at}.localhostProfile: Invalid value: ${JSON.stringify(local)}: must not be padded with whitespace`);
      else if (local === '') errors.push(`${at}.localhostProfile: Required value: must be set when AppArmor type is Localhost`);
      if (Buffer.byteLength(local) > MAX_APPARMOR_PROFILE_LENGTH) {
        errors.push(`${at}.localhostProfile: Too long: may not be more than ${MAX_APPARMOR_PROFILE_LENGTH} bytes`);
      }
      break;
    case 'RuntimeDefault': case 'Unconfined':
      if (local !== undefined) errors.push(`${at}.localhostProfile: Invalid value: can only be set when AppArmor type is Localhost`);
      break;
    case '':
      errors.push(`${at}.type: Required value: type is required when appArmorProfile is set`);
      break;
    default:
      oneOf(type, PROFILE_TYPES, `${at}.type`, errors);
  }
}
