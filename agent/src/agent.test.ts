import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { PodSnapshot, systemClock, type PodSource, type SourceName, type StatusReporter } from '@podconfig/core';
import type { PodMerger } from '@podconfig/merge';
import type { PodWorkStatus, Reconciler } from '@podconfig/reconcile';
import { makePod } from '@podconfig/testing';
import { Agent } from './agent.js';
import { AgentMetrics } from './metrics.js';
import { resolveConfig } from './settings.js';
import { REDACTED } from './status-redaction.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** An Agent over stub parts: pods(), sources() and syncLoopError() only read the reconciler, the merger and the sources. */
function agentWith(o: { work?: PodWorkStatus[]; ready?: SourceName[]; sources?: PodSource[]; syncLoopError?: string }): Agent {
  const reconciler = {
    pods: () => o.work ?? [],
    orphanKills: () => ({ items: [], omitted: 0 }),
    syncLoopError: () => o.syncLoopError,
    readiness: () => ({ configured: (o.sources ?? []).map((s) => s.name), ready: o.ready ?? [], allReady: false }),
  } as unknown as Reconciler;
  const merger = { stats: () => ({ sources: {} }) } as unknown as PodMerger;
  return new Agent({
    config: resolveConfig({ 'status-address': 'off' }, {}), logger: pino({ level: 'silent' }), clock: systemClock,
    metrics: new AgentMetrics(), merger, reconciler, sources: o.sources ?? [], statusServer: undefined,
  });
}

const source = (name: SourceName): PodSource => ({ name, async *updates() { yield { source: name, op: 'SET', pods: PodSnapshot.empty }; } });

describe('Agent', () => {
  it('shows /pods as the kubelet does: a PodList with its list metadata, then sync', () => {
    expect(agentWith({}).pods()).toEqual({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [], sync: [], orphanKills: { items: [], omitted: 0 } });
  });

  it("gives /readyz/source/<name> a source's last error while it is unhealthy, not one it has recovered from", () => {
    const withStatus = (name: SourceName, healthy: boolean): PodSource & StatusReporter => ({
      ...source(name),
      status: () => ({ seen: true, healthy, pods: 0, lastError: { message: `${name} answered 500`, time: new Date(0) }, counters: {}, details: {} }),
    });
    const agent = agentWith({ sources: [withStatus('http', false), withStatus('file', true), source('api')] });
    expect(['http', 'file', 'api', 'nope'].map((name) => agent.sourceError(name))).toEqual(['http answered 500', undefined, undefined, undefined]);
  });

  it('redacts the kubectl last-applied-configuration annotation in /pods sync entries as in items (it repeats the spec, env values too)', () => {
    const annotations = { [LAST_APPLIED]: '{"spec":{"containers":[{"env":[{"name":"PW","value":"hunter2"}]}]}}', team: 'a' };
    const pod = { ...makePod('web'), metadata: { ...makePod('web').metadata, annotations } };
    const agent = agentWith({ work: [{ uid: 'u1', namespace: 'default', name: 'web', source: 'file', desired: true, annotations, pod, handlers: {} }] });
    const shown = agent.pods() as { items: { metadata: { annotations: Record<string, string> } }[]; sync: { annotations: Record<string, string> }[] };
    expect(shown.items[0]?.metadata.annotations).toEqual({ [LAST_APPLIED]: REDACTED, team: 'a' });
    expect(shown.sync[0]?.annotations).toEqual({ [LAST_APPLIED]: REDACTED, team: 'a' });
    expect(JSON.stringify(shown)).not.toContain('hunter2');
  });

  it('shows in /sources which sources are ready and which are not yet', () => {
    const agent = agentWith({ sources: [source('file'), source('api')], ready: ['file'] });
    expect((agent.sources() as { sources: { name: string; ready: boolean }[] }).sources)
      .toEqual([{ name: 'file', ready: true }, { name: 'api', ready: false }]);
  });

  it("answers the syncloop health check with the reconciler's verdict", () => {
    expect(agentWith({}).syncLoopError()).toBeUndefined();
    expect(agentWith({ syncLoopError: 'held by runtime errors' }).syncLoopError()).toBe('held by runtime errors');
  });
});
