import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { MAX_TIMER_MS, linked, relay, reportsStatus, type Clock, type PodSource, type SyncHandler } from '@podconfig/core';
import { podConfig, type PodMerger } from '@podconfig/merge';
import type { Reconciler } from '@podconfig/reconcile';
import type { KubeClient } from '@podconfig/kube-client';
import type { AgentConfig } from './agent-config.js';
import type { AgentMetrics } from './metrics.js';
import { closeUnstartedHandlers } from './startup-resources.js';
import type { StatusProvider, StatusServer } from './status-server.js';
import { redactAnnotations, redactPodForStatus } from './status-redaction.js';

export interface AgentOptions {
  readonly config: AgentConfig;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: AgentMetrics;
  readonly merger: PodMerger;
  readonly reconciler: Reconciler;
  readonly sources: readonly PodSource[];
  readonly statusServer: StatusServer | undefined;
  /** The `--metrics-bind-address` listener (/metrics and the health checks only), when configured. */
  readonly metricsServer?: StatusServer | undefined;
  /** The apiserver client, closed at shutdown (connection pool, credential file pollers, exec plugins). */
  readonly kubeClient?: KubeClient | undefined;
  /** The reconciler's handlers: closed here when the agent fails before the reconciler ran them. */
  readonly handlers?: readonly SyncHandler[];
}

/** Where the agent's listeners listen once it runs (`onStarted`); `undefined` for one that is off. */
export interface AgentStartedInfo {
  readonly statusAddress: AddressInfo | undefined;
  readonly metricsAddress: AddressInfo | undefined;
}

/** Counts the SETs a source yields, for `podconfig_source_sets_total`. */
function counted(source: PodSource, metrics: AgentMetrics): PodSource {
  return {
    name: source.name,
    // An iterator object (core `PullIterator`): a generator's suspended frame would keep an old SET.
    updates: (signal) =>
      relay(() => ({
        source: source.updates(signal),
        each: () => metrics.sourceSet(source.name),
      })),
  };
}

/**
 * The running pipeline: sources → merger → reconciler → handlers, plus the status server and the metrics server.
 * Built by the composition root (`main.ts`); `run()` returns once everything has shut down.
 */
export class Agent implements StatusProvider {
  readonly #o: AgentOptions;
  readonly #log: Logger;
  #statusAddress: AddressInfo | undefined;
  #metricsAddress: AddressInfo | undefined;

  constructor(options: AgentOptions) {
    this.#o = options;
    this.#log = options.logger.child({ component: 'agent' });
  }

  /** Where the status server listens, once `run()` has started it. */
  get statusAddress(): AddressInfo | undefined {
    return this.#statusAddress;
  }

  /** Where the metrics server (`--metrics-bind-address`) listens, once `run()` has started it. */
  get metricsAddress(): AddressInfo | undefined {
    return this.#metricsAddress;
  }

  get sourceNames(): readonly string[] {
    return this.#o.sources.map((s) => s.name);
  }

  /** The names the handlers run under (logs, /pods, metrics), in order. */
  get handlerNames(): readonly string[] {
    return (this.#o.handlers ?? []).map((h) => h.name);
  }

  /**
   * Runs until `signal` aborts and everything has shut down. `onStarted` is called once the
   * status server and the metrics server (each if configured) listen and the pipeline starts.
   */
  async run(signal: AbortSignal, onStarted?: (info: AgentStartedInfo) => void): Promise<void> {
    const { sources, reconciler, metrics, merger, logger, clock } = this.#o;
    // The agent runs until `signal` aborts, even when nothing else holds the event loop (no source, no status
    // server): without a handle Node.js would end the process there (exit code 13, an unsettled await).
    const alive = setInterval(() => undefined, MAX_TIMER_MS);
    // The status and metrics servers serve until `signal` aborts or the run ends otherwise (a handler failed to start):
    // a library caller whose runPodConfig rejected has no reason to abort, and its process would not exit.
    const serving = linked(signal);
    let reconciling = false;
    try {
      metrics.watchSources(sources, (name) => reconciler.readiness().ready.includes(name));
      metrics.watchReconciler(reconciler);
      if (this.#o.statusServer !== undefined) this.#statusAddress = await this.#o.statusServer.start(this, serving.signal);
      if (this.#o.metricsServer !== undefined) this.#metricsAddress = await this.#o.metricsServer.start(this, serving.signal);
      onStarted?.({ statusAddress: this.#statusAddress, metricsAddress: this.#metricsAddress });
      const started = { sources: sources.map((s) => s.name), nodeName: this.#o.config.nodeName, readiness: this.#o.config.readiness };
      // Warn: with no source every source counts as ready, so the handlers' pods are orphans and are killed.
      if (sources.length === 0) this.#log.warn(started, 'agent started with no pod source configured: every pod the handlers report is an orphan');
      else this.#log.info(started, 'agent started');
      const updates = podConfig(sources.map((s) => counted(s, metrics)), { logger, clock, merger }, signal);
      reconciling = true;
      await reconciler.run(updates, signal);
    } finally {
      clearInterval(alive);
      serving.abort();
      serving.dispose();
      await this.#o.statusServer?.closed();
      await this.#o.metricsServer?.closed();
      // Failed before the reconciler ran (the status or metrics port taken): it did not close the handlers, so here.
      if (!reconciling) await closeUnstartedHandlers(this.#o.handlers ?? [], this.#o.config.shutdownTimeoutMs, this.#log);
      await this.#o.kubeClient?.close();
      this.#log.info({}, 'agent stopped');
    }
  }

  readiness(): { readonly configured: readonly string[]; readonly ready: readonly string[]; readonly allReady: boolean } {
    return this.#o.reconciler.readiness();
  }

  syncLoopError(): string | undefined {
    return this.#o.reconciler.syncLoopError();
  }

  /** The last error of source `name` while it is unhealthy (`/readyz/source/<name>` says it), else undefined. */
  sourceError(name: string): string | undefined {
    const source = this.#o.sources.find((s) => s.name === name);
    if (source === undefined || !reportsStatus(source)) return undefined;
    const status = source.status();
    return status.healthy ? undefined : status.lastError?.message;
  }

  /**
   * The desired pods as a PodList, and in `sync` the per-handler state of every pod the
   * reconciler tracks, including removed ones whose kill is still pending or retrying.
   */
  pods(): unknown {
    const work = this.#o.reconciler.pods();
    return {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: {}, // a list's metadata, as the kubelet's /pods has it (no resourceVersion: this list is no API object's)
      // Secrets a manifest may hold are redacted: the status server has no authentication (status-redaction.ts).
      items: work.filter((w) => w.desired).map((w) => redactPodForStatus(w.pod)),
      sync: work.map(({ pod: _pod, annotations, ...sync }) => ({ ...sync, annotations: redactAnnotations(annotations) })),
      // Pods a handler reported that no source wants: their kills under way or held, a few (no pod data to redact).
      orphanKills: this.#o.reconciler.orphanKills(),
    };
  }

  sources(): unknown {
    const ready = new Set(this.#o.reconciler.readiness().ready);
    return {
      sources: this.#o.sources.map((s) => ({
        name: s.name,
        ready: ready.has(s.name),
        ...(reportsStatus(s) ? s.status() : {}),
      })),
      merger: this.#o.merger.stats(),
    };
  }
}
