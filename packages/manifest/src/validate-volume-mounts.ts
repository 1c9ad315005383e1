import type { Container, Volume } from '@podconfig/core';
import { validateLocalDescendingPath } from './validate-local-path.js';
import { oneOf } from './validate-one-of.js';

type VolumeMount = NonNullable<Container['volumeMounts']>[number];

/** supportedMountPropagations, sorted as the API lists them. */
const MOUNT_PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
/** The RecursiveReadOnly modes, sorted as the API lists them. */
const RECURSIVE_READ_ONLY_MODES = ['Disabled', 'Enabled', 'IfPossible'];

/**
 * ValidateVolumeMounts and ValidateVolumeDevices for one container: mounts name a volume, at a unique path that
 * no device uses; sub-paths stay inside the volume (image volumes included: ImageVolume, GA in 1.36, has
 * taken them since 1.33); mount propagation and
 * recursive read-only modes; devices name a block volume (a PVC or ephemeral one: a static pod may have
 * neither, so any device is refused, here or at step 8). Where the API reports at the list, the item is named.
 */
export function validateVolumeMountsAndDevices(c: Container, volumes: ReadonlyMap<string, Volume>, at: string, errors: string[]): void {
  const mounts = c.volumeMounts ?? [];
  const devices = c.volumeDevices ?? [];
  const deviceNames = new Set(devices.map((d) => d.name as string | undefined ?? ''));
  const devicePaths = new Set(devices.map((d) => d.devicePath as string | undefined ?? ''));
  const mountPaths = new Set<string>();
  mounts.forEach((mount, j) => {
    const mountAt = `${at}.volumeMounts[${j}]`;
    const name = (mount.name as string | undefined) ?? '';
    if (name === '') errors.push(`${mountAt}.name: Required value`);
    else if (!volumes.has(name)) errors.push(`${mountAt}.name: Not found: ${JSON.stringify(name)}`);
    const mountPath = (mount.mountPath as string | undefined) ?? '';
    if (mountPath === '') errors.push(`${mountAt}.mountPath: Required value`);
    else if (mountPaths.has(mountPath)) errors.push(`${mountAt}.mountPath: Invalid value: ${JSON.stringify(mountPath)}: must be unique`);
    mountPaths.add(mountPath);
    if (name !== '' && deviceNames.has(name)) errors.push(`${mountAt}.name: Invalid value: ${JSON.stringify(name)}: must not already exist in volumeDevices`);
    if (mountPath !== '' && devicePaths.has(mountPath)) {
      errors.push(`${mountAt}.mountPath: Invalid value: ${JSON.stringify(mountPath)}: must not already exist as a path in volumeDevices`);
    }
    validateSubPaths(mount, mountAt, errors);
    validateMountPropagation(mount, c.securityContext?.privileged === true, `${mountAt}.mountPropagation`, errors);
    validateRecursiveReadOnly(mount, `${mountAt}.recursiveReadOnly`, errors);
  });
  validateVolumeDevices(c, volumes, at, errors);
}

/** A sub-path stays inside its volume; subPath and subPathExpr exclude each other. */
function validateSubPaths(mount: VolumeMount, at: string, errors: string[]): void {
  const subPath = mount.subPath ?? '';
  const subPathExpr = mount.subPathExpr ?? '';
  if (subPath !== '') validateLocalDescendingPath(subPath, `${at}.subPath`, errors);
  if (subPathExpr !== '') {
    if (subPath !== '') errors.push(`${at}.subPathExpr: Invalid value: ${JSON.stringify(subPathExpr)}: subPathExpr and subPath are mutually exclusive`);
    validateLocalDescendingPath(subPathExpr, `${at}.subPathExpr`, errors);
  }
}

/** validateMountPropagation: a known mode; Bidirectional (mounts flow back to the host) only for a privileged container. */
function validateMountPropagation(mount: VolumeMount, privileged: boolean, at: string, errors: string[]): void {
  const propagation = mount.mountPropagation;
  if (propagation === undefined) return;
  oneOf(propagation, MOUNT_PROPAGATIONS, at, errors);
  if (propagation === 'Bidirectional' && !privileged) errors.push(`${at}: Forbidden: Bidirectional mount propagation is available only to privileged containers`);
}

/** validateMountRecursiveReadOnly: a known mode; a recursive one only on a read-only mount that propagates nothing. */
function validateRecursiveReadOnly(mount: VolumeMount, at: string, errors: string[]): void {
  const mode = mount.recursiveReadOnly;
  if (mode === undefined || mode === 'Disabled') return;
  if (mode !== 'Enabled' && mode !== 'IfPossible') {
    oneOf(mode, RECURSIVE_READ_ONLY_MODES, at, errors);
    return;
  }
  if (mount.readOnly !== true) errors.push(`${at}: Forbidden: may only be specified when readOnly is true`);
  if (mount.mountPropagation !== undefined && mount.mountPropagation !== 'None') {
    errors.push(`${at}: Forbidden: may only be specified when mountPropagation is None or not specified`);
  }
}

/** ValidateVolumeDevices: unique names and paths without `..`, naming a block (PVC or ephemeral) volume no mount uses. */
function validateVolumeDevices(c: Container, volumes: ReadonlyMap<string, Volume>, at: string, errors: string[]): void {
  const mounts = c.volumeMounts ?? [];
  const mountNames = new Set(mounts.map((m) => m.name as string | undefined ?? ''));
  const mountPaths = new Set(mounts.map((m) => m.mountPath as string | undefined ?? ''));
  const names = new Set<string>();
  const paths = new Set<string>();
  (c.volumeDevices ?? []).forEach((device, j) => {
    const deviceAt = `${at}.volumeDevices[${j}]`;
    const name = (device.name as string | undefined) ?? '';
    const volume = volumes.get(name);
    if (name === '') errors.push(`${deviceAt}.name: Required value`);
    else if (names.has(name)) errors.push(`${deviceAt}.name: Invalid value: ${JSON.stringify(name)}: must be unique`);
    if (name !== '' && volume === undefined) errors.push(`${deviceAt}.name: Not found: ${JSON.stringify(name)}`);
    if (volume !== undefined && volume.persistentVolumeClaim === undefined && volume.ephemeral === undefined) {
      errors.push(`${deviceAt}.name: Invalid value: ${JSON.stringify(name)}: can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode`);
    }
    const devicePath = (device.devicePath as string | undefined) ?? '';
    if (devicePath === '') errors.push(`${deviceAt}.devicePath: Required value`);
    else if (paths.has(devicePath)) errors.push(`${deviceAt}.devicePath: Invalid value: ${JSON.stringify(devicePath)}: must be unique`);
    if (devicePath.split('/').includes('..')) errors.push(`${deviceAt}.devicePath: Invalid value: ${JSON.stringify(devicePath)}: can not contain backsteps ('..')`);
    else paths.add(devicePath);
    if (name !== '' && mountNames.has(name)) errors.push(`${deviceAt}.name: Invalid value: ${JSON.stringify(name)}: must not already exist in volumeMounts`);
    if (devicePath !== '' && mountPaths.has(devicePath)) {
      errors.push(`${deviceAt}.devicePath: Invalid value: ${JSON.stringify(devicePath)}: must not already exist as a path in volumeMounts`);
    }
    if (name !== '') names.add(name);
  });
}
