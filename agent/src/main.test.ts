import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PodConfigError, type Clock, type SyncHandler } from '@podconfig/core';
import { FakeApiServer, makePod, podManifestYaml, tempDir } from '@podconfig/testing';
import type { Agent } from './agent.js';
import { createAgent } from './main.js';
import { AgentMetrics } from './metrics.js';
import { resolveConfig } from './settings.js';

/** A server the environment's proxy applies to (not loopback); nothing here connects to it. */
const REMOTE = 'https://kube.example:6443';

describe('createAgent()', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  const controller = new AbortController();
  beforeEach(async () => { dir = await tempDir(); });
  afterEach(async () => { await dir.cleanup(); });

  const kubeconfig = async (server = 'https://127.0.0.1:1'): Promise<string> => {
    const path = join(dir.path, 'kubeconfig');
    await writeFile(path, [
      'apiVersion: v1', 'kind: Config', 'current-context: c',
      `clusters: [{name: k, cluster: {server: "${server}"}}]`,
      'users: [{name: u, user: {token: t}}]',
      'contexts: [{name: c, context: {cluster: k, user: u}}]', '',
    ].join('\n'));
    return path;
  };
  const build = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
    createAgent(resolveConfig({ 'status-address': 'off', ...flags }, {}), {
      logger: pino({ level: 'silent' }), signal: controller.signal, env: { HOME: dir.path, ...env },
    });

  it('resolves the root with no source in standalone mode without paths', async () => {
    expect((await build({})).sourceNames).toEqual([]);
  });

  it('binds one source per configured input: file, http and, with a kubeconfig, api', async () => {
    const agent = await build({ 'pod-manifest-path': dir.path, 'manifest-url': 'http://127.0.0.1:1/pods', kubeconfig: await kubeconfig() });
    expect([...agent.sourceNames].sort()).toEqual(['api', 'file', 'http']);
  });

  it('finds the kubeconfig through $KUBECONFIG, as kubectl does', async () => {
    const agent = await build({ 'pod-manifest-path': dir.path }, { KUBECONFIG: await kubeconfig() });
    expect([...agent.sourceNames].sort()).toEqual(['api', 'file']);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['--kubeconfig=""', { kubeconfig: '' }, {}],
    ['--kubeconfig=" "', { kubeconfig: ' ' }, {}],
    ['the config field kubeconfig: ""', {}, { kubeconfig: '' }],
  ])('runs standalone (no api source) for %s, though $KUBECONFIG and ~/.kube/config name an apiserver', async (_, flags, file) => {
    const path = await kubeconfig();
    await mkdir(join(dir.path, '.kube'));
    await copyFile(path, join(dir.path, '.kube', 'config'));
    const lines: { msg: string; setting?: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as { msg: string }); } });
    const config = resolveConfig({ 'status-address': 'off', 'pod-manifest-path': dir.path, ...flags }, file, { configFile: join(dir.path, 'c.yaml') });
    const agent = await createAgent(config, { logger, signal: controller.signal, env: { HOME: dir.path, KUBECONFIG: path } });
    expect([...agent.sourceNames]).toEqual(['file']);
    expect(lines.find((l) => l.msg.includes('standalone'))?.msg).toBe('kubeconfig set empty: standalone mode, no apiserver source');
  });

  it('warns when KUBECONFIG names only files that do not exist: standalone, as client-go skips them, but likely a typo', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
    const named = `${join(dir.path, 'missing.yaml')}:${join(dir.path, 'also-missing.yaml')}`;
    const agent = await createAgent(resolveConfig({ 'status-address': 'off', 'pod-manifest-path': dir.path }, {}), {
      logger, signal: controller.signal, env: { HOME: dir.path, KUBECONFIG: named },
    });
    expect([...agent.sourceNames]).toEqual(['file']);
    expect(lines.find((l) => String(l['msg']).includes('standalone'))).toMatchObject({
      level: 40, KUBECONFIG: named, msg: 'KUBECONFIG names no file that exists or holds a configuration: standalone mode, no apiserver source',
    });
  });

  it('warns, naming the kubeconfig and context, when the api source comes from ~/.kube/config with no --kubeconfig or $KUBECONFIG (the kubelet runs standalone)', async () => {
    await mkdir(join(dir.path, '.kube'));
    await copyFile(await kubeconfig(), join(dir.path, '.kube', 'config'));
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
    const agent = await createAgent(resolveConfig({ 'status-address': 'off' }, {}), { logger, signal: controller.signal, env: { HOME: dir.path } });
    expect([...agent.sourceNames]).toEqual(['api']);
    expect(lines.find((l) => String(l['msg']).startsWith('apiserver source configured'))).toMatchObject({
      level: 40, cluster: `kubeconfig:${join(dir.path, '.kube', 'config')}#c`, server: 'https://127.0.0.1:1/',
      msg: expect.stringContaining('no --kubeconfig was given') as unknown,
    });
  });

  it.each<[string, Record<string, unknown>, Record<string, string>]>([
    ['--kubeconfig', { kubeconfig: 'FILE' }, {}],
    ['$KUBECONFIG', {}, { KUBECONFIG: 'FILE' }],
  ])('logs the api source\'s kubeconfig at info when %s chose it', async (_, flags, env) => {
    const path = await kubeconfig();
    const fill = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v === 'FILE' ? path : v]));
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
    await createAgent(resolveConfig({ 'status-address': 'off', ...fill(flags) }, {}), { logger, signal: controller.signal, env: { HOME: dir.path, ...fill(env) as Record<string, string> } });
    expect(lines.find((l) => String(l['msg']).startsWith('apiserver source configured'))).toMatchObject({ level: 30, msg: 'apiserver source configured', cluster: `kubeconfig:${path}#c` });
  });

  it('names the feature gates it does not use in one info line, names only, and none when it uses all given', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
    const config = resolveConfig({ 'status-address': 'off', kubeconfig: '', 'feature-gates': 'WatchListClient=false,SidecarContainers=true' },
      { featureGates: { KubeletCgroupDriverFromCRI: false, AllBeta: true } });
    await createAgent(config, { logger, signal: controller.signal, env: { HOME: dir.path } });
    const gates = lines.filter((l) => String(l['msg']).includes('feature gates'));
    expect(gates).toEqual([
      expect.objectContaining({ level: 30, msg: 'ignoring feature gates podconfig does not use', featureGates: ['KubeletCgroupDriverFromCRI', 'SidecarContainers'] }),
      // AllBeta changes what a kubelet accepts in a static pod; podconfig validates with 1.36's defaults all the same.
      expect.objectContaining({
        level: 40, featureGates: ['AllBeta'],
        msg: "static pods are validated with Kubernetes 1.36's default feature gates: these gates change what the kubelet accepts, not what podconfig does",
      }),
    ]);
    lines.length = 0;
    await createAgent(resolveConfig({ 'status-address': 'off', kubeconfig: '', 'feature-gates': 'WatchListClient=false' }, {}), {
      logger, signal: controller.signal, env: { HOME: dir.path },
    });
    expect(lines.filter((l) => String(l['msg']).includes('feature gates'))).toEqual([]);
  });

  it('runs the same built-in twice side by side (the second as "<name>-2")', async () => {
    expect((await build({ handler: ['log', 'log'] })).handlerNames).toEqual(['log', 'log-2']);
  });

  it('gives automatic handler names the first free -N suffix, skipping an explicit id (log-2 by id, then log, log-3)', async () => {
    const config = resolveConfig({ 'status-address': 'off' }, {
      handlers: [{ name: 'log', id: 'log-2' }, 'log', 'log', { name: 'log' }],
    });
    const agent = await createAgent(config, { logger: pino({ level: 'silent' }), signal: controller.signal, env: { HOME: dir.path } });
    expect(agent.handlerNames).toEqual(['log-2', 'log', 'log-3', 'log-4']);
  });

  it('reserves the names of library handler objects: a spec for the same built-in runs as "<name>-2"', async () => {
    // The object's name is fixed (the library caller chose it); only the loaded spec can be renamed.
    const object: SyncHandler = { name: 'log', async syncPod() {}, async killPod() {} };
    const config = resolveConfig({ 'status-address': 'off', handler: ['log'] }, {});
    const agent = await createAgent(config, { logger: pino({ level: 'silent' }), signal: controller.signal, env: { HOME: dir.path }, handlers: [object] });
    expect([...agent.handlerNames].sort()).toEqual(['log', 'log-2']);
  });

  it.each<[{ kubeconfig?: string; context?: string }, string]>([
    [{ kubeconfig: '/nonexistent/kubeconfig' }, '--kubeconfig: kubeconfig /nonexistent/kubeconfig: does not exist'],
    [{ context: 'nope' }, '--context: context "nope" does not exist'],
  ])('rejects a bad kubeconfig or context as invalid configuration, naming it: %j', async (flags, message) => {
    const kc = flags.kubeconfig ?? await kubeconfig();
    const err = await build({ ...flags, kubeconfig: kc }).catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
    expect((err as Error).message).toContain(message);
  });

  it('logs the proxy the api source goes through (HTTPS_PROXY for a remote server), without its credentials', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => { lines.push(JSON.parse(line) as Record<string, unknown>); } });
    const config = resolveConfig({ 'status-address': 'off', kubeconfig: await kubeconfig(REMOTE) }, {});
    await createAgent(config, { logger, signal: controller.signal, env: { HOME: dir.path, HTTPS_PROXY: 'http://user:secret@proxy.corp:3128' } });
    expect(lines.find((l) => l['msg'] === 'apiserver source configured')).toMatchObject({ server: `${REMOTE}/`, proxy: 'http://proxy.corp:3128/' });
    expect(JSON.stringify(lines)).not.toContain('secret');
  });

  it.each<[string, Record<string, unknown>, NodeJS.ProcessEnv, string]>([
    ['the api source', { kubeconfig: REMOTE }, { HTTPS_PROXY: 'ftp://proxy.corp' }, 'HTTPS_PROXY: not a proxy URL'],
    ['the manifest URL', { 'manifest-url': 'http://manifests.example/pods' }, { http_proxy: 'ftp://proxy.corp' }, 'http_proxy: not a proxy URL'],
  ])('rejects an unusable proxy variable for %s as invalid configuration, naming it', async (_, flags, env, message) => {
    const withFile = flags['kubeconfig'] === undefined ? flags : { ...flags, kubeconfig: await kubeconfig(REMOTE) };
    const err = await build(withFile, env).catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
    expect((err as Error).message).toContain(message);
  });

  it('rejects a kubeconfig that is not YAML as invalid configuration', async () => {
    const path = join(dir.path, 'broken');
    await writeFile(path, 'clusters: [unclosed\n');
    const err = await build({ kubeconfig: path }).catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
    expect((err as Error).message).toContain(`--kubeconfig: kubeconfig ${path}: invalid YAML`);
  });

  it('rejects a handler that cannot be loaded, naming it', async () => {
    await expect(build({ handler: ['./no-such-plugin.mjs'] })).rejects.toThrow('handler "./no-such-plugin.mjs"');
  });
});

