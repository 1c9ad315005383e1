import { writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { request } from 'undici';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigInvalidError, type KillPodRequest, type Pod, type SyncHandler, type SyncPodRequest } from '@podconfig/core';
import { FakeApiServer, makePod, tempDir } from '@podconfig/testing';
import type { AgentStartedInfo } from './agent.js';
import { podConfigOptionsToConfig, runPodConfig, type PodConfigOptions } from './run-pod-config.js';
import { CONFIG_FIELDS } from './settings.js';

const NODE = 'node-a';
const MANAGED_FIELDS = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} } }];

/** Resolves `created` with the first pod the reconciler hands to `syncPod`. */
class FirstPodHandler implements SyncHandler {
  readonly name = 'first-pod';
  #resolve!: (pod: Pod) => void;
  readonly created = new Promise<Pod>((resolve) => { this.#resolve = resolve; });

  async syncPod(request: SyncPodRequest, _signal: AbortSignal): Promise<void> {
    this.#resolve(request.pod);
  }

  async killPod(_request: KillPodRequest, _signal: AbortSignal): Promise<void> {}
}

const noop = (): void => undefined;

describe('podConfigOptionsToConfig()', () => {
  it('types every config-file field the runtime accepts, and accepts every field it types', () => {
    // Required<…>: the compiler fails here when PodConfigOptions lacks a field; the runtime check when it has one too many.
    const all: Required<Omit<PodConfigOptions, 'logger' | 'clock' | 'env' | 'onStarted'>> = {
      nodeName: NODE, staticPodPath: '/m', fileCheckFrequency: '20s', invalidManifest: 'keep', manifestFilter: 'default',
      manifestExtensions: ['.yaml'], staticPodURL: 'https://127.0.0.1/pods', staticPodURLHeader: { a: ['1'] },
      staticPodURLCAFile: '/ca.pem', staticPodURLClientCertFile: '/c.pem', staticPodURLClientKeyFile: '/k.pem',
      httpCheckFrequency: 20_000, httpReady: 'definitive', kubeconfig: '/kc', context: 'c', kubeAPIQPS: 5, kubeAPIBurst: 10,
      watchList: true, featureGates: { WatchListClient: true, SidecarContainers: true }, keepManagedFields: false, syncFrequency: '1m', readiness: 'per-source', handlers: ['log'],
      handlerTimeout: '1m', handlerConcurrency: 8, statusAddress: 'off', metricsBindAddress: 'off', logLevel: 'warn', shutdownTimeout: '10s',
    };
    expect(Object.keys(all).sort()).toEqual([...CONFIG_FIELDS].sort());
    expect(podConfigOptionsToConfig(all)).toMatchObject({ manifestUrlClientCertFile: '/c.pem', manifestUrlClientKeyFile: '/k.pem', logLevel: 'warn', httpCheckFrequencyMs: 20_000 });
  });

  it('takes featureGates as a KubeletConfiguration\'s: WatchListClient sets the watch-list, a conflicting watchList is refused, a string refused', () => {
    expect(podConfigOptionsToConfig({ nodeName: NODE, featureGates: { WatchListClient: false, SidecarContainers: true } }))
      .toMatchObject({ watchList: false, featureGates: { WatchListClient: false, SidecarContainers: true } });
    expect(() => podConfigOptionsToConfig({ nodeName: NODE, watchList: true, featureGates: { WatchListClient: false } })).toThrow(new ConfigInvalidError(
      'option "watchList" turns the streaming initial list (watch-list, D13) on, but WatchListClient=false in option "featureGates" turns it off: give one of them, or the same value'));
    expect(() => podConfigOptionsToConfig({ nodeName: NODE, featureGates: { WatchListClient: 'false' as unknown as boolean } }))
      .toThrow(new ConfigInvalidError('option "featureGates", gate "WatchListClient": must be true or false, got "false"'));
  });

  it.each([
    ['no name', { async syncPod() {}, async killPod() {} }, 'it has no name'],
    ['an empty name', { name: '', async syncPod() {}, async killPod() {} }, 'its name is empty'],
    ['no killPod()', { name: 'h', async syncPod() {} }, 'it has no killPod()'],
    ['no syncPod()', { name: 'h', async killPod() {} }, 'it has no syncPod()'],
  ])('rejects an in-process handler object with %s, as the CLI loader does, saying what is missing', (_what, handler, problem) => {
    expect(() => podConfigOptionsToConfig({ nodeName: NODE, handlers: [handler as unknown as SyncHandler] })).toThrow(expect.objectContaining({
      code: 'PODCONFIG_CONFIG_INVALID', message: `option "handlers"[0]: a handler object needs a non-empty name, syncPod() and killPod(): ${problem}`,
    }) as Error);
  });

  it.each<[string, unknown, string]>([
    ['a misspelt method and an undefined one', { name: 'x', syncpod() {}, killPod: undefined }, 'it has no syncPod(), it has no killPod(); it has syncpod() (a misspelt syncPod()?), which no handler has'],
    ['only a misspelt method', { name: 'x', async syncPods() {}, async killPod() {} }, 'it has no syncPod(); it has syncPods() (a misspelt syncPod()?), which no handler has'],
    ['a method no handler has', { name: 'x', async syncPod() {}, async remove() {} }, 'it has no killPod(); it has remove(), which no handler has'],
    ['a class instance with misspelt methods', new (class { readonly name = 'x'; async syncpod(): Promise<void> {} async killpod(): Promise<void> {} })(),
      'it has no syncPod(), it has no killPod(); it has syncpod() (a misspelt syncPod()?), killpod() (a misspelt killPod()?), which no handler has'],
  ])('rejects an entry with functions that is no handler object (%s), naming its index and what is missing, not as an unknown handler later', (_what, entry, problem) => {
    expect(() => podConfigOptionsToConfig({ nodeName: NODE, handlers: ['log', entry as SyncHandler] })).toThrow(new ConfigInvalidError(
      `option "handlers"[1]: a handler object needs a non-empty name, syncPod() and killPod(): ${problem}`));
  });

  it('takes a plain-data entry as a spec, and an object with a handler\'s methods as a handler object', () => {
    const handler: SyncHandler = { name: 'mine', async syncPod() {}, async killPod() {} };
    const config = podConfigOptionsToConfig({
      nodeName: NODE,
      handlers: [handler, { name: 'exec', command: '/bin/true', args: ['--x'], timeout: '30s', env: { A: 'b' } }, { name: 'webhook', url: 'http://127.0.0.1:1/', headers: [['x-a', '1']] }],
    });
    expect(config.handlers.map((h) => [h.name, h.options])).toEqual([
      ['exec', { command: '/bin/true', args: ['--x'], timeout: '30s', env: { A: 'b' } }],
      ['webhook', { url: 'http://127.0.0.1:1/', headers: [['x-a', '1']] }],
    ]);
  });

  it('types a spec\'s options as plain data, so a broken handler object type-checks as neither a spec nor a handler', () => {
    // Compile-time checks (tsc -p tsconfig.tests.json): each @ts-expect-error fails the build if the line compiles.
    // @ts-expect-error a misspelt method and an undefined one: no SyncHandler, and a function is no option value
    const misspelt: PodConfigOptions['handlers'] = [{ name: 'x', syncpod() {}, killPod: undefined }];
    // @ts-expect-error syncPod() misspelt as syncPods(): a function is no option value
    const plural: PodConfigOptions['handlers'] = [{ name: 'x', async syncPods() {}, async killPod() {} }];
    const specs: PodConfigOptions['handlers'] = ['log', 'state-dir=/x', { name: 'exec', command: '/bin/true', args: ['a'], env: { A: 'b' }, list: null, n: 1, on: true }];
    expect([misspelt, plural, specs].map((h) => h?.length)).toEqual([1, 1, 3]);
  });

  it('leaves the status server off by default: an embedding process opens no port it did not ask for', () => {
    expect(podConfigOptionsToConfig({ nodeName: NODE }).statusAddress).toBeUndefined();
    expect(podConfigOptionsToConfig({ nodeName: NODE, statusAddress: '127.0.0.1:0' }).statusAddress).toEqual({ host: '127.0.0.1', port: 0 });
    expect(podConfigOptionsToConfig({ nodeName: NODE }).metricsBindAddress).toBeUndefined();
    expect(podConfigOptionsToConfig({ nodeName: NODE, metricsBindAddress: '127.0.0.1:0' }).metricsBindAddress).toEqual({ host: '127.0.0.1', port: 0 });
  });

  it('says the log level it runs with by default: silent, as its default logger is', () => {
    expect(podConfigOptionsToConfig({ nodeName: NODE }).logLevel).toBe('silent');
    expect(podConfigOptionsToConfig({ nodeName: NODE, logLevel: 'debug' }).logLevel).toBe('debug');
  });

  it('rejects a negative duration in milliseconds as invalid configuration', () => {
    // A number is milliseconds for a library caller only; the duration-string parser never sees it.
    expect(() => podConfigOptionsToConfig({ nodeName: NODE, fileCheckFrequency: -5 })).toThrow(new ConfigInvalidError('option "fileCheckFrequency": must not be negative'));
    expect(() => podConfigOptionsToConfig({ nodeName: NODE, shutdownTimeout: -1 })).toThrow(new ConfigInvalidError('option "shutdownTimeout": must not be negative'));
  });

  it('takes keepManagedFields (default false)', () => {
    expect(podConfigOptionsToConfig({ nodeName: NODE }).keepManagedFields).toBe(false);
    expect(podConfigOptionsToConfig({ nodeName: NODE, keepManagedFields: true }).keepManagedFields).toBe(true);
  });

  it('rejects a misspelt option, naming it, as a config file does', () => {
    const misspelt = { nodeName: NODE, staticPodPth: '/m', syncFrequncy: '1m' } as unknown as Parameters<typeof podConfigOptionsToConfig>[0];
    expect(() => podConfigOptionsToConfig(misspelt)).toThrow(expect.objectContaining({
      code: 'PODCONFIG_CONFIG_INVALID', message: 'unknown options "staticPodPth", "syncFrequncy"',
    }) as Error);
  });

  it('rejects options that are not an object, handlers that are not an array and NaN durations as invalid configuration', () => {
    const call = (options: unknown): unknown => podConfigOptionsToConfig(options as Parameters<typeof podConfigOptionsToConfig>[0]);
    expect(() => call(null)).toThrow(expect.objectContaining({ code: 'PODCONFIG_CONFIG_INVALID', message: 'options: must be an object' }) as Error);
    expect(() => call({ nodeName: NODE, handlers: { name: 'log' } })).toThrow(expect.objectContaining({
      code: 'PODCONFIG_CONFIG_INVALID', message: 'option "handlers": must be an array of handler objects or specs',
    }) as Error);
    expect(() => call({ nodeName: NODE, syncFrequency: Number.NaN })).toThrow(expect.objectContaining({
      code: 'PODCONFIG_CONFIG_INVALID', message: expect.stringContaining('syncFrequency') && expect.stringContaining('must be a finite number of milliseconds, got NaN') as string,
    }) as Error);
  });

  it.each([
    ['handlerConcurrency', '8'], ['kubeAPIQPS', '5'], ['kubeAPIBurst', '10'], ['watchList', 'false'], ['keepManagedFields', 'true'],
  ])('rejects %s given as a string (%j), naming the option, where a config file or flag would parse the text', (key, value) => {
    const options = { nodeName: NODE, [key]: value } as unknown as PodConfigOptions;
    expect(() => podConfigOptionsToConfig(options)).toThrow(expect.objectContaining({
      code: 'PODCONFIG_CONFIG_INVALID', message: expect.stringContaining(`option "${key}"`) as string,
    }) as Error);
  });

  it.each<[string, unknown, string]>([
    ['logger', {}, 'option "logger": must be an object with child(), bindings(), isLevelEnabled(), trace(), debug(), info(), warn(), error(), fatal(); missing child(), bindings(), isLevelEnabled(), trace(), debug(), info(), warn(), error(), fatal()'],
    ['logger', 'info', 'option "logger": must be an object with child(), bindings(), isLevelEnabled(), trace(), debug(), info(), warn(), error(), fatal(); missing child(), bindings(), isLevelEnabled(), trace(), debug(), info(), warn(), error(), fatal()'],
    ['logger', { child: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop, fatal: noop }, 'option "logger": must be an object with child(), bindings(), isLevelEnabled(), trace(), debug(), info(), warn(), error(), fatal(); missing bindings(), isLevelEnabled()'],
    ['clock', { now: () => 0, sleep: () => Promise.resolve() }, 'option "clock": must be an object with now(), monotonic(), sleep(); missing monotonic()'],
    ['env', 'HOME=/x', 'option "env": must be an object'],
    ['onStarted', 5, 'option "onStarted": must be a function'],
  ])('rejects option %s = %j as invalid configuration, not with a TypeError once running', (key, value, message) => {
    const options = { nodeName: NODE, [key]: value } as unknown as PodConfigOptions;
    expect(() => podConfigOptionsToConfig(options)).toThrow(new ConfigInvalidError(message));
  });

  it('rejects a null handler entry as invalid configuration, not with a TypeError', () => {
    const withNull = { nodeName: NODE, handlers: [null] } as unknown as Parameters<typeof podConfigOptionsToConfig>[0];
    expect(() => podConfigOptionsToConfig(withNull)).toThrow(expect.objectContaining({ code: 'PODCONFIG_CONFIG_INVALID' }) as Error);
  });
});

describe('runPodConfig()', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let fake: FakeApiServer;
  beforeEach(async () => {
    dir = await tempDir();
    fake = await new FakeApiServer().start();
  });
  afterEach(async () => {
    await fake.close();
    await dir.cleanup();
  });

  /** Runs the agent against the fake apiserver until the handler got the pod; returns that pod's metadata. */
  async function firstPodMetadata(keepManagedFields: boolean | undefined): Promise<Pod['metadata']> {
    fake.createPod({ ...makePod('p1', { nodeName: NODE }), metadata: { name: 'p1', namespace: 'default', managedFields: MANAGED_FIELDS } });
    const kubeconfig = join(dir.path, 'kubeconfig');
    await writeFile(kubeconfig, [
      'apiVersion: v1', 'kind: Config', 'current-context: c',
      `clusters: [{name: k, cluster: {server: "${fake.url}"}}]`,
      'users: [{name: u, user: {}}]',
      'contexts: [{name: c, context: {cluster: k, user: u}}]', '',
    ].join('\n'));
    const handler = new FirstPodHandler();
    const stop = new AbortController();
    const running = runPodConfig({
      nodeName: NODE, kubeconfig, handlers: [handler], env: { HOME: dir.path },
      ...(keepManagedFields === undefined ? {} : { keepManagedFields }),
    }, stop.signal);
    try {
      const pod = await Promise.race([handler.created, running.then(() => { throw new Error('runPodConfig() ended early'); })]);
      return pod.metadata;
    } finally {
      stop.abort();
      await running;
    }
  }

  it('hands apiserver pods to the handlers without metadata.managedFields by default', async () => {
    const metadata = await firstPodMetadata(undefined);
    expect(metadata).toMatchObject({ name: 'p1', namespace: 'default' });
    expect(metadata).not.toHaveProperty('managedFields');
  });

  it('keeps metadata.managedFields with keepManagedFields: true', async () => {
    expect((await firstPodMetadata(true))?.managedFields).toEqual(MANAGED_FIELDS);
  });

  it('closes its status server when it rejects because a handler failed to start, so nothing keeps the process alive', async () => {
    let address: AddressInfo | undefined;
    const failing: SyncHandler & { start(): Promise<void> } = {
      name: 'bad-start',
      async start() {
        throw new Error('cannot open db');
      },
      async syncPod() {},
      async killPod() {},
    };
    const never = new AbortController().signal; // the caller aborts nothing: runPodConfig ends by itself
    await expect(runPodConfig({
      nodeName: NODE, handlers: [failing], statusAddress: '127.0.0.1:0', logLevel: 'silent',
      onStarted: (info) => { address = info.statusAddress; },
    }, never)).rejects.toThrow('sync handler "bad-start" failed to start');
    expect(address?.port).toBeGreaterThan(0);
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(address?.port ?? 0, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve('connected'); });
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  /** How a connection to 127.0.0.1:`port` ends: `connected`, or the error's code (`ECONNREFUSED` once nothing listens). */
  const tryConnect = (port: number): Promise<string> => new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve('connected'); });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
  const noop: SyncHandler = { name: 'noop', async syncPod() {}, async killPod() {} };

  it('serves /metrics at metricsBindAddress beside the status server, and closes both listeners at shutdown', async () => {
    const stop = new AbortController();
    let started!: (info: AgentStartedInfo) => void;
    const onStarted = new Promise<AgentStartedInfo>((resolve) => { started = resolve; });
    const running = runPodConfig({
      nodeName: NODE, kubeconfig: '', env: { HOME: dir.path }, handlers: [noop],
      statusAddress: '127.0.0.1:0', metricsBindAddress: '127.0.0.1:0', onStarted: (info) => started(info),
    }, stop.signal);
    let ports: number[] = [];
    try {
      const info = await Promise.race([onStarted, running.then(() => { throw new Error('runPodConfig() ended early'); })]);
      const status = info.statusAddress?.port ?? 0;
      const metrics = info.metricsAddress?.port ?? 0;
      ports = [status, metrics];
      expect(metrics).toBeGreaterThan(0);
      expect(metrics).not.toBe(status);
      const get = async (port: number, path: string): Promise<{ status: number; body: string }> => {
        const res = await request(`http://127.0.0.1:${port}${path}`);
        return { status: res.statusCode, body: await res.body.text() };
      };
      const scraped = await get(metrics, '/metrics');
      expect(scraped.status).toBe(200);
      expect(scraped.body).toContain('podconfig_build_info{');
      expect((await get(metrics, '/pods')).status).toBe(404);
      expect((await get(status, '/pods')).status).toBe(200);
    } finally {
      stop.abort();
      await running;
    }
    expect(await Promise.all(ports.map(tryConnect))).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
  });

  it('rejects a taken metrics port as a retryable ConfigInvalidError naming the setting, and closes the status server it started', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    const listening: number[] = [];
    const logs = new Writable({
      write(chunk: Buffer, _encoding, done): void {
        const line = JSON.parse(chunk.toString()) as { msg: string; port?: number };
        if (line.msg === 'status server listening' && line.port !== undefined) listening.push(line.port);
        done();
      },
    });
    try {
      const never = new AbortController().signal; // the caller aborts nothing: runPodConfig ends by itself
      await expect(runPodConfig({
        nodeName: NODE, kubeconfig: '', env: { HOME: dir.path }, handlers: [noop], logger: pino({ level: 'info' }, logs),
        statusAddress: '127.0.0.1:0', metricsBindAddress: `127.0.0.1:${port}`,
      }, never)).rejects.toMatchObject({
        code: 'PODCONFIG_CONFIG_INVALID',
        retryable: true,
        message: expect.stringMatching(new RegExp(`^metrics server \\(option "metricsBindAddress"\\): cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`)) as string,
      });
      expect(listening).toHaveLength(1);
      expect(await tryConnect(listening[0]!)).toBe('ECONNREFUSED');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('rejects a missing or wrong signal as invalid configuration before it starts anything', async () => {
    const run = runPodConfig as (options: PodConfigOptions, signal: unknown) => Promise<void>;
    for (const signal of [undefined, {}]) {
      await expect(run({ nodeName: NODE, handlers: [] }, signal)).rejects.toThrow(new ConfigInvalidError(
        'runPodConfig(options, signal): signal must be an AbortSignal, which stops the pipeline when it aborts'));
    }
  });
});
