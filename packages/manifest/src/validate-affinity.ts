import type { PodSpec } from '@podconfig/core';
import { dns1123LabelProblems, dns1123SubdomainProblems, labelValueProblems } from './name-rules.js';
import { labelKeyErrors, validateLabelSelector, type LabelSelector } from './validate-label-selector.js';

type Affinity = NonNullable<PodSpec['affinity']>;
type NodeAffinity = NonNullable<Affinity['nodeAffinity']>;
type NodeSelectorTerm = NonNullable<NodeAffinity['requiredDuringSchedulingIgnoredDuringExecution']>['nodeSelectorTerms'][number];
type NodeSelectorRequirement = NonNullable<NodeSelectorTerm['matchExpressions']>[number];
type PodAffinity = NonNullable<Affinity['podAffinity']>;
type PodAffinityTerm = NonNullable<PodAffinity['requiredDuringSchedulingIgnoredDuringExecution']>[number];
type WeightedPodAffinityTerm = NonNullable<PodAffinity['preferredDuringSchedulingIgnoredDuringExecution']>[number];

/**
 * validateAffinity as the kubelet runs it on a static pod: node affinity (ValidateNodeSelector,
 * ValidatePreferredSchedulingTerms) and pod (anti-)affinity (validatePodAffinityTerm), on the terms as written. The
 * API server's create merges matchLabelKeys / mismatchLabelKeys into each term's labelSelector first, which makes one
 * rule stricter there; the kubelet's decoding does not, and neither does this.
 */
export function validateAffinity(affinity: Affinity | undefined, errors: string[]): void {
  if (affinity === undefined) return;
  const at = 'spec.affinity';
  const node = affinity.nodeAffinity;
  if (node !== undefined) {
    const required = node.requiredDuringSchedulingIgnoredDuringExecution;
    if (required !== undefined) {
      const termsAt = `${at}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
      const terms = (required.nodeSelectorTerms as NodeSelectorTerm[] | undefined) ?? [];
      if (terms.length === 0) errors.push(`${termsAt}: Required value: must have at least one node selector term`);
      terms.forEach((term, i) => validateNodeSelectorTerm(term, false, `${termsAt}[${i}]`, errors));
    }
    (node.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((term, i) => {
      const termAt = `${at}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      weightErrors(term.weight, `${termAt}.weight`, errors);
      // Preferred terms may hold values that are no label values: they can still match (a one-node cluster).
      validateNodeSelectorTerm(term.preference ?? {}, true, `${termAt}.preference`, errors);
    });
  }
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const podAffinity: PodAffinity | undefined = affinity[kind];
    if (podAffinity === undefined) continue;
    (podAffinity.requiredDuringSchedulingIgnoredDuringExecution ?? []).forEach((term, i) => {
      validatePodAffinityTerm(term, `${at}.${kind}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`, errors);
    });
    (podAffinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((weighted: WeightedPodAffinityTerm, i) => {
      const termAt = `${at}.${kind}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      weightErrors(weighted.weight, `${termAt}.weight`, errors);
      const term = (weighted.podAffinityTerm as PodAffinityTerm | undefined) ?? ({} as PodAffinityTerm);
      validatePodAffinityTerm(term, `${termAt}.podAffinityTerm`, errors);
    });
  }
}

function weightErrors(weight: number | undefined, at: string, errors: string[]): void {
  const value = weight ?? 0;
  if (!(value >= 1 && value <= 100)) errors.push(`${at}: Invalid value: ${value}: must be in the range 1-100`);
}

/** ValidateNodeSelectorTerm: label requirements (matchExpressions) and node field requirements (matchFields). */
function validateNodeSelectorTerm(term: NodeSelectorTerm, allowInvalidValues: boolean, at: string, errors: string[]): void {
  (term.matchExpressions ?? []).forEach((requirement, j) => {
    validateNodeSelectorRequirement(requirement, allowInvalidValues, `${at}.matchExpressions[${j}]`, errors);
  });
  (term.matchFields ?? []).forEach((requirement, j) => validateNodeFieldSelectorRequirement(requirement, `${at}.matchFields[${j}]`, errors));
}

/** ValidateNodeSelectorRequirement. Gt and Lt take one value; the API does not check that it is an integer. */
function validateNodeSelectorRequirement(requirement: NodeSelectorRequirement, allowInvalidValues: boolean, at: string, errors: string[]): void {
  const operator = (requirement.operator as string | undefined) ?? '';
  const values = requirement.values ?? [];
  switch (operator) {
    case 'In': case 'NotIn':
      if (values.length === 0) errors.push(`${at}.values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`);
      break;
    case 'Exists': case 'DoesNotExist':
      if (values.length > 0) errors.push(`${at}.values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`);
      break;
    case 'Gt': case 'Lt':
      if (values.length !== 1) errors.push(`${at}.values: Required value: must be specified single value when \`operator\` is 'Lt' or 'Gt'`);
      break;
    default:
      errors.push(`${at}.operator: Invalid value: ${JSON.stringify(operator)}: not a valid selector operator`);
  }
  labelKeyErrors(requirement.key ?? '', `${at}.key`, errors);
  if (allowInvalidValues) return;
  values.forEach((value, k) => {
    for (const p of labelValueProblems(value)) errors.push(`${at}.values[${k}]: Invalid value: ${JSON.stringify(value)}: ${p}`);
  });
}

