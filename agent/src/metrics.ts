import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PodSource, PodUpdate, SourceName, SourceStatus } from '@podconfig/core';
import { reportsStatus } from '@podconfig/core';
import type { KubeRequestEvent, KubeRequestLatencyEvent } from '@podconfig/kube-client';
import type { WorkState } from '@podconfig/reconcile';
import { AGENT_VERSION } from './version.js';

/** What the metrics read from the reconciler at scrape time. */
export interface ReconcilerGauges {
  workStates(): Readonly<Record<string, Readonly<Record<WorkState, number>>>>;
  syncLoopHeldMs(): number;
}

export interface HandlerCallEvent {
  readonly handler: string;
  readonly call: string;
  readonly outcome: 'success' | 'error' | 'timeout';
  readonly durationMs: number;
}

/** What the status server exposes at /metrics: prom-client's `Registry` is one, {@link AgentMetrics} another. */
export interface MetricsExposition {
  readonly contentType: string;
  /** The exposition text of one scrape. */
  metrics(): Promise<string>;
}

/**
 * The agent's Prometheus metrics (`podconfig_*`). Source gauges and counters are read from each
 * source's `status()` at scrape time, so sources stay free of any metrics library.
 */
export class AgentMetrics implements MetricsExposition {
  readonly registry = new Registry();
  readonly #sets: Counter<'source'>;
  readonly #operations: Counter<'op' | 'source'>;
  readonly #operationPods: Counter<'op' | 'source'>;
  readonly #handlerCalls: Counter<'handler' | 'call' | 'outcome'>;
  readonly #handlerDuration: Histogram<'handler' | 'call'>;
  readonly #restRequests: Counter<'code' | 'host' | 'method'>;
  readonly #restDuration: Histogram<'verb' | 'host'>;
  readonly #statusFns = new Map<SourceName, () => SourceStatus>();
  /** The statuses read in the scrape under way ({@link metrics}): each source's status() is read once a scrape. */
  readonly #scrape: { statuses: Map<SourceName, SourceStatus> | undefined } = { statuses: undefined };
  readonly #readyFn: { fn: (source: SourceName) => boolean } = { fn: () => false };
  readonly #reconciler: { gauges: ReconcilerGauges | undefined } = { gauges: undefined };
  // prom-client counters cannot be set; remember what was already added per source and counter.
  readonly #counterSeen = new Map<string, number>();
  /** The names of the metrics registered for the sources' `/sources` counters. */
  readonly #sourceCounters = new Set<string>();

