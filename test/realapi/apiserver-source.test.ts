/**
 * The built agent (`--kubeconfig`, `--handler log`, no manifest path) against the REAL Kubernetes API
 * server (k8s.io/apiserver 1.36 + etcd, ../shared/realapi), driven with kubectl. After each step the
 * agent's GET /pods must equal the server's pods for the node (namespace/name and uid), and no pod that
 * is still on the server may ever have been killed (D18: the `log` handler's `op: 'kill'` lines). A pod
 * on another node may change or go without any handler call.
 * Relists and watch restarts per scenario are read from GET /sources and attached as annotations.
 */
import { systemClock } from '@podconfig/core';
import { KubeClient, loadClusterConfig } from '@podconfig/kube-client';
import { ApiserverPodSource } from '@podconfig/source-apiserver';
import { createTestPki } from '@podconfig/testing';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { AgentProcess, eventually, type LogLine } from '../support/agent-process.js';
import { Kubectl, podObject, type PodRef } from '../support/kubectl.js';
import { RealApiServer, realapiAvailable } from '../support/realapi.js';
import { TcpProxy } from '../support/realapi-proxy.js';

const built = realapiAvailable();
/** An upper bound: after an outage the reflector's backoff (D12) can be several seconds. */
const SYNC_TIMEOUT_MS = 60_000;

interface ApiSourceStatus {
  readonly seen: boolean;
  readonly healthy: boolean;
  readonly pods: number;
  readonly lastError?: { readonly message: string; readonly code?: string };
  readonly counters: { readonly relists: number; readonly watch_restarts: number; readonly errors: number };
  readonly details: Readonly<Record<string, unknown>>;
}

const agents: AgentProcess[] = [];
const proxies: TcpProxy[] = [];

afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.stopWithin();
  for (const proxy of proxies.splice(0)) await proxy.close();
});

async function startAgent(kubeconfig: string, node: string): Promise<AgentProcess> {
  const agent = await AgentProcess.start(['--kubeconfig', kubeconfig, '--node-name', node, '--handler', 'log', '--log-level', 'debug']);
  agents.push(agent);
  return agent;
}

async function agentPods(agent: AgentProcess): Promise<PodRef[]> {
  const list = await agent.getJSON<{ items: { metadata: { namespace: string; name: string; uid: string } }[] }>('/pods');
  return list.items.map((p) => ({ key: `${p.metadata.namespace}/${p.metadata.name}`, uid: p.metadata.uid })).sort((a, b) => a.key.localeCompare(b.key));
}

async function apiStatus(agent: AgentProcess): Promise<ApiSourceStatus> {
  const body = await agent.getJSON<{ sources: ({ name: string } & ApiSourceStatus)[] }>('/sources');
  const api = body.sources.find((s) => s.name === 'api');
  if (api === undefined) throw new Error(`no api source in /sources: ${JSON.stringify(body)}`);
  return api;
}

/** Waits until the agent's /pods equals the server's pods for `node` (read once, after the change). */
async function inSync(agent: AgentProcess, kubectl: Kubectl, node: string): Promise<PodRef[]> {
  const want = await kubectl.podsOnNode(node);
  let got: PodRef[] = [];
  await eventually(
    async () => {
      got = await agentPods(agent);
      return JSON.stringify(got) === JSON.stringify(want) ? true : undefined;
    },
    SYNC_TIMEOUT_MS,
    `agent /pods (${JSON.stringify(got)}) equal to the server's pods for ${node} (${JSON.stringify(want)})`,
  );
  return want;
}

const isKill = (l: LogLine): boolean => l.component === 'sync.log' && l.op === 'kill';

/** `op: 'kill'` lines of the log handler for pods that are still on the server (D18: must be none). */
function spuriousKills(agent: AgentProcess, onServer: readonly PodRef[]): LogLine[] {
  const uids = new Set(onServer.map((p) => p.uid));
  return agent.logs.filter((l) => isKill(l) && typeof l.uid === 'string' && uids.has(l.uid));
}

/** Log lines of the pod reflector whose error is a 410 (`PODCONFIG_WATCH_EXPIRED`). */
function expiredErrors(agent: AgentProcess): LogLine[] {
  return agent.logs.filter((l) => l.component === 'cache.reflector' && l.reflector === 'pods' && JSON.stringify(l.err ?? {}).includes('PODCONFIG_WATCH_EXPIRED'));
}

function syncLine(op: string, pod: string, uid?: string): (l: LogLine) => boolean {
  return (l) => l.component === 'sync.log' && l.op === op && l.pod === pod && (uid === undefined || l.uid === uid);
}

