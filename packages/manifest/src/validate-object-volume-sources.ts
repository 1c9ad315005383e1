import type { Volume } from '@podconfig/core';
import { dns1123LabelProblems, dns1123SubdomainProblems, labelValueProblems, qualifiedNameProblems } from './name-rules.js';
import { compareQuantities, formatQuantity, parseQuantity, roundUpToMilli } from './quantity.js';
import { goJsonString } from './validate-error-values.js';
import { validateLabelSelector } from './validate-label-selector.js';
import { validateLocalNonReservedPath } from './validate-local-path.js';

// The volume sources of validateVolumeSource that name API objects: secret, configMap, persistentVolumeClaim,
// csi, ephemeral, and the secret, configMap and serviceAccountToken projections. A static pod may not reference
// API objects (PreventStaticPodAPIReferences, step 8), but the kubelet validates the pod first (step 7), so a
// malformed one is refused with these errors rather than the reference error.

type Source<K extends keyof Volume> = NonNullable<Volume[K]>;
type KeyToPath = NonNullable<Source<'secret'>['items']>[number];
type ClaimTemplate = NonNullable<Source<'ephemeral'>['volumeClaimTemplate']>;
type ClaimSpec = ClaimTemplate['spec'];
type TypedReference = NonNullable<ClaimSpec['dataSource']> & { namespace?: string };

const FILE_MODE_RANGE = 'must be a number between 0 and 0777 (octal), both inclusive';
/** supportedAccessModes and supportedVolumeModes, sorted as the API lists them. */
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const VOLUME_MODES = ['Block', 'Filesystem'];
/**
 * The ObjectMeta fields a claim template's metadata may not set, in the Go struct's order, each with the path the
 * API names it by (validateFieldAllowList lowercases the first letter of the Go field name: UID is `uID`).
 */
const TEMPLATE_META_FIELDS: readonly (readonly [json: string, path: string])[] = [
  ['name', 'name'], ['generateName', 'generateName'], ['namespace', 'namespace'], ['selfLink', 'selfLink'], ['uid', 'uID'],
  ['resourceVersion', 'resourceVersion'], ['generation', 'generation'], ['creationTimestamp', 'creationTimestamp'],
  ['deletionTimestamp', 'deletionTimestamp'], ['deletionGracePeriodSeconds', 'deletionGracePeriodSeconds'],
  ['ownerReferences', 'ownerReferences'], ['finalizers', 'finalizers'], ['managedFields', 'managedFields'],
];

/** A file mode: the permission bits only. */
export function validateFileMode(mode: number | undefined, at: string, errors: string[]): void {
  if (mode !== undefined && !(mode >= 0 && mode <= 0o777)) errors.push(`${at}: Invalid value: ${mode}: ${FILE_MODE_RANGE}`);
}

/** validateKeyToPath: a key, a relative path inside the volume off the kubelet's reserved names, a file mode. */
export function validateKeyToPath(item: KeyToPath, at: string, errors: string[]): void {
  const path = (item.path as string | undefined) ?? '';
  if (!item.key) errors.push(`${at}.key: Required value`);
  if (path === '') errors.push(`${at}.path: Required value`);
  validateLocalNonReservedPath(path, `${at}.path`, errors);
  validateFileMode(item.mode, `${at}.mode`, errors);
}

/** validateSecretVolumeSource. */
export function validateSecretVolume(secret: Source<'secret'>, at: string, errors: string[]): void {
  if (!secret.secretName) errors.push(`${at}.secretName: Required value`);
  validateFileMode(secret.defaultMode, `${at}.defaultMode`, errors);
  (secret.items ?? []).forEach((item, i) => validateKeyToPath(item, `${at}.items[${i}]`, errors));
}

/** validateConfigMapVolumeSource. */
export function validateConfigMapVolume(configMap: Source<'configMap'>, at: string, errors: string[]): void {
  if (!configMap.name) errors.push(`${at}.name: Required value`);
  validateFileMode(configMap.defaultMode, `${at}.defaultMode`, errors);
  (configMap.items ?? []).forEach((item, i) => validateKeyToPath(item, `${at}.items[${i}]`, errors));
}

