import type { Container, PodSpec } from '@podconfig/core';
import { qualifiedNameProblems } from './name-rules.js';
import {
  addQuantities, compareQuantities, formatQuantity, parseQuantity, quantityMillis, quantityUnits, roundUpToMilli, type Quantity,
} from './quantity.js';
import { goJsonString } from './validate-error-values.js';

type ResourceList = Readonly<Record<string, string | number>>;
/** Pod-level resources (PodLevelResources, 1.32) are newer than the pod types (kubernetes-types 1.30). */
interface PodResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
  claims?: readonly { name?: string; request?: string }[];
}
type Quantities = Map<string, Quantity>;

/** helper.standardResources: the resource names that need no domain. */
const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets',
  'configmaps', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
/** helper.integerResources: object counts, which take whole numbers only. */
const INTEGER_RESOURCES = new Set([
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'services.nodeports', 'services.loadbalancers',
]);
/** resourcehelper.SupportedPodLevelResources(), sorted as the API lists them. */
const POD_LEVEL_RESOURCES = ['cpu', 'hugepages-', 'memory'];

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');
/** helper.IsNativeResource: no domain, or one under kubernetes.io. */
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
/** helper.IsOvercommitAllowed: native resources but hugepages, whose requests may sit below their limits. */
const isOvercommitAllowed = (name: string): boolean => isNative(name) && !isHugePages(name);
const isPodLevelResource = (name: string): boolean => name === 'cpu' || name === 'memory' || isHugePages(name);

/** helper.IsExtendedResourceName: a domain-qualified resource outside kubernetes.io that a quota could name. */
function isExtendedResource(name: string): boolean {
  if (isNative(name) || name.startsWith('requests.')) return false;
  return qualifiedNameProblems(`requests.${name}`).length === 0;
}

/**
 * validatePodResources, run because PodLevelResources is on by default (beta since 1.34, still beta in 1.36) and
 * the kubelet takes its validation options from its own gates (GetValidationOptionsFromPodSpecAndMeta): a
 * kubelet started with the gate off would not look at `spec.resources` at all. A windows pod may not have
 * them; a pod's resources are cpu, memory and hugepages, named and quantified as container resources are,
 * requests no higher than limits (hugepages: equal), no claims; the containers' aggregate requests fit the
 * pod's requests, their aggregate hugepages limits and each regular container's limits fit the pod's limits.
 *
 * The checks run on the pod-level requests and hugepages limits the 1.36 API defaults give a pod
 * (defaultHugePagePodLimits, defaultPodRequests), with every quantity rounded up to milli-units as they do;
 * podconfig does not write these defaults into the pod (see the README, step 5), so they are worked out here,
 * as the kubelet would see them. Paths and values are the API's: map keys unquoted, quantities canonical.
 */
export function validatePodResources(spec: PodSpec, errors: string[]): void {
  const resources = (spec as { resources?: PodResourceRequirements }).resources;
  if (resources === undefined) return;
  const at = 'spec.resources';
  if (spec.os?.name === 'windows') {
    errors.push(`${at}: Forbidden: may not be set for a windows pod`);
    return;
  }
  if (resources.claims !== undefined) errors.push(`${at}.claims: Forbidden: claims may not be set for Resources at pod-level`);
  const { limits, requests } = defaultedPodResources(spec, resources);
  validateRequirements(limits, requests, at, errors);
  validateClaimNames(resources.claims ?? [], spec, `${at}.claims`, errors);
  validateConsistency(spec, limits, requests, at, errors);
}

/** A resource list as the API holds it after defaulting: parsed, rounded up to milli-units, in written order. */
function quantities(list: ResourceList | undefined): Quantities {
  const parsed: Quantities = new Map();
  for (const [name, value] of Object.entries(list ?? {})) {
    const quantity = parseQuantity(value);
    if (quantity !== undefined) parsed.set(name, roundUpToMilli(quantity));
  }
  return parsed;
}

