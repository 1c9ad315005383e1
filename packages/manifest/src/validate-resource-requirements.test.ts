import { describe, expect, it } from 'vitest';
import type { PodSpec } from '@podconfig/core';
import { validateContainerResources, type ResourceClaimReference, type ResourceList } from './validate-resource-requirements.js';

const at = 'spec.containers[0].resources';
const run = (
  resources: { limits?: ResourceList; requests?: ResourceList; claims?: ResourceClaimReference[] },
  spec: Partial<PodSpec> = {},
): string[] => {
  const errors: string[] = [];
  validateContainerResources(resources, { containers: [], ...spec }, at, errors);
  return errors;
};

describe(validateContainerResources.name, () => {
  it('accepts cpu, memory, ephemeral-storage, hugepages and extended resources, named and quantified as the API takes them', () => {
    expect(run({
      limits: { cpu: '2', memory: '1Gi', 'ephemeral-storage': '10Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '2', 'kubernetes.io/thing': '0.5' },
      requests: { cpu: '250m', memory: 512 * 2 ** 20, 'hugepages-2Mi': '4Mi', 'example.com/gpu': '2' },
    })).toEqual([]);
  });

  describe('names (validateContainerResourceName)', () => {
    it('requires a standard container resource without a domain, after the standard-name check, whatever that found', () => {
      expect(run({ limits: { mem: '1', pods: '1', 'requests.cpu': '1', 'Bad Name': '1' } })).toEqual([
        `${at}.limits[mem]: Invalid value: "mem": must be a standard resource type or fully qualified`,
        `${at}.limits[mem]: Invalid value: "mem": must be a standard resource for containers`,
        `${at}.limits[pods]: Invalid value: "pods": must be a standard resource for containers`,
        `${at}.limits[requests.cpu]: Invalid value: "requests.cpu": must be a standard resource for containers`,
        `${at}.limits[Bad Name]: Invalid value: "Bad Name": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        `${at}.limits[Bad Name]: Invalid value: "Bad Name": must be a standard resource for containers`,
      ]);
    });

    it('requires an extended resource name outside kubernetes.io', () => {
      expect(run({ limits: { 'requests.example.com/gpu': '1', 'example.com/a/b': '1' } })).toEqual([
        `${at}.limits[requests.example.com/gpu]: Invalid value: "requests.example.com/gpu": doesn't follow extended resource name standard`,
        `${at}.limits[example.com/a/b]: Invalid value: "example.com/a/b": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
        `${at}.limits[example.com/a/b]: Invalid value: "example.com/a/b": doesn't follow extended resource name standard`,
      ]);
    });
  });

  describe('quantities (ValidateResourceQuantityValue, after the defaults round them up to milli-units)', () => {
    it('refuses a negative quantity, printed in canonical form', () => {
      expect(run({ limits: { memory: '-1024Mi' }, requests: { cpu: '-0.5' } })).toEqual([
        `${at}.limits[memory]: Invalid value: "-1Gi": must be greater than or equal to 0`,
        `${at}.requests[cpu]: Invalid value: "-500m": must be greater than or equal to 0`,
      ]);
    });

    it('requires whole extended resources', () => {
      expect(run({ limits: { 'example.com/gpu': '1.5' }, requests: { 'example.com/gpu': '1.5' } })).toEqual([
        `${at}.limits[example.com/gpu]: Invalid value: "1500m": must be an integer`,
        `${at}.requests[example.com/gpu]: Invalid value: "1500m": must be an integer`,
      ]);
      expect(run({ limits: { 'example.com/gpu': '0.0001' } })).toEqual([`${at}.limits[example.com/gpu]: Invalid value: "1m": must be an integer`]);
    });
  });

  describe('requests against limits', () => {
    it('keeps requests at most the limits, reported at requests with canonical quantities', () => {
      expect(run({ limits: { cpu: '1000m', memory: '1Gi' }, requests: { cpu: '1', memory: '1024Mi' } })).toEqual([]);
      expect(run({ limits: { cpu: '1000m' }, requests: { cpu: '1.5' } })).toEqual([
        `${at}.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1`,
      ]);
    });

    it('requires requests equal to limits, and a limit, for resources that cannot be overcommitted', () => {
      expect(run({ limits: { 'example.com/gpu': '2', memory: '1Gi' }, requests: { 'example.com/gpu': '1', memory: '1Gi', 'example.com/fpga': '1' } })).toEqual([
        `${at}.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2`,
        `${at}.limits: Required value: Limit must be set for non overcommitable resources`,
      ]);
      expect(run({ limits: { 'hugepages-2Mi': '4Mi', memory: '1Gi' }, requests: { 'hugepages-2Mi': '2Mi' } })).toEqual([
        `${at}.requests: Invalid value: "2Mi": must be equal to hugepages-2Mi limit of 4Mi`,
      ]);
    });
  });

  describe('hugepages', () => {
    it('requires whole pages', () => {
      expect(run({ limits: { 'hugepages-2Mi': '3Mi', memory: '1Gi' }, requests: { 'hugepages-2Mi': '3Mi' } })).toEqual([
        `${at}.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
        `${at}.requests[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
      ]);
      expect(run({ limits: { 'hugepages-1x': '2Mi', cpu: '1' } })).toEqual([
        `${at}.limits[hugepages-1x]: Invalid value: "2Mi": 2Mi is not positive integer multiple of hugepages-1x`,
      ]);
    });

    it('requires cpu or memory beside them, in the limits or the requests', () => {
      expect(run({ limits: { 'hugepages-1Gi': '1Gi' }, requests: { cpu: '1' } })).toEqual([]);
      expect(run({ limits: { 'hugepages-1Gi': '1Gi' } })).toEqual([`${at}: Forbidden: HugePages require cpu or memory`]);
    });
  });

  describe('claims (validateResourceClaimNames)', () => {
    const podClaims = { resourceClaims: [{ name: 'gpu' }, { name: 'fpga' }] } as Partial<PodSpec>;

    it('takes claims and claim requests the pod names, each once', () => {
      expect(run({ claims: [{ name: 'gpu', request: 'a' }, { name: 'gpu', request: 'b' }, { name: 'fpga' }] }, podClaims)).toEqual([]);
    });

    it('refuses an unnamed, repeated or unknown claim, and a request that is no DNS-1123 label', () => {
      expect(run({ claims: [
        { name: '' }, { name: 'gpu', request: 'a' }, { name: 'gpu', request: 'a' }, { name: 'gpu' }, { name: 'gpu' },
        { name: 'fpga', request: 'Big' }, { name: 'tpu' },
      ] }, podClaims)).toEqual([
        `${at}.claims[0]: Required value`,
        `${at}.claims[2]: Duplicate value: "gpu/a"`,
        `${at}.claims[3]: Duplicate value: "gpu"`,
        `${at}.claims[4]: Duplicate value: "gpu"`,
        `${at}.claims[5].request: Invalid value: "Big": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
        `${at}.claims[6]: Not found: "tpu": must be one of the names in pod.spec.resourceClaims: fpga, gpu`,
      ]);
      // A static pod has no resource claims (step 8 refuses them).
      expect(run({ claims: [{ name: 'gpu' }] })).toEqual([`${at}.claims[0]: Not found: "gpu": must be one of the names in pod.spec.resourceClaims which is empty`]);
    });
  });
});
