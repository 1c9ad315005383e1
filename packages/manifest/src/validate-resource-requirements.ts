import type { PodSpec } from '@podconfig/core';
import { dns1123LabelProblems, qualifiedNameProblems } from './name-rules.js';
import {
  compareQuantities, formatQuantity, parseQuantity, quantityMillis, quantityUnits, roundUpToMilli, type Quantity,
} from './quantity.js';
import { goJsonString } from './validate-error-values.js';

/** A resource list as a manifest writes it: names to quantities (strings, or numbers like `cpu: 1`). */
export type ResourceList = Readonly<Record<string, string | number>>;
/** A resource list as the API holds it after defaulting: parsed, rounded up to milli-units, in written order. */
export type Quantities = Map<string, Quantity>;
/** A ResourceClaim entry of a container's or the pod's `resources.claims`. */
export interface ResourceClaimReference {
  readonly name?: string;
  readonly request?: string;
}
/** validateContainerResourceName or validatePodResourceName: the rule a resource name of the list follows. */
export type ResourceNameRule = (name: string, at: string, errors: string[]) => void;

/** helper.standardResources: the resource names that need no domain. */
const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets',
  'configmaps', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
/** helper.standardContainerResources; hugepages are standard for containers too (IsStandardContainerResourceName). */
const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
/** helper.integerResources: object counts, which take whole numbers only. */
const INTEGER_RESOURCES = new Set([
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'services.nodeports', 'services.loadbalancers',
]);

/** helper.IsHugePageResourceName. */
export const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
/** helper.IsNativeResource: no domain, or one under kubernetes.io. */
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
/** helper.IsOvercommitAllowed: native resources but hugepages, whose requests may sit below their limits. */
export const isOvercommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);
/** helper.IsStandardResourceName: a standard name, or a hugepages one (also as a `requests.` quota name). */
const isStandardResource = (name: string): boolean =>
  STANDARD_RESOURCES.has(name) || isHugePages(name) || name.startsWith('requests.hugepages-');

/** helper.IsExtendedResourceName: a domain-qualified resource outside kubernetes.io that a quota could name. */
function isExtendedResource(name: string): boolean {
  if (isNative(name) || name.startsWith('requests.')) return false;
  return qualifiedNameProblems(`requests.${name}`).length === 0;
}

/**
 * A resource list as the API defaults leave it (SetDefaults_ResourceList rounds every quantity up to milli-units),
 * in written order. A quantity that does not parse is left out: decoding refuses it before validation runs.
 */
export function resourceQuantities(list: ResourceList | undefined): Quantities {
  const parsed: Quantities = new Map();
  for (const [name, value] of Object.entries(list ?? {})) {
    const quantity = parseQuantity(value);
    if (quantity !== undefined) parsed.set(name, roundUpToMilli(quantity));
  }
  return parsed;
}

/**
 * validateResourceName: a qualified name, and without a domain a standard resource. Returns whether it found a
 * problem. The name is a ResourceName, which the API prints as encoding/json writes it.
 */
export function validateResourceName(name: string, at: string, errors: string[]): boolean {
  const problems = qualifiedNameProblems(name);
  for (const p of problems) errors.push(`${at}: Invalid value: ${goJsonString(name)}: ${p}`);
  if (problems.length > 0) return true;
  if (!name.includes('/') && !isStandardResource(name)) {
    errors.push(`${at}: Invalid value: ${goJsonString(name)}: must be a standard resource type or fully qualified`);
    return true;
  }
  return false;
}

/**
 * validateContainerResourceName: validateResourceName, then (whatever it found) a container resource without a
 * domain (cpu, memory, ephemeral-storage, hugepages-<size>), or outside kubernetes.io an extended resource name.
 */
export const validateContainerResourceName: ResourceNameRule = (name, at, errors) => {
  validateResourceName(name, at, errors);
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePages(name)) {
      errors.push(`${at}: Invalid value: ${goJsonString(name)}: must be a standard resource for containers`);
    }
  } else if (!isNative(name) && !isExtendedResource(name)) {
    errors.push(`${at}: Invalid value: ${goJsonString(name)}: doesn't follow extended resource name standard`);
  }
};

/**
 * validateResourceRequirements, for a container's resources (validateContainerResourceName) or the pod's
 * (validatePodResourceName), on the quantities as the API defaults leave them: each name and quantity (not negative;
 * whole for object counts and extended resources; hugepages whole pages), requests no higher than limits and equal
 * to them for resources that cannot be overcommitted (hugepages, extended resources), which also need a limit
 * beside a request, and cpu or memory beside hugepages. Paths and values are the API's: `limits[cpu]`, canonical
 * quantities (`1000m` is `1`); a request above its limit is reported at `requests`, a missing limit at `limits`.
 */
