import {
  callHook, deepFreeze, isMirrorPod, isStaticPod,
  ALL_SOURCES, ConfigInvalidError, errorMessage, handlerShapeProblem, isSourceName, strayHandlerMethods, isClosable, isPodLister, isStartable, PodConfigError, podKey, podRef, podUid, reportsRuntimeHealth,
} from '@podconfig/core';
import type { ActualPod, Clock, Pod, PodLister, PodUpdate, RuntimeHealthReporter, SourceName, SyncHandler, SyncPodType } from '@podconfig/core';
import type { Logger } from 'pino';
import { AbortableWait } from './abortable-wait.js';
import { CallDeadlines } from './call-deadlines.js';
import { callWithTimeout } from './call-with-timeout.js';
import { ClockTimers, type Timer } from './clock-timers.js';
import { Dispatcher } from './dispatcher.js';
import { HandlerLane, type LaneHost } from './handler-lane.js';
import { HandlerStartError } from './handler-start-error.js';
import { podLogRef, type PodRecord } from './pod-record.js';
import type { HandlerWorkStatus, OrphanKills, OrphanKillStatus, PodRef, PodWorkStatus, WorkState } from './pod-work-status.js';
import type { PodWorker } from './pod-worker.js';
import type { HandlerCallEvent, ReconcilerObserver } from './reconciler-observer.js';
import { SourceReadiness, type ReadinessPolicy, type ReadinessStatus } from './source-readiness.js';

export interface ReconcilerOptions {
  readonly handlers: readonly SyncHandler[];
  /** The configured sources: "all sources ready" needs every one of them. */
  readonly sources: readonly SourceName[];
  readonly logger: Logger;
  readonly clock: Clock;
  /** Resync each pod every [1, 1.5) × this after its last successful sync (kubelet jitter 0.5). Default 60_000. */
  readonly syncFrequencyMs?: number;
  /**
   * Orphan clean-up (the kubelet's housekeeping, spec §7) starts this long after the previous one ended. Default
   * 2_000 (`housekeepingPeriod`, spec §8); a clean-up that takes over 1 s is logged, as the kubelet logs one.
   */
  readonly housekeepingPeriodMs?: number;
  /** Handler calls in flight at most, across pods and handlers. Default 8. */
  readonly concurrency?: number;
  /** Per call (and per start() / listPods()): the call's signal aborts and the call is abandoned. Default 60_000. */
  readonly callTimeoutMs?: number;
  /**
   * Per pod and handler, after a failed call: the delay `d` doubles from `initialMs` up to `maxMs`, each
   * jittered into [d, 1.5d). Default `initialMs` 10_000 and `maxMs` = `initialMs`: a flat 10 s jittered
   * by 0.5, in [10 s, 15 s), as the kubelet's pod workers (backOffPeriod, spec §7, §8). Set `maxMs` above
   * `initialMs` for exponential backoff; a `maxMs` alone below the default start is where it starts.
   */
  readonly retry?: { readonly initialMs?: number; readonly maxMs?: number };
  /** Default `per-source` (decision D10). */
  readonly readiness?: ReadinessPolicy;
  /** How long in-flight calls get after the run signal aborts; also the budget of each close(). Default 10_000. */
  readonly shutdownTimeoutMs?: number;
  readonly observer?: ReconcilerObserver;
  /**
   * Whether orphan kills may happen now (D18). The agent returns false while a source is provisional
   * (the http source's D9 grace period: its origin never answered; the file source with a manifest that
   * has not decoded since start), because a pod a handler runs may still be wanted there. Missing pods
   * are still re-created. Default: always.
   */
  readonly orphanKillsAllowed?: () => boolean;
  /** For tests: the jitter source (default Math.random). */
  readonly random?: () => number;
}

const DEFAULTS = {
  syncFrequencyMs: 60_000,
  housekeepingPeriodMs: 2_000,
  concurrency: 8,
  callTimeoutMs: 60_000,
  // Kubelet pod workers' backOffPeriod (spec §8): flat unless retry.maxMs says otherwise.
  retryInitialMs: 10_000,
  shutdownTimeoutMs: 10_000,
} as const;

/** Every work state at 0, for counting. */
const NO_WORK: Readonly<Record<WorkState, number>> = { idle: 0, queued: 0, running: 0, backoff: 0, 'waiting-for-name': 0, 'kill-deferred': 0 };

/** The sync loop's wait while a handler reports runtime errors: 100 ms, doubling up to 5 s (spec §7, §8). */
const RUNTIME_BACKOFF_INITIAL_MS = 100;
const RUNTIME_BACKOFF_MAX_MS = 5_000;
/**
 * How often the handlers' runtime health is asked while the loop runs, updates or not: the kubelet's sync loop
 * checks it every turn of its 1 s ticker, so a runtime going down is logged and its hold timed from then, not from
 * the next update, probe or scrape.
 */
const RUNTIME_CHECK_MS = 1_000;
/** A housekeeping run (orphan clean-up) longer than this is logged at warn, as the kubelet logs it (spec §7). */
const HOUSEKEEPING_WARNING_MS = 1_000;
/** The syncloop health check fails after runtime errors for max(2 × syncFrequency, this) (spec §7). */
const SYNC_LOOP_MIN_GRACE_MS = 300_000;

/** Logs a sweep's problem under `key` (default `msg`): at `level` when the previous sweep did not log it, else at debug. */
type SweepNote = (level: 'warn' | 'info', fields: Record<string, unknown>, msg: string, key?: string) => void;

/** A handler's orphan clean-up loop, which shutdown waits for. */
interface Sweep {
  readonly handler: string;
  readonly done: Promise<void>;
}

