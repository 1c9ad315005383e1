import { describe, expect, it } from 'vitest';
import type { Container } from '@podconfig/core';
import { validateContainerRestartPolicy, validateInitContainerRestartPolicy } from './validate-container-restart-policy.js';

type Rule = { action?: string; exitCodes?: { operator?: string; values?: number[] } };
const container = (restartPolicy: string | undefined, restartPolicyRules?: Rule[]): Container =>
  ({ name: 'c', image: 'x', ...(restartPolicy === undefined ? {} : { restartPolicy }), ...(restartPolicyRules ? { restartPolicyRules } : {}) });
const regular = (c: Container): string[] => {
  const errors: string[] = [];
  validateContainerRestartPolicy(c, 'spec.containers[0]', errors);
  return errors;
};
const init = (c: Container): string[] => {
  const errors: string[] = [];
  validateInitContainerRestartPolicy(c, 'spec.initContainers[0]', errors);
  return errors;
};
const onExit = (operator: string, values: number[] = [1]): Rule => ({ action: 'Restart', exitCodes: { operator, values } });

describe(validateContainerRestartPolicy.name, () => {
  it('accepts no policy, or Always, Never or OnFailure, with up to 20 rules of 255 exit codes each', () => {
    expect([undefined, 'Always', 'Never', 'OnFailure'].flatMap((policy) => regular(container(policy)))).toEqual([]);
    const codes = Array.from({ length: 255 }, (_, i) => i);
    expect(regular(container('Never', [
      ...Array.from({ length: 18 }, () => onExit('In')), onExit('NotIn', codes), { action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [] } },
    ]))).toEqual([]);
  });

  it('refuses another policy, listing the supported ones sorted', () => {
    expect(regular(container('Sometimes'))).toEqual(['spec.containers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"']);
    expect(regular(container(''))).toEqual(['spec.containers[0].restartPolicy: Unsupported value: "": supported values: "Always", "Never", "OnFailure"']);
  });

  it('requires a policy beside rules, and still checks the rules', () => {
    expect(regular(container(undefined, [{ action: 'Stop', exitCodes: { operator: 'In' } }]))).toEqual([
      'spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used',
      'spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Stop": supported values: "Restart", "RestartAllContainers"',
    ]);
  });

  it('allows at most 20 rules', () => {
    expect(regular(container('Never', Array.from({ length: 21 }, () => onExit('In'))))).toEqual([
      'spec.containers[0].restartPolicyRules: Too many: 21: must have at most 20 items',
    ]);
  });

  it('requires a known action and exit codes with a known operator and at most 255 values', () => {
    expect(regular(container('Never', [
      { exitCodes: { operator: 'In', values: [1] } }, { action: 'Restart' }, onExit('Equals'), onExit('In', Array.from({ length: 256 }, (_, i) => i)),
      { action: '<Restart>', exitCodes: {} },
    ]))).toEqual([
      'spec.containers[0].restartPolicyRules[0].action: Unsupported value: "": supported values: "Restart", "RestartAllContainers"',
      'spec.containers[0].restartPolicyRules[1].exitCodes: Required value: must be specified',
      'spec.containers[0].restartPolicyRules[2].exitCodes.operator: Unsupported value: "Equals": supported values: "In", "NotIn"',
      'spec.containers[0].restartPolicyRules[3].exitCodes.values: Too many: 256: must have at most 255 items',
      // Named string types, printed as encoding/json writes them.
      'spec.containers[0].restartPolicyRules[4].action: Unsupported value: "\\u003cRestart\\u003e": supported values: "Restart", "RestartAllContainers"',
      'spec.containers[0].restartPolicyRules[4].exitCodes.operator: Unsupported value: "": supported values: "In", "NotIn"',
    ]);
  });
});

describe(validateInitContainerRestartPolicy.name, () => {
  it('accepts Always (a sidecar), Never and OnFailure, with rules, on a sidecar too (RestartAllContainersOnContainerExits, on in 1.36)', () => {
    expect([undefined, 'Always', 'Never', 'OnFailure'].flatMap((policy) => init(container(policy, policy === undefined ? undefined : [onExit('In')])))).toEqual([]);
  });

  it('refuses another policy and bad rules as for a regular container', () => {
    expect(init(container('Sometimes', [onExit('Equals')]))).toEqual([
      'spec.initContainers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
      'spec.initContainers[0].restartPolicyRules[0].exitCodes.operator: Unsupported value: "Equals": supported values: "In", "NotIn"',
    ]);
  });

  it('requires a policy beside rules, and then does not look at the rules', () => {
    expect(init(container(undefined, [{ action: 'Stop' }]))).toEqual([
      'spec.initContainers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used',
    ]);
  });
});
