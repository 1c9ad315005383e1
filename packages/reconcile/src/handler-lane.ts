import {
  errorMessageWithCauses, exponentialBackoff, PodConfigError, podFullName, podKey, podRef, podUid, WARN_FAILURES, WARN_REMINDER_MS,
} from '@podconfig/core';
import type { Clock, KillPodReason, Pod, SyncHandler, SyncPodType } from '@podconfig/core';
import type { Logger } from 'pino';
import type { CallDeadlines } from './call-deadlines.js';
import type { CallResult } from './call-with-timeout.js';
import type { ClockTimers } from './clock-timers.js';
import type { Dispatcher } from './dispatcher.js';
import { DEFAULT_GRACE_PERIOD_SECONDS, gracePeriodSeconds, podLogRef, podRefOf, type PodRecord } from './pod-record.js';
import type { HandlerWorkStatus, OrphanKillStatus, PodRef, WorkState } from './pod-work-status.js';
import { WarnBudget } from './warn-budget.js';
import { NameOrphans } from './name-orphans.js';
import { PodWorker } from './pod-worker.js';
import type { HandlerCallEvent } from './reconciler-observer.js';
import { StaticPodGate } from './static-pod-gate.js';
import { TimerLists } from './timer-lists.js';
import { callKind, coalesceWork, type CallKind, type WorkItem } from './work-item.js';

/** What a lane needs from the reconciler that owns it. */
export interface LaneHost {
  /** Aborted at shutdown: every call's signal is linked to it. */
  signal(): AbortSignal;
  /** Runs handler calls with their time limit (one per run of the reconciler). */
  deadlines(): CallDeadlines;
  /** True once shutdown began: no new calls, timers or retries. */
  stopping(): boolean;
  observe(event: HandlerCallEvent): void;
  /** A call's signal was aborted by shutdown before the call finished. */
  interrupted(): void;
  /** A worker was dropped: the record may be forgotten. */
  workerGone(key: string): void;
}

export interface HandlerLaneOptions {
  readonly handler: SyncHandler;
  /** This lane's index in the dispatcher. */
  readonly index: number;
  readonly dispatcher: Dispatcher<PodWorker>;
  readonly timers: ClockTimers;
  readonly clock: Clock;
  /** The reconciler's component logger. */
  readonly logger: Logger;
  readonly host: LaneHost;
  readonly syncFrequencyMs: number;
  readonly retry: { readonly initialMs: number; readonly maxMs: number };
  readonly random?: () => number;
}

// Kubelet pod workers: resync after jitter(syncFrequency, 0.5); error backoff jittered by 0.5.
const RESYNC_JITTER = 0.5;
const RETRY_JITTER = 0.5;
// Failures in a row (core's WARN_FAILURES) are logged at warn; later ones at debug until the next success or a change
// of cause (house style: throttle repeats, but say what is new), but for one warn every WARN_REMINDER_MS.
// Per handler, at most this many failure warnings a minute; the rest at debug (a handler-wide outage fails every pod).
const FAILURE_WARNINGS_PER_MINUTE = 20;
// Likewise for "recovered" lines at info: the end of such an outage recovers every pod at once.
const RECOVERY_LINES_PER_MINUTE = 20;

/**
 * The pod a kill is of: the pod as the handler last ran it when that was under another full name (a rename, or
 * a kill owed before a create), so that the kill names what the handler runs; else the latest desired version.
 */
function killedPod(worker: PodWorker): Pod {
  const running = worker.runningPod;
  const pod = worker.record.pod;
  if (running === undefined || running === pod) return pod;
  return worker.createAfterKill || podFullName(running) !== podFullName(pod) ? running : pod;
}

/**
 * What a handler threw or rejected with, as an Error: a plain value (`Promise.reject(undefined)`, `throw 'busy'`)
 * becomes one that says what it was, so the log line has an `err` and /pods a message that means something.
 */
