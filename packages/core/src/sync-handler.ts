import type { Logger } from 'pino';
import type { Pod } from './pod.js';
import type { SourceName } from './source-name.js';

/**
 * Why the reconciliation loop calls {@link SyncHandler.syncPod}:
 * - `create`: the pod became desired (merger ADD).
 * - `update`: its spec, labels or non-local annotations changed (merger UPDATE).
 * - `delete`: graceful deletion was requested: `metadata.deletionTimestamp` is set (merger DELETE).
 *   The pod is still desired until its source drops it; stop it within
 *   `metadata.deletionGracePeriodSeconds`.
 * - `reconcile`: only `status` changed (merger RECONCILE).
 * - `resync`: nothing changed; the periodic re-sync (every `syncFrequency`, jittered) or a retry
 *   after a failure. Make sure reality matches `pod`.
 */
export type SyncPodType = 'create' | 'update' | 'delete' | 'reconcile' | 'resync';

export interface SyncPodRequest {
  readonly type: SyncPodType;
  /**
   * The desired pod, deep-frozen and shared (with podconfig's state and other handlers): keep it as long as you like;
   * copy it (`structuredClone`) to change it. Typed as `Pod`, not as a deep-readonly type, so that it passes to code
   * typed on `Pod` (core's `podRef()`, …): treat it as read-only (a write fails: a `TypeError` in strict-mode code).
   */
  readonly pod: Pod;
  readonly source: SourceName;
  /** 1 on the first try of this work item, then 2, 3, … while it is retried with backoff. */
  readonly attempt: number;
}

/**
 * Why the reconciliation loop calls {@link SyncHandler.killPod}:
 * - `removed`: the pod's source no longer lists it (merger REMOVE), and that source is ready.
 * - `orphaned`: the handler reported it in `listPods()` but no source wants it (all sources ready).
 */
export type KillPodReason = 'removed' | 'orphaned';

export interface KillPodRequest {
  readonly reason: KillPodReason;
  /** The last desired version of the pod, deep-frozen (see {@link SyncPodRequest.pod}); for orphans, only `metadata` (uid, namespace, name) is known. */
  readonly pod: Pod;
  readonly gracePeriodSeconds: number;
  readonly attempt: number;
}

/**
 * The user's code: run the pod, mirror it, report it.
 *
 * Contract (what the reconciliation loop guarantees and expects):
 * - **Per pod, serial.** Calls for one pod UID never overlap, on one handler, while each ends by its
 *   deadline; they come in the order the operations happened, with intermediate updates coalesced to
 *   the latest. A call that outlasts its deadline is abandoned once its signal aborts (see `signal`
 *   below), and the pod's next call may start while it still runs: stop when the signal aborts.
 *   Different pods are handled concurrently, up to a bound.
 * - **Idempotent.** Any call may repeat (retries, resyncs, restarts of the agent re-announce every
 *   pod as `create`). A handler converges reality to the request; it does not count calls.
 * - **Failure.** Throwing or rejecting marks the work as failed: it is retried after 10 s jittered to
 *   [10 s, 15 s), every time (flat, the kubelet's pod-worker `backOffPeriod`), shown per pod in `/pods` and
 *   counted in metrics. Other pods are not affected.
 * - **Time.** Each call gets `signal`, aborted when the per-call timeout expires (rounded up by at
 *   most 1 %: calls with the same deadline share one signal, so remove the listeners you add) or the
 *   agent shuts down. A call that outlasts the timeout counts as failed (a timeout) and is retried, whether
 *   it returns when its signal aborts or ignores it (then it is abandoned: its promise is no longer awaited).
 *   `signal.reason` is always an Error, so `signal.throwIfAborted()` throws one: a `PodConfigError` with code
 *   `PODCONFIG_HANDLER_TIMEOUT` at the timeout; at shutdown the agent's, named `AbortError`, whose message names the
 *   OS signal (`podconfig-agent received SIGTERM: shutting down`; embedded, the Error the embedder aborted with,
 *   else one named `AbortError`). Return, or throw the reason (or an
 *   `AbortError`), when it aborts: a call cut short by shutdown so is logged as such (one info line, no stack)
 *   and not counted as a success; another error thrown then is a failure (a warning with the error).
 * - **Shutdown.** No call starts once shutdown begins; the calls in flight get the shutdown timeout to return
 *   after their signal aborted, then are abandoned. {@link ClosableHandler.close} comes after that, so an
 *   abandoned call (this one, or one abandoned earlier at its own timeout) may still be running then.
 * - **One static pod per full name** (spec §6.6): when two sources want a static pod with the same
 *   `name_namespace`, only the first is synced; the next one is created after the first is killed.
 * - **Handlers side by side.** With several handlers, each sees every pod, independently: a failing
 *   handler retries on its own without holding the others back.
 */
