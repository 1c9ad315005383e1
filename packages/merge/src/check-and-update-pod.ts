import { ANNOTATIONS, copyWith, deepFreeze, jsonEqual, LOCAL_ANNOTATIONS, type Pod, type SourceName } from '@podconfig/core';
import { compareJson, DIFFERENT, EXACT } from './compare-json.js';
import { deepEqual } from './deep-equal.js';

/** What {@link checkAndUpdatePod} found: the bucket the stored pod goes into, or `none`. */
export type PodChange = 'update' | 'delete' | 'reconcile' | 'none';

type Labels = Readonly<Record<string, string>> | null | undefined;

/** Annotations equal after ignoring the local keys; a missing map equals an empty one (kubelet). */
function annotationsEqual(existing: Labels, candidate: Labels): boolean {
  const a = existing ?? {};
  const b = candidate ?? {};
  // for…in, not Object.entries: no arrays per key on every pod change.
  for (const key in b) {
    if (LOCAL_ANNOTATIONS.has(key)) continue;
    if (!Object.hasOwn(a, key) || a[key] !== b[key]) return false;
  }
  for (const key in a) {
    if (!LOCAL_ANNOTATIONS.has(key) && !Object.hasOwn(b, key)) return false;
  }
  return true;
}

/** What {@link checkAndUpdatePod} found, and the pod to store from now on. */
export interface PodCheck {
  readonly change: PodChange;
  /** `existing` itself when nothing changed, else its new version (deep-frozen). */
  readonly pod: Pod;
}

function setOrDelete<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

/**
 * The kubelet's `checkAndUpdatePod` (spec §6.2). Compares the stored pod `existing` with the
 * incoming `ref` and returns what the kubelet's in-place update would leave, as a new frozen pod:
 * - no semantic change, status differs: `ref`'s status → `reconcile`;
 * - no semantic change at all: `existing` itself → `none`;
 * - semantic change (the kubelet's `podsDifferSemantically` with D14: spec, labels — a missing map
 *   equals an empty one —, deletionTimestamp, deletionGracePeriodSeconds, non-local annotations;
 *   never name, namespace, uid, resourceVersion, ownerReferences, finalizers, managedFields,
 *   creationTimestamp): spec, labels, deletionTimestamp, deletionGracePeriodSeconds, generation and
 *   status from `ref`; annotations become `ref`'s plus the local ones of `existing` (`config.seen`
 *   kept) → `delete` when `ref` has a deletionTimestamp, else `update`.
 * Neither argument is modified: stored pods are frozen and shared with the merger's output and with
 * every handler call. The new version shares its subtrees: with `existing` where they are identical
 * to `ref`'s (nothing new to freeze), else with `ref` (only those get frozen), so a change costs
 * O(what changed), never a deep copy of the pod (D17).
 */
export function checkAndUpdatePod(existing: Pod, ref: Pod, source: SourceName): PodCheck {
  const meta = existing.metadata ?? {};
  const refMeta = ref.metadata ?? {};
  // exact*: identical, so the merger may keep its own (already frozen) subtree; same*: the kubelet's
  // DeepEqual (D14: a missing map equals an empty one). compareJson answers both in one walk.
  const spec = compareJson(existing.spec, ref.spec);
  const exactSpec = spec === EXACT;
  const sameSpec = spec !== DIFFERENT;
  const exactLabels = jsonEqual(meta.labels, refMeta.labels);
  const sameLabels = exactLabels || deepEqual(meta.labels ?? {}, refMeta.labels ?? {});
  const semantic = !(
    sameSpec && sameLabels &&
    deepEqual(meta.deletionTimestamp, refMeta.deletionTimestamp) &&
    deepEqual(meta.deletionGracePeriodSeconds, refMeta.deletionGracePeriodSeconds) &&
    annotationsEqual(meta.annotations, refMeta.annotations)
  );
  const status = compareJson(existing.status, ref.status);
  const exactStatus = status === EXACT;
  // The kubelet's status comparison decides only without a semantic change.
  if (!semantic && status !== DIFFERENT) return { change: 'none', pod: existing };
  const next: Pod = { ...existing };
  if (!exactStatus) setOrDelete(next, 'status', ref.status);
  if (!semantic) return { change: 'reconcile', pod: deepFreeze(next) };

  // copyWith, not a spread: the copies share one V8 map (see copyWith).
  const annotations: Record<string, string> = copyWith(refMeta.annotations, {
    [ANNOTATIONS.configSource]: source,
    [ANNOTATIONS.configSeen]: meta.annotations?.[ANNOTATIONS.configSeen] ?? '',
  });
  for (const key of LOCAL_ANNOTATIONS) {
    const value = meta.annotations?.[key];
    if (value !== undefined) annotations[key] = value;
  }
  const nextMeta = { ...meta, annotations };
  if (!exactSpec) setOrDelete(next, 'spec', ref.spec);
  if (!exactLabels) setOrDelete(nextMeta, 'labels', refMeta.labels);
  setOrDelete(nextMeta, 'deletionTimestamp', refMeta.deletionTimestamp);
  setOrDelete(nextMeta, 'deletionGracePeriodSeconds', refMeta.deletionGracePeriodSeconds);
  setOrDelete(nextMeta, 'generation', refMeta.generation);
  next.metadata = nextMeta;
  const change = refMeta.deletionTimestamp === undefined || refMeta.deletionTimestamp === null ? 'update' : 'delete';
  return { change, pod: deepFreeze(next) };
}
