import type { Container } from '@podconfig/core';
import { qualifiedNameProblems } from './name-rules.js';
import { quantityValue } from './quantity.js';
import { oneOf } from './validate-one-of.js';

// The downward API's selectors, shared by env vars (validate-env.ts) and downwardAPI volume files.
type EnvVarSource = NonNullable<NonNullable<Container['env']>[number]['valueFrom']>;
type ObjectFieldSelector = NonNullable<EnvVarSource['fieldRef']>;
type ResourceFieldSelector = NonNullable<EnvVarSource['resourceFieldRef']>;

/** The pod fields podshelper.ConvertDownwardAPIFieldLabel knows (`spec.host` is the old name of spec.nodeName). */
const DOWNWARD_API_FIELDS = [
  'metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName',
  'spec.restartPolicy', 'spec.serviceAccountName', 'spec.schedulerName', 'status.phase', 'status.hostIP', 'status.hostIPs',
  'status.podIP', 'status.podIPs', 'spec.host',
];
/** validEnvDownwardAPIFieldPathExpressions, sorted as the API lists them. */
export const ENV_FIELD_PATHS = [
  'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP',
  'status.hostIPs', 'status.podIP', 'status.podIPs',
];
/** validVolumeDownwardAPIFieldPathExpressions, sorted as the API lists them. */
export const VOLUME_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
/** validContainerResourceFieldPathExpressions, sorted; `requests.hugepages-*` and `limits.hugepages-*` too. */
const RESOURCE_FIELDS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];
const BYTE_DIVISORS = '1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei';

/**
 * validateObjectFieldSelector: a v1 pod field the downward API gives (`allowed`: env vars and volume files get
 * different ones), or one label or annotation.
 */
export function validateObjectFieldSelector(selector: ObjectFieldSelector, allowed: readonly string[], at: string, errors: string[]): void {
  const apiVersion = selector.apiVersion ?? '';
  const fieldPath = (selector.fieldPath as string | undefined) ?? '';
  if (apiVersion === '') {
    errors.push(`${at}.apiVersion: Required value`);
    return;
  }
  if (fieldPath === '') {
    errors.push(`${at}.fieldPath: Required value`);
    return;
  }
  const subscripted = /^(.+?)\['(.*)'\]$/s.exec(fieldPath);
  let problem: string | undefined;
  if (apiVersion !== 'v1') problem = `unsupported pod version: ${apiVersion}`;
  else if (subscripted !== null && subscripted[1] !== 'metadata.annotations' && subscripted[1] !== 'metadata.labels') {
    problem = `field label does not support subscript: ${fieldPath}`;
  } else if (subscripted === null && !DOWNWARD_API_FIELDS.includes(fieldPath)) problem = `field label not supported: ${fieldPath}`;
  if (problem !== undefined) {
    errors.push(`${at}.fieldPath: Invalid value: ${JSON.stringify(fieldPath)}: error converting fieldPath: ${problem}`);
    return;
  }
  if (subscripted !== null) {
    const [, path, key = ''] = subscripted;
    // Annotation keys are compared case-insensitively; label keys are not.
    const checked = path === 'metadata.annotations' ? key.toLowerCase() : key;
    for (const p of qualifiedNameProblems(checked)) errors.push(`${at}: Invalid value: ${JSON.stringify(checked)}: ${p}`);
    return;
  }
  oneOf(fieldPath === 'spec.host' ? 'spec.nodeName' : fieldPath, allowed, `${at}.fieldPath`, errors);
}

/**
 * validateContainerResourceFieldSelector and validateContainerResourceDivisor. A volume file must name its
 * container (an env var's is its own); the API then checks the resource only if it has one.
 */
export function validateResourceFieldSelector(selector: ResourceFieldSelector, forVolume: boolean, at: string, errors: string[]): void {
  const resource = (selector.resource as string | undefined) ?? '';
  if (forVolume && !selector.containerName) errors.push(`${at}.containerName: Required value`);
  else if (resource === '') errors.push(`${at}.resource: Required value`);
  else if (!resource.startsWith('requests.hugepages-') && !resource.startsWith('limits.hugepages-')) oneOf(resource, RESOURCE_FIELDS, `${at}.resource`, errors);
  const divisor = selector.divisor;
  if (divisor === undefined || quantityValue(divisor) === 0) return;
  const canonical = canonicalUnitDivisor(divisor);
  const kind = resource.replace(/^(limits|requests)\./, '');
  let detail: string | undefined;
  if (kind === 'cpu' && canonical !== '1m' && canonical !== '1') detail = "only divisor's values 1m and 1 are supported with the cpu resource";
  else if (kind === 'memory' && !isByteDivisor(canonical)) detail = `only divisor's values ${BYTE_DIVISORS} are supported with the memory resource`;
  else if (kind === 'ephemeral-storage' && !isByteDivisor(canonical)) detail = `only divisor's values ${BYTE_DIVISORS} are supported with the local ephemeral storage resource`;
  if (detail !== undefined) errors.push(`${at}.divisor: Invalid value: ${JSON.stringify(resource)}: ${detail}`);
  if (/^(limits|requests)\.hugepages-/.test(resource) && !isByteDivisor(canonical)) {
    errors.push(`${at}.divisor: Invalid value: ${JSON.stringify(resource)}: only divisor's values ${BYTE_DIVISORS} are supported with the hugepages resource`);
  }
}

function isByteDivisor(canonical: string | undefined): boolean {
  return canonical !== undefined && (canonical === '1' || /^1([kMGTPE]|[KMGTPE]i)$/.test(canonical));
}

/**
 * The canonical form (Quantity.String) of a divisor when it is one unit of a suffix (`1`, `1m`, `1k`, `1Ki`, …),
 * else undefined. The form keeps the written kind: `1024` stays `1024`, `1e3` stays `1e3`, `1000m` becomes `1`.
 */
function canonicalUnitDivisor(divisor: string | number): string | undefined {
  const text = String(divisor);
  const value = quantityValue(divisor);
  if (value === 1) return '1';
  if (/i$/.test(text)) {
    const binary = ['Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'].find((_, k) => value === 1024 ** (k + 1));
    return binary === undefined ? undefined : `1${binary}`;
  }
  if (/[eE][+-]?[0-9]+$/.test(text)) return undefined;
  if (value === 0.001) return '1m';
  const decimal = ['k', 'M', 'G', 'T', 'P', 'E'].find((_, k) => value === 1000 ** (k + 1));
  return decimal === undefined ? undefined : `1${decimal}`;
}
