import { describe, expect, it } from 'vitest';
import type { PodSpec } from '@podconfig/core';
import { validateAffinity } from './validate-affinity.js';

type Affinity = NonNullable<PodSpec['affinity']>;
const run = (affinity: Affinity): string[] => {
  const errors: string[] = [];
  validateAffinity(affinity, errors);
  return errors;
};
const required = 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
const nodeTerms = (...terms: NonNullable<NonNullable<Affinity['nodeAffinity']>['requiredDuringSchedulingIgnoredDuringExecution']>['nodeSelectorTerms']): Affinity =>
  ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
const podTerm = 'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]';

describe(validateAffinity.name, () => {
  it('accepts well-formed node and pod affinity', () => {
    expect(run({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{
          matchExpressions: [
            { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }, { key: 'gpu', operator: 'Exists' },
            { key: 'cores', operator: 'Gt', values: ['4'] },
          ],
          matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node-a'] }],
        }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } }],
      },
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } }, namespaces: ['default'] }],
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'zone', labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['version'] } }],
      },
    })).toEqual([]);
  });

  it('requires a node selector term (ValidateNodeSelector)', () => {
    expect(run(nodeTerms())).toEqual([`${required}: Required value: must have at least one node selector term`]);
  });

  it('checks operators and values of node selector requirements, and required values as label values', () => {
    expect(run(nodeTerms({ matchExpressions: [
      { key: 'a', operator: 'In' }, { key: 'b', operator: 'Exists', values: ['x'] }, { key: 'c', operator: 'Gt', values: ['1', '2'] },
      { key: 'd', operator: 'Equals', values: ['x'] }, { key: 'bad key', operator: 'In', values: ['not valid!'] },
    ] }))).toEqual([
      `${required}[0].matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
      `${required}[0].matchExpressions[1].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
      `${required}[0].matchExpressions[2].values: Required value: must be specified single value when \`operator\` is 'Lt' or 'Gt'`,
      `${required}[0].matchExpressions[3].operator: Invalid value: "Equals": not a valid selector operator`,
      `${required}[0].matchExpressions[4].key: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `${required}[0].matchExpressions[4].values[0]: Invalid value: "not valid!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]);
  });

  it('allows only metadata.name with In or NotIn and one node name in matchFields', () => {
    expect(run(nodeTerms({ matchFields: [
      { key: 'metadata.name', operator: 'In', values: ['a', 'b'] }, { key: 'metadata.labels', operator: 'Exists' },
      { key: 'metadata.name', operator: 'In', values: ['Node_A'] },
    ] }))).toEqual([
      `${required}[0].matchFields[0].values: Required value: must be only one value when \`operator\` is 'In' or 'NotIn' for node field selector`,
      `${required}[0].matchFields[1].operator: Invalid value: "Exists": not a valid selector operator`,
      `${required}[0].matchFields[1].key: Invalid value: "metadata.labels": not a valid field selector key`,
      `${required}[0].matchFields[2].values[0]: Invalid value: "Node_A": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });

  it('checks preferred weights 1-100, and lets preferred terms hold values that are no label values', () => {
    const preferred = 'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution';
    expect(run({ nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 0, preference: { matchExpressions: [{ key: 'a', operator: 'In', values: ['not a label value!'] }] } },
      { weight: 101, preference: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] } },
    ] } })).toEqual([
      `${preferred}[0].weight: Invalid value: 0: must be in the range 1-100`,
      `${preferred}[1].weight: Invalid value: 101: must be in the range 1-100`,
      `${preferred}[1].preference.matchExpressions[0].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
    ]);
  });

  it('requires a pod affinity topologyKey that is a qualified name, and namespaces that are DNS labels', () => {
    expect(run({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [
      { topologyKey: '', namespaces: ['kube.system', 'Kube'] }, { topologyKey: 'a/b/c' },
    ] } })).toEqual([
      // A valid subdomain that is no label has dots: IsDNS1123Label says so instead of quoting its pattern.
      `${podTerm}.namespace: Invalid value: "kube.system": must not contain dots`,
      `${podTerm}.namespace: Invalid value: "Kube": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      `${podTerm}.topologyKey: Required value: can not be empty`,
      // content.IsLabelKey checks an empty name part against the pattern too.
      `${podTerm}.topologyKey: Invalid value: "": name part must be non-empty`,
      `${podTerm}.topologyKey: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].topologyKey: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]);
  });

  it('checks label and namespace selectors (ValidateLabelSelector)', () => {
    expect(run({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{
      topologyKey: 'zone',
      labelSelector: { matchLabels: { app: 'bad value!' }, matchExpressions: [{ key: 'tier', operator: 'In' }, { key: 'tier', operator: 'Gt', values: ['1'] }] },
      namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists', values: ['a'] }] },
    }] } })).toEqual([
      `${podTerm}.labelSelector.matchLabels["app"]: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      `${podTerm}.labelSelector.matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
      `${podTerm}.labelSelector.matchExpressions[1].operator: Invalid value: "Gt": not a valid selector operator`,
      `${podTerm}.namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
    ]);
  });

  it('checks weighted pod affinity terms: weight, and the term itself', () => {
    const preferred = 'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]';
    expect(run({ podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 200, podAffinityTerm: { topologyKey: '' } }] } })).toEqual([
      `${preferred}.weight: Invalid value: 200: must be in the range 1-100`,
      `${preferred}.podAffinityTerm.topologyKey: Required value: can not be empty`,
      `${preferred}.podAffinityTerm.topologyKey: Invalid value: "": name part must be non-empty`,
      `${preferred}.podAffinityTerm.topologyKey: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });

  it('requires a labelSelector for matchLabelKeys and mismatchLabelKeys, label keys, and no key in both', () => {
    expect(run({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', matchLabelKeys: ['version'] }] } })).toEqual([
      `${podTerm}.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`,
    ]);
    expect(run({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{
      topologyKey: 'zone', labelSelector: {}, matchLabelKeys: ['version', 'bad key'], mismatchLabelKeys: ['version'],
    }] } })).toEqual([
      expect.stringMatching(/^spec\.affinity\.podAffinity\.requiredDuringSchedulingIgnoredDuringExecution\[0\]\.matchLabelKeys\[1\]: Invalid value: "bad key": name part must consist/),
      `${podTerm}.matchLabelKeys[0]: Invalid value: "version": exists in both matchLabelKeys and mismatchLabelKeys`,
    ]);
  });

  it('refuses a matchLabelKeys key the labelSelector names twice as written, and not one only the API\'s merge would repeat (the kubelet does not merge)', () => {
    const written: Affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{
      topologyKey: 'zone', labelSelector: { matchLabels: { version: 'v1' }, matchExpressions: [{ key: 'version', operator: 'Exists' }] }, matchLabelKeys: ['version'],
    }] } };
    expect(run(written)).toEqual([`${podTerm}.matchLabelKeys[0]: Invalid value: "version": exists in both matchLabelKeys and labelSelector`]);
    // The API server would append a `version In (<the pod's label>)` requirement before validating, and refuse this.
    const merged: Affinity = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{
      topologyKey: 'zone', labelSelector: { matchLabels: { version: 'v1' } }, matchLabelKeys: ['version'],
    }] } };
    expect(run(merged)).toEqual([]);
  });
});
