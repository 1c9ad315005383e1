import type { Logger } from 'pino';
import {
  ListWatch,
  Reflector,
  UndeltaStore,
  stripManagedFields,
  type KubeObject,
  type ReflectorOptions,
  type ReflectorStatus,
  type ResourceClient,
} from '@podconfig/cache';
import {
  API_SOURCE,
  ConfigInvalidError,
  checkNodeName,
  LatestByKey,
  PodConfigError,
  coalescePodSets,
  errorMessage,
  linked,
  podUid,
  relay,
  safeUrl,
  type Clock,
  type Pod,
  podSetUpdate,
  type PodSetUpdate,
  type PodSource,
  type PullIterator,
  type SourceName,
  type SourceStatus,
  type StatusReporter,
} from '@podconfig/core';
import { ErrorCountingListerWatcher } from './error-counting-lister-watcher.js';
import { PodIntake } from './pod-intake.js';
import { NodeSyncSink } from './node-sync-sink.js';

export interface ApiserverPodSourceOptions {
  /** The REST client (`KubeClient` satisfies it). Its requests are rate-limited by the client, not here. */
  readonly client: ResourceClient;
  /** This node: pods are watched with `spec.nodeName=<nodeName>`, the node gate with `metadata.name=<nodeName>`. */
  readonly nodeName: string;
  readonly logger: Logger;
  /** Times the reflectors' backoff (decision D12) and the node-sync progress log, and stamps status times. */
  readonly clock: Clock;
  /** Decision D13: initial sync by streaming list (`sendInitialEvents`). Default true; false = LIST then WATCH. */
  readonly watchList?: boolean;
  /**
   * Keep `metadata.managedFields` on pods (and the Node). Default false: both ListWatches get the cache's
   * `stripManagedFields` transform, as kube-scheduler's informers do (the merger never compares the field).
   */
  readonly keepManagedFields?: boolean;
  /**
   * The kubelet's `WaitForAPIServerSyncPeriod` (default 1000): while the node gate is closed, a debug
   * log line "node sync has not completed yet" is written this often. The gate itself opens on the
   * node list's completion, not on the next poll.
   */
  readonly nodeSyncPollMs?: number;
  /**
   * The API server's URL, shown (through `safeUrl`) as `details.server`. Default: the client's
   * `server` property when it has one (a string or URL), else not shown.
   */
  readonly server?: string | URL;
  /** The proxy the client goes through (`proxy-url`, `HTTPS_PROXY`), shown (through `safeUrl`) as `details.proxy`. */
  readonly proxy?: string | URL;
  /** Passed to both reflectors (tests, tuning); the cache's defaults otherwise. */
  readonly reflector?: ApiserverReflectorTuning;
}

/** The `ReflectorOptions` of `@podconfig/cache` a caller may tune; see there for the defaults. */
export type ApiserverReflectorTuning = Partial<
  Pick<ReflectorOptions<Pod>, 'stallTimeoutMs' | 'bookmarkSilenceMs' | 'minWatchTimeoutSeconds' | 'pageSize' | 'random'>
>;

const PODS_PATH = '/api/v1/pods';
const NODES_PATH = '/api/v1/nodes';

/** apimachinery `fields.EscapeValue`: `\`, `,` and `=` are backslash-escaped in a field selector value. */
function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** The reflectors and bookkeeping of one `updates()` run. */
interface Run {
  readonly nodes: Reflector<KubeObject>;
  readonly nodeSink: NodeSyncSink;
  readonly nodeLw: ErrorCountingListerWatcher<KubeObject>;
  readonly pods: Reflector<Pod>;
  readonly podLw: ErrorCountingListerWatcher<Pod>;
}

/**
 * The apiserver pod source (spec §4): a node reflector must finish its initial list first (the
 * node gate; the Node need not exist), then a pod reflector over `/api/v1/pods?fieldSelector=
 * spec.nodeName=<node>` writes into an `UndeltaStore` whose every push goes into a `LatestByKey`
 * mailbox (D16), drained by {@link updates} as full SETs carrying the store's change keys (D17).
 * Failures are retried by the reflectors (D11–D13); nothing is yielded before the first sync.
 */
export class ApiserverPodSource implements PodSource, StatusReporter {
  readonly name: SourceName = API_SOURCE;
  readonly #o: ApiserverPodSourceOptions;
  readonly #log: Logger;
  readonly #nodeSyncPollMs: number;
  readonly #server: string | undefined;
  #run: Run | undefined;
  #seen = false;
  #pods = 0;
  // Counters of earlier `updates()` runs, so `status()` stays monotonic across them.
  #relists = 0;
  #watchRestarts = 0;
  #errors = 0;

