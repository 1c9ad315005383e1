import { describe, expect, it } from 'vitest';
import type { PodSpec } from '@podconfig/core';
import { validateTopologySpreadConstraints } from './validate-topology-spread.js';

type Constraint = NonNullable<PodSpec['topologySpreadConstraints']>[number];
const run = (...constraints: Constraint[]): string[] => {
  const errors: string[] = [];
  validateTopologySpreadConstraints(constraints, errors);
  return errors;
};
const spread = (extra: Partial<Constraint> = {}): Constraint => ({
  maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } }, ...extra,
});
const at = 'spec.topologySpreadConstraints[0]';

describe(validateTopologySpreadConstraints.name, () => {
  it('accepts well-formed constraints', () => {
    expect(run(
      spread({ minDomains: 2, nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Ignore', matchLabelKeys: ['pod-template-hash'] }),
      spread({ whenUnsatisfiable: 'ScheduleAnyway' }),
    )).toEqual([]);
  });

  it('requires maxSkew > 0, a topologyKey and a known whenUnsatisfiable', () => {
    expect(run(spread({ maxSkew: 0, topologyKey: '', whenUnsatisfiable: 'Sometimes' }))).toEqual([
      `${at}.maxSkew: Invalid value: 0: must be greater than zero`,
      `${at}.topologyKey: Required value: can not be empty`,
      `${at}.whenUnsatisfiable: Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"`,
    ]);
    expect(run(spread({ whenUnsatisfiable: '' }))).toEqual([`${at}.whenUnsatisfiable: Unsupported value: "": supported values: "DoNotSchedule", "ScheduleAnyway"`]);
  });

  it('refuses two constraints with one {topologyKey, whenUnsatisfiable}', () => {
    expect(run(spread(), spread({ maxSkew: 2 }))).toEqual([
      `${at}.{topologyKey, whenUnsatisfiable}: Duplicate value: "{topology.kubernetes.io/zone, DoNotSchedule}"`,
    ]);
  });

  it('requires minDomains > 0, and only with DoNotSchedule', () => {
    expect(run(spread({ minDomains: 0 }))).toEqual([`${at}.minDomains: Invalid value: 0: must be greater than zero`]);
    expect(run(spread({ minDomains: 3, whenUnsatisfiable: 'ScheduleAnyway' }))).toEqual([
      `${at}.minDomains: Invalid value: 3: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway`,
    ]);
  });

  it('checks the node inclusion policies', () => {
    expect(run(spread({ nodeAffinityPolicy: 'Always', nodeTaintsPolicy: 'honor' }))).toEqual([
      `${at}.nodeAffinityPolicy: Unsupported value: "Always": supported values: "Honor", "Ignore"`,
      `${at}.nodeTaintsPolicy: Unsupported value: "honor": supported values: "Honor", "Ignore"`,
    ]);
  });

  it('checks matchLabelKeys: a labelSelector to refine, label keys, none it names already', () => {
    const { labelSelector: _selector, ...withoutSelector } = spread({ matchLabelKeys: ['version'] });
    expect(run(withoutSelector)).toEqual([
      `${at}.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`,
    ]);
    expect(run(spread({ matchLabelKeys: ['app', '-bad'] }))).toEqual([
      `${at}.matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector`,
      `${at}.matchLabelKeys[1]: Invalid value: "-bad": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });

  it('checks the label selector', () => {
    expect(run(spread({ labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] } }))).toEqual([
      `${at}.labelSelector.matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
    ]);
  });
});
