import type { Container } from '@podconfig/core';
import { goJsonString } from './validate-error-values.js';

/** A ContainerRestartRule as a manifest writes it (ContainerRestartRules, 1.34, is newer than kubernetes-types 1.30). */
interface ContainerRestartRule {
  readonly action?: string;
  readonly exitCodes?: { readonly operator?: string; readonly values?: readonly number[] };
}

/** supportedContainerRestartPolicies, sorted as the API lists them. */
const RESTART_POLICIES = ['Always', 'Never', 'OnFailure'];
/**
 * supportedContainerRestartRuleActionsWithRestartAllContainers: AllowRestartAllContainers follows the
 * RestartAllContainersOnContainerExits gate, beta and on by default since 1.36.
 */
const RULE_ACTIONS = ['Restart', 'RestartAllContainers'];
/** supportedContainerRestartPolicyOperators. */
const EXIT_CODE_OPERATORS = ['In', 'NotIn'];
const MAX_RULES = 20;
const MAX_EXIT_CODES = 255;

const unsupported = (at: string, value: string, allowed: readonly string[]): string =>
  // The values are named string types, which field.Error prints as encoding/json writes them.
  `${at}: Unsupported value: ${goJsonString(value)}: supported values: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
const tooMany = (at: string, count: number, max: number): string => `${at}: Too many: ${count}: must have at most ${max} items`;

function rulesOf(c: Container): readonly ContainerRestartRule[] {
  return (c as { restartPolicyRules?: readonly ContainerRestartRule[] }).restartPolicyRules ?? [];
}

/**
 * validateContainerRestartPolicy, as validateContainers runs it on a regular container with ContainerRestartRules
 * on (beta, on by default since 1.35, so AllowContainerRestartPolicyRules holds): a container may set its own
 * `restartPolicy` (Always, Never, OnFailure), which it must set to use `restartPolicyRules`; at most 20 rules, each
 * with a known action (Restart, or RestartAllContainers) and `exitCodes` with an In or NotIn operator and at most
 * 255 values. `at` is the container's path.
 */
export function validateContainerRestartPolicy(c: Container, at: string, errors: string[]): void {
  const policy = c.restartPolicy;
  const rules = rulesOf(c);
  if (policy === undefined) {
    if (rules.length === 0) return;
    errors.push(`${at}.restartPolicy: Required value: must specify restartPolicy when restart rules are used`);
  } else if (!RESTART_POLICIES.includes(policy)) {
    errors.push(unsupported(`${at}.restartPolicy`, policy, RESTART_POLICIES));
  }
  if (rules.length > MAX_RULES) errors.push(tooMany(`${at}.restartPolicyRules`, rules.length, MAX_RULES));
  rules.forEach((rule, i) => {
    const ruleAt = `${at}.restartPolicyRules[${i}]`;
    const action = rule.action ?? '';
    if (!RULE_ACTIONS.includes(action)) errors.push(unsupported(`${ruleAt}.action`, action, RULE_ACTIONS));
    if (rule.exitCodes === undefined) {
      errors.push(`${ruleAt}.exitCodes: Required value: must be specified`);
      return;
    }
    const operator = rule.exitCodes.operator ?? '';
    if (!EXIT_CODE_OPERATORS.includes(operator)) errors.push(unsupported(`${ruleAt}.exitCodes.operator`, operator, EXIT_CODE_OPERATORS));
    const values = rule.exitCodes.values ?? [];
    if (values.length > MAX_EXIT_CODES) errors.push(tooMany(`${ruleAt}.exitCodes.values`, values.length, MAX_EXIT_CODES));
  });
}

/**
 * validateInitContainerRestartPolicy with ContainerRestartRules and RestartAllContainersOnContainerExits on (both
 * on by default in 1.36): rules need a `restartPolicy` (and are not looked at without one); with one, an init
 * container follows the rules of a regular one, so Never and OnFailure are taken as well as Always (a sidecar), and
 * a sidecar may have rules too. Only Always makes a sidecar.
 */
export function validateInitContainerRestartPolicy(c: Container, at: string, errors: string[]): void {
  if (c.restartPolicy === undefined) {
    if (rulesOf(c).length > 0) errors.push(`${at}.restartPolicy: Required value: must specify restartPolicy when restart rules are used`);
    return;
  }
  validateContainerRestartPolicy(c, at, errors);
}
