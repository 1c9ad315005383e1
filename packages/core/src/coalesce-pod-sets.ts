import type { PodSetUpdate } from './pod-update.js';

// Change-key sets this module created and therefore may grow in place: copying on every
// coalesce would cost O(pending keys) per event while a consumer is slow.
const owned = new WeakSet<ReadonlySet<string>>();

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
  return { source: next.source, op: 'SET', pods: next.pods, changes: { base: pending.changes.base, keys: union } };
}