function asError(value: unknown, what: string): Error {
  if (value instanceof Error) return value;
  const described = value === undefined ? 'without a reason (undefined)'
    : typeof value === 'string' ? `with a string, not an Error: ${value}`
      : typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === null ? `with ${String(value)}, not an Error`
        : `with ${typeof value === 'object' ? 'an object' : `a ${typeof value}`} that is not an Error`;
  return new PodConfigError('PODCONFIG_HANDLER_FAILED', `${what} failed ${described}`, { retryable: true, cause: value });
}

/** `err` is the abort of a signal aborted with `reason`: the reason itself, an error caused by it, or an `AbortError`. */
function isAbort(err: unknown, reason: unknown): boolean {
  if (err === reason) return true;
  return err instanceof Error && (err.cause === reason || err.name === 'AbortError');
}

/** A handler call's log fields: built only when a line is written (most calls write none). */
function callFields(pod: Pod, call: CallKind, item: WorkItem): { pod: string | undefined; uid: string; call: CallKind; attempt: number } {
  return { pod: podLogRef(pod), uid: podUid(pod), call, attempt: item.attempt };
}

/**
 * One handler's side of the reconciliation loop: a {@link PodWorker} per pod, the static-pod
 * name gate (§6.6), retries with backoff, periodic resync. Handlers never share worker state, so
 * a failing or hung handler holds back nobody but itself (and at most its share of the
 * dispatcher's slots, until its calls time out).
 */
export class HandlerLane {
  readonly handler: SyncHandler;
  readonly name: string;
  readonly #o: HandlerLaneOptions;
  readonly #log: Logger;
  readonly #gate = new StaticPodGate<PodWorker>();
  readonly #nameOrphans = new NameOrphans<PodWorker>();
  /**
   * The workers of orphans whose kill is owed, running or waiting for its retry, in the order their kills began:
   * {@link orphanKills} lists them without a pass over every pod. A worker leaves when it is dropped (killed, or its
   * kill dropped) or its pod is wanted again.
   */
  readonly #orphanKills = new Set<PodWorker>();
  /** While an orphan sweep's listing runs: the record keys and full names of pods killed since it began. */
  #killedDuringListing: { readonly keys: Set<string>; readonly names: Set<string> } | undefined;
  readonly #random: () => number;
  /** Owed resyncs: a few timers for all pods, not one per pod. */
  readonly #resyncs: TimerLists<PodWorker>;
  readonly #syncWhat: string;
  readonly #killWhat: string;
  readonly #failureWarnings: WarnBudget;
  readonly #recoveryLines: WarnBudget;
  #seq = 0;

  constructor(options: HandlerLaneOptions) {
    this.handler = options.handler;
    this.name = options.handler.name;
    this.#o = options;
    this.#log = options.logger.child({ handler: options.handler.name });
    this.#random = options.random ?? Math.random;
    this.#resyncs = new TimerLists({ timers: options.timers, clock: options.clock, onDue: (worker) => this.#resyncWaitEnded(worker) });
    this.#syncWhat = `${this.name} syncPod`;
    this.#killWhat = `${this.name} killPod`;
    this.#failureWarnings = new WarnBudget({ perWindow: FAILURE_WARNINGS_PER_MINUTE, windowMs: 60_000, now: () => options.clock.monotonic() });
    this.#recoveryLines = new WarnBudget({ perWindow: RECOVERY_LINES_PER_MINUTE, windowMs: 60_000, now: () => options.clock.monotonic() });
  }

  /** Successful calls so far: orphan sweeps note it before listing. */
  get seq(): number {
    return this.#seq;
  }

