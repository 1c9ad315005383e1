import type { Pod } from './pod.js';
import { podSetUpdate, type PodSetUpdate } from './pod-update.js';

// Change-key sets and removed-pod maps this module created and therefore may grow in place: copying on every
// coalesce would cost O(pending keys) per event while a consumer is slow.
const owned = new WeakSet<ReadonlySet<string>>();
/** Removed-pod maps this module created, with the most pods a snapshot held along their chain. */
const ownedRemoved = new WeakMap<ReadonlyMap<string, Pod>, number>();

/**
 * Combines a pending SET with a newer one from the same source (the {@link LatestByKey} combine
 * for sources). The newer snapshot wins; its change keys are unioned with the pending ones when
 * the two form an unbroken chain, so the consumer can still diff in O(changes) (D17). Any gap
 * drops the keys, and the consumer falls back to a full diff; so do more keys than the two
 * snapshots hold pods: a full diff then costs no more, and pods that came and went while the
 * consumer was stalled (short-lived Jobs) would otherwise grow the union without bound (D16).
 */
export function coalescePodSets(pending: PodSetUpdate, next: PodSetUpdate): PodSetUpdate {
  const removed = unionRemoved(pending, next);
  if (pending.changes === undefined || next.changes === undefined || next.changes.base !== pending.pods) {
    return podSetUpdate(next.source, next.pods, undefined, removed);
  }
  let keys = pending.changes.keys;
  if (!owned.has(keys)) {
    keys = new Set(keys);
    owned.add(keys);
  }
  const union = keys as Set<string>;
  for (const key of next.changes.keys) union.add(key);
  if (union.size > pending.changes.base.size + next.pods.size) return podSetUpdate(next.source, next.pods, undefined, removed);
  return podSetUpdate(next.source, next.pods, { base: pending.changes.base, keys: union }, removed);
}

/**
 * The last states of removed pods from both SETs, by UID (a name re-created under another UID and removed again
 * keeps both). Kept on a gap too: the merger looks them up by the UIDs it stored, whatever it diffs. While the
 * consumer is stalled, pods that come and go would grow this without end (D16): it keeps no more than twice the
 * most pods any snapshot along the way held (the merger stored at most that many) plus the newest removals,
 * dropping the oldest (a REMOVE beyond them carries the merger's own copy, as before).
 */
function unionRemoved(pending: PodSetUpdate, next: PodSetUpdate): ReadonlyMap<string, Pod> | undefined {
  const older = pending.removed;
  const newer = next.removed;
  if (older === undefined || newer === undefined) return newer ?? older;
  let map = older;
  let most = ownedRemoved.get(map);
  if (most === undefined) {
    map = new Map(map);
    most = Math.max(pending.changes?.base.size ?? 0, pending.pods.size);
  }
  most = Math.max(most, next.pods.size);
  ownedRemoved.set(map, most);
  const union = map as Map<string, Pod>;
  for (const [uid, pod] of newer) {
    union.delete(uid); // re-inserted: the newest last, so the oldest go first
    union.set(uid, pod);
  }
  // Twice: pods born and removed inside the window (of no use to the merger) take places too.
  for (const uid of union.keys()) {
    if (union.size <= 2 * most + newer.size) break;
    union.delete(uid);
  }
  return union;
}
