import type { Container, PodSpec } from '@podconfig/core';
import { addQuantities, compareQuantities, formatQuantity } from './quantity.js';
import { goJsonString } from './validate-error-values.js';
import {
  isHugePages, isOvercommitAllowed, podResourceClaimNames, resourceQuantities, validateResourceClaimNames, validateResourceName,
  validateResourceRequirements, type Quantities, type ResourceClaimReference, type ResourceList,
} from './validate-resource-requirements.js';

/** Pod-level resources (PodLevelResources, 1.32) are newer than the pod types (kubernetes-types 1.30). */
interface PodResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
  claims?: readonly ResourceClaimReference[];
}

/** resourcehelper.SupportedPodLevelResources(), sorted as the API lists them. */
const POD_LEVEL_RESOURCES = ['cpu', 'hugepages-', 'memory'];

const isPodLevelResource = (name: string): boolean => name === 'cpu' || name === 'memory' || isHugePages(name);

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
  validateResourceRequirements(limits, requests, validatePodResourceName, at, errors);
  validateResourceClaimNames(resources.claims ?? [], podResourceClaimNames(spec), `${at}.claims`, errors);
  validateConsistency(spec, limits, requests, at, errors);
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
  for (const c of (spec.containers as readonly Container[] | undefined) ?? []) add(total, resourceQuantities(c.resources?.[kind]));
  const sidecars: Quantities = new Map();
  const initPeak: Quantities = new Map();
  for (const c of spec.initContainers ?? []) {
    const own = resourceQuantities(c.resources?.[kind]);
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
  const limits = resourceQuantities(resources.limits);
  const requests = resourceQuantities(resources.requests);
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

/** validatePodResourceName: a compute resource name (validateResourceName), then one a pod may set. */
function validatePodResourceName(name: string, at: string, errors: string[]): void {
  if (validateResourceName(name, at, errors)) return;
  if (!isPodLevelResource(name)) {
    errors.push(`${at}: Unsupported value: ${goJsonString(name)}: supported values: ${POD_LEVEL_RESOURCES.map((r) => JSON.stringify(r)).join(', ')}`);
  }
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
    for (const [name, limit] of resourceQuantities(c.resources?.limits)) {
      const pod = limits.get(name);
      if (pod !== undefined && compareQuantities(limit, pod) > 0) {
        // The API's path: the container's index, then the resource, then `limits`.
        errors.push(`${at}.containers[${i}][${name}].limits: Invalid value: ${goJsonString(formatQuantity(limit))}: must be less than or equal to pod limits of ${formatQuantity(pod)}`);
      }
    }
  });
}
