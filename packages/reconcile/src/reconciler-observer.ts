import type { PodUpdate } from '@podconfig/core';
import type { CallOutcome } from './pod-work-status.js';
import type { CallKind } from './work-item.js';

/** One finished (or timed-out) handler call, for metrics. */
export interface HandlerCallEvent {
  readonly handler: string;
  readonly call: CallKind;
  readonly outcome: CallOutcome;
  /** Time from the call's start to its end (or to its timeout), on the clock's `monotonic()` reading. */
  readonly durationMs: number;
}

/** Metrics hooks (the agent maps them to Prometheus). A hook that throws is logged and ignored. */
export interface ReconcilerObserver {
  /** Every PodUpdate consumed, before it is applied. */
  operation?(update: PodUpdate): void;
  /** Every syncPod / killPod call, once it ends. */
  handlerCall?(event: HandlerCallEvent): void;
}
