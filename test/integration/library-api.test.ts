import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  PodConfigError,
  type ClosableHandler, type KillPodRequest, type StartableHandler, type SyncHandler, type SyncPodRequest,
} from '@podconfig/core';
import { runPodConfig } from '@podconfig/agent';
import { fixturePath, tempDir } from '@podconfig/testing';

/** The built library entry, as an embedder imports it. */
const AGENT_INDEX = fileURLToPath(new URL('../../agent/dist/index.js', import.meta.url));
const NODE = 'lib-node';
const STATIC_PODS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map((n) => `kube-system/${n}-${NODE}`);

/** An in-process handler: records its lifecycle and calls, and resolves `sawAll` once every expected pod was created. */
class InProcessHandler implements SyncHandler, StartableHandler, ClosableHandler {
  readonly name = 'in-process';
  readonly events: string[] = [];
  readonly #expected: ReadonlySet<string>;
  readonly #created = new Set<string>();
  #resolve!: () => void;
  readonly sawAll = new Promise<void>((resolve) => { this.#resolve = resolve; });

  constructor(expected: readonly string[]) {
    this.#expected = new Set(expected);
  }

  async start(_signal: AbortSignal): Promise<void> {
    this.events.push('start');
  }

  async syncPod(request: SyncPodRequest, _signal: AbortSignal): Promise<void> {
    const ref = `${request.pod.metadata?.namespace ?? ''}/${request.pod.metadata?.name ?? ''}`;
    this.events.push(`${request.type} ${ref} ${request.source}`);
    if (request.type === 'create') this.#created.add(ref);
    if ([...this.#expected].every((p) => this.#created.has(p))) this.#resolve();
  }

  async killPod(request: KillPodRequest, _signal: AbortSignal): Promise<void> {
    this.events.push(`kill ${request.pod.metadata?.namespace ?? ''}/${request.pod.metadata?.name ?? ''}`);
  }

  async close(_signal: AbortSignal): Promise<void> {
    this.events.push('close');
  }
}

describe(runPodConfig.name, () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('podconfig-library-');
  });
  afterEach(async () => {
    await tmp.cleanup();
  });

  // HOME without a kubeconfig: standalone, whatever the machine running the tests has in ~/.kube.
  const env = (): NodeJS.ProcessEnv => ({ HOME: tmp.path });

  describe('runPodConfig()', () => {
    it('drives an in-process handler with the manifests\' pods, and resolves after close() once aborted', async () => {
      const handler = new InProcessHandler(STATIC_PODS);
      const stop = new AbortController();
      const running = runPodConfig({ nodeName: NODE, staticPodPath: fixturePath('static-pods'), handlers: [handler], env: env() }, stop.signal)
        .then(() => handler.events.includes('close')); // was close() called by the time the promise resolved?
      try {
        await Promise.race([handler.sawAll, running]);
        expect(handler.events).not.toContain('close');
      } finally {
        stop.abort();
      }
      expect(await running).toBe(true);
      expect(handler.events[0]).toBe('start');
      expect(handler.events.slice(1, -1).sort()).toEqual(STATIC_PODS.map((p) => `create ${p} file`));
      expect(handler.events.at(-1)).toBe('close');
    });

    it('uses only the in-process handlers when no spec is given, and serves the status API on request', async () => {
      const handler = new InProcessHandler(STATIC_PODS);
      const stop = new AbortController();
      let address: AddressInfo | undefined;
      const running = runPodConfig({
        nodeName: NODE, staticPodPath: fixturePath('static-pods'), handlers: [handler], env: env(), statusAddress: '127.0.0.1:0',
        onStarted: (info) => { address = info.statusAddress; },
      }, stop.signal);
      try {
        await Promise.race([handler.sawAll, running]);
        const res = await request(`http://127.0.0.1:${String(address?.port)}/pods`);
        const body = (await res.body.json()) as { items: { metadata: { namespace: string; name: string } }[]; sync: { handlers: Record<string, unknown> }[] };
        expect(res.statusCode).toBe(200);
        expect(body.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort()).toEqual(STATIC_PODS);
        expect(body.sync.map((s) => Object.keys(s.handlers))).toEqual(STATIC_PODS.map(() => ['in-process']));
      } finally {
        stop.abort();
        await running;
      }
      expect(handler.events.at(-1)).toBe('close');
    });

    it('writes nothing to stdout without a logger or logLevel: the embedding process owns its stdout', () => {
      // A child process: pino's default destination writes to fd 1 directly, past any spy on process.stdout.
      // The agent logs "agent started" and "agent stopped" at info, so any default level but silent would show here.
      const script = [
        `import { runPodConfig } from ${JSON.stringify(pathToFileURL(AGENT_INDEX).href)};`,
        'const stop = new AbortController();',
        `await runPodConfig({ nodeName: ${JSON.stringify(NODE)}, staticPodPath: ${JSON.stringify(fixturePath('static-pods'))},`,
        `  env: { HOME: ${JSON.stringify(tmp.path)} }, onStarted: () => setImmediate(() => stop.abort()) }, stop.signal);`,
        'process.stderr.write("stopped\\n");',
      ].join('\n');
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: 'stopped\n' });
      expect(r.stdout).toBe('');
    });

    it('logs as the agent does with logLevel: JSON lines with ISO times and the node name, a rejected manifest without a stack', async () => {
      const manifests = join(tmp.path, 'manifests');
      await mkdir(manifests);
      await writeFile(join(manifests, 'bad.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containerz: []}\n');
      const script = [
        `import { runPodConfig } from ${JSON.stringify(pathToFileURL(AGENT_INDEX).href)};`,
        'const stop = new AbortController();',
        `await runPodConfig({ nodeName: ${JSON.stringify(NODE)}, staticPodPath: ${JSON.stringify(manifests)}, logLevel: 'info',`,
        `  env: { HOME: ${JSON.stringify(tmp.path)} }, onStarted: () => setTimeout(() => stop.abort(), 200) }, stop.signal);`,
      ].join('\n');
      // Piped stdout is not a TTY: the test would also pass with pretty lines on a TTY, which the option rules out.
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { node?: string; time?: string; msg: string; err?: Record<string, unknown> });
      expect(lines.every((l) => l.node === NODE && /^\d{4}-\d\d-\d\dT/.test(l.time ?? ''))).toBe(true);
      const rejected = lines.find((l) => String(l.err?.['message']).includes('bad.yaml'));
      expect(rejected?.err).toMatchObject({ code: 'PODCONFIG_MANIFEST_INVALID' });
      expect(rejected?.err).not.toHaveProperty('stack');
    });

    it('rejects invalid options with PODCONFIG_CONFIG_INVALID before starting anything', async () => {
      const handler = new InProcessHandler([]);
      const err = await runPodConfig({ nodeName: 'not a node name', handlers: [handler], env: env() }, new AbortController().signal)
        .catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
      expect(handler.events).toEqual([]);
    });
  });
});
