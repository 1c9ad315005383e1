export { Reconciler } from './reconciler.js';
export type { ReconcilerOptions } from './reconciler.js';
export { HandlerStartError } from './handler-start-error.js';
export type { ReconcilerObserver, HandlerCallEvent } from './reconciler-observer.js';
export type { ReadinessPolicy, ReadinessStatus } from './source-readiness.js';
export type { PodWorkStatus, HandlerWorkStatus, WorkState, CallOutcome, PodRef, OrphanKills, OrphanKillStatus } from './pod-work-status.js';
export type { CallKind } from './work-item.js';
