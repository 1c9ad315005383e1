import type { Volume } from '@podconfig/core';
import { dns1123LabelProblems } from './name-rules.js';
import { goJsonString } from './validate-error-values.js';

// The network and cloud disk sources of validateVolumeSource, one function each, named after the API's. Each
// takes the source and the path the API checks it at, which is not always the source's own field name
// (gcePersistentDisk is checked as `persistentDisk`, cephfs as `cephfs`). Most are deprecated in-tree plugins,
// now served by CSI drivers (CSIMigration); the API still validates them, so the kubelet does.

type Source<K extends keyof Volume> = NonNullable<Volume[K]>;
/** Quobyte and Flocker are gone from the pod types (kubernetes-types 1.30) but not from the API's validation. */
export interface QuobyteVolumeSource { registry?: string; volume?: string; tenant?: string }
export interface FlockerVolumeSource { datasetName?: string; datasetUUID?: string }

const LUN_RANGE = 'must be between 0 and 255, inclusive';
/** pdPartitionErrorMsg: the API says 1 to 255 but takes 0 too. */
const PARTITION_RANGE = 'must be between 1 and 255, inclusive';
/** iscsiInitiatorIqnRegex (unanchored at the start, as the API's is), iscsiInitiatorEuiRegex, iscsiInitiatorNaaRegex. */
const IQN = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\s]+)$/;
const EUI = /^eui.[A-Za-z0-9]{16}$/;
const NAA = /^naa.[A-Za-z0-9]{32}$/;

/** validateGCEPersistentDiskVolumeSource. */
export function validateGcePersistentDisk(pd: Source<'gcePersistentDisk'>, at: string, errors: string[]): void {
  if (!pd.pdName) errors.push(`${at}.pdName: Required value`);
  validatePartition(pd.partition, at, errors);
}

/** validateAWSElasticBlockStoreVolumeSource. */
export function validateAwsElasticBlockStore(ebs: Source<'awsElasticBlockStore'>, at: string, errors: string[]): void {
  if (!ebs.volumeID) errors.push(`${at}.volumeID: Required value`);
  validatePartition(ebs.partition, at, errors);
}

function validatePartition(partition: number | undefined, at: string, errors: string[]): void {
  if (partition !== undefined && (partition < 0 || partition > 255)) errors.push(`${at}.partition: Invalid value: ${partition}: ${PARTITION_RANGE}`);
}

/** An iSCSI qualified name: `iqn.` with a date and an authority, `eui.` and 16, or `naa.` and 32 characters. */
function iscsiNameProblem(name: string): string | undefined {
  if (!name.startsWith('iqn') && !name.startsWith('eui') && !name.startsWith('naa')) return 'must be valid format starting with iqn, eui, or naa';
  if (name.startsWith('iqn') && !IQN.test(name)) return 'must be valid format';
  if (name.startsWith('eui') && !EUI.test(name)) return 'must be valid format';
  if (name.startsWith('naa') && !NAA.test(name)) return 'must be valid format';
  return undefined;
}

/** validateISCSIVolumeSource: a target portal, a valid IQN, a LUN 0-255, a CHAP secret when CHAP is on, a valid initiator name. */
export function validateIscsi(iscsi: Source<'iscsi'>, at: string, errors: string[]): void {
  if (!iscsi.targetPortal) errors.push(`${at}.targetPortal: Required value`);
  const iqn = iscsi.iqn as string | undefined ?? '';
  if (iqn === '') errors.push(`${at}.iqn: Required value`);
  else {
    const problem = iscsiNameProblem(iqn);
    if (problem !== undefined) errors.push(`${at}.iqn: Invalid value: ${JSON.stringify(iqn)}: ${problem}`);
  }
  const lun = iscsi.lun as number | undefined ?? 0;
  if (lun < 0 || lun > 255) errors.push(`${at}.lun: Invalid value: ${lun}: ${LUN_RANGE}`);
  if ((iscsi.chapAuthDiscovery === true || iscsi.chapAuthSession === true) && iscsi.secretRef === undefined) {
    errors.push(`${at}.secretRef: Required value`);
  }
  const initiator = iscsi.initiatorName;
  if (initiator !== undefined) {
    // The API checks the prefix, then, separately, the format: a name with neither gets the first message only.
    const problem = iscsiNameProblem(initiator);
    if (problem !== undefined) errors.push(`${at}.initiatorname: Invalid value: ${JSON.stringify(initiator)}: ${problem}`);
  }
}

