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
 * readable by root alone. So literal environment values (`env[].value`, where manifests put passwords), the
 * header values of probes' and lifecycle hooks' `httpGet` (an `Authorization` a probe sends) and annotations that
 * repeat the spec are redacted; names, `valueFrom` references and everything else stay. The
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
  if (containers === undefined) return undefined;
  const redacted = containers.map(redactContainer);
  return redacted.some((c, i) => c !== containers[i]) ? redacted : containers;
}

const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;
const HOOKS = ['postStart', 'preStop'] as const;

/** The container with literal env values and HTTP header values (probes' and hooks' `httpGet`) redacted; itself when it has none. */
function redactContainer<C extends Container>(c: C): C {
  let out = c;
  if (c.env?.some((e) => e.value !== undefined) === true) {
    out = { ...out, env: c.env.map((e) => (e.value === undefined ? e : { ...e, value: REDACTED })) };
  }
  for (const key of PROBES) {
    const probe = c[key];
    const httpGet = redactHttpGet(probe?.httpGet);
    if (probe !== undefined && httpGet !== probe.httpGet) out = { ...out, [key]: { ...probe, httpGet } };
  }
  const lifecycle = c.lifecycle;
  if (lifecycle !== undefined) {
    let hooks = lifecycle;
    for (const key of HOOKS) {
      const hook = lifecycle[key];
      const httpGet = redactHttpGet(hook?.httpGet);
      if (hook !== undefined && httpGet !== hook.httpGet) hooks = { ...hooks, [key]: { ...hook, httpGet } };
    }
    if (hooks !== lifecycle) out = { ...out, lifecycle: hooks };
  }
  return out;
}

type HttpGet = NonNullable<NonNullable<Container['livenessProbe']>['httpGet']>;

/** Header values (an `Authorization: Bearer …` a probe sends) redacted; names stay. */
function redactHttpGet(httpGet: HttpGet | undefined): HttpGet | undefined {
  if (httpGet?.httpHeaders === undefined || httpGet.httpHeaders.length === 0) return httpGet;
  return { ...httpGet, httpHeaders: httpGet.httpHeaders.map((h) => ({ ...h, value: REDACTED })) };
}
