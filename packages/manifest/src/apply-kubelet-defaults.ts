import { ANNOTATIONS, copyWith, type Pod, type PodStatus, type Toleration } from '@podconfig/core';
import { computePodUid } from './compute-pod-uid.js';
import type { DecodeOptions } from './manifest-origin.js';

/**
 * Step 6 of the pipeline, the kubelet's `applyDefaults`, in its order: UID (pinned or D6 hash), name
 * suffix `-<lowercase node name>`, namespace `default` when empty, `spec.nodeName`, the
 * `kubernetes.io/config.hash` annotation, the NoExecute toleration (file pods only), `status.phase = Pending`.
 * Mutates `pod` (a fresh decode result).
 */
export function applyKubeletDefaults(pod: Pod, options: DecodeOptions): void {
  const metadata = (pod.metadata ??= {});
  const uid = metadata.uid !== undefined && metadata.uid !== '' ? metadata.uid : computePodUid(pod, options);
  (metadata as { uid?: string }).uid = uid; // read-only in kubernetes-types: set by servers, here by the kubelet
  metadata.name = `${metadata.name ?? ''}-${options.nodeName.toLowerCase()}`;
  if (!metadata.namespace) metadata.namespace = 'default';
  const spec = (pod.spec ??= { containers: [] });
  spec.nodeName = options.nodeName;
  metadata.annotations = copyWith(metadata.annotations, { [ANNOTATIONS.configHash]: uid });
  if (options.origin.kind === 'file') spec.tolerations = addOrUpdateToleration(spec.tolerations ?? [], NO_EXECUTE);
  (pod as { status?: PodStatus }).status = copyWith(pod.status, { phase: 'Pending' });
}

/** Tolerates every NoExecute taint, so a node condition never evicts a static pod. */
const NO_EXECUTE: Toleration = { operator: 'Exists', effect: 'NoExecute' };

/**
 * AddOrUpdateTolerationInPod: if an identical toleration exists, nothing changes; otherwise every
 * toleration with the same key, operator, value and effect is replaced by `toleration` (which drops
 * e.g. a `tolerationSeconds`), and `toleration` is appended when none matched.
 */
function addOrUpdateToleration(tolerations: Toleration[], toleration: Toleration): Toleration[] {
  const matches = (t: Toleration): boolean =>
    (t.key ?? '') === (toleration.key ?? '') && (t.operator ?? '') === (toleration.operator ?? '') &&
    (t.value ?? '') === (toleration.value ?? '') && (t.effect ?? '') === (toleration.effect ?? '');
  const identical = (t: Toleration): boolean => matches(t) && t.tolerationSeconds === toleration.tolerationSeconds;
  if (tolerations.some(identical)) return tolerations;
  if (!tolerations.some(matches)) return [...tolerations, { ...toleration }];
  return tolerations.map((t) => (matches(t) ? { ...toleration } : t));
}
