import type { Pod, SourceName } from '@podconfig/core';
import type { CallKind } from './work-item.js';

/** How a handler call ended. */
export type CallOutcome = 'success' | 'error' | 'timeout';

/**
 * Where a pod's worker on one handler stands:
 * - `idle`: nothing owed (a resync is scheduled while the pod is desired);
 * - `queued`: a call waits for a concurrency slot;
 * - `running`: a call is in flight;
 * - `backoff`: the last call failed, a retry is scheduled (`nextRetryTime`);
 * - `waiting-for-name`: a static pod waiting for another with the same full name to be killed (§6.6);
 * - `kill-deferred`: REMOVEd, the kill waits for source readiness (§6.5, D10).
 */
export type WorkState = 'idle' | 'queued' | 'running' | 'backoff' | 'waiting-for-name' | 'kill-deferred';

/** One pod on one handler. JSON-serialisable; times are ISO 8601 strings. */
export interface HandlerWorkStatus {
  readonly state: WorkState;
  /** The call owed next, if any. */
  readonly pending?: CallKind;
  readonly lastCall?: CallKind;
  readonly lastResult?: CallOutcome;
  /** The attempt number of the last call (1 = first try of its work item). */
  readonly attempt: number;
  /** Calls failed in a row; 0 after a success. */
  readonly failures: number;
  /** When the last call started. */
  readonly lastCallTime?: string;
  /** When the last successful call finished. */
  readonly lastSyncTime?: string;
  readonly lastError?: { readonly message: string; readonly code: string; readonly time: string };
  readonly nextRetryTime?: string;
  /**
   * `waiting-for-name` only: the pod whose hold on this pod's full name the sync waits for. An orphan the handler
   * listed by namespace/name alone (`orphan: true`, `uid` empty) while its kill runs, or a static pod that owns
   * the name (§6.6) until its kill succeeds.
   */
  readonly waitingFor?: PodRef & { readonly orphan: boolean };
}

/** Which pod: its UID (empty when a handler listed it by namespace/name alone), namespace and name. */
export interface PodRef {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
}

/** One pod as `Reconciler.pods()` reports it (for GET /pods). */
export interface PodWorkStatus {
  /** Empty for an orphan a handler reported without a UID. */
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  /** Absent for an orphan no source wants. */
  readonly source?: SourceName;
  /** A source wants the pod. False while it is being killed (removed or orphaned). */
  readonly desired: boolean;
  readonly annotations: Readonly<Record<string, string>>;
  /** The last desired version of the pod (for an orphan: only uid, namespace and name). Do not mutate. */
  readonly pod: Pod;
  /** Per handler name. */
  readonly handlers: Readonly<Record<string, HandlerWorkStatus>>;
}

/**
 * One orphan kill on one handler as `Reconciler.orphanKills()` reports it (for GET /pods): a pod the handler's
 * `listPods()` reported that no source wants. Either under way, with the kill's {@link HandlerWorkStatus}
 * (`queued`, `running`, `backoff`: failed, `nextRetryTime` says when it is tried again), or `held`: the last
 * orphan clean-up found it while orphan kills are held (the `orphanKillsAllowed` option: a source's answer is
 * provisional, D18), so no kill has started.
 */
export type OrphanKillStatus = PodRef & {
  readonly handler: string;
  /** Desired pods whose sync waits for this kill: an orphan listed by namespace/name alone holds that full name. */
  readonly waitingPods?: readonly PodRef[];
} & ({ readonly state: 'held' } | HandlerWorkStatus);

/** What `Reconciler.orphanKills()` returns: at most 100 kills, and how many were left out. */
export interface OrphanKills {
  /** Kills under way first (per handler, in the order they began), then held ones (in the order listed). */
  readonly items: readonly OrphanKillStatus[];
  /** How many more there are, left out of `items`. */
  readonly omitted: number;
}
