import type { Volume } from '@podconfig/core';
import { quantityValue } from './quantity.js';
import { VOLUME_FIELD_PATHS, validateObjectFieldSelector, validateResourceFieldSelector } from './validate-downward-api.js';
import { validateLocalDescendingPath, validateLocalNonReservedPath, validatePathNoBacksteps } from './validate-local-path.js';
import { oneOf } from './validate-one-of.js';

type DownwardApiFile = NonNullable<NonNullable<Volume['downwardAPI']>['items']>[number];
/** The image volume source (ImageVolume, 1.31) is newer than the pod types (kubernetes-types 1.30). */
type ImageVolumeSource = { reference?: string; pullPolicy?: string };

/** supportedHostPathTypes, sorted as the API lists them. */
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
/** supportedPullPolicies, sorted as the API lists them. */
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const FILE_MODE_RANGE = 'must be a number between 0 and 0777 (octal), both inclusive';

/**
 * validateVolumeSource for the sources a static pod may have: hostPath, emptyDir, downwardAPI, projected
 * downwardAPI files, image, nfs and gitRepo. Sources that reference API objects (secret, configMap,
 * persistentVolumeClaim, csi, ephemeral, projected secrets, configMaps and tokens) are refused later, at step 8,
 * and are not checked here; nor are the remaining network and cloud disk sources. `at` is the volume's path.
 */
export function validateVolumeSource(volume: Volume, at: string, errors: string[]): void {
  if (volume.emptyDir?.sizeLimit !== undefined && quantityValue(volume.emptyDir.sizeLimit) < 0) {
    // The API's words: a negative quantity is no size.
    errors.push(`${at}.emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity`);
  }
  if (volume.hostPath !== undefined) {
    const path = volume.hostPath.path as string | undefined;
    if (!path) errors.push(`${at}.hostPath.path: Required value`);
    else {
      validatePathNoBacksteps(path, `${at}.hostPath.path`, errors);
      oneOf(volume.hostPath.type, HOST_PATH_TYPES, `${at}.hostPath.type`, errors);
    }
  }
  if (volume.gitRepo !== undefined) {
    if (!volume.gitRepo.repository) errors.push(`${at}.gitRepo.repository: Required value`);
    validateLocalDescendingPath(volume.gitRepo.directory ?? '', `${at}.gitRepo.directory`, errors);
  }
  if (volume.nfs !== undefined) {
    const path = (volume.nfs.path as string | undefined) ?? '';
    if (!volume.nfs.server) errors.push(`${at}.nfs.server: Required value`);
    if (path === '') errors.push(`${at}.nfs.path: Required value`);
    if (!path.startsWith('/')) errors.push(`${at}.nfs.path: Invalid value: ${JSON.stringify(path)}: must be an absolute path`);
  }
  if (volume.downwardAPI !== undefined) {
    validateFileMode(volume.downwardAPI.defaultMode, `${at}.downwardAPI.defaultMode`, errors);
    (volume.downwardAPI.items ?? []).forEach((file, i) => validateDownwardApiFile(file, `${at}.downwardAPI.items[${i}]`, errors));
  }
  if (volume.projected !== undefined) validateProjectedDownwardApi(volume.projected, `${at}.projected`, errors);
  const image = (volume as { image?: ImageVolumeSource }).image;
  if (image !== undefined) {
    if (!image.reference) errors.push(`${at}.image.reference: Required value`);
    // Left out, the pull policy is Go's zero value "" (the API defaults fill it from the reference first).
    if (!image.pullPolicy) errors.push(`${at}.image.pullPolicy: Required value`);
    else oneOf(image.pullPolicy, PULL_POLICIES, `${at}.image.pullPolicy`, errors);
  }
}

/**
 * validateProjectedVolumeSource and validateProjectionSources, for what a static pod may project: one
 * projection per source, downwardAPI files, and no two files at one path.
 */
function validateProjectedDownwardApi(projected: NonNullable<Volume['projected']>, at: string, errors: string[]): void {
  validateFileMode(projected.defaultMode, `${at}.defaultMode`, errors);
  const paths = new Set<string>();
  (projected.sources ?? []).forEach((source, i) => {
    const sourceAt = `${at}.sources[${i}]`;
    if (Object.keys(source).length > 1) errors.push(`${sourceAt}: Forbidden: may not specify more than 1 volume type per source`);
    (source.downwardAPI?.items ?? []).forEach((file, j) => {
      const fileAt = `${sourceAt}.downwardAPI.items[${j}]`;
      validateDownwardApiFile(file, fileAt, errors);
      const path = (file.path as string | undefined) ?? '';
      if (path === '') return;
      // The API reports a repeated path at the projected volume; the file is named here.
      if (paths.has(path)) errors.push(`${fileAt}.path: Invalid value: ${JSON.stringify(path)}: conflicting duplicate paths`);
      paths.add(path);
    });
  });
}

/**
 * validateDownwardAPIVolumeFile: a local path, exactly one of fieldRef (metadata only: a file may change
 * while the pod runs, an env var may not) and resourceFieldRef (naming its container), and a file mode.
 * The API reports a file at its volume's path; the item is named here.
 */
function validateDownwardApiFile(file: DownwardApiFile, at: string, errors: string[]): void {
  const path = (file.path as string | undefined) ?? '';
  if (path === '') errors.push(`${at}.path: Required value`);
  validateLocalNonReservedPath(path, `${at}.path`, errors);
  if (file.fieldRef !== undefined) {
    validateObjectFieldSelector(file.fieldRef, VOLUME_FIELD_PATHS, `${at}.fieldRef`, errors);
    // The API's value here is the word "resource", not anything from the manifest.
    if (file.resourceFieldRef !== undefined) errors.push(`${at}: Invalid value: "resource": fieldRef and resourceFieldRef can not be specified simultaneously`);
  } else if (file.resourceFieldRef !== undefined) {
    validateResourceFieldSelector(file.resourceFieldRef, true, `${at}.resourceFieldRef`, errors);
  } else {
    errors.push(`${at}: Required value: one of fieldRef and resourceFieldRef is required`);
  }
  validateFileMode(file.mode, `${at}.mode`, errors);
}

/** A file mode: the permission bits only (a manifest's `0644` is read as octal, JSON's 420 as decimal). */
function validateFileMode(mode: number | undefined, at: string, errors: string[]): void {
  if (mode !== undefined && !(mode >= 0 && mode <= 0o777)) errors.push(`${at}: Invalid value: ${mode}: ${FILE_MODE_RANGE}`);
}
