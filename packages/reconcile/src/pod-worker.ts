import type { Backoff, Pod } from '@podconfig/core';
import type { Timer } from './clock-timers.js';
import type { PodRecord } from './pod-record.js';
import type { QueueEntry } from './linked-queue.js';
import type { TimerLink, TimerListEntry } from './timer-lists.js';
import type { CallOutcome } from './pod-work-status.js';
import type { CallKind, WorkItem } from './work-item.js';

/**
 * The state of one pod on one handler. Calls for it never overlap: at most one is in flight, at
 * most one is owed (`pending`, coalesced), and at most one timer (retry or resync) is scheduled.
 * {@link HandlerLane} drives it.
 */
export class PodWorker implements TimerListEntry<PodWorker>, QueueEntry<PodWorker> {
  readonly record: PodRecord;
  /** The call owed next (not started yet). */
  pending: WorkItem | undefined;
  /** The call in flight. */
  current: WorkItem | undefined;
  /** The handler may be running the pod: set when a sync starts, cleared when a kill succeeds. */
  mayRun = false;
  /** Static pods only: its claim on its full name (spec §6.6), the pod's full name when it was made. */
  gate: 'none' | 'owner' | 'waiting' = 'none';
  gateName: string | undefined;
  /**
   * The pod its last sync started with, while the handler may run it. Its full name is the one the handler
   * runs it under, which a rename under the same UID (D14), or a UID passing between the apiserver and a
   * static source, leaves behind.
   */
  runningPod: Pod | undefined;
  /** Renamed while the handler may run it under its old full name: a kill under that name is owed first, then a create. */
  createAfterKill = false;
  /** The retry timer (a resync waits in the lane's timer lists instead, through `timerLink`). */
  timer: Timer | undefined;
  timerKind: 'retry' | 'resync' | undefined;
  timerLink: TimerLink<PodWorker> | undefined;
  /** Its place in its lane's dispatcher queue (owed a call, waiting for a slot). */
  queuePrev: PodWorker | undefined;
  queueNext: PodWorker | undefined;
  queuedIn: object | undefined;
  /**
   * When the owed resync is due (the clock's `monotonic()` reading), or undefined when none is owed. A
   * resync wait, once begun, goes on across the calls in between: when it ends early it begins again
   * until this time.
   */
  resyncAt: number | undefined;
  /** The clock's `monotonic()` reading at the last successful sync (lastSyncTime is its wall time). */
  lastSyncAt: number | undefined;
  /** Created on the first failure; a success resets it. */
  backoff: Backoff | undefined;

  lastCall: CallKind | undefined;
  lastResult: CallOutcome | undefined;
  attempt = 0;
  failures = 0;
  /**
   * The clock's `monotonic()` reading at the last failure of this streak owed a warning (the first 3, a change of
   * cause, a reminder), whether the handler's warning budget let it through or not; undefined after a success.
   */
  failureWarnedAt: number | undefined;
  /** Wall-clock times, for `pods()`. */
  lastCallTime: number | undefined;
  lastSyncTime: number | undefined;
  lastError: { readonly message: string; readonly code: string; readonly time: number } | undefined;
  /** The lane's call sequence number when the last call succeeded (orphan sweeps compare with it). */
  lastSuccessSeq = 0;

  constructor(record: PodRecord) {
    this.record = record;
  }

  get inFlight(): boolean {
    return this.current !== undefined;
  }
}
