import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { PodSnapshot, type PodSource, type SourceStatus, type StatusReporter } from '@podconfig/core';
import { makePod } from '@podconfig/testing';
import { AgentMetrics } from './metrics.js';

describe(AgentMetrics.name, () => {
  it('exports source, merger and handler metrics under podconfig_*', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    let errors = 2;
    let provisional = true;
    const source: PodSource & StatusReporter = {
      name: 'file',
      async *updates() { yield { source: 'file', op: 'SET', pods: PodSnapshot.empty }; },
      status: (): SourceStatus => ({
        seen: true, provisional, healthy: false, pods: 3, lastSuccessTime: new Date(1_700_000_000_000),
        counters: { errors, scans: 7 }, details: {},
      }),
    };
    metrics.watchSources([source], (name) => name === 'file');
    metrics.sourceSet('file');
    metrics.operation({ source: 'file', op: 'ADD', pods: [makePod('a'), makePod('b')] });
    metrics.handlerCall({ handler: 'log', call: 'create', outcome: 'success', durationMs: 12 });
    const text = await metrics.registry.metrics();
    expect(text).toContain('podconfig_source_sets_total{source="file"} 1');
    expect(text).toContain('podconfig_source_pods{source="file"} 3');
    expect(text).toContain('podconfig_source_ready{source="file"} 1');
    expect(text).toContain('podconfig_source_healthy{source="file"} 0');
    expect(text).toContain('podconfig_source_provisional{source="file"} 1');
    expect(text).toContain('podconfig_source_last_success_timestamp_seconds{source="file"} 1700000000');
    expect(text).toContain('podconfig_source_errors_total{source="file"} 2');
    expect(text).toContain('podconfig_source_scans_total{source="file"} 7');
    expect(text).toContain('# HELP podconfig_source_scans_total Full scans of the manifest path (the file source).');
    expect(text).toContain('podconfig_merger_operations_total{op="ADD",source="file"} 1');
    expect(text).toContain('podconfig_merger_operation_pods_total{op="ADD",source="file"} 2');
    expect(text).toContain('podconfig_handler_calls_total{handler="log",call="create",outcome="success"} 1');
    expect(text).toContain('podconfig_handler_call_duration_seconds_count{handler="log",call="create"} 1');
    // Counters read from status() are monotonic across scrapes.
    errors = 5;
    provisional = false;
    const later = await metrics.registry.metrics();
    expect(later).toContain('podconfig_source_errors_total{source="file"} 5');
    expect(later).toContain('podconfig_source_provisional{source="file"} 0');
  });

  it('exports the build info, the handlers\' pods by work state and how long the sync loop is held, read at scrape time', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    const version = (JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    let heldMs = 0;
    let running = 2;
    metrics.watchReconciler({
      workStates: () => ({ log: { idle: 5, queued: 3, running, backoff: 1, 'waiting-for-name': 0, 'kill-deferred': 0 } }),
      syncLoopHeldMs: () => heldMs,
    });
    const text = await metrics.registry.metrics();
    expect(text).toContain(`podconfig_build_info{version="${version}",nodejs_version="${process.version}"} 1`);
    expect(text).toContain('podconfig_handler_pods{handler="log",state="queued"} 3');
    expect(text).toContain('podconfig_handler_pods{handler="log",state="running"} 2');
    expect(text).toContain('podconfig_handler_pods{handler="log",state="backoff"} 1');
    expect(text).toContain('podconfig_handler_pods{handler="log",state="kill-deferred"} 0');
    expect(text).toContain('podconfig_sync_loop_held_seconds 0');
    heldMs = 90_500;
    running = 0;
    const later = await metrics.registry.metrics();
    expect(later).toContain('podconfig_sync_loop_held_seconds 90.5');
    expect(later).toContain('podconfig_handler_pods{handler="log",state="running"} 0');
  });

  it('counts API server requests with client-go\'s names and labels, a failure without a response as code "<error>"', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    metrics.kubeRequest({ method: 'GET', host: '127.0.0.1:6443', statusCode: 200 });
    metrics.kubeRequest({ method: 'GET', host: '127.0.0.1:6443', statusCode: undefined });
    metrics.kubeRequest({ method: 'GET', host: '127.0.0.1:6443', statusCode: undefined });
    for (const durationMs of [3, 4, 20]) metrics.kubeRequestLatency({ method: 'GET', host: '127.0.0.1:6443', durationMs });
    const text = await metrics.registry.metrics();
    expect(text).toContain('rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 1');
    expect(text).toContain('rest_client_requests_total{code="<error>",host="127.0.0.1:6443",method="GET"} 2');
    expect(text).toContain('rest_client_request_duration_seconds_bucket{le="0.005",verb="GET",host="127.0.0.1:6443"} 2');
    expect(text).toContain('rest_client_request_duration_seconds_bucket{le="0.025",verb="GET",host="127.0.0.1:6443"} 3');
  });

  it('exports a source that has never succeeded with a last-success time of 0, so a staleness alert fires', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    const source: PodSource & StatusReporter = {
      name: 'api',
      async *updates() { yield { source: 'api', op: 'SET', pods: PodSnapshot.empty }; },
      status: (): SourceStatus => ({ seen: false, healthy: false, pods: 0, counters: {}, details: {} }),
    };
    metrics.watchSources([source], () => false);
    expect(await metrics.registry.metrics()).toContain('podconfig_source_last_success_timestamp_seconds{source="api"} 0');
  });

  it('exports podconfig_source_sets_total at 0 for a source that has not delivered yet', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    const silent: PodSource = { name: 'api', async *updates() { /* never delivers */ } };
    metrics.watchSources([silent], () => false);
    expect(await metrics.registry.metrics()).toContain('podconfig_source_sets_total{source="api"} 0');
  });

  it('has handler duration buckets past the default handler timeout (1m), so a timed-out call lands in one', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    metrics.handlerCall({ handler: 'exec', call: 'create', outcome: 'timeout', durationMs: 60_014 });
    const text = await metrics.registry.metrics();
    expect(text).toContain('podconfig_handler_call_duration_seconds_bucket{le="60",handler="exec",call="create"} 0');
    expect(text).toContain('podconfig_handler_call_duration_seconds_bucket{le="120",handler="exec",call="create"} 1');
  });

  it('reads each source\'s status() once a scrape, so its gauges and counters in one scrape come from the same moment', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    let reads = 0;
    const source: PodSource & StatusReporter = {
      name: 'http',
      async *updates() { yield { source: 'http', op: 'SET', pods: PodSnapshot.empty }; },
      status: (): SourceStatus => {
        reads += 1;
        // Each read sees a different moment: a scrape that read twice would mix them.
        return { seen: true, healthy: true, pods: reads, counters: { errors: reads, polls_ok: reads }, details: {} };
      },
    };
    metrics.watchSources([source], () => true);
    const before = reads;
    const text = await metrics.metrics();
    expect(reads - before).toBe(1);
    const n = String(reads);
    expect(text).toContain(`podconfig_source_pods{source="http"} ${n}`);
    expect(text).toContain(`podconfig_source_errors_total{source="http"} ${n}`);
    expect(text).toContain(`podconfig_source_polls_total{source="http",result="ok"} ${n}`);
    // The next scrape reads again.
    const next = await metrics.metrics();
    expect(reads - before).toBe(2);
    expect(next).toContain(`podconfig_source_pods{source="http"} ${String(reads)}`);
    expect(metrics.contentType).toBe(metrics.registry.contentType);
  });

  it('exports a source counter that is still 0 as a series at 0, then counts it up', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    let relists = 0;
    const source: PodSource & StatusReporter = {
      name: 'api',
      async *updates() { yield { source: 'api', op: 'SET', pods: PodSnapshot.empty }; },
      status: (): SourceStatus => ({ seen: true, healthy: true, pods: 0, counters: { relists, errors: 0 }, details: {} }),
    };
    metrics.watchSources([source], () => true);
    const first = await metrics.registry.metrics();
    expect(first).toContain('podconfig_source_relists_total{source="api"} 0');
    expect(first).toContain('podconfig_source_errors_total{source="api"} 0');
    relists = 2;
    expect(await metrics.registry.metrics()).toContain('podconfig_source_relists_total{source="api"} 2');
  });

  it('gives each kind of source counter a metric of its own, summable over its labels: errors across sources, polls by result', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    const reporting = (name: 'file' | 'http' | 'api', counters: Record<string, number>): PodSource & StatusReporter => ({
      name,
      async *updates() { yield { source: name, op: 'SET', pods: PodSnapshot.empty }; },
      status: (): SourceStatus => ({ seen: true, healthy: true, pods: 0, counters, details: {} }),
    });
    metrics.watchSources([
      reporting('file', { scans: 4, sets: 2, errors: 1, 'not a name': 9 }),
      reporting('http', { polls_success: 3, polls_not_modified: 5, polls_error: 2, errors: 2 }),
      reporting('api', { relists: 1, watch_restarts: 6, errors: 0 }),
    ], () => true);
    const text = await metrics.registry.metrics();
    for (const line of [
      'podconfig_source_errors_total{source="file"} 1', 'podconfig_source_errors_total{source="http"} 2', 'podconfig_source_errors_total{source="api"} 0',
      'podconfig_source_polls_total{source="http",result="success"} 3', 'podconfig_source_polls_total{source="http",result="not_modified"} 5',
      'podconfig_source_polls_total{source="http",result="error"} 2',
      'podconfig_source_scans_total{source="file"} 4', 'podconfig_source_relists_total{source="api"} 1', 'podconfig_source_watch_restarts_total{source="api"} 6',
    ]) expect(text).toContain(line);
    // The file source's own `sets` is podconfig_source_sets_total's count; a key that is no metric name is left out.
    expect(text).not.toContain('podconfig_source_sets_total{source="file"} 2');
    expect(text).not.toMatch(/not a name|podconfig_source_events_total/);
  });

  /** The value of one exposition line; exact, so 1700000000 does not match 1700000000000 as a substring would. */
  const sample = (text: string, series: string): string | undefined =>
    text.split('\n').find((line) => line.startsWith(`${series} `))?.slice(series.length + 1);

  it('exports the file source\'s shadowed and invalid manifests as podconfig_source_shadowed_files_total and podconfig_source_invalid_files_total (D1, D4)', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    const source: PodSource & StatusReporter = {
      name: 'file',
      async *updates() { yield { source: 'file', op: 'SET', pods: PodSnapshot.empty }; },
      status: (): SourceStatus => ({ seen: true, healthy: true, pods: 1, counters: { scans: 1, invalid_files: 3, shadowed_files: 2 }, details: {} }),
    };
    metrics.watchSources([source], () => true);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'podconfig_source_shadowed_files_total{source="file"}')).toBe('2');
    expect(sample(text, 'podconfig_source_invalid_files_total{source="file"}')).toBe('3');
  });

  it('observes handler call durations in seconds: a 250 ms call sums to 0.25 and falls in the 0.5 bucket, not the 0.1 one', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    metrics.handlerCall({ handler: 'exec', call: 'sync', outcome: 'success', durationMs: 250 });
    const text = await metrics.registry.metrics();
    expect(sample(text, 'podconfig_handler_call_duration_seconds_sum{handler="exec",call="sync"}')).toBe('0.25');
    expect(sample(text, 'podconfig_handler_call_duration_seconds_bucket{le="0.1",handler="exec",call="sync"}')).toBe('0');
    expect(sample(text, 'podconfig_handler_call_duration_seconds_bucket{le="0.5",handler="exec",call="sync"}')).toBe('1');
  });

  it('exports podconfig_source_ready 0 for a source not ready, and the last success time in Unix seconds', async () => {
    const metrics = new AgentMetrics({ collectDefault: false });
    const source: PodSource & StatusReporter = {
      name: 'http',
      async *updates() { yield { source: 'http', op: 'SET', pods: PodSnapshot.empty }; },
      status: (): SourceStatus => ({ seen: false, healthy: true, pods: 0, lastSuccessTime: new Date(1_700_000_123_000), counters: {}, details: {} }),
    };
    metrics.watchSources([source], () => false);
    const text = await metrics.registry.metrics();
    expect(sample(text, 'podconfig_source_ready{source="http"}')).toBe('0');
    expect(sample(text, 'podconfig_source_last_success_timestamp_seconds{source="http"}')).toBe('1700000123');
  });
});