function add(list: Quantities, more: Quantities): void {
  for (const [name, quantity] of more) {
    const sum = list.get(name);
    list.set(name, sum === undefined ? quantity : addQuantities(sum, quantity));
  }
}

function max(list: Quantities, more: Quantities): void {
  for (const [name, quantity] of more) {
    const current = list.get(name);
    if (current === undefined || compareQuantities(quantity, current) > 0) list.set(name, quantity);
  }
}

/**
 * resourcehelper.AggregateContainerRequests / AggregateContainerLimits: regular and sidecar containers add up;
 * each other init container runs beside the sidecars started before it, and the pod needs the most of these.
 */
function aggregate(spec: PodSpec, kind: 'requests' | 'limits'): Quantities {
  const total: Quantities = new Map();
  for (const c of (spec.containers as readonly Container[] | undefined) ?? []) add(total, quantities(c.resources?.[kind]));
  const sidecars: Quantities = new Map();
  const initPeak: Quantities = new Map();
  for (const c of spec.initContainers ?? []) {
    const own = quantities(c.resources?.[kind]);
    if (c.restartPolicy === 'Always') {
      add(total, own);
      add(sidecars, own);
      max(initPeak, sidecars);
    } else {
      const running: Quantities = new Map();
      add(running, own);
      add(running, sidecars);
      max(initPeak, running);
    }
  }
  max(total, initPeak);
  return total;
}

/**
 * The pod-level limits and requests after defaultHugePagePodLimits (hugepages limits from the containers'
 * when the pod names neither a limit nor a request for them) and defaultPodRequests (with limits set, cpu and
 * memory requests from the containers' aggregate, then any other request from its limit).
 */
function defaultedPodResources(spec: PodSpec, resources: PodResourceRequirements): { limits: Quantities; requests: Quantities } {
  const limits = quantities(resources.limits);
  const requests = quantities(resources.requests);
  if (limits.size === 0 && requests.size === 0) return { limits, requests };
  for (const [name, limit] of aggregate(spec, 'limits')) {
    if (isPodLevelResource(name) && isHugePages(name) && !requests.has(name) && !limits.has(name)) limits.set(name, limit);
  }
  if (limits.size === 0) return { limits, requests };
  for (const [name, request] of aggregate(spec, 'requests')) {
    if (!requests.has(name) && isPodLevelResource(name) && isOvercommitAllowed(name)) requests.set(name, request);
  }
  for (const [name, limit] of limits) if (!requests.has(name) && isPodLevelResource(name)) requests.set(name, limit);
  return { limits, requests };
}

