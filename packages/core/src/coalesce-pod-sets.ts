import type { Pod } from './pod.js';
import type { PodSetUpdate } from './pod-update.js';

// Change-key sets and removed-pod maps this module created and therefore may grow in place: copying on every
// coalesce would cost O(pending keys) per event while a consumer is slow.
const owned = new WeakSet<ReadonlySet<string>>();
const ownedRemoved = new WeakSet<ReadonlyMap<string, Pod>>();

/**
 * Combines a pending SET with a newer one from the same source (the {@link LatestByKey} combine
 * for sources). The newer snapshot wins; its change keys are unioned with the pending ones when
 * the two form an unbroken chain, so the consumer can still diff in O(changes) (D17). Any gap
 * drops the keys, and the consumer falls back to a full diff; so do more keys than the two
 * snapshots hold pods: a full diff then costs no more, and pods that came and went while the
 * consumer was stalled (short-lived Jobs) would otherwise grow the union without bound (D16).
 */
export function coalescePodSets(pending: PodSetUpdate, next: PodSetUpdate): PodSetUpdate {
  if (pending.changes === undefined || next.changes === undefined || next.changes.base !== pending.pods) {
    return { source: next.source, op: 'SET', pods: next.pods };
  }
  let keys = pending.changes.keys;
  if (!owned.has(keys)) {
    keys = new Set(keys);
    owned.add(keys);
  }
  const union = keys as Set<string>;
  for (const key of next.changes.keys) union.add(key);
  if (union.size > pending.changes.base.size + next.pods.size) return { source: next.source, op: 'SET', pods: next.pods };
  const removed = unionRemoved(pending.changes.removed, next.changes.removed);
  return { source: next.source, op: 'SET', pods: next.pods, changes: { base: pending.changes.base, keys: union, ...(removed === undefined ? {} : { removed }) } };
}

/** The last states of removed pods from both SETs, the newer's winning; bounded as the keys are (one per key). */
function unionRemoved(pending: ReadonlyMap<string, Pod> | undefined, next: ReadonlyMap<string, Pod> | undefined): ReadonlyMap<string, Pod> | undefined {
  if (pending === undefined || next === undefined) return next ?? pending;
  let map = pending;
  if (!ownedRemoved.has(map)) {
    map = new Map(map);
    ownedRemoved.add(map);
  }
  for (const [key, pod] of next) (map as Map<string, Pod>).set(key, pod);
  return map;
}