/** validateGlusterfsVolumeSource. */
export function validateGlusterfs(glusterfs: Source<'glusterfs'>, at: string, errors: string[]): void {
  if (!glusterfs.endpoints) errors.push(`${at}.endpoints: Required value`);
  if (!glusterfs.path) errors.push(`${at}.path: Required value`);
}

/** validateFlockerVolumeSource: exactly one of datasetName (without `/`) and datasetUUID. */
export function validateFlocker(flocker: FlockerVolumeSource, at: string, errors: string[]): void {
  const name = flocker.datasetName ?? '';
  const uuid = flocker.datasetUUID ?? '';
  if (name === '' && uuid === '') errors.push(`${at}: Required value: one of datasetName and datasetUUID is required`);
  if (name !== '' && uuid !== '') errors.push(`${at}: Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously`);
  if (name.includes('/')) errors.push(`${at}.datasetName: Invalid value: ${JSON.stringify(name)}: must not contain '/'`);
}

/** validateRBDVolumeSource. */
export function validateRbd(rbd: Source<'rbd'>, at: string, errors: string[]): void {
  if ((rbd.monitors as readonly string[] | undefined ?? []).length === 0) errors.push(`${at}.monitors: Required value`);
  if (!rbd.image) errors.push(`${at}.image: Required value`);
}

/** validateCinderVolumeSource. */
export function validateCinder(cinder: Source<'cinder'>, at: string, errors: string[]): void {
  if (!cinder.volumeID) errors.push(`${at}.volumeID: Required value`);
  if (cinder.secretRef !== undefined && !cinder.secretRef.name) errors.push(`${at}.secretRef.name: Required value`);
}

/** validateCephFSVolumeSource. */
export function validateCephFs(cephfs: Source<'cephfs'>, at: string, errors: string[]): void {
  if ((cephfs.monitors as readonly string[] | undefined ?? []).length === 0) errors.push(`${at}.monitors: Required value`);
}

/**
 * validateQuobyteVolumeSource: a registry of `host:port` pairs separated by commas (each pair that net.SplitHostPort
 * refuses is reported, with the whole registry), a tenant under 65 characters, a volume.
 */
export function validateQuobyte(quobyte: QuobyteVolumeSource, at: string, errors: string[]): void {
  const registry = quobyte.registry ?? '';
  const registryDetail = 'must be a host:port pair or multiple pairs separated by commas';
  if (registry === '') errors.push(`${at}.registry: Required value: ${registryDetail}`);
  else if (Buffer.byteLength(quobyte.tenant ?? '') >= 65) errors.push(`${at}.tenant: Required value: must be a UUID and may not exceed a length of 64 characters`);
  else {
    for (const pair of registry.split(',')) {
      if (!isHostPort(pair)) errors.push(`${at}.registry: Invalid value: ${JSON.stringify(registry)}: ${registryDetail}`);
    }
  }
  if (!quobyte.volume) errors.push(`${at}.volume: Required value`);
}

/** Whether Go's net.SplitHostPort takes the text: `host:port` or `[host]:port` (the port may be empty). */
function isHostPort(text: string): boolean {
  const colon = text.lastIndexOf(':');
  if (colon < 0) return false;
  let from = 0;
  let to = 0;
  if (text.startsWith('[')) {
    // The first ']' must sit right before the last ':'.
    const end = text.indexOf(']');
    if (end < 0 || end + 1 !== colon) return false;
    [from, to] = [1, end + 1];
  } else if (text.slice(0, colon).includes(':')) {
    return false;
  }
  return !text.slice(from).includes('[') && !text.slice(to).includes(']');
}

/** validateFCVolumeSource: targetWWNs (with a LUN 0-255) or wwids, not both. */
export function validateFc(fc: Source<'fc'>, at: string, errors: string[]): void {
  const wwns = fc.targetWWNs ?? [];
  const wwids = fc.wwids ?? [];
  if (wwns.length === 0 && wwids.length === 0) errors.push(`${at}.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both`);
  if (wwns.length > 0 && wwids.length > 0) {
    errors.push(`${at}.targetWWNs: Invalid value: ${JSON.stringify(wwns)}: targetWWNs and wwids can not be specified simultaneously`);
  }
  if (wwns.length > 0) {
    if (fc.lun === undefined) errors.push(`${at}.lun: Required value: lun is required if targetWWNs is specified`);
    else if (fc.lun < 0 || fc.lun > 255) errors.push(`${at}.lun: Invalid value: ${fc.lun}: ${LUN_RANGE}`);
  }
}