  constructor(options: ApiserverPodSourceOptions) {
    checkNodeName(options.nodeName, 'apiserver source: nodeName');
    const poll = options.nodeSyncPollMs ?? 1000;
    if (!(poll > 0)) throw new ConfigInvalidError(`nodeSyncPollMs must be > 0, got ${poll}`);
    this.#o = options;
    this.#nodeSyncPollMs = poll;
    this.#server = serverOf(options);
    this.#log = options.logger.child({ component: 'source.api', ...(this.#server === undefined ? {} : { server: this.#server }) });
  }

  /**
   * Starts the node reflector, then (once it has synced) the pod reflector, and yields a SET after
   * every change of this node's pods; intermediate SETs coalesce while the consumer is busy (D16).
   * Returns when `signal` aborts or the consumer stops, after both reflectors have stopped. An iterator
   * object, not an async generator: no suspended frame keeps a SET it has passed on (core `PullIterator`).
   */
  updates(signal: AbortSignal): PullIterator<PodSetUpdate> {
    return relay(() => {
      const stop = linked(signal);
      const box = new LatestByKey<SourceName, PodSetUpdate>(coalescePodSets);
      const run = this.#startRun(box, stop.signal);
      let failure: unknown;
      const fail = (err: unknown): void => {
        if (stop.signal.aborted) return;
        failure ??= err;
        stop.abort(err);
      };
      const nodesDone = run.nodes.run(stop.signal).catch(fail);
      const podsDone = this.#gateThenWatchPods(run, stop.signal).catch(fail);
      return {
        source: box.drain(stop.signal),
        each: (update) => {
          this.#seen = true;
          this.#pods = update.pods.size;
          if (this.#log.isLevelEnabled('debug')) this.#log.debug({ pods: update.pods.size, changes: update.changes?.keys.size }, 'pods updated');
        },
        finish: async (how) => {
          stop.abort();
          await Promise.all([nodesDone, podsDone]);
          stop.dispose();
          if (how === 'stopped' || failure === undefined) return;
          throw PodConfigError.is(failure)
            ? failure
            : new PodConfigError('PODCONFIG_INTERNAL', `apiserver pod source failed: ${errorMessage(failure)}`, { cause: failure });
        },
      };
    });
  }

  status(): SourceStatus {
    const run = this.#run;
    const pods = run?.pods.status();
    const nodes = run?.nodes.status();
    const lastError = latestError(pods, nodes);
    const lastSuccessTime = pods?.lastSyncTime;
    return {
      seen: this.#seen,
      provisional: false, // every SET it yields is the apiserver's answer
      healthy: pods !== undefined && nodes !== undefined && pods.synced && pods.consecutiveFailures === 0 && nodes.consecutiveFailures === 0,
      pods: this.#pods,
      ...(lastSuccessTime === undefined ? {} : { lastSuccessTime }),
      ...(lastError === undefined ? {} : { lastError }),
      counters: {
        relists: this.#relists + (pods?.relists ?? 0),
        watch_restarts: this.#watchRestarts + (pods?.watchRestarts ?? 0),
        errors: this.#errors + (run === undefined ? 0 : run.podLw.errors + run.nodeLw.errors + (pods?.undecodableEvents ?? 0)),
      },
      details: {
        nodeName: this.#o.nodeName,
        nodeSynced: run?.nodeSink.synced ?? false,
        nodeExists: run?.nodeSink.exists ?? false,
        podsSynced: pods?.synced ?? false,
        connected: pods?.connected ?? false,
        lastResourceVersion: pods?.lastSyncResourceVersion ?? '',
        watchList: pods?.watchList ?? this.#o.watchList ?? true,
        events: pods?.events ?? 0,
        ...(this.#server === undefined ? {} : { server: this.#server }),
        ...(this.#o.proxy === undefined ? {} : { proxy: safeUrl(this.#o.proxy) }),
      },
    };
  }

  #startRun(box: LatestByKey<SourceName, PodSetUpdate>, stopped: AbortSignal): Run {
    const previous = this.#run;
    if (previous !== undefined) {
      const pods = previous.pods.status();
      this.#relists += pods.relists;
      this.#watchRestarts += pods.watchRestarts;
      this.#errors += previous.podLw.errors + previous.nodeLw.errors + pods.undecodableEvents;
    }
    const { client, nodeName, logger, clock } = this.#o;
    const common = {
      logger,
      clock,
      ...(this.#o.watchList === undefined ? {} : { watchList: this.#o.watchList }),
      ...this.#o.reflector,
    };
    const keep = this.#o.keepManagedFields === true;
    const strip = keep ? {} : { transform: stripManagedFields, dropManagedFields: true };
    const intake = new PodIntake({ keepManagedFields: keep });
    const nodeSink = new NodeSyncSink({
      onExistenceChange: (exists) => {
        if (exists) this.#log.info({ nodeName }, 'node found in the API server');
        else this.#log.warn({ nodeName }, 'node deleted from the API server: no pod may be bound to it');
      },
    });
    const nodeLw = new ErrorCountingListerWatcher<KubeObject>(
      new ListWatch<KubeObject>({ client, path: NODES_PATH, fieldSelector: `metadata.name=${escapeFieldValue(nodeName)}`, kind: 'Node', ...strip }),
      stopped,
    );
    const store = new UndeltaStore({
      push: (pods, changes, removed) => {
        intake.pushed();
        box.put(API_SOURCE, podSetUpdate(API_SOURCE, pods, changes, removed === undefined ? undefined : new Map([[podUid(removed), removed]])));
      },
    });
    const podLw = new ErrorCountingListerWatcher<Pod>(
      new ListWatch<Pod>({ client, path: PODS_PATH, fieldSelector: `spec.nodeName=${escapeFieldValue(nodeName)}`, kind: 'Pod', transform: intake.transform, dropManagedFields: !keep }),
      stopped,
    );
    const run: Run = {
      nodeSink,
      nodeLw,
      nodes: new Reflector<KubeObject>({ ...common, listerWatcher: nodeLw, sink: nodeSink, expectedKind: 'Node', name: 'nodes' }),
      podLw,
      pods: new Reflector<Pod>({ ...common, listerWatcher: podLw, sink: store, expectedKind: 'Pod', name: 'pods' }),
    };
    this.#run = run;
    return run;
  }

  /** The node gate (spec §4.1, checklist 52): no pod request before the node list has completed. */
  async #gateThenWatchPods(run: Run, signal: AbortSignal): Promise<void> {
    if (!run.nodeSink.synced) {
      this.#log.info({ nodeName: this.#o.nodeName }, 'waiting for node sync before watching apiserver pods');
      const progress = linked(signal);
      // Resolves once `progress` aborts; rejects only if the clock fails (a bug), which ends the wait too.
      const reporting = this.#reportNodeSyncProgress(progress.signal);
      let synced: boolean;
      try {
        synced = await Promise.race([run.nodeSink.whenSynced(signal), reporting.then(() => false)]);
      } finally {
        progress.abort();
        progress.dispose();
        await reporting;
      }
      if (!synced) return;
      this.#log.info({ nodeName: this.#o.nodeName, nodeExists: run.nodeSink.exists }, 'node sync complete, watching apiserver pods');
      // The kubelet registers its Node; podconfig does not, so a Node that is absent is most often a wrong
      // --node-name, which would otherwise look like a healthy node without pods.
      if (!run.nodeSink.exists) this.#log.warn({ nodeName: this.#o.nodeName }, 'node not found in the API server: no pod may be bound to it; is the node name right?');
    }
    await run.pods.run(signal);
  }

  /** The kubelet's `WaitForAPIServerSyncPeriod` loop: a debug line every `nodeSyncPollMs` (on the clock) until `signal` aborts. */
  async #reportNodeSyncProgress(signal: AbortSignal): Promise<void> {
    for (;;) {
      await this.#o.clock.sleep(this.#nodeSyncPollMs, signal);
      if (signal.aborted) return;
      this.#log.debug({ nodeName: this.#o.nodeName }, 'node sync has not completed yet');
    }
  }
}

function serverOf(options: ApiserverPodSourceOptions): string | undefined {
  if (options.server !== undefined) return safeUrl(options.server);
  const candidate = (options.client as { readonly server?: unknown }).server;
  if (typeof candidate === 'string' || candidate instanceof URL) return safeUrl(candidate);
  return undefined;
}

function latestError(...statuses: (ReflectorStatus | undefined)[]): SourceStatus['lastError'] {
  let latest: SourceStatus['lastError'];
  for (const s of statuses) {
    const e = s?.lastError;
    if (e !== undefined && (latest === undefined || e.time.getTime() >= latest.time.getTime())) latest = e;
  }
  return latest;
}
