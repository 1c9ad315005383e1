import type { Volume } from '@podconfig/core';
import { quantityValue } from './quantity.js';
import {
  validateAwsElasticBlockStore, validateAzureDisk, validateAzureFile, validateCephFs, validateCinder, validateFc, validateFlexVolume,
  validateFlocker, validateGcePersistentDisk, validateGlusterfs, validateIscsi, validatePhotonPersistentDisk, validatePortworxVolume,
  validateQuobyte, validateRbd, validateScaleIo, validateStorageOs, validateVsphereVolume, type FlockerVolumeSource, type QuobyteVolumeSource,
} from './validate-disk-volume-sources.js';
import { VOLUME_FIELD_PATHS, validateObjectFieldSelector, validateResourceFieldSelector } from './validate-downward-api.js';
import { validateLocalDescendingPath, validateLocalNonReservedPath, validatePathNoBacksteps } from './validate-local-path.js';
import {
  validateConfigMapVolume, validateCsiVolume, validateEphemeralVolume, validateFileMode, validateKeyToPath, validatePersistentVolumeClaim,
  validateSecretVolume,
} from './validate-object-volume-sources.js';
import { oneOf } from './validate-one-of.js';

type DownwardApiFile = NonNullable<NonNullable<Volume['downwardAPI']>['items']>[number];
/** The image volume source (ImageVolume, 1.31) is newer than the pod types (kubernetes-types 1.30). */
type ImageVolumeSource = { reference?: string; pullPolicy?: string };
/** Volume sources the API still validates that the pod types (kubernetes-types 1.30) no longer have. */
type AnyVolume = Volume & { image?: ImageVolumeSource; quobyte?: QuobyteVolumeSource; flocker?: FlockerVolumeSource };
type Projection = NonNullable<NonNullable<Volume['projected']>['sources']>[number] & {
  podCertificate?: { credentialBundlePath?: string; keyPath?: string; certificateChainPath?: string };
};

/** supportedHostPathTypes, sorted as the API lists them. */
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
/** supportedPullPolicies, sorted as the API lists them. */
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

/** One volume source: its field, the name the API gives it when it is one too many, its validation. */
type SourceCheck = readonly [field: keyof AnyVolume, name: string, check: (volume: AnyVolume, at: string, context: VolumeContext, errors: string[]) => void];
interface VolumeContext { readonly podName: string; readonly volumeName: string; readonly volumeAt: string }

/**
 * The sources in the order validateVolumeSource takes them: the first one set counts, each later one is
 * `Forbidden: may not specify more than 1 volume type` at the API's name for it (which is not always the field's:
 * `cephFS`, `downwarAPI`) and is not checked further. Each check gets the path the API checks that source at.
 */