/**
 * Orphan kills `orphanKills()` lists at most (and held orphans each sweep keeps, per handler): a provisional source
 * that holds every kill, or an outage that ends, may leave thousands at once.
 */
const ORPHAN_KILLS_LISTED = 100;

/** The orphans a handler's last clean-up found while their kills were held (D18): the first few, and how many. */
interface HeldOrphans {
  readonly pods: readonly PodRef[];
  readonly count: number;
}

/** Record key of an orphan reported without a UID: NUL cannot appear in a UID from a source. */
const orphanKey = (key: string): string => `\u0000${key}`;

/**
 * The reconciliation loop (spec §7, §8, §6.5, §6.6; decisions D10, D18): consumes the merger's
 * PodUpdates and drives every {@link SyncHandler} towards the desired pods, per pod and per
 * handler serially, across pods concurrently, with retries, resync and orphan clean-up.
 */
export class Reconciler {
  readonly #o: ReconcilerOptions;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #policy: ReadinessPolicy;
  readonly #syncFrequencyMs: number;
  readonly #housekeepingPeriodMs: number;
  readonly #callTimeoutMs: number;
  readonly #shutdownTimeoutMs: number;
  readonly #readiness: SourceReadiness;
  readonly #timers: ClockTimers;
  readonly #dispatcher: Dispatcher<PodWorker>;
  readonly #lanes: readonly HandlerLane[];
  /** The handlers that can report runtime errors (spec §7's gate), with their lanes' names: asked before every update. */
  readonly #runtimeReporters: readonly { readonly name: string; readonly reporter: RuntimeHealthReporter }[];
  /** Every pod with a record: desired ones, and ones still being killed. Keyed by UID. */
  readonly #pods = new Map<string, PodRecord>();
  /** REMOVEd pods whose kill waits for readiness, by the pod's source. */
  readonly #deferred = new Map<SourceName, Set<string>>();
  /** Per handler, the orphans its last clean-up held (D18); none while kills are allowed. */
  readonly #heldOrphans = new Map<HandlerLane, HeldOrphans>();
  readonly #allReadyWaiters = new Set<() => void>();
  /** Aborted when run()'s signal aborts (run() may be called once): every call's signal follows it. */
  readonly #stop = new AbortController();
  readonly #deadlines: CallDeadlines;
  #stopping = false;
  #ran = false;
  /** Calls whose signal shutdown aborted before they finished (cut short, or abandoned later). */
  #interruptedCalls = 0;
  /** Settles once the update stream's producer has finished its return(). */
  #producerStopped: Promise<void> = Promise.resolve();
  /** Handlers whose start() failed: they are not closed. */
  readonly #notStarted = new Set<HandlerLane>();
  /** The runtime error last seen (spec §7's gate), and since when (monotonic) errors have been seen without a break. */
  #runtimeError: string | undefined;
  #runtimeDownSince: number | undefined;
  #runtimeBackoffMs = RUNTIME_BACKOFF_INITIAL_MS;

