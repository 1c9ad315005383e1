import { describe, expect, it } from 'vitest';
import type { Container, PodSpec } from '@podconfig/core';
import { validatePodResources } from './validate-pod-resources.js';

type Resources = Record<string, string>;
interface PodResources { limits?: Resources; requests?: Resources; claims?: { name: string }[] }

const container = (name: string, requests?: Resources, limits?: Resources, extra: Partial<Container> = {}): Container => ({
  name, image: 'x', ...extra,
  ...(requests === undefined && limits === undefined ? {} : { resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } }),
});
const run = (resources: PodResources, spec: Partial<PodSpec> = {}): string[] => {
  const errors: string[] = [];
  validatePodResources({ containers: [container('main')], ...spec, resources } as PodSpec, errors);
  return errors;
};
const POD_LEVEL = 'supported values: "cpu", "hugepages-", "memory"';

describe(validatePodResources.name, () => {
  it('accepts pod-level cpu, memory and hugepages that hold what the containers ask for', () => {
    expect(run({ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '2Gi' } },
      { containers: [container('a', { cpu: '500m', memory: '512Mi' }), container('b', { cpu: '500m' })] })).toEqual([]);
    expect(run({ limits: { memory: '1Gi', 'hugepages-2Mi': '4Mi' } },
      { containers: [container('a', { 'hugepages-2Mi': '2Mi', memory: '64Mi' }, { 'hugepages-2Mi': '2Mi' })] })).toEqual([]);
    // Defaulted as the API would: the hugepages limit from the containers' (2Mi), its request from that limit.
    expect(run({ limits: { cpu: '1' } }, { containers: [container('a', { 'hugepages-2Mi': '2Mi' }, { 'hugepages-2Mi': '2Mi' })] })).toEqual([]);
    expect(run({})).toEqual([]);
  });

  it('refuses pod-level resources in a windows pod, and claims', () => {
    expect(run({ limits: { cpu: '-1' } }, { os: { name: 'windows' } })).toEqual(['spec.resources: Forbidden: may not be set for a windows pod']);
    expect(run({ requests: { cpu: '1' }, claims: [{ name: 'gpu' }] })).toEqual([
      'spec.resources.claims: Forbidden: claims may not be set for Resources at pod-level',
      'spec.resources.claims[0]: Not found: "gpu": must be one of the names in pod.spec.resourceClaims which is empty',
    ]);
  });

  it('takes cpu, memory and hugepages only, named and quantified as compute resources', () => {
    expect(run({ limits: { 'ephemeral-storage': '1Gi', gpu: '1', 'example.com/gpu': '500m' } })).toEqual([
      `spec.resources.limits[ephemeral-storage]: Unsupported value: "ephemeral-storage": ${POD_LEVEL}`,
      'spec.resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      `spec.resources.limits[example.com/gpu]: Unsupported value: "example.com/gpu": ${POD_LEVEL}`,
      'spec.resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer',
    ]);
    expect(run({ requests: { cpu: '-1' } })).toEqual(['spec.resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0']);
  });

  it('keeps requests at most the limits (hugepages: equal), reported at the requests with canonical quantities', () => {
    expect(run({ requests: { cpu: '1500m', memory: '1000Mi' }, limits: { cpu: '1', memory: '1Gi' } }))
      .toEqual(['spec.resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1']);
    expect(run({ requests: { memory: '1Gi', 'hugepages-2Mi': '2Mi' }, limits: { memory: '1Gi', 'hugepages-2Mi': '4Mi' } }))
      .toEqual(['spec.resources.requests: Invalid value: "2Mi": must be equal to hugepages-2Mi limit of 4Mi']);
    expect(run({ requests: { memory: '1Gi', 'hugepages-2Mi': '2Mi' } }))
      .toEqual(['spec.resources.limits: Required value: Limit must be set for non overcommitable resources']);
  });

  it('checks the requests the API defaults give the pod: the containers\' aggregate, else the limit', () => {
    // Pod requests cpu default to 500m + 1500m = 2, more than the pod's limit.
    expect(run({ limits: { cpu: '1' } }, { containers: [container('a', { cpu: '500m' }), container('b', { cpu: '1500m' })] }))
      .toEqual(['spec.resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1']);
  });

  it('requires whole hugepages, and cpu or memory beside them', () => {
    expect(run({ limits: { memory: '1Gi', 'hugepages-2Mi': '3Mi' } })).toEqual([
      'spec.resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi',
      'spec.resources.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi',
    ]);
    expect(run({ limits: { 'hugepages-2Mi': '2Mi' } })).toEqual(['spec.resources: Forbidden: HugePages require cpu or memory']);
  });

  it('requires the pod\'s requests to hold the containers\' aggregate requests, sidecars and init containers included', () => {
    expect(run({ requests: { memory: '1Gi' } }, { containers: [container('a', { memory: '768Mi' }), container('b', { memory: '512Mi' })] }))
      .toEqual(['spec.resources.requests[memory]: Invalid value: "1Gi": must be greater than or equal to aggregate container requests of 1280Mi']);
    // 1 (main) + 500m (sidecar) = 1500m while running; 2 (init) + 500m (the sidecar started before it) = 2500m while initializing.
    expect(run({ requests: { cpu: '2' } }, {
      containers: [container('main', { cpu: '1' })],
      initContainers: [container('sidecar', { cpu: '500m' }, undefined, { restartPolicy: 'Always' }), container('init', { cpu: '2' })],
    })).toEqual(['spec.resources.requests[cpu]: Invalid value: "2": must be greater than or equal to aggregate container requests of 2500m']);
  });

  it('requires the pod\'s limits to hold each container\'s limits, and the aggregate hugepages limits', () => {
    expect(run({ requests: { cpu: '2' }, limits: { cpu: '2' } }, { containers: [container('main', { cpu: '2' }, { cpu: '3' })] }))
      .toEqual(['spec.resources.containers[0][cpu].limits: Invalid value: "3": must be less than or equal to pod limits of 2']);
    expect(run({ limits: { memory: '1Gi', 'hugepages-2Mi': '2Mi' } }, { containers: [container('main', { 'hugepages-2Mi': '4Mi' }, { 'hugepages-2Mi': '4Mi' })] })).toEqual([
      'spec.resources.requests[hugepages-2Mi]: Invalid value: "2Mi": must be greater than or equal to aggregate container requests of 4Mi',
      'spec.resources.limits[hugepages-2Mi]: Invalid value: "2Mi": must be greater than or equal to aggregate container limits of 4Mi',
      'spec.resources.containers[0][hugepages-2Mi].limits: Invalid value: "4Mi": must be less than or equal to pod limits of 2Mi',
    ]);
  });
});