const SOURCES: readonly SourceCheck[] = [
  ['emptyDir', 'emptyDir', (v, at, _, e) => validateEmptyDir(v, at, e)],
  ['hostPath', 'hostPath', (v, at, _, e) => validateHostPath(v, `${at}.hostPath`, e)],
  ['gitRepo', 'gitRepo', (v, at, _, e) => validateGitRepo(v, `${at}.gitRepo`, e)],
  ['gcePersistentDisk', 'gcePersistentDisk', (v, at, _, e) => validateGcePersistentDisk(req(v.gcePersistentDisk), `${at}.persistentDisk`, e)],
  ['awsElasticBlockStore', 'awsElasticBlockStore', (v, at, _, e) => validateAwsElasticBlockStore(req(v.awsElasticBlockStore), `${at}.awsElasticBlockStore`, e)],
  ['secret', 'secret', (v, at, _, e) => validateSecretVolume(req(v.secret), `${at}.secret`, e)],
  ['nfs', 'nfs', (v, at, _, e) => validateNfs(v, `${at}.nfs`, e)],
  ['iscsi', 'iscsi', (v, at, _, e) => validateIscsi(req(v.iscsi), `${at}.iscsi`, e)],
  ['glusterfs', 'glusterfs', (v, at, _, e) => validateGlusterfs(req(v.glusterfs), `${at}.glusterfs`, e)],
  ['flocker', 'flocker', (v, at, _, e) => validateFlocker(req(v.flocker), `${at}.flocker`, e)],
  ['persistentVolumeClaim', 'persistentVolumeClaim', (v, at, _, e) => validatePersistentVolumeClaim(req(v.persistentVolumeClaim), `${at}.persistentVolumeClaim`, e)],
  ['rbd', 'rbd', (v, at, _, e) => validateRbd(req(v.rbd), `${at}.rbd`, e)],
  ['cinder', 'cinder', (v, at, _, e) => validateCinder(req(v.cinder), `${at}.cinder`, e)],
  ['cephfs', 'cephFS', (v, at, _, e) => validateCephFs(req(v.cephfs), `${at}.cephfs`, e)],
  ['quobyte', 'quobyte', (v, at, _, e) => validateQuobyte(req(v.quobyte), `${at}.quobyte`, e)],
  ['downwardAPI', 'downwarAPI', (v, at, _, e) => validateDownwardApiVolume(v, `${at}.downwardAPI`, e)],
  ['fc', 'fc', (v, at, _, e) => validateFc(req(v.fc), `${at}.fc`, e)],
  ['flexVolume', 'flexVolume', (v, at, _, e) => validateFlexVolume(req(v.flexVolume), `${at}.flexVolume`, e)],
  ['configMap', 'configMap', (v, at, _, e) => validateConfigMapVolume(req(v.configMap), `${at}.configMap`, e)],
  ['azureFile', 'azureFile', (v, at, _, e) => validateAzureFile(req(v.azureFile), `${at}.azureFile`, e)],
  ['vsphereVolume', 'vsphereVolume', (v, at, _, e) => validateVsphereVolume(req(v.vsphereVolume), `${at}.vsphereVolume`, e)],
  ['photonPersistentDisk', 'photonPersistentDisk', (v, at, _, e) => validatePhotonPersistentDisk(req(v.photonPersistentDisk), `${at}.photonPersistentDisk`, e)],
  ['portworxVolume', 'portworxVolume', (v, at, _, e) => validatePortworxVolume(req(v.portworxVolume), `${at}.portworxVolume`, e)],
  ['azureDisk', 'azureDisk', (v, at, _, e) => validateAzureDisk(req(v.azureDisk), `${at}.azureDisk`, e)],
  ['storageos', 'storageos', (v, at, _, e) => validateStorageOs(req(v.storageos), `${at}.storageos`, e)],
  ['projected', 'projected', (v, at, _, e) => validateProjected(req(v.projected), `${at}.projected`, e)],
  ['scaleIO', 'scaleIO', (v, at, _, e) => validateScaleIo(req(v.scaleIO), `${at}.scaleIO`, e)],
  ['csi', 'csi', (v, at, _, e) => validateCsiVolume(req(v.csi), `${at}.csi`, e)],
  ['ephemeral', 'ephemeral', (v, at, c, e) => validateEphemeralVolume(req(v.ephemeral), `${at}.ephemeral`, c.volumeAt,
    { pod: c.podName, volume: c.volumeName }, e)],
  ['image', 'image', (v, at, _, e) => validateImage(v, `${at}.image`, e)],
];

function req<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('volume source checked without being set');
  return value;
}

/**
 * validateVolumeSource: exactly one source, each checked as the API checks it (see SOURCES for the order and
 * the paths). `at` is the volume's path; `podName` is the pod's final name, which an ephemeral volume's claim is
 * named after. An iSCSI volume with an initiator name also needs `<volume name>:<target portal>` under 64
 * characters, whichever source counted.
 */
export function validateVolumeSource(volume: Volume, at: string, errors: string[], podName = ''): void {
  const v = volume as AnyVolume;
  const context: VolumeContext = { podName, volumeName: volume.name ?? '', volumeAt: at };
  let counted = 0;
  for (const [field, name, check] of SOURCES) {
    if (v[field] === undefined) continue;
    if (counted > 0) errors.push(`${at}.${name}: Forbidden: may not specify more than 1 volume type`);
    else {
      counted++;
      check(v, at, context, errors);
    }
    if (field === 'iscsi' && v.iscsi?.initiatorName !== undefined) {
      const portal = (v.iscsi.targetPortal as string | undefined) ?? '';
      if (Buffer.byteLength(`${context.volumeName}:${portal}`) > 64) {
        errors.push(`${at}.name: Invalid value: ${JSON.stringify(context.volumeName)}: Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.`);
      }
    }
  }
  if (counted === 0) errors.push(`${at}: Required value: must specify a volume type`);
}

/** An emptyDir's size limit may not be negative (the API's words: a negative quantity is no size). */
function validateEmptyDir(volume: AnyVolume, at: string, errors: string[]): void {
  if (volume.emptyDir?.sizeLimit !== undefined && quantityValue(volume.emptyDir.sizeLimit) < 0) {
    errors.push(`${at}.emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity`);
  }
}

/** validateHostPathVolumeSource: a path without `..`, then a known type. */
function validateHostPath(volume: AnyVolume, at: string, errors: string[]): void {
  const path = volume.hostPath?.path;
  if (!path) {
    errors.push(`${at}.path: Required value`);
    return;
  }
  validatePathNoBacksteps(path, `${at}.path`, errors);
  oneOf(volume.hostPath?.type, HOST_PATH_TYPES, `${at}.type`, errors);
}

/** validateGitRepoVolumeSource: a repository, and a directory inside the volume. */
function validateGitRepo(volume: AnyVolume, at: string, errors: string[]): void {
  if (!volume.gitRepo?.repository) errors.push(`${at}.repository: Required value`);
  validateLocalDescendingPath(volume.gitRepo?.directory ?? '', `${at}.directory`, errors);
}