/** validatePersistentClaimVolumeSource. */
export function validatePersistentVolumeClaim(claim: Source<'persistentVolumeClaim'>, at: string, errors: string[]): void {
  if (!claim.claimName) errors.push(`${at}.claimName: Required value`);
}

/**
 * validateCSIVolumeSource: a driver name of at most 63 bytes that is a DNS-1123 subdomain in any case
 * (ValidateCSIDriverName), and a node publish secret with a valid name (reported at `csi.name`, as the API does).
 */
export function validateCsiVolume(csi: Source<'csi'>, at: string, errors: string[]): void {
  const driver = (csi.driver as string | undefined) ?? '';
  if (driver === '') errors.push(`${at}.driver: Required value`);
  else {
    if (Buffer.byteLength(driver) > 63) errors.push(`${at}.driver: Too long: may not be more than 63 bytes`);
    for (const p of dns1123SubdomainProblems(driver.toLowerCase())) errors.push(`${at}.driver: Invalid value: ${JSON.stringify(driver)}: ${p}`);
  }
  const secret = csi.nodePublishSecretRef;
  if (secret !== undefined) {
    const name = secret.name ?? '';
    if (name === '') errors.push(`${at}.nodePublishSecretRef.name: Required value`);
    else for (const p of dns1123SubdomainProblems(name)) errors.push(`${at}.name: Invalid value: ${JSON.stringify(name)}: ${p}`);
  }
}

/**
 * validateEphemeralVolumeSource and ValidatePersistentVolumeClaimTemplate: a claim template whose metadata has
 * only valid labels and annotations, and a claim spec: access modes (at least one, known, ReadWriteOncePod
 * alone), a label selector, a positive storage request, a storage class and volume attributes class that are
 * DNS-1123 subdomains (VolumeAttributesClass is GA), a known volume mode, and data sources. The claim the
 * kubelet would create, `<pod name>-<volume name>`, must be a valid object name; `volumeAt` is the volume's path.
 */
export function validateEphemeralVolume(ephemeral: Source<'ephemeral'>, at: string, volumeAt: string, names: { pod: string; volume: string },
  errors: string[]): void {
  const template = ephemeral.volumeClaimTemplate;
  if (template === undefined) errors.push(`${at}.volumeClaimTemplate: Required value`);
  else {
    validateTemplateMetadata(template.metadata ?? {}, `${at}.volumeClaimTemplate.metadata`, errors);
    validateClaimSpec((template.spec) ?? {}, `${at}.volumeClaimTemplate.spec`, errors);
  }
  if (names.pod !== '' && names.volume !== '') {
    const claimName = `${names.pod}-${names.volume}`;
    for (const p of dns1123SubdomainProblems(claimName)) {
      errors.push(`${volumeAt}.name: Invalid value: ${JSON.stringify(names.volume)}: PVC name ${JSON.stringify(claimName)}: ${p}`);
    }
  }
}

/** ValidateTemplateObjectMeta: annotations and labels only. */
function validateTemplateMetadata(metadata: NonNullable<ClaimTemplate['metadata']>, at: string, errors: string[]): void {
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(metadata.annotations ?? {})) {
    for (const p of qualifiedNameProblems(key.toLowerCase())) errors.push(`${at}.annotations: Invalid value: ${JSON.stringify(key)}: ${p}`);
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (annotationBytes > 256 * 1024) errors.push(`${at}.annotations: Too long: may not be more than ${256 * 1024} bytes`);
  // ValidateLabels reports at the map, not at the label.
  for (const [key, value] of Object.entries(metadata.labels ?? {})) {
    for (const p of qualifiedNameProblems(key)) errors.push(`${at}.labels: Invalid value: ${JSON.stringify(key)}: ${p}`);
    for (const p of labelValueProblems(value)) errors.push(`${at}.labels: Invalid value: ${JSON.stringify(value)}: ${p}`);
  }
  const fields = metadata as Readonly<Record<string, unknown>>;
  for (const [json, path] of TEMPLATE_META_FIELDS) {
    const value = fields[json];
    if (value !== undefined && value !== '' && value !== 0) errors.push(`${at}.${path}: Forbidden: cannot be set`);
  }
}