/** Like {@link syncLine}, but only lines logged after this call (an earlier line of the same op does not count). */
function nextSyncLine(agent: AgentProcess, op: string, pod: string, uid?: string): (l: LogLine) => boolean {
  const earlier = new Set(agent.logs);
  const matches = syncLine(op, pod, uid);
  return (l) => !earlier.has(l) && matches(l);
}

/** The log handler's lines (every op) for `pod`. */
function handlerCalls(agent: AgentProcess, pod: string): LogLine[] {
  return agent.logs.filter((l) => l.component === 'sync.log' && l.pod === pod);
}

/** The container images of `namespace/name` in the agent's GET /pods (undefined when it is not there). */
async function agentImages(agent: AgentProcess, key: string): Promise<string[] | undefined> {
  const list = await agent.getJSON<{ items: { metadata: { namespace: string; name: string }; spec: { containers: { image: string }[] } }[] }>('/pods');
  const pod = list.items.find((p) => `${p.metadata.namespace}/${p.metadata.name}` === key);
  return pod?.spec.containers.map((c) => c.image);
}

async function record(context: TestContext, agent: AgentProcess, scenario: string): Promise<ApiSourceStatus> {
  const s = await apiStatus(agent);
  await context.annotate(`${scenario}: relists=${s.counters.relists} watch_restarts=${s.counters.watch_restarts} errors=${s.counters.errors}`);
  return s;
}

/** One real API server for the enclosing `describe`, started with `serverFlags` before its tests and stopped after them. */
function realApiServerForSuite(serverFlags: readonly string[]): { readonly api: RealApiServer; readonly kubectl: Kubectl } {
  let started: { api: RealApiServer; kubectl: Kubectl } | undefined;
  beforeAll(async () => {
    const api = await RealApiServer.start({ serverFlags });
    started = { api, kubectl: new Kubectl(api.kubeconfig) };
  }, 120_000);
  afterAll(async () => {
    await started?.api.stop();
  }, 60_000);
  const get = (): { api: RealApiServer; kubectl: Kubectl } => {
    if (started === undefined) throw new Error('the real API server did not start');
    return started;
  };
  return { get api() { return get().api; }, get kubectl() { return get().kubectl; } };
}