  constructor(options: ReconcilerOptions) {
    this.#o = options;
    this.#clock = options.clock;
    this.#log = options.logger.child({ component: 'reconciler' });
    this.#policy = options.readiness ?? 'per-source';
    this.#syncFrequencyMs = positive('syncFrequencyMs', options.syncFrequencyMs ?? DEFAULTS.syncFrequencyMs);
    this.#housekeepingPeriodMs = positive('housekeepingPeriodMs', options.housekeepingPeriodMs ?? DEFAULTS.housekeepingPeriodMs);
    this.#callTimeoutMs = positive('callTimeoutMs', options.callTimeoutMs ?? DEFAULTS.callTimeoutMs);
    this.#shutdownTimeoutMs = nonNegative('shutdownTimeoutMs', options.shutdownTimeoutMs ?? DEFAULTS.shutdownTimeoutMs);
    const handlerCount = Array.isArray(options.handlers) ? options.handlers.length : 0;
    // Unset: at least a slot per handler, whatever the number of handlers.
    const concurrency = options.concurrency ?? Math.max(DEFAULTS.concurrency, handlerCount);
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new ConfigInvalidError(`concurrency must be a positive integer, got ${concurrency}`);
    if (concurrency < handlerCount) {
      // A hung handler holds every slot it may (max(1, concurrency − handlers + 1)): with fewer slots than handlers,
      // another handler may get none until the hung calls time out.
      throw new ConfigInvalidError(`concurrency ${concurrency} is below the number of handlers (${handlerCount}): each handler needs a slot of its own, or a hung one holds back the others`);
    }
    // A cap alone below the default start (`{ maxMs: 5_000 }`) starts there: it only asks for quicker retries.
    const maxGiven = options.retry?.maxMs;
    const initialMs = positive('retry.initialMs', options.retry?.initialMs ?? (maxGiven === undefined ? DEFAULTS.retryInitialMs : Math.min(DEFAULTS.retryInitialMs, maxGiven)));
    const retry = { initialMs, maxMs: positive('retry.maxMs', options.retry?.maxMs ?? initialMs) };
    if (retry.maxMs < retry.initialMs) throw new ConfigInvalidError('retry.maxMs must not be below retry.initialMs');
    if (this.#policy !== 'per-source' && this.#policy !== 'all-sources') {
      throw new ConfigInvalidError(`unknown readiness policy ${String(this.#policy)}`);
    }
    for (const source of options.sources as readonly unknown[]) {
      if (!isSourceName(source)) {
        throw new ConfigInvalidError(`sources: unknown source ${JSON.stringify(source)} (known: ${ALL_SOURCES.join(', ')})`);
      }
    }
    const names = new Set<string>();
    (options.handlers as readonly unknown[]).forEach((handler, index) => {
      const problem = handlerShapeProblem(handler);
      if (problem !== undefined) {
        throw new ConfigInvalidError(`handlers[${index}]: a handler needs a non-empty name, syncPod() and killPod(): ${problem}`);
      }
      const { name } = handler as SyncHandler;
      if (names.has(name)) throw new ConfigInvalidError(`handlers: two sync handlers are named "${name}": names must be unique`);
      names.add(name);
      // The optional capabilities are found by name: a misspelt one would never be called, and nothing else says so.
      for (const { method, meant } of strayHandlerMethods(handler as SyncHandler)) {
        if (meant !== undefined) this.#log.warn({ handler: name, method, meant }, 'handler method is never called: a misspelt capability?');
      }
    });

    this.#readiness = new SourceReadiness(options.sources);
    this.#timers = new ClockTimers({ clock: options.clock, onError: (err) => this.#log.error({ err }, 'clock failed; timer dropped') });
    this.#deadlines = new CallDeadlines({ timers: this.#timers, clock: this.#clock, timeoutMs: this.#callTimeoutMs, parent: this.#stop.signal });
    this.#dispatcher = new Dispatcher<PodWorker>({
      concurrency,
      lanes: options.handlers.length,
      run: (lane, worker, done) => {
        const handlerLane = this.#lanes[lane];
        if (handlerLane === undefined) done();
        else handlerLane.execute(worker, done);
      },
    });
    const host: LaneHost = {
      signal: () => this.#stop.signal,
      deadlines: () => this.#deadlines,
      stopping: () => this.#stopping,
      observe: (event) => this.#observeCall(event),
      interrupted: () => { this.#interruptedCalls += 1; },
      workerGone: (key) => this.#forgetIfDone(key),
    };
    this.#lanes = options.handlers.map((handler, index) => new HandlerLane({
      handler, index, host, retry,
      dispatcher: this.#dispatcher,
      timers: this.#timers,
      clock: options.clock,
      logger: this.#log,
      syncFrequencyMs: this.#syncFrequencyMs,
      ...(options.random === undefined ? {} : { random: options.random }),
    }));
    this.#runtimeReporters = this.#lanes.flatMap((lane) => (reportsRuntimeHealth(lane.handler) ? [{ name: lane.name, reporter: lane.handler }] : []));
  }

  /**
   * Consumes merger output until it ends or `signal` aborts; then stops dispatching, aborts
   * in-flight calls, waits up to shutdownTimeoutMs, abandons the calls still running, calls close() hooks
   * (so an abandoned call may still be running during its handler's close()), resolves. Calls start()
   * hooks first: a failing start() rejects with a {@link HandlerStartError} (`PODCONFIG_HANDLER_FAILED`, or
   * `PODCONFIG_HANDLER_TIMEOUT`). If `updates` throws, run() shuts down the same way and rethrows.
   */
  async run(updates: AsyncIterable<PodUpdate>, signal: AbortSignal): Promise<void> {
    if (this.#ran) throw new PodConfigError('PODCONFIG_INTERNAL', 'Reconciler.run() may be called only once');
    this.#ran = true;
    const stop = this.#stop;
    const onAbort = (): void => this.#stopCalls(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) this.#stopCalls(signal.reason);
    let failure: PodConfigError | undefined;
    let sweeps: Sweep[] = [];
    try {
      await this.#startHandlers(stop.signal);
      if (!stop.signal.aborted) {
        this.#log.info({ handlers: this.#lanes.map((l) => l.name), sources: this.#readiness.status().configured, readiness: this.#policy }, 'reconciler started');
        sweeps = this.#lanes.flatMap((lane) => (isPodLister(lane.handler) ? [{ handler: lane.name, done: this.#sweepLoop(lane, lane.handler, stop.signal) }] : []));
        this.#watchRuntime(stop.signal);
        await this.#consume(updates, stop.signal);
      }
    } catch (err: unknown) {
      failure = PodConfigError.is(err) ? err : new PodConfigError('PODCONFIG_INTERNAL', `update stream failed: ${errorMessage(err)}`, { cause: err });
    } finally {
      signal.removeEventListener('abort', onAbort);
      await this.#shutdown(sweeps);
    }
    if (failure !== undefined) throw failure;
  }

  /** For GET /pods: desired pods and pods still being killed, sorted by namespace/name. */
  pods(): readonly PodWorkStatus[] {
    const out: PodWorkStatus[] = [];
    for (const record of this.#pods.values()) {
      const handlers: Record<string, HandlerWorkStatus> = {};
      for (const lane of this.#lanes) {
        const status = lane.status(record);
        if (status !== undefined) handlers[lane.name] = status;
      }
      const meta = record.pod.metadata;
      out.push({
        uid: meta?.uid ?? '',
        namespace: meta?.namespace ?? '',
        name: meta?.name ?? '',
        ...(record.source === undefined ? {} : { source: record.source }),
        desired: record.desired,
        annotations: { ...(meta?.annotations ?? {}) },
        pod: record.pod,
        handlers,
      });
    }
    return out.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.uid.localeCompare(b.uid));
  }

  /**
   * For GET /pods: the orphan kills under way (owed, running, or failed and waiting for their retry) on every handler,
   * in the order they began, then the orphans each handler's last clean-up held (D18); at most
   * {@link ORPHAN_KILLS_LISTED}, with how many were left out. O(what it lists): no pass over every pod.
   */
  orphanKills(): OrphanKills {
    const items: OrphanKillStatus[] = [];
    let omitted = 0;
    for (const lane of this.#lanes) {
      const kills = lane.orphanKills(ORPHAN_KILLS_LISTED - items.length);
      items.push(...kills.items);
      omitted += kills.total - kills.items.length;
    }
    // Held kills are what the last successful clean-up held: none once kills are allowed (the next clean-up kills
    // them), and not a pod whose UID a source wants again since.
    const stillHeld = !(this.#o.orphanKillsAllowed?.() ?? true);
    for (const lane of stillHeld ? this.#lanes : []) {
      const held = this.#heldOrphans.get(lane);
      if (held === undefined) continue;
      let left = held.count;
      for (const pod of held.pods) {
        if (pod.uid !== '' && this.#pods.get(pod.uid)?.desired === true) {
          left -= 1;
        } else if (items.length < ORPHAN_KILLS_LISTED) {
          items.push({ ...pod, handler: lane.name, state: 'held' });
          left -= 1;
        }
      }
      omitted += left;
    }
    return { items, omitted };
  }

  /**
   * For metrics: per handler, how many pods' workers are in each state (as `pods()` reports them). O(pods ×
   * handlers) per call, meant for a scrape, never for an event.
   */
  workStates(): Readonly<Record<string, Readonly<Record<WorkState, number>>>> {
    const counts = this.#lanes.map(() => ({ ...NO_WORK }));
    // One pass over the records: a scrape holds the event loop for all of it (6–15 ms at 50,000 pods, 3 handlers).
    for (const record of this.#pods.values()) {
      for (let i = 0; i < this.#lanes.length; i++) {
        const state = this.#lanes[i]!.state(record);
        if (state !== undefined) counts[i]![state]++;
      }
    }
    const out: Record<string, Record<WorkState, number>> = {};
    this.#lanes.forEach((lane, i) => { out[lane.name] = counts[i]!; });
    return out;
  }

  /**
   * How long the sync loop has been held by the handlers' runtime errors (spec §7's gate: it takes no updates
   * meanwhile), in ms on the clock; 0 when it is not. Asks the handlers now, as `syncLoopError()` does.
   */
  syncLoopHeldMs(): number {
    if (this.#observeRuntime() === undefined || this.#runtimeDownSince === undefined) return 0;
    return this.#clock.monotonic() - this.#runtimeDownSince;
  }

  readiness(): ReadinessStatus {
    return this.#readiness.status();
  }

  /**
   * The kubelet's `syncloop` health check (spec §7): why the loop counts as stuck, or `undefined`. It is stuck
   * once handlers have reported runtime errors without a break for `max(2 × syncFrequency, 5 min)`: the loop
   * takes no updates meanwhile. Asks the handlers now, so an idle loop is judged too.
   */
  syncLoopError(): string | undefined {
    const reason = this.#observeRuntime();
    if (reason === undefined || this.#runtimeDownSince === undefined) return undefined;
    const downMs = this.#clock.monotonic() - this.#runtimeDownSince;
    const graceMs = Math.max(2 * this.#syncFrequencyMs, SYNC_LOOP_MIN_GRACE_MS);
    if (downMs <= graceMs) return undefined;
    return `the sync loop has been held by runtime errors for ${Math.round(downMs / 1000)} s (longer than ${Math.round(graceMs / 1000)} s): ${reason}`;
  }

  // ---- lifecycle -------------------------------------------------------------------------

  async #startHandlers(signal: AbortSignal): Promise<void> {
    const pending = new Set(this.#lanes.filter((lane) => isStartable(lane.handler)));
    const starting = Promise.all(this.#lanes.map(async (lane) => {
      const handler = lane.handler;
      if (!isStartable(handler)) return undefined;
      const result = await callWithTimeout((s) => handler.start(s), {
        parent: signal, timers: this.#timers, timeoutMs: this.#callTimeoutMs, what: `${lane.name} start`,
      });
      pending.delete(lane);
      if (result.outcome === 'success') return undefined;
      // Noted at once, not after every start() settled: shutdown may come first, and closes the others.
      this.#notStarted.add(lane);
      return { lane, err: result.err };
    }));
    const results = await this.#untilSettledOrAbandoned(starting, signal);
    if (results === undefined || signal.aborted) {
      // Shut down while starting: a start() still running is abandoned, and its handler not closed.
      for (const lane of pending) this.#notStarted.add(lane);
      return;
    }
    const failed = results.find((r) => r !== undefined);
    if (failed === undefined) return;
    throw new HandlerStartError(failed.lane.name, `sync handler "${failed.lane.name}" failed to start: ${errorMessage(failed.err)}`, {
      cause: failed.err, timedOut: PodConfigError.is(failed.err, 'PODCONFIG_HANDLER_TIMEOUT'),
    });
  }

  /**
   * Applies each update until the stream ends or `signal` aborts. Written with promise callbacks, not as
   * an async function's loop: a suspended frame that lives as long as the agent would keep an update it
   * is done with (with its pods) alive (see core `PullIterator`).
   */
  #consume(updates: AsyncIterable<PodUpdate>, signal: AbortSignal): Promise<void> {
    const iterator = updates[Symbol.asyncIterator]();
    const wait = new AbortableWait(signal);
    return new Promise<void>((resolve, reject) => {
      /** `ended`: the stream ended or failed (nothing to return); `err`: it failed. */
      const end = (ended: boolean, err?: Error): void => {
        wait.dispose();
        // Ends the producer (its finally blocks run: watchers and connections close). Shutdown waits
        // for it within the shutdown budget, so run() resolves after the sources have stopped.
        if (!ended && iterator.return !== undefined) {
          this.#producerStopped = iterator.return().then(() => undefined, () => undefined);
        }
        if (err === undefined) resolve();
        else reject(err);
      };
      const failed = (err: Error): void => end(true, err);
      /**
       * Spec §7's runtime gate: runs `then` once no handler reports runtime errors, asking again after 100 ms,
       * doubling to 5 s, meanwhile; ends the run instead if it stops first.
       */
      const whenRuntimeUp = (then: () => void): void => {
        if (signal.aborted) {
          end(false);
          return;
        }
        if (this.#observeRuntime() === undefined) {
          then();
          return;
        }
        const delay = this.#runtimeBackoffMs;
        this.#runtimeBackoffMs = Math.min(2 * delay, RUNTIME_BACKOFF_MAX_MS);
        wait.for(new Promise<void>((resolve) => void this.#timers.after(delay, resolve))).then(() => whenRuntimeUp(then)).catch(failed);
      };
      // One chain per update, each ending in `failed`; a callback starts the next chain and returns nothing,
      // so chains are not nested and do not grow with the stream.
      const step = (): void => {
        if (signal.aborted) {
          end(false);
          return;
        }
        const next = iterator.next();
        wait.for(next).then((result) => {
          if (result === undefined) {
            void next.catch(() => undefined); // settles (or not) after we left; nobody waits for it
            end(false);
            return;
          }
          if (result.done === true) {
            this.#log.info({}, 'update stream ended');
            end(true);
            return;
          }
          // Checked once the update is here, not before asking for it: the runtime may have gone down while the
          // loop waited. The update is held meanwhile; the ones after it coalesce in the sources' mailboxes (D16).
          const update = result.value;
          if (this.#observeRuntime() === undefined) {
            this.#apply(update); // the common case, without a closure per update
            step();
            return;
          }
          whenRuntimeUp(() => {
            this.#apply(update);
            step();
          });
        }).catch(failed);
      };
      Promise.resolve().then(step).catch(failed);
    });
  }

  /** Asks the handlers' runtime health every {@link RUNTIME_CHECK_MS} until `signal` aborts (shutdown cancels the timer). */
  #watchRuntime(signal: AbortSignal): void {
    if (this.#runtimeReporters.length === 0) return;
    const check = (): void => {
      if (signal.aborted) return;
      this.#observeRuntime();
      this.#timers.after(RUNTIME_CHECK_MS, check);
    };
    this.#timers.after(RUNTIME_CHECK_MS, check);
  }

  /** The handlers' runtime error now (the first one), logged when it starts, changes or ends. */
  #observeRuntime(): string | undefined {
    let reason: string | undefined;
    for (const { name, reporter } of this.#runtimeReporters) {
      try {
        const error = reporter.runtimeError();
        if (error !== undefined) reason = `handler "${name}": ${error}`;
      } catch (err: unknown) {
        reason = `handler "${name}": runtimeError() threw: ${errorMessage(err)}`;
      }
      if (reason !== undefined) break;
    }
    const previous = this.#runtimeError;
    this.#runtimeError = reason;
    if (reason === undefined) {
      if (previous !== undefined) {
        const downMs = this.#runtimeDownSince === undefined ? 0 : this.#clock.monotonic() - this.#runtimeDownSince;
        this.#log.info({ downMs: Math.round(downMs) }, 'runtime recovered; taking updates again');
      }
      this.#runtimeDownSince = undefined;
      this.#runtimeBackoffMs = RUNTIME_BACKOFF_INITIAL_MS;
      return undefined;
    }
    this.#runtimeDownSince ??= this.#clock.monotonic();
    if (reason !== previous) this.#log.warn({ reason }, 'runtime reports errors; taking no updates until it recovers');
    return reason;
  }

  /**
   * Shutdown's first step, taken as soon as `run()`'s signal aborts: no call starts from here on, then every
   * call's signal aborts. In this order and at once: a handler that returns at the abort frees its slot a
   * microtask later, and a dispatcher not paused by then would hand it to the next queued pod.
   */
  #stopCalls(reason?: unknown): void {
    this.#stopping = true;
    this.#dispatcher.pause();
    this.#stop.abort(shutdownReason(reason));
  }

  async #shutdown(sweeps: readonly Sweep[]): Promise<void> {
    this.#stopCalls();
    for (const wake of this.#allReadyWaiters) wake();
    // What is still running when the budget is over, so the warning names what overran.
    let producerStopped = false;
    const sweeping = new Set(sweeps.map((s) => s.handler));
    const settled = await this.#within(Promise.all([
      this.#dispatcher.drained(),
      this.#producerStopped.then(() => { producerStopped = true; }),
      ...sweeps.map((s) => s.done.then(() => { sweeping.delete(s.handler); })),
    ]).then(() => undefined), this.#shutdownTimeoutMs);
    if (!settled) {
      const shutdownTimeoutMs = this.#shutdownTimeoutMs;
      const calls = this.#dispatcher.inFlight;
      if (calls > 0) {
        this.#interruptedCalls += calls;
        this.#log.warn({ calls, shutdownTimeoutMs }, 'handler calls still running at shutdown; abandoned');
      }
      if (!producerStopped) this.#log.warn({ shutdownTimeoutMs }, 'update stream still closing at shutdown (a source did not stop); abandoned');
      if (sweeping.size > 0) this.#log.warn({ handlers: [...sweeping], shutdownTimeoutMs }, 'orphan clean-up (listPods) still running at shutdown; abandoned');
    }
    await this.#closeHandlers(this.#lanes.filter((lane) => !this.#notStarted.has(lane)));
    this.#timers.cancelAll();
    this.#log.info({ interruptedCalls: this.#interruptedCalls }, 'reconciler stopped');
  }

  async #closeHandlers(lanes: readonly HandlerLane[]): Promise<void> {
    const parent = new AbortController();
    await Promise.all(lanes.map(async (lane) => {
      const handler = lane.handler;
      if (!isClosable(handler)) return;
      const result = await callWithTimeout((s) => handler.close(s), {
        parent: parent.signal, timers: this.#timers, timeoutMs: this.#shutdownTimeoutMs, what: `${lane.name} close`,
      });
      if (result.outcome !== 'success') this.#log.warn({ handler: lane.name, err: result.err }, 'sync handler close failed');
    }));
  }

  /** `promise`'s value, or undefined once `signal` aborted and shutdownTimeoutMs more passed. */
  #untilSettledOrAbandoned<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve) => {
      let timer: Timer | undefined;
      const onAbort = (): void => {
        timer = this.#timers.after(this.#shutdownTimeoutMs, () => resolve(undefined));
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      void promise.then((value) => {
        signal.removeEventListener('abort', onAbort);
        timer?.cancel();
        resolve(value);
      });
    });
  }

  /** Resolves true when `promise` settles within `ms` (clock time), false otherwise. */
  #within(promise: Promise<void>, ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = this.#timers.after(ms, () => resolve(false));
      void promise.then(() => {
        timer.cancel();
        resolve(true);
      });
    });
  }

  // ---- applying updates ------------------------------------------------------------------

  #apply(update: PodUpdate): void {
    this.#observe(() => this.#o.observer?.operation?.(update));
    if (this.#log.isLevelEnabled('debug')) this.#log.debug({ source: update.source, op: update.op, pods: update.pods.length }, 'update');
    switch (update.op) {
      case 'ADD': this.#want(update, 'create'); break;
      case 'UPDATE': this.#want(update, 'update'); break;
      case 'DELETE': this.#want(update, 'delete'); break;
      case 'RECONCILE': this.#want(update, 'reconcile'); break;
      case 'REMOVE': for (const pod of update.pods) this.#unwant(deepFreeze(pod), update.source); break;
      default: this.#log.error({ source: update.source, op: String(update.op) }, 'invalid operation; ignored');
    }
    const change = this.#readiness.markConsumed(update.source);
    if (change.sourceBecameReady) {
      this.#log.info({ source: update.source }, 'source ready');
      if (this.#policy === 'per-source') this.#flushDeferred(update.source);
    }
    if (change.allBecameReady) this.#onAllReady();
  }

  #want(update: PodUpdate, type: SyncPodType): void {
    for (const desired of update.pods) {
      // Handlers share the record's pod: freeze it (the merger's pods are frozen already and cost one
      // check; another producer's are frozen here, except objects it froze itself with Object.freeze,
      // which deepFreeze takes as frozen all the way down).
      const pod = deepFreeze(desired);
      if (isMirrorPod(pod)) {
        // The apiserver's copy of a static pod some kubelet runs (spec §7: it belongs to that static
        // pod's worker). It is not a pod to run: handing it over would run the static pod twice.
        this.#log.debug({ pod: podRef(pod), uid: podUid(pod), source: update.source }, 'mirror pod: not handed to handlers');
        continue;
      }
      const key = recordKey(pod);
      let record = this.#pods.get(key);
      let callType = type;
      if (record === undefined) {
        record = { key, pod, isStatic: isStaticPod(pod), source: update.source, alsoFrom: undefined, desired: true, killDeferred: false, workers: this.#workerSlots() };
        this.#pods.set(key, record);
      } else {
        if (record.killDeferred && record.source !== undefined) this.#deferred.get(record.source)?.delete(key);
        if (record.desired && record.source !== undefined && record.source !== update.source) {
          // Another source lists this UID too, and still does (it has not REMOVEd it): it takes over again if
          // this one drops it.
          record.alsoFrom ??= new Map();
          record.alsoFrom.set(record.source, record.pod);
          // Only the status changed against this source's own last version; against the version the handlers
          // have (the other source's), the spec may differ too.
          if (callType === 'reconcile') callType = 'update';
        }
        record.alsoFrom?.delete(update.source);
        record.pod = pod;
        record.isStatic = isStaticPod(pod);
        record.source = update.source;
        record.desired = true;
        record.killDeferred = false;
      }
      for (const lane of this.#lanes) lane.sync(record, callType);
    }
  }

  #unwant(pod: Pod, source: SourceName): void {
    const key = recordKey(pod);
    const record = this.#pods.get(key);
    if (record === undefined || !record.desired) return;
    if (record.source !== source) {
      // The same UID is wanted by another source now: that source's REMOVE will come if it drops it.
      record.alsoFrom?.delete(source);
      this.#log.debug({ pod: podRef(pod), uid: podUid(pod), source, owner: record.source }, 'REMOVE from a source that no longer owns the pod; ignored');
      return;
    }
    const next = lastEntry(record.alsoFrom);
    if (next !== undefined) {
      // Another source still lists the UID: its version is the desired pod now (a different full name is a
      // rename, which the lanes kill under the old name first).
      const [nextSource, nextPod] = next;
      record.alsoFrom!.delete(nextSource);
      record.pod = nextPod;
      record.isStatic = isStaticPod(nextPod);
      record.source = nextSource;
      this.#log.info({ pod: podRef(nextPod), uid: podUid(nextPod), source: nextSource, removedBy: source }, 'pod removed by one source is still listed by another');
      for (const lane of this.#lanes) lane.sync(record, 'update');
      return;
    }
    record.pod = pod;
    record.isStatic = isStaticPod(pod);
    record.desired = false;
    if (this.#mayKill(source)) {
      for (const lane of this.#lanes) lane.kill(record, 'removed');
    } else {
      for (const lane of this.#lanes) lane.hold(record);
      if (this.#lanes.some((lane) => lane.has(record))) {
        record.killDeferred = true;
        let set = this.#deferred.get(source);
        if (set === undefined) this.#deferred.set(source, (set = new Set()));
        set.add(key);
        this.#log.debug({ pod: podRef(pod), uid: podUid(pod), source, readiness: this.#policy }, 'kill deferred until sources are ready');
      }
    }
    this.#forgetIfDone(key);
  }

  #mayKill(source: SourceName): boolean {
    return this.#policy === 'per-source' ? this.#readiness.isReady(source) : this.#readiness.allReady;
  }

  #flushDeferred(source: SourceName): void {
    const keys = this.#deferred.get(source);
    if (keys === undefined) return;
    this.#deferred.delete(source);
    for (const key of keys) {
      const record = this.#pods.get(key);
      if (record === undefined || !record.killDeferred) continue;
      record.killDeferred = false;
      for (const lane of this.#lanes) lane.kill(record, 'removed');
      this.#forgetIfDone(key);
    }
  }

  #onAllReady(): void {
    this.#log.info({ sources: this.#readiness.status().configured }, 'all sources ready');
    for (const source of [...this.#deferred.keys()]) this.#flushDeferred(source);
    for (const wake of this.#allReadyWaiters) wake();
    this.#allReadyWaiters.clear();
  }

  /**
   * A record's `workers`, one slot per lane: an array sized up front, not `[]` grown on its first worker,
   * which V8 gives room for 17 (~190 bytes a pod against ~56: at 50,000 pods ~7 MB more for the GCs to copy).
   */
  #workerSlots(): (PodWorker | undefined)[] {
    return new Array<PodWorker | undefined>(this.#lanes.length);
  }

  #forgetIfDone(key: string): void {
    const record = this.#pods.get(key);
    if (record === undefined || record.desired || record.killDeferred) return;
    if (this.#lanes.some((lane) => lane.has(record))) return;
    this.#pods.delete(key);
  }

  /**
   * `namespace/name` of every desired pod, for an orphan sweep that met a reported pod without a UID
   * (rare): built then, in O(pods) as the sweep itself is, not kept up to date on every update.
   */
  #desiredNames(): Set<string> {
    const names = new Set<string>();
    for (const record of this.#pods.values()) if (record.desired) names.add(podKey(record.pod));
    return names;
  }

  // ---- orphan clean-up -------------------------------------------------------------------

  async #sweepLoop(lane: HandlerLane, lister: PodLister, signal: AbortSignal): Promise<void> {
    await this.#whenAllReady(signal);
    /** What the previous sweep logged: the same problem every 2 s would flood the log. */
    let previous = new Set<string>();
    while (!signal.aborted) {
      const startedAt = this.#clock.monotonic();
      const notes = new Set<string>();
      const note: SweepNote = (level, fields, msg, key = msg) => {
        notes.add(key);
        // Logged when it starts (or changes), at debug while it lasts.
        this.#log[previous.has(key) ? 'debug' : level]({ handler: lane.name, ...fields }, msg);
      };
      if (this.#observeRuntime() !== undefined) {
        // The kubelet's loop reads no housekeeping tick while the runtime reports errors (spec §7).
        note('info', {}, 'orphan clean-up skipped: the runtime reports errors');
      } else {
        try {
          await this.#sweep(lane, lister, signal, note);
        } catch (err: unknown) {
          // One bad sweep (a bug, a handler's odd answer) must not end the clean-up for the rest of the run.
          if (signal.aborted) return;
          note('warn', { err }, 'orphan clean-up failed; retrying next period', `failed: ${errorMessage(err)}`);
        }
      }
      previous = notes;
      if (signal.aborted) return;
      const durationMs = this.#clock.monotonic() - startedAt;
      if (durationMs > HOUSEKEEPING_WARNING_MS) {
        this.#log.warn({ handler: lane.name, durationMs: Math.round(durationMs), expectedMs: HOUSEKEEPING_WARNING_MS }, 'housekeeping took longer than expected');
      }
      try {
        await this.#clock.sleep(this.#housekeepingPeriodMs, signal);
      } catch {
        return; // aborted
      }
    }
  }

  #whenAllReady(signal: AbortSignal): Promise<void> {
    if (this.#readiness.allReady || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        this.#allReadyWaiters.delete(wake);
        resolve();
      };
      this.#allReadyWaiters.add(wake);
    });
  }

  /** Compares what the handler runs with the desired pods (spec §7 housekeeping, D18: all sources ready). */
  async #sweep(lane: HandlerLane, lister: PodLister, signal: AbortSignal, note: SweepNote): Promise<void> {
    const sinceSeq = lane.seq;
    // A pod killed (and forgotten) while the handler listed may be in the listing: not an orphan to kill again.
    let killedSince: { readonly keys: ReadonlySet<string>; readonly names: ReadonlySet<string> };
    lane.beginListing();
    let result;
    try {
      result = await callWithTimeout((s) => lister.listPods(s), {
        parent: signal, timers: this.#timers, timeoutMs: this.#callTimeoutMs, what: `${lane.name} listPods`,
      });
    } finally {
      killedSince = lane.endListing();
    }
    if (signal.aborted) return;
    if (result.outcome !== 'success') {
      note('warn', { err: result.err }, 'listPods failed; retrying next period', `listPods failed: ${errorMessage(result.err)}`);
      return;
    }
    // Plain JavaScript handlers are not held to the type: an answer that is no list would make every pod look missing.
    const listed: unknown = result.value;
    if (!Array.isArray(listed)) {
      note('warn', { got: listed === null ? 'null' : typeof listed }, 'listPods returned no array; retrying next period');
      return;
    }
    let ignored = 0;
    const reportedUids = new Set<string>();
    const reportedNames = new Set<string>();
    let desiredNames: Set<string> | undefined;
    const mayKill = this.#o.orphanKillsAllowed?.() ?? true;
    let orphans = 0;
    let held = 0;
    const heldPods: PodRef[] = [];
    for (const entry of listed as unknown[]) {
      const actual = runningPodOf(entry);
      if (actual === undefined) {
        ignored += 1;
        continue;
      }
      const { uid, namespace, name } = actual;
      const nameKey = name === undefined ? undefined : podKey({ metadata: { name, ...(namespace === undefined ? {} : { namespace }) } });
      let desired: boolean;
      let key: string;
      if (uid !== undefined && uid !== '') {
        reportedUids.add(uid);
        desired = this.#pods.get(uid)?.desired === true;
        key = uid;
      } else if (nameKey !== undefined) {
        reportedNames.add(nameKey);
        desiredNames ??= this.#desiredNames();
        desired = desiredNames.has(nameKey);
        key = orphanKey(nameKey);
      } else {
        continue;
      }
      let record = this.#pods.get(key);
      if (desired || (record !== undefined && lane.has(record))) continue;
      if (record === undefined && (key === uid ? killedSince.keys.has(uid) : nameKey !== undefined && killedSince.names.has(nameKey))) continue;
      if (!mayKill) {
        held += 1;
        if (heldPods.length < ORPHAN_KILLS_LISTED) heldPods.push({ uid: uid ?? '', namespace: namespace ?? '', name: name ?? '' });
        continue;
      }
      if (record === undefined) {
        record = { key, pod: orphanPod(actual), isStatic: false, source: undefined, alsoFrom: undefined, desired: false, killDeferred: false, workers: this.#workerSlots() };
        this.#pods.set(key, record);
      }
      orphans += 1;
      this.#log.info({ handler: lane.name, pod: podLogRef(record.pod), uid: uid ?? '' }, 'killing orphaned pod');
      lane.killOrphan(record);
    }
    let missing = 0;
    for (const record of this.#pods.values()) {
      if (!record.desired || reportedUids.has(record.key) || reportedNames.has(podKey(record.pod))) continue;
      if (lane.recreate(record, sinceSeq)) missing += 1;
    }
    if (ignored > 0) note('warn', { ignored }, 'listPods returned entries that are not { uid, namespace, name } objects; ignored');
    if (held > 0) this.#heldOrphans.set(lane, { pods: heldPods, count: held });
    else this.#heldOrphans.delete(lane);
    if (held > 0) note('info', { held }, 'orphan kills held: a source may still want these pods (no definitive answer yet, or a manifest that has not decoded since start)');
    this.#log.debug({ handler: lane.name, reported: listed.length, orphans, held, missing }, 'orphan clean-up done');
  }

  // ---- observer --------------------------------------------------------------------------

  #observeCall(event: HandlerCallEvent): void {
    const observer = this.#o.observer;
    if (observer?.handlerCall !== undefined) this.#observe(() => observer.handlerCall?.(event));
  }

  #observe(fn: () => void): void {
    callHook(this.#log, 'reconciler observer', fn);
  }
}

