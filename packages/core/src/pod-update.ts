import type { Pod } from './pod.js';
import type { PodSetChanges, PodSnapshot } from './pod-snapshot.js';
import type { SourceName } from './source-name.js';

/**
 * The kubelet's pod operations (spec §1.1). `SET` flows from sources into the merger; the merger
 * emits the others. The string values are stable and used in logs, metrics and the JSON API.
 */
export type PodOperation = 'SET' | 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';

/** The kubelet's iota values, for anyone serialising operations the Go way. */
export const POD_OPERATION_CODES: Readonly<Record<PodOperation, number>> = {
  SET: 0, ADD: 1, DELETE: 2, REMOVE: 3, UPDATE: 4, RECONCILE: 5,
};

/**
 * What a {@link PodSource} yields: its complete desired set, superseding every earlier one. The producer
 * must not modify a pod once pushed. A pod it froze must be frozen all the way down (`deepFreeze`, or
 * `deepFreezeParsed`): the merger and `deepFreeze` take a frozen object as frozen throughout and share it with
 * the handlers as it is, so a pod frozen at its top level only (`Object.freeze`) would leave its members
 * writable by every consumer.
 */
export interface PodSetUpdate {
  readonly source: SourceName;
  readonly op: 'SET';
  readonly pods: PodSnapshot;
  /**
   * When the producer knows it: the keys changed since an earlier snapshot of the same source
   * (decision D17). Absent means "unknown": the merger diffs the whole set.
   */
  readonly changes?: PodSetChanges | undefined;
  /**
   * The last state of pods the source removed since its previous SET, by UID, where it knew it (a watch DELETED
   * event's object). A change just before the removal (a force delete's `deletionGracePeriodSeconds: 0`) may never
   * reach the consumer in a SET of its own, the changes having coalesced (D16): the consumer's REMOVE carries this
   * state. `coalescePodSets` keeps these across SETs, gaps included, up to a bound.
   */
  readonly removed?: ReadonlyMap<string, Pod> | undefined;
}

/**
 * A SET with both optional members present, `undefined` where not known. Every SET podconfig's sources and
 * coalescer make comes from here, so all have one object shape: the merger reads them through one inline cache,
 * where SETs with and without `changes` or `removed` were four shapes and deoptimized it once per new one.
 */
export function podSetUpdate(
  source: SourceName,
  pods: PodSnapshot,
  changes?: PodSetChanges,
  removed?: ReadonlyMap<string, Pod>,
): PodSetUpdate {
  return { source, op: 'SET', pods, changes, removed };
}

/** What the merger yields: one operation on some pods of one source. Pods are deep-frozen (shared with the merger's state). */
export interface PodUpdate {
  readonly source: SourceName;
  readonly op: Exclude<PodOperation, 'SET'>;
  readonly pods: readonly Pod[];
}
