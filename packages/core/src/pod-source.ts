import type { PodSetUpdate } from './pod-update.js';
import type { SourceName } from './source-name.js';

/**
 * A producer of desired pods. Like the kubelet's sources it only ever sends full sets.
 *
 * Contract:
 * - `updates(signal)` yields one early SET (even an empty one) once the source knows its state,
 *   then a SET after every change. Each SET supersedes all earlier ones, so a consumer may skip
 *   to the latest (decision D16).
 * - It retries its own transient failures and returns (does not throw) when `signal` aborts.
 *   Throwing means a bug or an unrecoverable setup error: the agent exits non-zero.
 */
export interface PodSource {
  readonly name: SourceName;
  updates(signal: AbortSignal): AsyncIterable<PodSetUpdate>;
}

/** What a source last did and why it is unhappy: served by the agent's `/sources`. */
export interface SourceStatus {
  /** True once the source has yielded its first SET. */
  readonly seen: boolean;
  /**
   * True while the source may want pods it cannot name yet: it is seen only through a placeholder SET,
   * without a definitive answer from its origin (the http source's D9 grace period; the file source's
   * empty SET for a path unusable at its first scan), or part of its origin has not decoded since it
   * started (the file source: a manifest that is invalid and has no last good pod, D4). Such a source
   * unblocks REMOVEs of its own pods, but orphan clean-up waits: a pod a handler runs may still be
   * wanted by that origin, from before a restart (D18).
   */
  readonly provisional?: boolean;
  /** True when the last attempt succeeded. */
  readonly healthy: boolean;
  /** Pods in the last SET. */
  readonly pods: number;
  readonly lastSuccessTime?: Date;
  /**
   * The most recent error, kept after the source recovers (its `time` says when): history, not state. What is wrong
   * now is `healthy: false` and the details (the file source's `invalid`, the http source's `lastStatusCode`).
   */
  readonly lastError?: { readonly message: string; readonly code?: string; readonly time: Date };
  /** Monotonic counters, exported as metrics (`errors`, `relists`, `polls_not_modified`, …). */
  readonly counters: Readonly<Record<string, number>>;
  /** Source-specific facts (shadowed files, last resourceVersion, ETag, …). JSON-serialisable, never secret. */
  readonly details: Readonly<Record<string, unknown>>;
}

/** Optional capability of a source: report its status. */
export interface StatusReporter {
  status(): SourceStatus;
}

export function reportsStatus(value: object): value is StatusReporter {
  return typeof (value as Partial<StatusReporter>).status === 'function';
}