describe.skipIf(!built)('ApiserverPodSource in the built agent against the real API server', () => {
  const server = realApiServerForSuite(['--pod-graceful-deletion']);

  it('follows create, bind, label, image (spec), status-only, graceful delete and delete; ignores the other node; the node gate passes without the Node', async (context) => {
    const node = 'node-life';
    await server.kubectl.create(podObject('web', { nodeName: node }));
    await server.kubectl.create(podObject('elsewhere', { nodeName: 'node-other' }));
    await server.kubectl.create(podObject('unbound', { namespace: 'kube-system' }));
    const agent = await startAgent(server.api.kubeconfig, node);
    await agent.waitForLog((l) => l.component === 'source.api' && l.msg === 'waiting for node sync before watching apiserver pods');
    expect((await inSync(agent, server.kubectl, node)).map((p) => p.key)).toEqual(['default/web']);
    expect(await apiStatus(agent)).toMatchObject({ seen: true, healthy: true, details: { nodeSynced: true, nodeExists: false, podsSynced: true } });

    await server.kubectl.create(podObject('db', { nodeName: node, namespace: 'kube-system' }));
    expect((await inSync(agent, server.kubectl, node)).map((p) => p.key)).toEqual(['default/web', 'kube-system/db']);

    await server.kubectl.bind('kube-system', 'unbound', node);
    expect((await inSync(agent, server.kubectl, node)).map((p) => p.key)).toEqual(['default/web', 'kube-system/db', 'kube-system/unbound']);

    // The pod on the other node is labelled, then deleted: the agent's field selector never shows it.
    // Labelling db on this node afterwards is the barrier: once the agent has that, it has every
    // earlier change (one watch, ordered by resourceVersion).
    const db = (await server.kubectl.getPod('kube-system', 'db'))!;
    await server.kubectl.run(['label', 'pod', 'elsewhere', 'app=elsewhere']);
    await server.kubectl.run(['delete', 'pod', 'elsewhere', '--grace-period=0', '--force']);
    expect(await server.kubectl.getPod('default', 'elsewhere')).toBeUndefined();
    await server.kubectl.run(['label', 'pod', 'db', '-n', 'kube-system', 'after=elsewhere']);
    await agent.waitForLog(syncLine('update', 'kube-system/db', db.metadata.uid), SYNC_TIMEOUT_MS);
    expect((await inSync(agent, server.kubectl, node)).map((p) => p.key)).toEqual(['default/web', 'kube-system/db', 'kube-system/unbound']);
    expect(handlerCalls(agent, 'default/elsewhere')).toEqual([]);

    const web = (await server.kubectl.getPod('default', 'web'))!;
    await server.kubectl.run(['label', 'pod', 'web', 'app=web']);
    await agent.waitForLog(syncLine('update', 'default/web', web.metadata.uid), SYNC_TIMEOUT_MS);

    // A spec update (the server allows image changes): an UPDATE with the new image, never a kill.
    const updated = nextSyncLine(agent, 'update', 'default/web', web.metadata.uid);
    await server.kubectl.run(['set', 'image', 'pod/web', 'main=registry.k8s.io/pause:3.9']);
    await agent.waitForLog(updated, SYNC_TIMEOUT_MS);
    expect(await agentImages(agent, 'default/web')).toEqual(['registry.k8s.io/pause:3.9']);
    expect((await inSync(agent, server.kubectl, node)).find((p) => p.key === 'default/web')?.uid).toBe(web.metadata.uid);
    expect(agent.logs.filter(isKill)).toEqual([]);

    await server.kubectl.run(['patch', 'pod', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running"}}']);
    await agent.waitForLog(syncLine('reconcile', 'default/web', web.metadata.uid), SYNC_TIMEOUT_MS);
    await inSync(agent, server.kubectl, node);

    // --pod-graceful-deletion: the pod gets a deletionTimestamp and stays until deleted with gracePeriodSeconds=0.
    await server.kubectl.run(['delete', 'pod', 'web', '--wait=false']);
    expect((await server.kubectl.getPod('default', 'web'))?.metadata.deletionTimestamp).toBeDefined();
    await agent.waitForLog(syncLine('delete', 'default/web', web.metadata.uid), SYNC_TIMEOUT_MS);
    expect((await inSync(agent, server.kubectl, node)).map((p) => p.key)).toContain('default/web');
    expect(agent.logs.filter(isKill)).toEqual([]);

    await server.kubectl.run(['delete', 'pod', 'web', '--grace-period=0', '--force']);
    await agent.waitForLog(syncLine('kill', 'default/web', web.metadata.uid), SYNC_TIMEOUT_MS);
    expect((await inSync(agent, server.kubectl, node)).map((p) => p.key)).toEqual(['kube-system/db', 'kube-system/unbound']);

    await server.kubectl.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } });
    await eventually(async () => ((await apiStatus(agent)).details.nodeExists === true ? true : undefined), SYNC_TIMEOUT_MS, 'the Node is seen');
    await server.kubectl.run(['delete', 'pod', 'db', '-n', 'kube-system', '--grace-period=0', '--force']);
    const final = await inSync(agent, server.kubectl, node);
    expect(spuriousKills(agent, final)).toEqual([]);
    await agent.waitForLog((l) => isKill(l) && l.pod === 'kube-system/db');
    expect(agent.logs.filter(isKill).map((l) => l.pod).sort()).toEqual(['default/web', 'kube-system/db']);
    expect(handlerCalls(agent, 'default/elsewhere')).toEqual([]);
    const s = await record(context, agent, 'lifecycle');
    expect(s.counters.relists).toBe(0);
  });

  it('an API server restart: the agent re-watches once the server is back, nothing is killed', async (context) => {
    const node = 'node-restart';
    for (const name of ['r1', 'r2']) await server.kubectl.create(podObject(name, { nodeName: node }));
    const agent = await startAgent(server.api.kubeconfig, node);
    await inSync(agent, server.kubectl, node);
    await server.api.restart();
    await server.kubectl.create(podObject('r3', { nodeName: node }));
    const onServer = await inSync(agent, server.kubectl, node);
    expect(onServer.map((p) => p.key)).toEqual(['default/r1', 'default/r2', 'default/r3']);
    expect(spuriousKills(agent, onServer)).toEqual([]);
    expect(agent.logs.filter(isKill)).toEqual([]);
    const s = await record(context, agent, 'restart');
    expect(s.counters.watch_restarts).toBeGreaterThan(0);
  });

  it('an API server restart while the agent is cut off and misses changes: the new watch cache answers 410, it relists', async (context) => {
    const node = 'node-restart-missed';
    for (const name of ['m1', 'm2', 'm3']) await server.kubectl.create(podObject(name, { nodeName: node }));
    const proxy = await TcpProxy.start(server.api.apiPort);
    proxies.push(proxy);
    const agent = await startAgent(await server.api.writeKubeconfig('proxy.kubeconfig', { server: proxy.url }), node);
    await inSync(agent, server.kubectl, node);
    const before = await apiStatus(agent);
    // The agent's resourceVersion then predates the restarted server's watch cache.
    proxy.pause();
    await server.kubectl.run(['delete', 'pod', 'm1', '--grace-period=0', '--force']);
    await server.kubectl.create(podObject('m4', { nodeName: node }));
    await server.api.restart();
    proxy.resume();
    const onServer = await inSync(agent, server.kubectl, node);
    expect(onServer.map((p) => p.key)).toEqual(['default/m2', 'default/m3', 'default/m4']);
    expect(spuriousKills(agent, onServer)).toEqual([]);
    // /pods changes when the REMOVE is consumed; the handler's kill call follows asynchronously.
    await agent.waitForLog((l) => isKill(l) && l.pod === 'default/m1');
    expect(agent.logs.filter(isKill).map((l) => l.pod)).toEqual(['default/m1']);
    const s = await record(context, agent, 'restart with missed changes');
    expect(s.counters.relists).toBeGreaterThan(before.counters.relists);
    expect(expiredErrors(agent).length).toBeGreaterThan(0);
  });

  it('TLS with a wrong CA: refuses the server, shows a TLS error naming it in /sources, runs no pods', async (context) => {
    const node = 'node-tls';
    await server.kubectl.create(podObject('tls-pod', { nodeName: node }));
    const other = await createTestPki({ caName: 'not the realapi CA' });
    const agent = await startAgent(await server.api.writeKubeconfig('wrong-ca.kubeconfig', { ca: other.ca.cert }), node);
    const s = await eventually(async () => {
      const status = await apiStatus(agent);
      return status.counters.errors >= 2 && status.lastError?.code === 'PODCONFIG_TLS' ? status : undefined;
    }, SYNC_TIMEOUT_MS, 'a TLS error in /sources');
    expect(s.lastError?.message).toContain(`${server.api.server}/`);
    expect(s).toMatchObject({ seen: false, healthy: false, pods: 0, details: { nodeSynced: false } });
    expect(await agentPods(agent)).toEqual([]);
    expect(agent.logs.filter((l) => l.component === 'sync.log')).toEqual([]);
    await context.annotate(`wrong CA: errors=${s.counters.errors}, no SET`);
  });

  it('a bad token: a clear 401 error in /sources and the logs, no secret in them, no pods', async (context) => {
    const node = 'node-token';
    await server.kubectl.create(podObject('token-pod', { nodeName: node }));
    const badToken = 'bad-token-7f3a9c1e5b2d4680';
    const agent = await startAgent(await server.api.writeKubeconfig('bad-token.kubeconfig', { token: badToken }), node);
    const s = await eventually(async () => {
      const status = await apiStatus(agent);
      return status.counters.errors >= 2 && status.lastError !== undefined ? status : undefined;
    }, SYNC_TIMEOUT_MS, 'a 401 in /sources');
    expect(s.lastError).toMatchObject({ code: 'PODCONFIG_API_STATUS' });
    expect(s.lastError?.message).toMatch(/^unauthorized: check the token\/credentials of /);
    expect(s).toMatchObject({ seen: false, healthy: false, pods: 0 });
    const logged = agent.logs.find((l) => l.component === 'cache.reflector' && JSON.stringify(l.err ?? '').includes('unauthorized'));
    expect(logged).toBeDefined();
    expect(await agentPods(agent)).toEqual([]);
    const everything = [JSON.stringify(agent.logs), agent.stderr.join('\n'), JSON.stringify(await agent.getJSON('/sources')), (await agent.get('/metrics')).body].join('\n');
    expect(everything).not.toContain(badToken);
    expect(everything).not.toContain(await server.api.token());
    await context.annotate(`bad token: errors=${s.counters.errors}, no SET`);
  });
});