  /**
   * `collectDefault` adds prom-client's Node.js runtime metrics (`process_*`, `nodejs_*`). They start
   * process-wide monitors, so only the process's owner (the CLI) turns them on; default off.
   */
  constructor(options: { collectDefault?: boolean } = {}) {
    const registers = [this.registry];
    if (options.collectDefault === true) collectDefaultMetrics({ register: this.registry });
    this.#sets = new Counter({ name: 'podconfig_source_sets_total', help: 'Full SET updates emitted by each source.', labelNames: ['source'], registers });
    this.#operations = new Counter({ name: 'podconfig_merger_operations_total', help: 'Operations emitted by the merger, by type and source.', labelNames: ['op', 'source'], registers });
    this.#operationPods = new Counter({ name: 'podconfig_merger_operation_pods_total', help: 'Pods carried by merger operations, by type and source.', labelNames: ['op', 'source'], registers });
    this.#handlerCalls = new Counter({ name: 'podconfig_handler_calls_total', help: 'Sync handler calls by handler, call and outcome.', labelNames: ['handler', 'call', 'outcome'], registers });
    this.#handlerDuration = new Histogram({
      name: 'podconfig_handler_call_duration_seconds', help: 'Duration of sync handler calls.', labelNames: ['handler', 'call'],
      // Past the default --handler-timeout (1m): a timed-out call, or one under a longer timeout, still lands in a bucket.
      buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60, 120, 300, 600], registers,
    });
    // client-go's names, labels and buckets (k8s.io/component-base/metrics/prometheus/restclient), so the
    // dashboards and alerts written for the kubelet's API traffic work on the agent's.
    this.#restRequests = new Counter({
      name: 'rest_client_requests_total', help: 'Number of HTTP requests to the API server, partitioned by status code, method, and host.',
      labelNames: ['code', 'host', 'method'], registers,
    });
    this.#restDuration = new Histogram({
      name: 'rest_client_request_duration_seconds', help: 'Request latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'], buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60], registers,
    });
    // As Kubernetes components' kubernetes_build_info: 1, the facts in the labels.
    new Gauge({
      name: 'podconfig_build_info', help: 'The agent\'s version and the Node.js it runs on, as labels; the value is 1.',
      labelNames: ['version', 'nodejs_version'], registers,
    }).set({ version: AGENT_VERSION, nodejs_version: process.version }, 1);
    const reconciler = this.#reconciler;
    new Gauge({
      name: 'podconfig_handler_pods',
      help: 'Pods per sync handler by work state: idle, queued (waiting for a concurrency slot), running (a call in flight), backoff (a retry scheduled), waiting-for-name, kill-deferred.',
      labelNames: ['handler', 'state'], registers,
      collect() {
        const states = reconciler.gauges?.workStates() ?? {};
        for (const [handler, counts] of Object.entries(states)) {
          for (const [state, n] of Object.entries(counts)) this.set({ handler, state }, n);
        }
      },
    });
    new Gauge({
      name: 'podconfig_sync_loop_held_seconds',
      help: 'How long the sync loop has been taking no updates because a handler reports runtime errors; 0 when it is not.',
      registers,
      collect() { this.set((reconciler.gauges?.syncLoopHeldMs() ?? 0) / 1000); },
    });
    const statusFns = this.#statusFns;
    const readyFn = this.#readyFn;
    new Gauge({
      name: 'podconfig_source_pods', help: 'Pods in the last SET of each source.', labelNames: ['source'], registers,
      collect() { for (const [source, fn] of statusFns) this.set({ source }, fn().pods); },
    });
    new Gauge({
      name: 'podconfig_source_ready', help: '1 when the source has delivered and its update was consumed.', labelNames: ['source'], registers,
      collect() { for (const source of statusFns.keys()) this.set({ source }, readyFn.fn(source) ? 1 : 0); },
    });
    new Gauge({
      name: 'podconfig_source_healthy', help: '1 when the last attempt of the source succeeded (the file source: the path exists and none of its manifests is invalid).', labelNames: ['source'], registers,
      collect() { for (const [source, fn] of statusFns) this.set({ source }, fn().healthy ? 1 : 0); },
    });
    new Gauge({
      name: 'podconfig_source_provisional',
      help: '1 while the source\'s answer is not definitive (a grace SET, a path unusable since start, a manifest not decoded since start): orphan kills are held.',
      labelNames: ['source'], registers,
      collect() { for (const [source, fn] of statusFns) this.set({ source }, fn().provisional === true ? 1 : 0); },
    });
    new Gauge({
      name: 'podconfig_source_last_success_timestamp_seconds', help: 'When each source last succeeded (Unix time; 0 until it has).', labelNames: ['source'], registers,
      collect() {
        // 0, not an absent series, before the first success: `time() - x > N` then alerts on a source that never worked.
        for (const [source, fn] of statusFns) this.set({ source }, (fn().lastSuccessTime?.getTime() ?? 0) / 1000);
      },
    });
  }

  /**
   * Source statuses for the scrape-time gauges, and a counter metric per name among the sources' `/sources`
   * counters (their names known from the start: every source reports all of its counters, at 0 before they move).
   */
  watchSources(sources: readonly PodSource[], isReady: (source: SourceName) => boolean): void {
    for (const s of sources) {
      if (reportsStatus(s)) {
        const scrape = this.#scrape;
        this.#statusFns.set(s.name, () => {
          const read = scrape.statuses?.get(s.name);
          if (read !== undefined) return read;
          const status = s.status();
          scrape.statuses?.set(s.name, status);
          return status;
        });
        for (const key of Object.keys(s.status().counters)) this.#sourceCounter(key);
      }
      // A source that never delivers still has its series, at 0: increase() over it can then say so.
      this.#sets.inc({ source: s.name }, 0);
    }
    this.#readyFn.fn = isReady;
  }

  /**
   * The metric for the sources' counter `key`, registered once: one metric per thing counted, as Prometheus
   * names them (`podconfig_source_errors_total{source}`; the http source's `polls_<result>` as
   * `podconfig_source_polls_total{source,result}`), so that a sum over its labels means something. A name that is
   * no Prometheus name part is left out, as is the file source's `sets` (`podconfig_source_sets_total` counts them).
   */
  #sourceCounter(key: string): void {
    const metric = sourceCounterMetric(key);
    if (metric === undefined || this.#sourceCounters.has(metric.name)) return;
    const statusFns = this.#statusFns;
    const seen = this.#counterSeen;
    const labelNames = metric.result ? ['source', 'result'] : ['source'];
    new Counter({
      name: metric.name, help: SOURCE_COUNTER_HELP[metric.name] ?? `Each source's "${key}" counter, as /sources shows it.`, labelNames, registers: [this.registry],
      collect() {
        for (const [source, fn] of statusFns) {
          for (const [name, value] of Object.entries(fn().counters)) {
            const m = sourceCounterMetric(name);
            if (m?.name !== metric.name) continue;
            const labels = m.result === undefined ? { source } : { source, result: m.result };
            const id = `${source}\0${name}`;
            const before = seen.get(id);
            // A series first seen at 0 is exported at 0 (a counter that has not moved yet is still a series).
            if (before === undefined) this.inc(labels, 0);
            const delta = value - (before ?? 0);
            if (delta > 0) this.inc(labels, delta);
            seen.set(id, Math.max(value, before ?? 0));
          }
        }
      },
    });
    this.#sourceCounters.add(metric.name);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * One scrape's exposition text. Each source's `status()` is read once for it, not once per metric: the
   * scrape's pods, health and counters of a source then come from the same moment.
   */
  async metrics(): Promise<string> {
    const statuses = new Map<SourceName, SourceStatus>();
    this.#scrape.statuses = statuses;
    try {
      return await this.registry.metrics();
    } finally {
      // A scrape that overlapped this one may have put its own map in since: leave that one.
      if (this.#scrape.statuses === statuses) this.#scrape.statuses = undefined;
    }
  }

  /** The reconciler's scrape-time gauges (`podconfig_handler_pods`, `podconfig_sync_loop_held_seconds`). */
  watchReconciler(gauges: ReconcilerGauges): void {
    this.#reconciler.gauges = gauges;
  }

  sourceSet(source: SourceName): void {
    this.#sets.inc({ source });
  }

  operation(update: PodUpdate): void {
    this.#operations.inc({ op: update.op, source: update.source });
    this.#operationPods.inc({ op: update.op, source: update.source }, update.pods.length);
  }

  /** One request attempt to the API server (kube-client's `onRequest`); a failure without a response counts as code `<error>`, as client-go's. */
  kubeRequest(e: KubeRequestEvent): void {
    this.#restRequests.inc({ code: e.statusCode === undefined ? '<error>' : String(e.statusCode), host: e.host, method: e.method });
  }

  /** One non-watch request's whole duration (kube-client's `onRequestLatency`), as client-go times a request. */
  kubeRequestLatency(e: KubeRequestLatencyEvent): void {
    this.#restDuration.observe({ verb: e.method, host: e.host }, e.durationMs / 1000);
  }

  handlerCall(e: HandlerCallEvent): void {
    this.#handlerCalls.inc({ handler: e.handler, call: e.call, outcome: e.outcome });
    this.#handlerDuration.observe({ handler: e.handler, call: e.call }, e.durationMs / 1000);
  }
}

/** The metric a source's `/sources` counter goes to: its name, and the `result` label of a `polls_<result>` one. */
function sourceCounterMetric(key: string): { readonly name: string; readonly result?: string } | undefined {
  if (key === 'sets' || !/^[a-z][a-z0-9_]*$/.test(key)) return undefined;
  if (key.startsWith('polls_')) return { name: 'podconfig_source_polls_total', result: key.slice('polls_'.length) };
  return { name: `podconfig_source_${key}_total` };
}

/** The help of the counters podconfig's own sources have. */
const SOURCE_COUNTER_HELP: Readonly<Record<string, string>> = {
  podconfig_source_errors_total: 'Failed attempts of each source: file scans and watches, http polls, api lists and watches.',
  podconfig_source_scans_total: 'Full scans of the manifest path (the file source).',
  podconfig_source_invalid_files_total: 'Manifests found invalid, once per file each time it turns invalid (the file source).',
  podconfig_source_shadowed_files_total: 'Manifests left out because another file holds a pod of the same name (the file source).',
  podconfig_source_duplicate_uid_files_total: 'Manifests whose pod was left out because an earlier file has a pod with the same UID (the file source).',
  podconfig_source_watch_errors_total: 'Failures of the manifest path watch, re-armed with backoff (the file source).',
  podconfig_source_polls_total: 'Polls of the manifest URL by result: success, not_modified, error (the http source).',
  podconfig_source_relists_total: 'Lists of the pods after the watch could not resume (the api source).',
  podconfig_source_watch_restarts_total: 'Watches started again, normal expiries included: about 8 an hour when all is well (the api source).',
};