export interface SyncHandler {
  readonly name: string;
  syncPod(request: SyncPodRequest, signal: AbortSignal): Promise<void>;
  killPod(request: KillPodRequest, signal: AbortSignal): Promise<void>;
}

/** A pod a handler actually runs: at least a UID, or a namespace and name. */
export interface ActualPod {
  readonly uid?: string;
  readonly namespace?: string;
  readonly name?: string;
}

/**
 * Optional capability: report what the handler actually runs. When present, the reconciliation
 * loop compares it with the desired set once all sources are ready and then every 2 s (the kubelet's housekeeping period):
 * missing pods are created, pods nobody wants are killed as `orphaned`.
 */
export interface PodLister {
  listPods(signal: AbortSignal): Promise<readonly ActualPod[]>;
}

/**
 * Optional capability: set up before the first call (open connections, create directories). Every handler's
 * `start()` runs, side by side, before any call; its `signal` aborts at the per-call timeout or at shutdown. One
 * that throws or outlasts the timeout stops the agent (the reconciler rejects with a `HandlerStartError`; the CLI
 * prints one `podconfig-agent: sync handler "<name>" failed to start: <cause>` line on stderr and exits 1, since
 * such a failure, a runtime not up yet, may clear by itself and a supervisor restarts the agent); the handlers that
 * did start are closed, and this one is not.
 */
export interface StartableHandler {
  start(signal: AbortSignal): Promise<void>;
}

/**
 * Optional capability: the health of the runtime behind the handler (the container runtime's errors that
 * hold the kubelet's sync loop, spec §7). While a handler reports one, the reconciliation loop takes no
 * updates (they coalesce per source, D16), checking again after 100 ms, 200 ms, … up to 5 s; and once it has
 * reported errors for `max(2 × syncFrequency, 5 min)`, the agent's `/healthz` fails its `syncloop` check.
 */
export interface RuntimeHealthReporter {
  /** Why the runtime cannot run pods now, or `undefined` when it can. Called often: answer from state, no I/O. */
  runtimeError(): string | undefined;
}

/**
 * Optional capability: release resources at shutdown. Called once, when the reconciler stops: after no new call
 * can start and the calls in flight have returned or been abandoned (they get the shutdown timeout after their
 * signal aborted). So a call that ignored its aborted signal may still be running when `close()` is called: one
 * abandoned at the shutdown timeout, or earlier at its own per-call timeout. Make `close()` safe against that (a
 * late write to a closed connection must fail, not crash), and have calls stop when their signal aborts. `signal`
 * aborts after the shutdown timeout. Not called for a handler whose `start()` failed or was abandoned; a handler
 * without `start()` is closed also when the agent fails to start after building it.
 */
export interface ClosableHandler {
  close(signal: AbortSignal): Promise<void>;
}

export function isPodLister(handler: SyncHandler): handler is SyncHandler & PodLister {
  return typeof (handler as Partial<PodLister>).listPods === 'function';
}

export function isStartable(handler: SyncHandler): handler is SyncHandler & StartableHandler {
  return typeof (handler as Partial<StartableHandler>).start === 'function';
}

export function reportsRuntimeHealth(handler: SyncHandler): handler is SyncHandler & RuntimeHealthReporter {
  return typeof (handler as Partial<RuntimeHealthReporter>).runtimeError === 'function';
}

export function isClosable(handler: SyncHandler): handler is SyncHandler & ClosableHandler {
  return typeof (handler as Partial<ClosableHandler>).close === 'function';
}

/** What a handler plugin's factory receives. */
export interface SyncHandlerContext {
  /**
   * A child logger with `component: 'sync.<spec>'` (the handler as configured: `log`, `./my-handler.mjs`); its calls
   * later log as `sync.<name>`, the name the returned handler runs under.
   */
  readonly logger: Logger;
  readonly nodeName: string;
  /** The handler's options: `NAME=ARG` gives `{ arg }`; the config file's `handlers:` entry gives its fields. */
  readonly options: Readonly<Record<string, unknown>>;
  /** Aborted at shutdown, and when the agent gives up on the factory (it outlasted `--handler-timeout`). */
  readonly signal: AbortSignal;
  /**
   * How long the reconciler gives one call before it aborts the call's signal and abandons it (`--handler-timeout`),
   * when known: a handler whose own limits run longer can say so at start.
   */
  readonly callTimeoutMs?: number;
}

/** The default export of a handler plugin module. */
export type SyncHandlerFactory = (context: SyncHandlerContext) => SyncHandler | Promise<SyncHandler>;
