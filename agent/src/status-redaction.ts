import type { Pod } from '@podconfig/core';

/** What `/pods` shows in place of a value that may be a secret. */
export const REDACTED = '[REDACTED]';

/**
 * Annotations whose values repeat a pod's whole spec (env values included): kubectl's client-side apply
 * record. Their keys stay, so an operator sees they are there.
 */
const SPEC_ANNOTATIONS: ReadonlySet<string> = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

type Container = NonNullable<NonNullable<Pod['spec']>['containers']>[number];

/**
 * `annotations` with the values that repeat a spec redacted; the same object when there are none (the
 * common case: no copy).
 */
export function redactAnnotations(annotations: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> | undefined {
  if (annotations === undefined || !Object.keys(annotations).some((k) => SPEC_ANNOTATIONS.has(k))) return annotations;
  return Object.fromEntries(Object.entries(annotations).map(([k, v]) => [k, SPEC_ANNOTATIONS.has(k) ? REDACTED : v]));
}

/**
 * The pod as `/pods` shows it: the status server answers anyone who reaches it (loopback by default, no
 * authentication, unlike the kubelet's authenticated `/pods` on its 10250 port), while a manifest can be
 * readable by root alone. So literal environment values (`env[].value`, where manifests put passwords) and
 * annotations that repeat the spec are redacted; names, `valueFrom` references and everything else stay. The
 * pod is copied only where it changes (it is shared and frozen).
 */
export function redactPodForStatus(pod: Pod): Pod {
  const spec = pod.spec;
  const annotations = redactAnnotations(pod.metadata?.annotations);
  const lists = ['initContainers', 'containers', 'ephemeralContainers'] as const;
  const redactedLists = spec === undefined ? [] : lists.map((key) => [key, redactContainers(spec[key])] as const);
  const specChanged = redactedLists.some(([key, list]) => list !== spec?.[key]);
  if (!specChanged && annotations === pod.metadata?.annotations) return pod;
  return {
    ...pod,
    ...(annotations === pod.metadata?.annotations || annotations === undefined ? {} : { metadata: { ...pod.metadata, annotations: { ...annotations } } }),
    ...(specChanged && spec !== undefined ? { spec: { ...spec, ...Object.fromEntries(redactedLists.filter(([, list]) => list !== undefined)) } } : {}),
  };
}

function redactContainers<C extends Container>(containers: readonly C[] | undefined): readonly C[] | undefined {
  if (containers === undefined || !containers.some((c) => c.env?.some((e) => e.value !== undefined) === true)) return containers;
  return containers.map((c) => (c.env?.some((e) => e.value !== undefined) === true
    ? { ...c, env: c.env.map((e) => (e.value === undefined ? e : { ...e, value: REDACTED })) }
    : c));
}