describe.skipIf(!built)('ApiserverPodSource in the built agent against the real API server without a watch cache', () => {
  const server = realApiServerForSuite(['--watch-cache=false', '--etcd-compaction-interval=0']);

  it('a quiet node\'s streams stay open: the initial-events-end bookmark from etcd is not taken for periodic bookmarks (no silence cut)', async (context) => {
    const node = 'node-quiet';
    await server.kubectl.create(podObject('q1', { nodeName: node }));
    const config = await loadClusterConfig({ kubeconfig: server.api.kubeconfig });
    if (config === undefined) throw new Error('no cluster config');
    const logger = pino({ level: 'silent' });
    const client = new KubeClient({ config, logger, clock: systemClock });
    // A silence cut this short would end both streams at once if the end bookmark armed it: without a watch
    // cache, etcd's watch sends no periodic bookmark (the agent's 150 s would cut every quiet watch).
    const source = new ApiserverPodSource({ client, nodeName: node, logger, clock: systemClock, reflector: { bookmarkSilenceMs: 1000, stallTimeoutMs: 1000 } });
    const controller = new AbortController();
    const sets: number[] = [];
    const consuming = (async () => {
      for await (const update of source.updates(controller.signal)) sets.push(update.pods.size);
    })();
    try {
      await eventually(async () => (sets.length > 0 ? true : undefined), SYNC_TIMEOUT_MS, 'the first SET');
      await new Promise((resolve) => setTimeout(resolve, 4000));
      const s = source.status();
      expect(s).toMatchObject({ healthy: true, counters: { relists: 0, watch_restarts: 0, errors: 0 }, details: { watchList: true, connected: true } });
      expect(s.lastError).toBeUndefined();
      expect(sets).toEqual([1]);
      await context.annotate(`quiet watch without a watch cache: 4 s past a 1 s silence bound, ${JSON.stringify(s.counters)}`);
    } finally {
      controller.abort();
      await consuming;
      await client.close();
    }
  });

  it('etcd compaction (compact.sh) of changes the agent missed: the re-watch gets 410 and it relists', async (context) => {
    const node = 'node-compact';
    for (const name of ['c1', 'c2']) await server.kubectl.create(podObject(name, { nodeName: node }));
    const proxy = await TcpProxy.start(server.api.apiPort);
    proxies.push(proxy);
    const agent = await startAgent(await server.api.writeKubeconfig('proxy.kubeconfig', { server: proxy.url }), node);
    await inSync(agent, server.kubectl, node);
    const before = await apiStatus(agent);

    proxy.pause();
    await server.kubectl.run(['delete', 'pod', 'c1', '--grace-period=0', '--force']);
    await server.kubectl.create(podObject('c3', { nodeName: node }));
    expect(await server.api.compact()).toMatch(/^compacted etcd/);
    proxy.resume();
    const onServer = await inSync(agent, server.kubectl, node);
    expect(onServer.map((p) => p.key)).toEqual(['default/c2', 'default/c3']);
    expect(spuriousKills(agent, onServer)).toEqual([]);
    await agent.waitForLog((l) => isKill(l) && l.pod === 'default/c1');
    expect(agent.logs.filter(isKill).map((l) => l.pod)).toEqual(['default/c1']);
    const s = await record(context, agent, 'compaction');
    expect(s.counters.relists).toBeGreaterThan(before.counters.relists);
    expect(expiredErrors(agent).length).toBeGreaterThan(0);
  });
});