/** validateResourceRequirements with validatePodResourceName: names, quantities, requests against limits, hugepages. */
function validateRequirements(limits: Quantities, requests: Quantities, at: string, errors: string[]): void {
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, quantity] of limits) {
    const path = `${at}.limits[${name}]`;
    validatePodResourceName(name, path, errors);
    validateQuantityValue(name, quantity, path, errors);
    if (isHugePages(name)) {
      hugePages = true;
      validateHugePagesValue(name, quantity, path, errors);
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  for (const [name, quantity] of requests) {
    const path = `${at}.requests[${name}]`;
    validatePodResourceName(name, path, errors);
    validateQuantityValue(name, quantity, path, errors);
    const limit = limits.get(name);
    const value = goJsonString(formatQuantity(quantity));
    if (limit !== undefined) {
      // The API reports these at the requests, not at the resource.
      if (compareQuantities(quantity, limit) !== 0 && !isOvercommitAllowed(name)) {
        errors.push(`${at}.requests: Invalid value: ${value}: must be equal to ${name} limit of ${formatQuantity(limit)}`);
      } else if (compareQuantities(quantity, limit) > 0) {
        errors.push(`${at}.requests: Invalid value: ${value}: must be less than or equal to ${name} limit of ${formatQuantity(limit)}`);
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

/** validatePodResourceName: a compute resource name (validateResourceName), then one a pod may set. */
function validatePodResourceName(name: string, at: string, errors: string[]): void {
  const problems = qualifiedNameProblems(name);
  for (const p of problems) errors.push(`${at}: Invalid value: ${goJsonString(name)}: ${p}`);
  if (problems.length > 0) return;
  if (!name.includes('/') && !STANDARD_RESOURCES.has(name) && !name.startsWith('hugepages-') && !name.startsWith('requests.hugepages-')) {
    errors.push(`${at}: Invalid value: ${goJsonString(name)}: must be a standard resource type or fully qualified`);
    return;
  }
  if (!isPodLevelResource(name)) {
    errors.push(`${at}: Unsupported value: ${goJsonString(name)}: supported values: ${POD_LEVEL_RESOURCES.map((r) => JSON.stringify(r)).join(', ')}`);
  }
}

/** ValidateResourceQuantityValue: not negative; whole for object counts and extended resources. */
function validateQuantityValue(name: string, quantity: Quantity, at: string, errors: string[]): void {
  const value = goJsonString(formatQuantity(quantity));
  if (quantity.nanos < 0n) errors.push(`${at}: Invalid value: ${value}: must be greater than or equal to 0`);
  if ((INTEGER_RESOURCES.has(name) || isExtendedResource(name)) && quantityMillis(quantity) % 1000n !== 0n) {
    errors.push(`${at}: Invalid value: ${value}: must be an integer`);
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

/** validateResourceClaimNames: each claim names one of the pod's resource claims, once. */
function validateClaimNames(claims: readonly { name?: string; request?: string }[], spec: PodSpec, at: string, errors: string[]): void {
  const podClaims = ((spec as { resourceClaims?: readonly { name?: string }[] }).resourceClaims ?? [])
    .map((c) => c.name ?? '').filter((n) => n !== '').sort();
  const seen = new Set<string>();
  claims.forEach((claim, i) => {
    const name = claim.name ?? '';
    if (name === '') {
      errors.push(`${at}[${i}]: Required value`);
      return;
    }
    if (seen.has(name)) errors.push(`${at}[${i}]: Duplicate value: ${JSON.stringify(name)}`);
    seen.add(name);
    if (!podClaims.includes(name)) {
      const which = podClaims.length === 0 ? ' which is empty' : `: ${podClaims.join(', ')}`;
      errors.push(`${at}[${i}]: Not found: ${JSON.stringify(name)}: must be one of the names in pod.spec.resourceClaims${which}`);
    }
  });
}

/** validatePodResourceConsistency: what the containers ask for fits in what the pod asks for. */
function validateConsistency(spec: PodSpec, limits: Quantities, requests: Quantities, at: string, errors: string[]): void {
  for (const [name, containers] of aggregate(spec, 'requests')) {
    const pod = requests.get(name);
    if (pod !== undefined && compareQuantities(containers, pod) > 0) {
      errors.push(`${at}.requests[${name}]: Invalid value: ${goJsonString(formatQuantity(pod))}: must be greater than or equal to aggregate container requests of ${formatQuantity(containers)}`);
    }
  }
  for (const [name, containers] of aggregate(spec, 'limits')) {
    const pod = limits.get(name);
    if (isHugePages(name) && pod !== undefined && compareQuantities(containers, pod) > 0) {
      errors.push(`${at}.limits[${name}]: Invalid value: ${goJsonString(formatQuantity(pod))}: must be greater than or equal to aggregate container limits of ${formatQuantity(containers)}`);
    }
  }
  ((spec.containers as readonly Container[] | undefined) ?? []).forEach((c, i) => {
    for (const [name, limit] of quantities(c.resources?.limits)) {
      const pod = limits.get(name);
      if (pod !== undefined && compareQuantities(limit, pod) > 0) {
        // The API's path: the container's index, then the resource, then `limits`.
        errors.push(`${at}.containers[${i}][${name}].limits: Invalid value: ${goJsonString(formatQuantity(limit))}: must be less than or equal to pod limits of ${formatQuantity(pod)}`);
      }
    }
  });
}