/** ValidateNodeFieldSelectorRequirement: only `metadata.name`, with In or NotIn and one node name. */
function validateNodeFieldSelectorRequirement(requirement: NodeSelectorRequirement, at: string, errors: string[]): void {
  const operator = (requirement.operator as string | undefined) ?? '';
  const values = requirement.values ?? [];
  if (operator === 'In' || operator === 'NotIn') {
    if (values.length !== 1) errors.push(`${at}.values: Required value: must be only one value when \`operator\` is 'In' or 'NotIn' for node field selector`);
  } else {
    errors.push(`${at}.operator: Invalid value: ${JSON.stringify(operator)}: not a valid selector operator`);
  }
  const key = (requirement.key as string | undefined) ?? '';
  if (key !== 'metadata.name') {
    errors.push(`${at}.key: Invalid value: ${JSON.stringify(key)}: not a valid field selector key`);
    return;
  }
  values.forEach((value, k) => {
    for (const p of dns1123SubdomainProblems(value)) errors.push(`${at}.values[${k}]: Invalid value: ${JSON.stringify(value)}: ${p}`);
  });
}

/**
 * validatePodAffinityTerm: selectors, namespaces (the API reports them at `.namespace`), matchLabelKeys and
 * mismatchLabelKeys (validateMatchLabelKeysAndMismatchLabelKeys), topologyKey.
 */
function validatePodAffinityTerm(term: PodAffinityTerm, at: string, errors: string[]): void {
  validateLabelSelector(term.labelSelector, `${at}.labelSelector`, errors);
  validateLabelSelector(term.namespaceSelector, `${at}.namespaceSelector`, errors);
  for (const namespace of term.namespaces ?? []) {
    for (const p of dns1123LabelProblems(namespace)) errors.push(`${at}.namespace: Invalid value: ${JSON.stringify(namespace)}: ${p}`);
  }
  const matchLabelKeys = term.matchLabelKeys ?? [];
  const mismatchLabelKeys = term.mismatchLabelKeys ?? [];
  labelKeysErrors(matchLabelKeys, term.labelSelector, `${at}.matchLabelKeys`, errors);
  labelKeysErrors(mismatchLabelKeys, term.labelSelector, `${at}.mismatchLabelKeys`, errors);
  if (term.labelSelector !== undefined) {
    const seen = new Set(Object.keys(term.labelSelector.matchLabels ?? {}));
    for (const key of (term.labelSelector.matchExpressions ?? []).map((e) => (e.key as string | undefined) ?? '')) {
      const index = matchLabelKeys.lastIndexOf(key);
      // A key the selector already names gets a second, conflicting requirement from matchLabelKeys.
      if (index >= 0 && seen.has(key)) {
        errors.push(`${at}.matchLabelKeys[${index}]: Invalid value: ${JSON.stringify(key)}: exists in both matchLabelKeys and labelSelector`);
      }
      seen.add(key);
    }
  }
  const mismatch = new Set(mismatchLabelKeys);
  matchLabelKeys.forEach((key, i) => {
    if (mismatch.has(key)) errors.push(`${at}.matchLabelKeys[${i}]: Invalid value: ${JSON.stringify(key)}: exists in both matchLabelKeys and mismatchLabelKeys`);
  });
  const topologyKey = (term.topologyKey as string | undefined) ?? '';
  if (topologyKey === '') errors.push(`${at}.topologyKey: Required value: can not be empty`);
  labelKeyErrors(topologyKey, `${at}.topologyKey`, errors);
}

/** validateLabelKeys: label keys that need a labelSelector to refine. */
function labelKeysErrors(keys: readonly string[], selector: LabelSelector | undefined, at: string, errors: string[]): void {
  if (keys.length === 0) return;
  if (selector === undefined) {
    errors.push(`${at}: Forbidden: must not be specified when labelSelector is not set`);
    return;
  }
  keys.forEach((key, i) => labelKeyErrors(key, `${at}[${i}]`, errors));
}
