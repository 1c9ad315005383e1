import type { PodSpec } from '@podconfig/core';
import { labelKeyErrors, validateLabelSelector } from './validate-label-selector.js';
import { oneOf } from './validate-one-of.js';

type TopologySpreadConstraint = NonNullable<PodSpec['topologySpreadConstraints']>[number];

const WHEN_UNSATISFIABLE = ['DoNotSchedule', 'ScheduleAnyway'];
const NODE_INCLUSION_POLICIES = ['Honor', 'Ignore'];

/**
 * validateTopologySpreadConstraints: maxSkew, topologyKey (required; the API checks no syntax), whenUnsatisfiable,
 * one constraint per {topologyKey, whenUnsatisfiable}, minDomains, the node inclusion policies, matchLabelKeys and
 * the label selector (AllowInvalidTopologySpreadConstraintLabelSelector is off on create).
 */
export function validateTopologySpreadConstraints(constraints: readonly TopologySpreadConstraint[], errors: string[]): void {
  constraints.forEach((constraint, i) => {
    const at = `spec.topologySpreadConstraints[${i}]`;
    const maxSkew = (constraint.maxSkew as number | undefined) ?? 0;
    if (maxSkew <= 0) errors.push(`${at}.maxSkew: Invalid value: ${maxSkew}: must be greater than zero`);
    const topologyKey = (constraint.topologyKey as string | undefined) ?? '';
    if (topologyKey === '') errors.push(`${at}.topologyKey: Required value: can not be empty`);
    const action = (constraint.whenUnsatisfiable as string | undefined) ?? '';
    oneOf(action, WHEN_UNSATISFIABLE, `${at}.whenUnsatisfiable`, errors);
    const repeated = constraints.slice(i + 1).some((other) => other.topologyKey === constraint.topologyKey && other.whenUnsatisfiable === constraint.whenUnsatisfiable);
    // Only the earlier of two repeats is reported, as the API reports it.
    if (repeated) errors.push(`${at}.{topologyKey, whenUnsatisfiable}: Duplicate value: ${JSON.stringify(`{${topologyKey}, ${action}}`)}`);
    const minDomains = constraint.minDomains;
    if (minDomains !== undefined) {
      if (minDomains <= 0) errors.push(`${at}.minDomains: Invalid value: ${minDomains}: must be greater than zero`);
      if (action !== 'DoNotSchedule') {
        errors.push(`${at}.minDomains: Invalid value: ${minDomains}: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`);
      }
    }
    oneOf(constraint.nodeAffinityPolicy, NODE_INCLUSION_POLICIES, `${at}.nodeAffinityPolicy`, errors);
    oneOf(constraint.nodeTaintsPolicy, NODE_INCLUSION_POLICIES, `${at}.nodeTaintsPolicy`, errors);
    validateMatchLabelKeys(constraint, `${at}.matchLabelKeys`, errors);
    validateLabelSelector(constraint.labelSelector, `${at}.labelSelector`, errors);
  });
}

/** validateMatchLabelKeysInTopologySpread: label keys, with a selector to refine, that it does not name already. */
function validateMatchLabelKeys(constraint: TopologySpreadConstraint, at: string, errors: string[]): void {
  const keys = constraint.matchLabelKeys ?? [];
  if (keys.length === 0) return;
  const selector = constraint.labelSelector;
  if (selector === undefined) errors.push(`${at}: Forbidden: must not be specified when labelSelector is not set`);
  const selectorKeys = new Set([
    ...Object.keys(selector?.matchLabels ?? {}), ...(selector?.matchExpressions ?? []).map((e) => e.key as string | undefined),
  ]);
  keys.forEach((key, i) => {
    labelKeyErrors(key, `${at}[${i}]`, errors);
    if (selectorKeys.has(key)) errors.push(`${at}[${i}]: Invalid value: ${JSON.stringify(key)}: exists in both matchLabelKeys and labelSelector`);
  });
}