describe.skipIf(!built)('ApiserverPodSource in the built agent against a real API server without the WatchList feature gate', () => {
  // The apiserver default before 1.32 (Beta off): a streaming list is refused with 422 Invalid.
  const server = realApiServerForSuite(['--feature-gates=WatchList=false']);

  it('falls back to LIST then WATCH for good on the 422, and follows changes', async (context) => {
    const node = 'node-no-watchlist';
    await server.kubectl.create(podObject('w1', { nodeName: node }));
    const agent = await startAgent(server.api.kubeconfig, node);
    await inSync(agent, server.kubectl, node);
    const fellBack = agent.logs.filter((l) => l.component === 'cache.reflector' && l.msg === 'watch-list not supported, using LIST/WATCH from now on');
    expect(fellBack.map((l) => l.reflector).sort()).toEqual(['nodes', 'pods']);
    expect(JSON.stringify(fellBack[0]!.err)).toContain('sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    await server.kubectl.create(podObject('w2', { nodeName: node }));
    const onServer = await inSync(agent, server.kubectl, node);
    expect(onServer.map((p) => p.key)).toEqual(['default/w1', 'default/w2']);
    const s = await record(context, agent, 'no WatchList gate');
    expect(s).toMatchObject({ healthy: true, details: { watchList: false, connected: true }, counters: { relists: 0 } });
    // Only the two refused streaming lists failed; no relist or re-watch followed them.
    expect(s.counters.errors).toBe(2);
  });
});
