import type { PodSpec } from '@podconfig/core';
import { labelValueProblems, qualifiedNameProblems } from './name-rules.js';

type PodAffinityTerm = NonNullable<NonNullable<NonNullable<PodSpec['affinity']>['podAffinity']>['requiredDuringSchedulingIgnoredDuringExecution']>[number];
/** metav1.LabelSelector, as the pod types hold it. */
export type LabelSelector = NonNullable<PodAffinityTerm['labelSelector']>;

/**
 * apimachinery's ValidateLabelSelector with AllowInvalidLabelValueInSelector off, as on every create:
 * matchLabels keys and values, and each matchExpressions requirement (ValidateLabelSelectorRequirement).
 * A matchLabels problem names its key in the path, as spec.nodeSelector does here (the API names only
 * `matchLabels`).
 */
export function validateLabelSelector(selector: LabelSelector | undefined, at: string, errors: string[]): void {
  if (selector === undefined) return;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const path = `${at}.matchLabels[${JSON.stringify(key)}]`;
    for (const p of qualifiedNameProblems(key)) errors.push(`${path}: Invalid value: ${JSON.stringify(key)}: ${p}`);
    for (const p of labelValueProblems(value)) errors.push(`${path}: Invalid value: ${JSON.stringify(value)}: ${p}`);
  }
  (selector.matchExpressions ?? []).forEach((requirement, i) => {
    const path = `${at}.matchExpressions[${i}]`;
    const operator = (requirement.operator as string | undefined) ?? '';
    const values = requirement.values ?? [];
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) errors.push(`${path}.values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`);
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) errors.push(`${path}.values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`);
    } else {
      errors.push(`${path}.operator: Invalid value: ${JSON.stringify(operator)}: not a valid selector operator`);
    }
    labelKeyErrors(requirement.key ?? '', `${path}.key`, errors);
    values.forEach((value, j) => {
      for (const p of labelValueProblems(value)) errors.push(`${path}.values[${j}]: Invalid value: ${JSON.stringify(value)}: ${p}`);
    });
  });
}

/** ValidateLabelName: a label key (a qualified name); an empty one is reported as such. */
export function labelKeyErrors(key: string, at: string, errors: string[]): void {
  for (const p of qualifiedNameProblems(key)) errors.push(`${at}: Invalid value: ${JSON.stringify(key)}: ${p}`);
}