export function validateResourceRequirements(
  limits: Quantities, requests: Quantities, nameRule: ResourceNameRule, at: string, errors: string[],
): void {
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, quantity] of limits) {
    const path = `${at}.limits[${name}]`;
    nameRule(name, path, errors);
    validateQuantityValue(name, quantity, path, errors);
    if (isHugePages(name)) {
      hugePages = true;
      validateHugePagesValue(name, quantity, path, errors);
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  for (const [name, quantity] of requests) {
    const path = `${at}.requests[${name}]`;
    nameRule(name, path, errors);
    validateQuantityValue(name, quantity, path, errors);
    const limit = limits.get(name);
    // Printed only for an error: formatting a quantity is most of a valid one's check.
    const value = (): string => goJsonString(formatQuantity(quantity));
    if (limit !== undefined) {
      if (compareQuantities(quantity, limit) !== 0 && !isOvercommitAllowed(name)) {
        errors.push(`${at}.requests: Invalid value: ${value()}: must be equal to ${name} limit of ${formatQuantity(limit)}`);
      } else if (compareQuantities(quantity, limit) > 0) {
        errors.push(`${at}.requests: Invalid value: ${value()}: must be less than or equal to ${name} limit of ${formatQuantity(limit)}`);
      }
    } else if (!isOvercommitAllowed(name)) {
      errors.push(`${at}.limits: Required value: Limit must be set for non overcommitable resources`);
    }
    if (isHugePages(name)) {
      hugePages = true;
      validateHugePagesValue(name, quantity, path, errors);
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  if (hugePages && !cpuOrMemory) errors.push(`${at}: Forbidden: HugePages require cpu or memory`);
}

/** ValidateResourceQuantityValue: not negative; whole for object counts and extended resources. */
function validateQuantityValue(name: string, quantity: Quantity, at: string, errors: string[]): void {
  const value = (): string => goJsonString(formatQuantity(quantity));
  if (quantity.nanos < 0n) errors.push(`${at}: Invalid value: ${value()}: must be greater than or equal to 0`);
  if ((INTEGER_RESOURCES.has(name) || isExtendedResource(name)) && quantityMillis(quantity) % 1000n !== 0n) {
    errors.push(`${at}: Invalid value: ${value()}: must be an integer`);
  }
}

/** validateResourceQuantityHugePageValue: a whole number of pages of the size the name gives. */
function validateHugePagesValue(name: string, quantity: Quantity, at: string, errors: string[]): void {
  const pageSize = parseQuantity(name.slice('hugepages-'.length));
  const page = pageSize === undefined ? 0n : quantityUnits(pageSize);
  const divisible = pageSize !== undefined && pageSize.nanos > 0n && quantityMillis(pageSize) % 1000n === 0n &&
    quantityUnits(quantity) % page === 0n;
  if (!divisible) {
    const value = formatQuantity(quantity);
    errors.push(`${at}: Invalid value: ${goJsonString(value)}: ${value} is not positive integer multiple of ${name}`);
  }
}

/** gatherPodResourceClaimNames: the non-empty names of the pod's resource claims, sorted as the API lists them. */
export function podResourceClaimNames(spec: PodSpec): string[] {
  const claims = (spec as { resourceClaims?: readonly { name?: string }[] }).resourceClaims ?? [];
  return [...new Set(claims.map((c) => c.name ?? '').filter((n) => n !== ''))].sort();
}

/**
 * validateResourceClaimNames: each entry names one of the pod's resource claims (a static pod can have none: step 8
 * refuses them), a claim at most once (whole, or each of its requests, a DNS-1123 label, once).
 */
export function validateResourceClaimNames(
  claims: readonly ResourceClaimReference[], podClaims: readonly string[], at: string, errors: string[],
): void {
  const names = new Set<string>();
  claims.forEach((claim, i) => {
    const name = claim.name ?? '';
    const itemAt = `${at}[${i}]`;
    if (name === '') {
      errors.push(`${itemAt}: Required value`);
      return;
    }
    if (names.has(name)) {
      // All requests of that claim already referenced.
      errors.push(`${itemAt}: Duplicate value: ${JSON.stringify(name)}`);
    } else {
      const request = claim.request ?? '';
      let key = name;
      if (request !== '') {
        for (const p of dns1123LabelProblems(request)) errors.push(`${itemAt}.request: Invalid value: ${JSON.stringify(request)}: ${p}`);
        key += `/${request}`;
      }
      if (names.has(key)) errors.push(`${itemAt}: Duplicate value: ${JSON.stringify(key)}`);
      else if (request === '') {
        // The whole claim after one of its requests.
        for (const seen of names) if (seen.includes('/') && seen.slice(0, seen.indexOf('/')) === name) errors.push(`${itemAt}: Duplicate value: ${JSON.stringify(name)}`);
      }
      names.add(key);
    }
    if (!podClaims.includes(name)) {
      const which = podClaims.length === 0 ? ' which is empty' : `: ${podClaims.join(', ')}`;
      errors.push(`${itemAt}: Not found: ${JSON.stringify(name)}: must be one of the names in pod.spec.resourceClaims${which}`);
    }
  });
}

/** ValidateContainerResourceRequirements on a container's `resources`, at `<container path>.resources`. */
export function validateContainerResources(
  resources: { limits?: ResourceList; requests?: ResourceList; claims?: readonly ResourceClaimReference[] } | undefined,
  spec: PodSpec, at: string, errors: string[],
): void {
  if (resources === undefined) return;
  validateResourceRequirements(resourceQuantities(resources.limits), resourceQuantities(resources.requests), validateContainerResourceName, at, errors);
  validateResourceClaimNames(resources.claims ?? [], podResourceClaimNames(spec), `${at}.claims`, errors);
}
