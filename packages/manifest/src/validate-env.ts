import type { Container } from '@podconfig/core';
import { configMapKeyProblems, dns1123SubdomainProblems, envVarNameProblems, qualifiedNameProblems } from './name-rules.js';
import { quantityValue } from './quantity.js';
import { oneOf } from './validate-one-of.js';

type EnvVar = NonNullable<Container['env']>[number];
/** fileKeyRef (EnvFiles, 1.34) is newer than the pod types (kubernetes-types 1.30). */
type EnvVarSource = NonNullable<EnvVar['valueFrom']> & { fileKeyRef?: unknown };
type ObjectFieldSelector = NonNullable<EnvVarSource['fieldRef']>;
type ResourceFieldSelector = NonNullable<EnvVarSource['resourceFieldRef']>;
type KeySelector = NonNullable<EnvVarSource['configMapKeyRef']>;

/** The pod fields podshelper.ConvertDownwardAPIFieldLabel knows (`spec.host` is the old name of spec.nodeName). */
const DOWNWARD_API_FIELDS = [
  'metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName',
  'spec.restartPolicy', 'spec.serviceAccountName', 'spec.schedulerName', 'status.phase', 'status.hostIP', 'status.hostIPs',
  'status.podIP', 'status.podIPs', 'spec.host',
];
/** validEnvDownwardAPIFieldPathExpressions, sorted as the API lists them. */
const ENV_FIELD_PATHS = [
  'metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP',
  'status.hostIPs', 'status.podIP', 'status.podIPs',
];
/** validContainerResourceFieldPathExpressions, sorted; `requests.hugepages-*` and `limits.hugepages-*` too. */
const RESOURCE_FIELDS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];
const BYTE_DIVISORS = '1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei';

/**
 * ValidateEnv and validateEnvVarValueFrom: names (IsRelaxedEnvVarName) and exactly one value source, each
 * checked as the API checks it. Values are never shown.
 */
export function validateEnv(env: readonly EnvVar[], at: string, errors: string[]): void {
  env.forEach((variable, i) => {
    const path = `${at}[${i}]`;
    const name = (variable.name as string | undefined) ?? '';
    if (name === '') errors.push(`${path}.name: Required value`);
    else for (const p of envVarNameProblems(name)) errors.push(`${path}.name: Invalid value: ${JSON.stringify(name)}: ${p}`);
    const source = variable.valueFrom as EnvVarSource | undefined;
    if (source === undefined) return;
    const from = `${path}.valueFrom`;
    let sources = 0;
    if (source.fieldRef !== undefined) {
      sources++;
      validateObjectFieldSelector(source.fieldRef, `${from}.fieldRef`, errors);
    }
    if (source.resourceFieldRef !== undefined) {
      sources++;
      validateResourceFieldSelector(source.resourceFieldRef, `${from}.resourceFieldRef`, errors);
    }
    if (source.configMapKeyRef !== undefined) {
      sources++;
      validateKeySelector(source.configMapKeyRef, `${from}.configMapKeyRef`, errors);
    }
    if (source.secretKeyRef !== undefined) {
      sources++;
      validateKeySelector(source.secretKeyRef, `${from}.secretKeyRef`, errors);
    }
    // Counted so that an env file source is not taken for none; its own rules are not checked here.
    if (source.fileKeyRef !== undefined) sources++;
    if (sources === 0) {
      errors.push(`${from}: Invalid value: must specify one of: \`fieldRef\`, \`resourceFieldRef\`, \`configMapKeyRef\` or \`secretKeyRef\``);
    } else if (variable.value) {
      errors.push(`${from}: Invalid value: may not be specified when \`value\` is not empty`);
    } else if (sources > 1) {
      errors.push(`${from}: Invalid value: may not have more than one field specified at a time`);
    }
  });
}

/** ValidateEnvFrom: a prefix that makes valid names, and exactly one of configMapRef and secretRef. */
export function validateEnvFrom(envFrom: NonNullable<Container['envFrom']>, at: string, errors: string[]): void {
  envFrom.forEach((source, i) => {
    const path = `${at}[${i}]`;
    const prefix = source.prefix ?? '';
    if (prefix !== '') for (const p of envVarNameProblems(prefix)) errors.push(`${path}.prefix: Invalid value: ${JSON.stringify(prefix)}: ${p}`);
    let sources = 0;
    for (const field of ['configMapRef', 'secretRef'] as const) {
      const ref = source[field];
      if (ref === undefined) continue;
      sources++;
      const name = ref.name ?? '';
      if (name === '') errors.push(`${path}.${field}.name: Required value`);
      // A name used as a prefix may end in '-' (NameIsDNSSubdomain with prefix).
      else for (const p of dns1123SubdomainProblems(name.length > 1 ? name.replace(/-$/, 'a') : name)) errors.push(`${path}.${field}.name: Invalid value: ${JSON.stringify(name)}: ${p}`);
    }
    // The API reports these at the list, not the item.
    if (sources === 0) errors.push(`${at}: Invalid value: must specify one of: \`configMapRef\` or \`secretRef\``);
    else if (sources > 1) errors.push(`${at}: Invalid value: may not have more than one field specified at a time`);
  });
}

/** validateObjectFieldSelector for env: a v1 pod field the downward API gives an env var, or one label or annotation. */
function validateObjectFieldSelector(selector: ObjectFieldSelector, at: string, errors: string[]): void {
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
  oneOf(fieldPath === 'spec.host' ? 'spec.nodeName' : fieldPath, ENV_FIELD_PATHS, `${at}.fieldPath`, errors);
}

/** validateContainerResourceFieldSelector for env (no containerName needed) and validateContainerResourceDivisor. */
function validateResourceFieldSelector(selector: ResourceFieldSelector, at: string, errors: string[]): void {
  const resource = (selector.resource as string | undefined) ?? '';
  if (resource === '') errors.push(`${at}.resource: Required value`);
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

/** validateConfigMapKeySelector / validateSecretKeySelector: an object name and a valid key. */
function validateKeySelector(selector: KeySelector, at: string, errors: string[]): void {
  const name = selector.name ?? '';
  for (const p of dns1123SubdomainProblems(name)) errors.push(`${at}.name: Invalid value: ${JSON.stringify(name)}: ${p}`);
  const key = (selector.key as string | undefined) ?? '';
  if (key === '') errors.push(`${at}.key: Required value`);
  else for (const p of configMapKeyProblems(key)) errors.push(`${at}.key: Invalid value: ${JSON.stringify(key)}: ${p}`);
}