/** validateNFSVolumeSource: a server and an absolute path. */
function validateNfs(volume: AnyVolume, at: string, errors: string[]): void {
  const path = (volume.nfs?.path) ?? '';
  if (!volume.nfs?.server) errors.push(`${at}.server: Required value`);
  if (path === '') errors.push(`${at}.path: Required value`);
  if (!path.startsWith('/')) errors.push(`${at}.path: Invalid value: ${JSON.stringify(path)}: must be an absolute path`);
}

/** validateDownwardAPIVolumeSource: a default mode and the files. */
function validateDownwardApiVolume(volume: AnyVolume, at: string, errors: string[]): void {
  validateFileMode(volume.downwardAPI?.defaultMode, `${at}.defaultMode`, errors);
  (volume.downwardAPI?.items ?? []).forEach((file, i) => validateDownwardApiFile(file, `${at}.items[${i}]`, errors));
}

/** validateImageVolumeSource: a reference and a known pull policy. */
function validateImage(volume: AnyVolume, at: string, errors: string[]): void {
  const image = volume.image ?? {};
  if (!image.reference) errors.push(`${at}.reference: Required value`);
  // Left out, the pull policy is Go's zero value "" (the API defaults fill it from the reference first).
  if (!image.pullPolicy) errors.push(`${at}.pullPolicy: Required value`);
  else oneOf(image.pullPolicy, PULL_POLICIES, `${at}.pullPolicy`, errors);
}

/**
 * validateProjectedVolumeSource and validateProjectionSources: a default mode, one projection per source, and no
 * two files at one path. Secret and ConfigMap projections need a name and take items as their volumes do; a
 * service account token lasts 10 minutes to 2^32 seconds and needs a path inside the volume (both reported at
 * `projected.path`, as the API does). ClusterTrustBundle and PodCertificate projections take part in the path
 * check, but their own rules (signer names, bundle names, key types) are not checked here: a static pod may not
 * use them (step 8). The API reports a repeated path at the projected volume; the file is named here.
 */
function validateProjected(projected: NonNullable<Volume['projected']>, at: string, errors: string[]): void {
  validateFileMode(projected.defaultMode, `${at}.defaultMode`, errors);
  const paths = new Set<string>();
  const claimPath = (path: string, pathAt: string): void => {
    if (paths.has(path)) errors.push(`${pathAt}: Invalid value: ${JSON.stringify(path)}: conflicting duplicate paths`);
    paths.add(path);
  };
  ((projected.sources ?? []) as readonly Projection[]).forEach((source, i) => {
    const sourceAt = `${at}.sources[${i}]`;
    for (const kind of ['secret', 'configMap'] as const) {
      const projection = source[kind];
      if (projection === undefined) continue;
      if (!projection.name) errors.push(`${sourceAt}.${kind}.name: Required value`);
      (projection.items ?? []).forEach((item, j) => {
        const itemAt = `${sourceAt}.${kind}.items[${j}]`;
        validateKeyToPath(item, itemAt, errors);
        const path = (item.path as string | undefined) ?? '';
        if (path !== '') claimPath(path, `${itemAt}.path`);
      });
    }
    (source.downwardAPI?.items ?? []).forEach((file, j) => {
      const fileAt = `${sourceAt}.downwardAPI.items[${j}]`;
      validateDownwardApiFile(file, fileAt, errors);
      const path = (file.path as string | undefined) ?? '';
      if (path !== '') claimPath(path, `${fileAt}.path`);
    });
    const token = source.serviceAccountToken;
    if (token !== undefined) {
      const expiration = token.expirationSeconds;
      const expirationAt = `${sourceAt}.serviceAccountToken.expirationSeconds`;
      if (expiration === undefined) errors.push(`${expirationAt}: Required value`);
      else {
        if (expiration < 10 * 60) errors.push(`${expirationAt}: Invalid value: ${expiration}: may not specify a duration less than 10 minutes`);
        if (expiration > 2 ** 32) errors.push(`${expirationAt}: Invalid value: ${expiration}: may not specify a duration larger than 2^32 seconds`);
      }
      const path = (token.path as string | undefined) ?? '';
      if (path === '') errors.push(`${at}.path: Required value`);
      else validateLocalNonReservedPath(path, `${at}.path`, errors);
    }
    if (source.clusterTrustBundle !== undefined) claimPath((source.clusterTrustBundle.path) ?? '', `${sourceAt}.clusterTrustBundle.path`);
    const certificate = source.podCertificate;
    if (certificate !== undefined) {
      for (const field of ['credentialBundlePath', 'keyPath', 'certificateChainPath'] as const) {
        const path = certificate[field] ?? '';
        if (path !== '') claimPath(path, `${sourceAt}.podCertificate.${field}`);
      }
    }
    if (Object.keys(source).length > 1) errors.push(`${sourceAt}: Forbidden: may not specify more than 1 volume type per source`);
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