/** validateFlexVolumeSource: a driver, and no option key in the kubernetes.io or k8s.io namespace (values never shown). */
export function validateFlexVolume(flex: Source<'flexVolume'>, at: string, errors: string[]): void {
  if (!flex.driver) errors.push(`${at}.driver: Required value`);
  for (const key of Object.keys(flex.options ?? {})) {
    const slash = key.indexOf('/');
    const namespace = `.${(slash >= 0 ? key.slice(0, slash) : key).toLowerCase()}`;
    if (namespace.endsWith('.kubernetes.io') || namespace.endsWith('.k8s.io')) {
      errors.push(`${at}.options[${key}]: Invalid value: ${JSON.stringify(key)}: kubernetes.io and k8s.io namespaces are reserved`);
    }
  }
}

/** validateAzureFile. */
export function validateAzureFile(azure: Source<'azureFile'>, at: string, errors: string[]): void {
  if (!azure.secretName) errors.push(`${at}.secretName: Required value`);
  if (!azure.shareName) errors.push(`${at}.shareName: Required value`);
}

/** validateAzureDisk: a disk name and URI, a known caching mode and kind, a URI that suits the kind. */
export function validateAzureDisk(azure: Source<'azureDisk'>, at: string, errors: string[]): void {
  const uri = (azure.diskURI as string | undefined) ?? '';
  if (!azure.diskName) errors.push(`${at}.diskName: Required value`);
  if (uri === '') errors.push(`${at}.diskURI: Required value`);
  const { cachingMode, kind } = azure;
  if (cachingMode !== undefined && !['None', 'ReadOnly', 'ReadWrite'].includes(cachingMode)) {
    errors.push(`${at}.cachingMode: Unsupported value: ${goJsonString(cachingMode)}: supported values: "None", "ReadOnly", "ReadWrite"`);
  }
  if (kind !== undefined && !['Dedicated', 'Managed', 'Shared'].includes(kind)) {
    errors.push(`${at}.kind: Unsupported value: ${goJsonString(kind)}: supported values: "Dedicated", "Managed", "Shared"`);
  }
  if (kind === 'Managed' && !uri.startsWith('/subscriptions/')) {
    errors.push(`${at}.diskURI: Unsupported value: ${JSON.stringify(uri)}: supported values: "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"`);
  }
  if (kind !== undefined && kind !== 'Managed' && !uri.startsWith('https://')) {
    errors.push(`${at}.diskURI: Unsupported value: ${JSON.stringify(uri)}: supported values: "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"`);
  }
}

/** validateVsphereVolumeSource, validatePhotonPersistentDiskVolumeSource, validatePortworxVolumeSource. */
export function validateVsphereVolume(vsphere: Source<'vsphereVolume'>, at: string, errors: string[]): void {
  if (!vsphere.volumePath) errors.push(`${at}.volumePath: Required value`);
}
export function validatePhotonPersistentDisk(photon: Source<'photonPersistentDisk'>, at: string, errors: string[]): void {
  if (!photon.pdID) errors.push(`${at}.pdID: Required value`);
}
export function validatePortworxVolume(portworx: Source<'portworxVolume'>, at: string, errors: string[]): void {
  if (!portworx.volumeID) errors.push(`${at}.volumeID: Required value`);
}

/** validateScaleIOVolumeSource. */
export function validateScaleIo(scaleIO: Source<'scaleIO'>, at: string, errors: string[]): void {
  if (!scaleIO.gateway) errors.push(`${at}.gateway: Required value`);
  if (!scaleIO.system) errors.push(`${at}.system: Required value`);
  if (!scaleIO.volumeName) errors.push(`${at}.volumeName: Required value`);
}

/** validateStorageOSVolumeSource: a volume name and namespace that are DNS-1123 labels, a secret with a name. */
export function validateStorageOs(storageos: Source<'storageos'>, at: string, errors: string[]): void {
  const name = storageos.volumeName ?? '';
  if (name === '') errors.push(`${at}.volumeName: Required value`);
  else for (const p of dns1123LabelProblems(name)) errors.push(`${at}.volumeName: Invalid value: ${JSON.stringify(name)}: ${p}`);
  const namespace = storageos.volumeNamespace ?? '';
  if (namespace !== '') for (const p of dns1123LabelProblems(namespace)) errors.push(`${at}.volumeNamespace: Invalid value: ${JSON.stringify(namespace)}: ${p}`);
  if (storageos.secretRef !== undefined && !storageos.secretRef.name) errors.push(`${at}.secretRef.name: Required value`);
}
