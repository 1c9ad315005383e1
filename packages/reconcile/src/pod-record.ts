import { podRef, type Pod, type SourceName } from '@podconfig/core';
import type { PodRef } from './pod-work-status.js';
import type { PodWorker } from './pod-worker.js';

/**
 * What the reconciler knows about one pod, shared by every handler's worker for it. Workers read
 * `pod` when a call starts, so each call carries the latest version.
 */
export interface PodRecord {
  /** The pod UID, or for an orphan reported without one, a key that cannot clash with a UID. */
  readonly key: string;
  /** The last desired version (for orphans: only uid, namespace and name). */
  pod: Pod;
  /** `isStaticPod(pod)`, kept with `pod`: read on every call (§6.6), and annotation lookups are not free. */
  isStatic: boolean;
  /** The source that last sent it; undefined for an orphan no source wants. */
  source: SourceName | undefined;
  /**
   * Other sources that list the same UID too (a manifest with a pinned `metadata.uid` in two places), each
   * with the version it last sent: when `source` drops the pod, the next of them owns it. Almost always
   * undefined.
   */
  alsoFrom: Map<SourceName, Pod> | undefined;
  /** A source wants it. False after a REMOVE, and for orphans. */
  desired: boolean;
  /** REMOVEd, but the kill waits for readiness (spec §6.5, D10). */
  killDeferred: boolean;
  /**
   * Each handler lane's worker for the pod, at the lane's index (none until the lane first has work for
   * it). Lanes find their workers here rather than in a map of every pod each: at 50,000 pods such a map
   * was built during the first ADD and looked up on every update.
   */
  readonly workers: (PodWorker | undefined)[];
}

/** Seconds the handler gets to stop a removed pod: deletion grace, then spec grace, then 30. */
export function gracePeriodSeconds(pod: Pod): number {
  return pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
}

/** The kubelet's default termination grace period, also used for orphans (whose spec is unknown). */
export const DEFAULT_GRACE_PERIOD_SECONDS = 30;

/** `namespace/name` for logs, or undefined (left out by pino) for an orphan a handler listed by UID alone. */
export function podLogRef(pod: Pod): string | undefined {
  return pod.metadata?.name === undefined ? undefined : podRef(pod);
}

/** The pod's UID (empty for an orphan listed without one), namespace and name, as `pods()` and `orphanKills()` show them. */
export function podRefOf(pod: Pod): PodRef {
  const meta = pod.metadata;
  return { uid: meta?.uid ?? '', namespace: meta?.namespace ?? '', name: meta?.name ?? '' };
}