  /** This lane has a worker for the pod: work owed, running, or remembered (a pod it may be running). */
  has(record: PodRecord): boolean {
    return record.workers[this.#o.index] !== undefined;
  }

  /** The desired pod changed (or is new): owe the handler a sync of `type`. */
  sync(record: PodRecord, type: SyncPodType): void {
    const worker = this.#worker(record);
    if (this.#orphanKills.size > 0) this.#orphanKills.delete(worker); // its UID is wanted again: no orphan now
    if (this.#runsUnderAnotherName(worker) || this.#runsUnderNameOwnedByAnother(worker)) {
      // A static pod renamed under its UID (D14: REMOVE, then ADD): the handler may run it under its old
      // full name, which it leaves by a kill before it claims the new one (§6.6), as the kubelet kills and
      // starts it again. The REMOVE's kill is owed or running; else (a kill deferred by readiness) one is owed.
      // So is a pod the handler ran as an API pod that is now static under a name another static pod owns.
      worker.createAfterKill = true;
      if (worker.pending?.kind !== 'kill' && worker.current?.kind !== 'kill') {
        this.#submit(worker, { kind: 'kill', reason: 'removed', gracePeriodSeconds: gracePeriodSeconds(worker.runningPod ?? record.pod), attempt: 1 });
      }
      return;
    }
    worker.createAfterKill = false;
    // A handler that was never told about the pod, or last told to kill it, gets a create.
    const told = worker.current ?? worker.pending;
    const create = worker.lastCall === undefined || worker.lastCall === 'kill' || told?.kind === 'kill';
    this.#submit(worker, { kind: 'sync', type: create ? 'create' : type, attempt: 1 });
  }

  /** The pod is not desired and may be killed now. A pod the handler never ran is just forgotten. */
  kill(record: PodRecord, reason: KillPodReason): void {
    const worker = record.workers[this.#o.index];
    if (worker === undefined) return;
    worker.createAfterKill = false;
    if (!worker.mayRun && !worker.inFlight) {
      this.#drop(worker);
      return;
    }
    this.#submit(worker, { kind: 'kill', reason, gracePeriodSeconds: gracePeriodSeconds(killedPod(worker)), attempt: 1 });
  }

  /** The pod is not desired but its kill must wait (readiness): stop syncing it meanwhile. */
  hold(record: PodRecord): void {
    const worker = record.workers[this.#o.index];
    if (worker === undefined) return;
    worker.createAfterKill = false;
    if (!worker.mayRun && !worker.inFlight) {
      this.#drop(worker);
      return;
    }
    this.#cancelTimer(worker);
    if (worker.pending?.kind === 'sync') {
      worker.pending = undefined;
      this.#o.dispatcher.dequeue(this.#o.index, worker);
    }
  }

  /** A pod the handler reported that nobody wants (orphan clean-up). No-op when already handled. */
  killOrphan(record: PodRecord): void {
    if (this.has(record)) return;
    const worker = this.#worker(record);
    worker.mayRun = true;
    this.#orphanKills.add(worker);
    if (podUid(record.pod) === '') this.#nameOrphans.add(podFullName(record.pod), worker);
    this.#submit(worker, { kind: 'kill', reason: 'orphaned', gracePeriodSeconds: DEFAULT_GRACE_PERIOD_SECONDS, attempt: 1 });
  }

  /**
   * An orphan sweep's listing begins: what is killed from now on, and so forgotten, must not be taken for an
   * orphan by the listing, which may have been taken before the kill ({@link endListing}).
   */
  beginListing(): void {
    this.#killedDuringListing = { keys: new Set(), names: new Set() };
  }

  /** The listing has been read: the record keys and full names of the pods killed since it began. */
  endListing(): { readonly keys: ReadonlySet<string>; readonly names: ReadonlySet<string> } {
    const killed = this.#killedDuringListing ?? { keys: new Set<string>(), names: new Set<string>() };
    this.#killedDuringListing = undefined;
    return killed;
  }

  /**
   * A desired pod the handler did not report (orphan clean-up): create it again, unless work for
   * it is owed, running or failing anyway, or it succeeded after the listing began (`sinceSeq`).
   */
  recreate(record: PodRecord, sinceSeq: number): boolean {
    const worker = record.workers[this.#o.index];
    if (worker === undefined || worker.inFlight || worker.pending !== undefined || worker.gate === 'waiting') return false;
    if (worker.lastResult !== 'success' || !worker.mayRun || worker.lastSuccessSeq > sinceSeq) return false;
    this.#submit(worker, { kind: 'sync', type: 'create', attempt: 1 });
    return true;
  }

  /**
   * Runs the worker's owed call; called by the dispatcher. `done` frees the slot: once the call ended
   * and its outcome was taken in, or at once when nothing may run.
   */
  execute(worker: PodWorker, done: () => void): void {
    const item = worker.pending;
    // An owed kill may have turned into a create while queued: it must own its full name first (§6.6).
    if (item === undefined || worker.inFlight || (item.kind === 'sync' && !this.#mayStart(worker))) {
      done();
      return;
    }
    worker.pending = undefined;
    worker.current = item;
    const kind = callKind(item);
    // Monotonic for the call's duration; the wall clock only for the status timestamp.
    const started = this.#o.clock.monotonic();
    worker.lastCall = kind;
    worker.attempt = item.attempt;
    worker.lastCallTime = this.#o.clock.now();
    const record = worker.record;
    // Shared, not copied: the record's pod is deep-frozen (the reconciler freezes what it takes in).
    const pod = item.kind === 'kill' ? killedPod(worker) : record.pod;
    if (item.kind === 'sync') {
      worker.mayRun = true;
      worker.runningPod = pod;
    }
    if (this.#log.isLevelEnabled('debug')) this.#log.debug(callFields(pod, kind, item), 'handler call');

    const source = record.source;
    this.#o.host.deadlines().run(
      (signal) => {
        if (item.kind === 'kill') {
          return this.handler.killPod({ reason: item.reason, pod, gracePeriodSeconds: item.gracePeriodSeconds, attempt: item.attempt }, signal);
        }
        if (source === undefined) throw new PodConfigError('PODCONFIG_INTERNAL', 'sync of a pod without a source');
        return this.handler.syncPod({ type: item.type, pod, source, attempt: item.attempt }, signal);
      },
      kind === 'kill' ? this.#killWhat : this.#syncWhat,
      (called) => {
        try {
          this.#ended(worker, item, kind, started, called);
        } catch (err: unknown) {
          // A bug here must not keep the slot: the call ended either way.
          this.#log.error({ err, pod: podRef(pod), call: kind }, 'internal error after a handler call');
        } finally {
          done();
        }
        // A failed kill of an orphan listed by name is retried later: a sync that waited for it may start now.
        if (item.kind === 'kill' && this.#nameOrphans.size > 0) {
          for (const waiting of this.#nameOrphans.ended(podFullName(record.pod))) this.#schedule(waiting);
        }
      },
    );
  }

  /**
   * A call ended: records its outcome, then schedules what the worker owes next (retry, resync, owed work).
   * `started` is the clock's monotonic reading when the call started.
   */
  #ended(worker: PodWorker, item: WorkItem, kind: CallKind, started: number, called: CallResult<void>): void {
    const record = worker.record;
    const pod = record.pod;
    const shutDown = this.#o.host.signal().aborted;
    if (shutDown) this.#o.host.interrupted();
    // Handlers return normally when their signal aborts; a call cut short by shutdown did not
    // complete its work, so it must not count (or be reported) as a success.
    const result = called.outcome === 'success' && shutDown
      ? { outcome: 'error' as const, err: new PodConfigError('PODCONFIG_HANDLER_FAILED', `${this.name} ${kind} was cut short by shutdown`, { retryable: true }) }
      : called;
    // It stopped as the contract asks: returned, or threw the abort (its reason, or an AbortError, as undici and
    // fs throw). Another error, or a timeout, is a failure of its own, reported as one.
    const cutShort = shutDown && (called.outcome === 'success' || (called.outcome === 'error' && isAbort(called.err, this.#o.host.signal().reason)));
    const now = this.#o.clock.now();
    const at = this.#o.clock.monotonic();
    worker.current = undefined;
    worker.lastResult = result.outcome;
    this.#o.host.observe({ handler: this.name, call: kind, outcome: result.outcome, durationMs: at - started });

    if (result.outcome === 'success') {
      this.#seq += 1;
      worker.lastSuccessSeq = this.#seq;
      worker.lastSyncTime = now;
      worker.lastSyncAt = at;
      worker.backoff?.reset();
      if (worker.failures > 0) {
        const fields = { ...callFields(pod, kind, item), failures: worker.failures };
        const demoted = this.#recoveryLines.take();
        if (demoted === undefined) this.#log.debug(fields, 'handler call recovered');
        else this.#log.info(demoted > 0 ? { ...fields, recoveriesDemoted: demoted } : fields, 'handler call recovered');
      }
      worker.failures = 0;
      worker.failureWarnedAt = undefined;
      if (item.kind === 'kill') {
        worker.mayRun = false;
        worker.runningPod = undefined;
        const killed = this.#killedDuringListing;
        if (killed !== undefined) {
          killed.keys.add(record.key);
          killed.names.add(podKey(record.pod));
        }
        this.#releaseGate(worker);
        if (worker.createAfterKill) {
          worker.createAfterKill = false;
          worker.pending = coalesceWork(worker.pending, { kind: 'sync', type: 'create', attempt: 1 });
        }
        if (worker.pending === undefined) {
          this.#drop(worker);
          return;
        }
      }
    } else {
      worker.failures += 1;
      const err = asError(result.err, kind === 'kill' ? this.#killWhat : this.#syncWhat);
      const previousMessage = worker.lastError?.message;
      worker.lastError = {
        // With its causes: /pods tells EACCES from ENOSPC from ECONNREFUSED, as the log line does.
        message: errorMessageWithCauses(err),
        code: PodConfigError.is(err) ? err.code : 'PODCONFIG_HANDLER_FAILED',
        time: now,
      };
      // A rename's kill is retried even when a sync was owed before it: the create comes after it (see sync()).
      if (item.kind === 'kill' && worker.createAfterKill && worker.pending?.kind === 'sync') worker.pending = undefined;
      // Newer work supersedes the retry; a sync of a pod nobody wants any more is not retried.
      const retry = worker.pending === undefined && !this.#o.host.stopping() && (item.kind === 'kill' || record.desired);
      const retryInMs = retry ? this.#scheduleRetry(worker, item) : undefined;
      if (cutShort) {
        // Stopped, not broken: one line per call (at most --handler-concurrency of them), without a stack.
        this.#log.info(callFields(pod, kind, item), 'handler call cut short by shutdown');
      } else {
        const fields = { ...callFields(pod, kind, item), err, outcome: result.outcome, failures: worker.failures, ...(retryInMs === undefined ? {} : { retryInMs: Math.round(retryInMs) }) };
        const causeChanged = worker.failures > WARN_FAILURES && previousMessage !== worker.lastError.message;
        const reminder = worker.failureWarnedAt === undefined || at - worker.failureWarnedAt >= WARN_REMINDER_MS;
        // A warning owed (let through or demoted by the handler's budget) starts the pod's reminder wait again.
        const owed = worker.failures <= WARN_FAILURES || causeChanged || reminder;
        if (owed) worker.failureWarnedAt = at;
        const demoted = owed ? this.#failureWarnings.take() : undefined;
        if (demoted === undefined) this.#log.debug(fields, 'handler call failed');
        else this.#log.warn({ ...fields, ...(causeChanged ? { causeChanged } : {}), ...(demoted > 0 ? { warningsDemoted: demoted } : {}) }, 'handler call failed');
      }
      if (retry) return;
    }

    if (worker.pending !== undefined) this.#schedule(worker);
    else if (item.kind === 'sync' && record.desired) this.#scheduleResync(worker, at);
  }

  /** Where the pod's worker on this handler stands; undefined when the pod has none here. */
  state(record: PodRecord): WorkState | undefined {
    const w = record.workers[this.#o.index];
    if (w === undefined) return undefined;
    if (w.inFlight) return 'running';
    if (this.#o.dispatcher.isQueued(this.#o.index, w)) return 'queued';
    if (w.gate === 'waiting' || (this.#nameOrphans.size > 0 && this.#nameOrphans.isWaiting(podFullName(w.record.pod), w))) return 'waiting-for-name';
    if (w.record.killDeferred) return 'kill-deferred';
    if (w.timerKind === 'retry') return 'backoff';
    return 'idle';
  }

  status(record: PodRecord): HandlerWorkStatus | undefined {
    const w = record.workers[this.#o.index];
    const state = this.state(record);
    if (w === undefined || state === undefined) return undefined;
    const iso = (t: number): string => new Date(t).toISOString();
    const pending = w.pending === undefined ? undefined : callKind(w.pending);
    return {
      state,
      attempt: w.attempt,
      failures: w.failures,
      ...(pending === undefined ? {} : { pending }),
      ...(w.lastCall === undefined ? {} : { lastCall: w.lastCall }),
      ...(w.lastResult === undefined ? {} : { lastResult: w.lastResult }),
      ...(w.lastCallTime === undefined ? {} : { lastCallTime: iso(w.lastCallTime) }),
      ...(w.lastSyncTime === undefined ? {} : { lastSyncTime: iso(w.lastSyncTime) }),
      ...(w.lastError === undefined ? {} : { lastError: { message: w.lastError.message, code: w.lastError.code, time: iso(w.lastError.time) } }),
      // The timer's due time is monotonic: shown as the wall time it is that far from now.
      ...(w.timerKind === 'retry' && w.timer !== undefined ? { nextRetryTime: iso(this.#o.clock.now() + w.timer.due - this.#o.clock.monotonic()) } : {}),
      ...(state === 'waiting-for-name' ? this.#waitingFor(w) : {}),
    };
  }

  /** A waiting worker's `waitingFor`: the orphan listed under its full name, or the static pod owning that name. */
  #waitingFor(worker: PodWorker): { readonly waitingFor: PodRef & { readonly orphan: boolean } } | undefined {
    const name = podFullName(worker.record.pod);
    const orphan = this.#nameOrphans.size > 0 && this.#nameOrphans.isWaiting(name, worker) ? this.#nameOrphans.get(name) : undefined;
    if (orphan !== undefined) return { waitingFor: { ...podRefOf(orphan.record.pod), orphan: true } };
    const owner = worker.gate === 'waiting' && worker.gateName !== undefined ? this.#gate.owner(worker.gateName) : undefined;
    return owner === undefined ? undefined : { waitingFor: { ...podRefOf(owner.record.pod), orphan: false } };
  }

  /**
   * The first `limit` orphan kills under way on this handler (in the order they began), each with the desired pods
   * whose sync waits for it, and how many there are. O(limit): no pass over every pod.
   */
  orphanKills(limit: number): { readonly items: readonly OrphanKillStatus[]; readonly total: number } {
    const items: OrphanKillStatus[] = [];
    for (const worker of this.#orphanKills) {
      if (items.length >= limit) break;
      const status = this.status(worker.record);
      if (status === undefined) continue;
      const name = podFullName(worker.record.pod);
      const waiting = this.#nameOrphans.size > 0 && this.#nameOrphans.get(name) === worker ? this.#nameOrphans.waiters(name) : [];
      items.push({
        ...podRefOf(worker.record.pod),
        handler: this.name,
        ...status,
        ...(waiting.length === 0 ? {} : { waitingPods: waiting.map((w) => podRefOf(w.record.pod)) }),
      });
    }
    return { items, total: this.#orphanKills.size };
  }

  #worker(record: PodRecord): PodWorker {
    let worker = record.workers[this.#o.index];
    if (worker === undefined) {
      worker = new PodWorker(record);
      record.workers[this.#o.index] = worker;
    }
    return worker;
  }

  #submit(worker: PodWorker, item: WorkItem): void {
    worker.pending = coalesceWork(worker.pending, item);
    // New work replaces the owed resync; its timer stays armed for the resync the call will owe.
    if (worker.timerKind === 'resync') worker.resyncAt = undefined;
    else this.#cancelTimer(worker);
    this.#schedule(worker);
  }

  /** Queues the worker for a slot if it owes a call, is not running one, and may start. */
  #schedule(worker: PodWorker): void {
    if (this.#o.host.stopping() || worker.inFlight || worker.pending === undefined) return;
    if (worker.pending.kind === 'sync' && !this.#mayStart(worker)) return;
    this.#o.dispatcher.enqueue(this.#o.index, worker);
  }

  /** §6.6: a static pod syncs only while it owns its full name on this handler. */
  #mayStart(worker: PodWorker): boolean {
    if (this.#nameOrphans.size > 0 && !this.#mayStartBesideNameOrphan(worker)) return false;
    if (!worker.record.isStatic) {
      // Its UID now comes from the apiserver (API pods are not gated): it stops waiting for a name it wanted as
      // a static pod, and gives up one it owns but does not run under; one it runs under, it keeps until
      // killed, as the kubelet's pod workers do.
      if (worker.gate === 'waiting' || (worker.gate === 'owner' && !this.#runsUnder(worker, worker.gateName))) this.#releaseGate(worker);
      return true;
    }
    const name = podFullName(worker.record.pod);
    // A claim made under another name (renamed before it ran under it, see sync()) is given up for this one.
    if (worker.gateName !== name && worker.gate !== 'none') this.#releaseGate(worker);
    if (worker.gate === 'owner') return true;
    worker.gateName = name;
    if (this.#gate.acquire(name, worker)) {
      worker.gate = 'owner';
      return true;
    }
    if (worker.gate !== 'waiting') {
      const owner = this.#gate.owner(worker.gateName);
      this.#log.info(
        { pod: podRef(worker.record.pod), uid: podUid(worker.record.pod), ownerUid: owner === undefined ? undefined : podUid(owner.record.pod) },
        'static pod waits for another with the same full name to be killed',
      );
    }
    worker.gate = 'waiting';
    return false;
  }

  /**
   * A sync under the full name of an orphan the handler listed by name alone waits while that orphan's kill
   * runs; a kill not running yet (owed, or waiting for its retry) is dropped: the name is wanted again.
   */
  #mayStartBesideNameOrphan(worker: PodWorker): boolean {
    const name = podFullName(worker.record.pod);
    const orphan = this.#nameOrphans.get(name);
    if (orphan === undefined || orphan === worker) return true;
    if (orphan.inFlight) {
      if (!this.#nameOrphans.isWaiting(name, worker)) {
        this.#log.info({ pod: podRef(worker.record.pod), uid: podUid(worker.record.pod) }, 'pod waits for the kill of an orphan listed under its name');
      }
      this.#nameOrphans.wait(name, worker);
      return false;
    }
    this.#log.info({ pod: podRef(worker.record.pod), uid: podUid(worker.record.pod) }, 'orphan kill dropped: a desired pod has its name');
    orphan.pending = undefined;
    this.#drop(orphan);
    return true;
  }

  /** A static pod's worker whose pod was renamed while the handler may run it under its former full name. */
  #runsUnderAnotherName(worker: PodWorker): boolean {
    const running = worker.runningPod;
    return running !== undefined && (worker.mayRun || worker.inFlight) && worker.record.pod !== running &&
      podFullName(running) !== podFullName(worker.record.pod);
  }

  /**
   * A static pod the handler may run under its full name without owning that name, which another static pod
   * owns: it ran as an API pod (not gated) before its UID came from a static source.
   */
  #runsUnderNameOwnedByAnother(worker: PodWorker): boolean {
    if (!worker.record.isStatic || worker.gate === 'owner') return false;
    const name = podFullName(worker.record.pod);
    if (!this.#runsUnder(worker, name)) return false;
    const owner = this.#gate.owner(name);
    return owner !== undefined && owner !== worker;
  }

  /** The handler may run the worker's pod under `fullName`. */
  #runsUnder(worker: PodWorker, fullName: string | undefined): boolean {
    const running = worker.runningPod;
    return running !== undefined && (worker.mayRun || worker.inFlight) && podFullName(running) === fullName;
  }

  #releaseGate(worker: PodWorker): void {
    const name = worker.gateName;
    if (worker.gate === 'none' || name === undefined) return;
    worker.gate = 'none';
    worker.gateName = undefined;
    const next = this.#gate.release(name, worker);
    if (next === undefined) return;
    next.gate = 'owner';
    this.#schedule(next);
  }

  #scheduleRetry(worker: PodWorker, failed: WorkItem): number {
    worker.backoff ??= exponentialBackoff({ ...this.#o.retry, jitter: RETRY_JITTER, random: this.#random });
    const delay = worker.backoff.next();
    const retry: WorkItem = failed.kind === 'sync'
      ? { kind: 'sync', type: 'resync', attempt: failed.attempt + 1 }
      : { ...failed, attempt: failed.attempt + 1 };
    this.#cancelTimer(worker);
    worker.timerKind = 'retry';
    worker.timer = this.#o.timers.after(delay, () => {
      worker.timer = undefined;
      worker.timerKind = undefined;
      worker.pending = coalesceWork(worker.pending, retry);
      this.#schedule(worker);
    });
    return delay;
  }

  /**
   * Owes the worker a resync `[1, 1.5) × syncFrequency` after `now` (its successful sync, on the clock's
   * monotonic reading, as every due time here: a wall-clock step moves none). Most pods
   * are synced again before then, so a resync wait, once begun, is not cancelled and begun again per
   * call: it goes on, and when it ends before the resync is due it begins again for the rest.
   */
  #scheduleResync(worker: PodWorker, now: number): void {
    if (this.#o.host.stopping()) return;
    // Jitter in 1 % steps: the waits of all pods share a timer per distinct delay (TimerLists).
    const frequency = this.#o.syncFrequencyMs;
    const delay = frequency * (1 + RESYNC_JITTER * (Math.floor(this.#random() * 100) / 100));
    worker.resyncAt = now + delay;
    // A wait going on ends before this sync's latest resync time: it began at most 1.5 × syncFrequency
    // earlier.
    if (worker.timerKind !== 'resync') this.#awaitResync(worker, delay);
  }

  #awaitResync(worker: PodWorker, ms: number): void {
    worker.timerKind = 'resync';
    this.#resyncs.schedule(worker, ms);
  }

  #resyncWaitEnded(worker: PodWorker): void {
    worker.timerKind = undefined;
    const at = worker.resyncAt;
    if (at === undefined || this.#o.host.stopping()) return;
    const now = this.#o.clock.monotonic();
    if (now < at) {
      // The rest in whole 1 % steps too (few distinct delays), but never past 1.5 × syncFrequency
      // after the sync that owed it (lastSyncAt), nor before it is due.
      const frequency = this.#o.syncFrequencyMs;
      const latest = Math.max(at, (worker.lastSyncAt ?? now) + frequency * (1 + RESYNC_JITTER) - 1);
      this.#awaitResync(worker, Math.min(Math.ceil((at - now) / (frequency / 100)) * (frequency / 100), latest - now));
      return;
    }
    worker.resyncAt = undefined;
    this.#submit(worker, { kind: 'sync', type: 'resync', attempt: 1 });
  }

  #cancelTimer(worker: PodWorker): void {
    worker.timer?.cancel();
    worker.timer = undefined;
    if (worker.timerKind === 'resync') this.#resyncs.cancel(worker);
    worker.timerKind = undefined;
    worker.resyncAt = undefined;
  }

  #drop(worker: PodWorker): void {
    this.#cancelTimer(worker);
    this.#o.dispatcher.dequeue(this.#o.index, worker);
    if (worker.gate !== 'none') this.#releaseGate(worker);
    worker.record.workers[this.#o.index] = undefined;
    if (this.#orphanKills.size > 0) this.#orphanKills.delete(worker);
    if (this.#nameOrphans.size > 0) {
      const name = podFullName(worker.record.pod);
      this.#nameOrphans.stopWaiting(name, worker);
      for (const waiting of this.#nameOrphans.remove(name, worker)) this.#schedule(waiting);
    }
    this.#o.host.workerGone(worker.record.key);
  }
}