/**
 * Wall time as the system's, monotonic time frozen, and every sleep recorded and left pending until
 * its signal aborts: what the agent's parts asked to wait for shows their settings (a token bucket's
 * wait is 1000/qps, a pod's resync comes [1, 1.5) × syncFrequency after its sync) without any time passing.
 */
class RecordingClock implements Clock {
  readonly sleeps: number[] = [];
  readonly #waiters: { pred: (ms: number) => boolean; resolve: () => void }[] = [];

  now(): number {
    return Date.now();
  }

  monotonic(): number {
    return 0;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    for (const w of this.#waiters.filter((x) => x.pred(ms))) w.resolve();
    return new Promise((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Resolves once a sleep matching `pred` was asked for; fails after `timeoutMs`, listing the sleeps seen. */
  async sleptFor(pred: (ms: number) => boolean, timeoutMs = 10_000): Promise<void> {
    if (this.sleeps.some(pred)) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        this.#waiters.push({ pred, resolve });
        timer = setTimeout(() => reject(new Error(`no matching sleep within ${timeoutMs} ms; slept for ${JSON.stringify(this.sleeps)}`)), timeoutMs);
      });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Re-checks `check` until it holds (an observable outcome, not a sleep standing in for one). */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('createAgent() hands the settings to the parts', () => {
  const NODE = 'node-a';
  let dir: { path: string; cleanup: () => Promise<void> };
  let fake: FakeApiServer | undefined;
  let stop: AbortController;
  let running: Promise<void> | undefined;
  beforeEach(async () => {
    dir = await tempDir();
    stop = new AbortController();
  });
  afterEach(async () => {
    stop.abort();
    await running;
    running = undefined;
    await fake?.close();
    fake = undefined;
    await dir.cleanup();
  });

  const apiKubeconfig = async (): Promise<string> => {
    fake = await new FakeApiServer().start();
    fake.createPod(makePod('p1', { nodeName: NODE }));
    const path = join(dir.path, 'kubeconfig');
    await writeFile(path, [
      'apiVersion: v1', 'kind: Config', 'current-context: c',
      `clusters: [{name: k, cluster: {server: "${fake.url}"}}]`,
      'users: [{name: u, user: {}}]',
      'contexts: [{name: c, context: {cluster: k, user: u}}]', '',
    ].join('\n'));
    return path;
  };
  const run = async (flags: Record<string, unknown>, o: { clock?: Clock; handlers?: SyncHandler[]; metrics?: AgentMetrics } = {}): Promise<Agent> => {
    const config = resolveConfig({ 'status-address': 'off', 'node-name': NODE, kubeconfig: '', ...flags }, {});
    const agent = await createAgent(config, {
      logger: pino({ level: 'silent' }), signal: stop.signal, env: { HOME: dir.path },
      ...(o.clock === undefined ? {} : { clock: o.clock }), ...(o.handlers === undefined ? {} : { handlers: o.handlers }),
      ...(o.metrics === undefined ? {} : { metrics: o.metrics }),
    });
    running = agent.run(stop.signal);
    return agent;
  };
  const podNames = (agent: Agent): string[] =>
    (agent.pods() as { items: { metadata: { name: string } }[] }).items.map((p) => p.metadata.name).sort();

  it('gives --manifest-extensions to the file source: with .yaml, a .txt manifest is not read', async () => {
    const manifests = join(dir.path, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'a.yaml'), podManifestYaml('a'));
    await writeFile(join(manifests, 'b.txt'), podManifestYaml('b'));
    const agent = await run({ 'pod-manifest-path': manifests, 'manifest-extensions': '.yaml' });
    // Ready: the file source's first full scan was delivered and consumed.
    await until(() => agent.readiness().ready.includes('file'), 'the file source ready');
    expect(podNames(agent)).toEqual([`a-${NODE}`]);
  });

  it('gives --kube-api-qps (not --kube-api-burst) to the apiserver client: past the burst a request waits 1000/qps ms', async () => {
    const clock = new RecordingClock();
    // Burst 1: the node lookup takes the only token, so the pod LIST waits 1000/0.3 ms (1000 with qps = burst, 20 with the default 50).
    await run({ kubeconfig: await apiKubeconfig(), 'kube-api-qps': '0.3', 'kube-api-burst': '1' }, { clock });
    await clock.sleptFor((ms) => ms === 1000 / 0.3);
  });

  it('counts the apiserver client\'s requests in rest_client_requests_total and rest_client_request_duration_seconds, as client-go does', async () => {
    const metrics = new AgentMetrics();
    const agent = await run({ kubeconfig: await apiKubeconfig(), 'watch-list': 'false' }, { metrics });
    await until(() => agent.readiness().ready.includes('api'), 'the api source ready');
    const host = new URL(fake!.url).host;
    let text = '';
    for (let i = 0; i < 100 && !text.includes(`rest_client_requests_total{code="200",host="${host}",method="GET"} 4`); i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      text = await metrics.registry.metrics();
    }
    expect(text).toContain(`rest_client_requests_total{code="200",host="${host}",method="GET"} 4`);
    // The node gate's and the pods' LIST then WATCH, each answered 200; only the LISTs are timed, as client-go times requests.
    expect(text).toContain(`rest_client_request_duration_seconds_count{verb="GET",host="${host}"} 2`);
  });

  it('gives --watch-list=false to the apiserver source: the initial sync is a LIST without sendInitialEvents', async () => {
    const agent = await run({ kubeconfig: await apiKubeconfig(), 'watch-list': 'false' });
    await until(() => agent.readiness().ready.includes('api'), 'the api source ready');
    const pods = (fake?.requests ?? []).filter((r) => r.path === '/api/v1/pods');
    expect(pods[0]).toMatchObject({ method: 'GET', watch: false });
    expect(pods.filter((r) => r.query.has('sendInitialEvents'))).toEqual([]);
    expect(podNames(agent)).toEqual(['p1']);
  });

  it('gives the reconciler --sync-frequency, not --file-check-frequency: a synced pod resyncs [1, 1.5) × syncFrequency later', async () => {
    const clock = new RecordingClock();
    const manifests = join(dir.path, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'a.yaml'), podManifestYaml('a'));
    const synced: string[] = [];
    const handler = { name: 'h', async syncPod({ pod }) { synced.push(pod.metadata?.name ?? ''); }, async killPod() {} } satisfies SyncHandler;
    await run({ 'pod-manifest-path': manifests, 'sync-frequency': '7s', 'file-check-frequency': '13s' }, { clock, handlers: [handler] });
    // With --file-check-frequency's 13 s the wait would be in [13 s, 19.5 s): the file source's own re-scan waits 13 s.
    await clock.sleptFor((ms) => ms >= 7_000 && ms < 10_500);
    expect(synced).toEqual([`a-${NODE}`]);
  });
});