/** ValidatePersistentVolumeClaimSpec, as a claim template's spec is checked on create. */
function validateClaimSpec(spec: ClaimSpec, at: string, errors: string[]): void {
  const modes = spec.accessModes ?? [];
  if (modes.length === 0) errors.push(`${at}.accessModes: Required value: at least 1 access mode is required`);
  if (spec.selector !== undefined) validateLabelSelector(spec.selector, `${at}.selector`, errors);
  for (const mode of modes) {
    if (!ACCESS_MODES.includes(mode)) {
      errors.push(`${at}.accessModes: Unsupported value: ${goJsonString(mode)}: supported values: ${ACCESS_MODES.map((m) => JSON.stringify(m)).join(', ')}`);
    }
  }
  if (modes.includes('ReadWriteOncePod') && modes.some((m) => m !== 'ReadWriteOncePod' && ACCESS_MODES.includes(m))) {
    errors.push(`${at}.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes`);
  }
  const storage = spec.resources?.requests?.storage;
  const quantity = storage === undefined ? undefined : parseQuantity(storage);
  if (quantity === undefined) errors.push(`${at}.resources[storage]: Required value`);
  else {
    const rounded = roundUpToMilli(quantity);
    if (compareQuantities(rounded, { nanos: 0n, format: 'DecimalSI' }) <= 0) {
      errors.push(`${at}.resources[storage]: Invalid value: ${JSON.stringify(formatQuantity(rounded))}: must be greater than zero`);
    }
  }
  if (spec.storageClassName) {
    for (const p of dns1123SubdomainProblems(spec.storageClassName)) errors.push(`${at}.storageClassName: Invalid value: ${JSON.stringify(spec.storageClassName)}: ${p}`);
  }
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode)) {
    errors.push(`${at}.volumeMode: Unsupported value: ${goJsonString(spec.volumeMode)}: supported values: "Block", "Filesystem"`);
  }
  const dataSource = spec.dataSource as TypedReference | undefined;
  const dataSourceRef = spec.dataSourceRef as TypedReference | undefined;
  if (dataSource !== undefined) validateDataSource(dataSource, false, `${at}.dataSource`, errors);
  if (dataSourceRef !== undefined) validateDataSource(dataSourceRef, true, `${at}.dataSourceRef`, errors);
  // The API's value here is the path `dataSource`, which encoding/json writes as {}.
  if (dataSourceRef?.namespace) {
    if (dataSource !== undefined) errors.push(`${at}: Invalid value: {}: may not be specified when dataSourceRef.namespace is specified`);
  } else if (dataSource !== undefined && dataSourceRef !== undefined) {
    const same = dataSource.apiGroup === dataSourceRef.apiGroup && dataSource.kind === dataSourceRef.kind && dataSource.name === dataSourceRef.name;
    if (!same) errors.push(`${at}: Invalid value: {}: must match dataSourceRef`);
  }
  const attributesClass = (spec as { volumeAttributesClassName?: string }).volumeAttributesClassName;
  if (attributesClass) {
    for (const p of dns1123SubdomainProblems(attributesClass)) errors.push(`${at}.volumeAttributesClassName: Invalid value: ${JSON.stringify(attributesClass)}: ${p}`);
  }
}

/** validateDataSource and validateDataSourceRef: a name and kind; without an API group, a PVC; a valid group and namespace. */
function validateDataSource(ref: TypedReference, withNamespace: boolean, at: string, errors: string[]): void {
  const kind = (ref.kind as string | undefined) ?? '';
  if (!ref.name) errors.push(`${at}.name: Required value`);
  if (kind === '') errors.push(`${at}.kind: Required value`);
  const apiGroup = ref.apiGroup ?? '';
  if (apiGroup === '' && kind !== 'PersistentVolumeClaim') {
    errors.push(`${at}: Invalid value: ${JSON.stringify(kind)}: must be 'PersistentVolumeClaim' when referencing the default apiGroup`);
  }
  if (apiGroup !== '') for (const p of dns1123SubdomainProblems(apiGroup)) errors.push(`${at}.apiGroup: Invalid value: ${JSON.stringify(apiGroup)}: ${p}`);
  if (withNamespace && ref.namespace) {
    for (const p of dns1123LabelProblems(ref.namespace)) errors.push(`${at}.namespace: Invalid value: ${JSON.stringify(ref.namespace)}: ${p}`);
  }
}