function recordKey(pod: Pod): string {
  const uid = podUid(pod);
  return uid === '' ? orphanKey(podKey(pod)) : uid;
}

function orphanPod(actual: ActualPod): Pod {
  return deepFreeze({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(actual.uid === undefined || actual.uid === '' ? {} : { uid: actual.uid }),
      ...(actual.namespace === undefined ? {} : { namespace: actual.namespace }),
      ...(actual.name === undefined ? {} : { name: actual.name }),
    },
  });
}

/**
 * The reason every call's signal aborts with at shutdown: the run signal's own when it is an Error (the agent's
 * names the OS signal), the platform's `AbortError` when it has none, else (a caller's `abort('bye')`) an Error
 * named `AbortError` that says it, so a handler's `signal.throwIfAborted()` throws an Error whatever the caller did.
 */
function shutdownReason(reason: unknown): Error | undefined {
  if (reason === undefined || reason instanceof Error) return reason;
  const said = typeof reason === 'string' ? `: ${reason}` : ` with ${reason === null ? 'null' : `a ${typeof reason}`}, not an Error`;
  const err = new Error(`the reconciler was stopped${said}`, { cause: reason });
  err.name = 'AbortError';
  return err;
}

function positive(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new ConfigInvalidError(`${name} must be a positive number of milliseconds, got ${value}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!(value >= 0) || !Number.isFinite(value)) throw new ConfigInvalidError(`${name} must be a non-negative number of milliseconds, got ${value}`);
  return value;
}

/** The entry set last (Maps iterate in insertion order), or undefined for none. */
function lastEntry<K, V>(map: ReadonlyMap<K, V> | undefined): [K, V] | undefined {
  let last: [K, V] | undefined;
  if (map !== undefined) for (const entry of map) last = entry;
  return last;
}

/**
 * An entry of a `listPods()` answer as the reconciler reads it: an object whose `uid`, `namespace` and `name` are
 * strings where given (others count as not given), or `undefined` for anything else (`null`, a string).
 */
function runningPodOf(entry: unknown): ActualPod | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const { uid, namespace, name } = entry as Record<string, unknown>;
  // Neither a UID nor a name (`{ foo: 1 }`): no pod, and ignored as the other entries that are none.
  if ((typeof uid !== 'string' || uid === '') && (typeof name !== 'string' || name === '')) return undefined;
  return {
    ...(typeof uid === 'string' ? { uid } : {}),
    ...(typeof namespace === 'string' ? { namespace } : {}),
    ...(typeof name === 'string' ? { name } : {}),
  };
}
