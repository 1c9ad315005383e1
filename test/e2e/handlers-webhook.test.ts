import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Pod } from '@podconfig/core';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { AgentProcess, eventually } from '../support/agent-process.js';

const NODE = 'hook-node';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: { op: string; reason?: string; gracePeriodSeconds?: number; source?: string; pod: Pod };
  readonly status: number | 'held';
}

/**
 * A webhook receiver on 127.0.0.1: pods named `flaky-*` get 500 once, then 200; `stuck-*` get no
 * answer at all; everything else 204.
 */
class HookServer {
  readonly received: Received[] = [];
  readonly #server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'];
      const name = body.pod.metadata?.name ?? '';
      const earlier = this.received.filter((r) => r.body.pod.metadata?.name === name).length;
      const status = name.startsWith('stuck-') ? 'held' : name.startsWith('flaky-') && earlier < 1 ? 500 : name.startsWith('flaky-') ? 200 : 204;
      this.received.push({ headers: req.headers, body, status });
      if (status !== 'held') res.writeHead(status).end();
    });
  });

  async listen(): Promise<string> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  for(name: string): Received[] {
    return this.received.filter((r) => r.body.pod.metadata?.name === `${name}-${NODE}`);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, 'close');
  }
}

interface HandlerStatus { attempt: number; failures: number; lastResult?: string; lastError?: { message: string; code: string } }
interface PodsBody { sync: { name: string; uid: string; handlers: Record<string, HandlerStatus> }[] }

describe('podconfig-agent with the webhook handler', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let server: HookServer;
  let agent: AgentProcess | undefined;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-e2e-webhook-');
    server = new HookServer();
  });
  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    await server.close();
    await tmp.cleanup();
  });

  // The retry comes 10–15 s after the failure (the kubelet's backOffPeriod, jittered): one is enough.
  it('POSTs every call: 2xx succeeds, 500 is retried until it succeeds, no answer times out', { timeout: 60_000 }, async () => {
    const url = await server.listen();
    const manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
    for (const name of ['web', 'flaky', 'stuck']) await writeFile(join(manifests, `${name}.yaml`), podManifestYaml(name));
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, [
      `staticPodPath: ${JSON.stringify(manifests)}`,
      'handlers:',
      '  - name: webhook',
      `    url: ${url}`,
      '    headers: { x-team: platform }',
      '    timeout: 1s',
      '',
    ].join('\n'));

    agent = await AgentProcess.start(['--node-name', NODE, '--config', config], { cwd: tmp.path });
    const a = agent;
    const pods = await eventually(async () => {
      const body = await a.getJSON<PodsBody>('/pods');
      const hook = (name: string): HandlerStatus | undefined => body.sync.find((s) => s.name === `${name}-${NODE}`)?.handlers['webhook'];
      return hook('web')?.lastResult === 'success' && hook('flaky')?.lastResult === 'success' && hook('stuck')?.lastError !== undefined
        ? body : undefined;
    }, 30_000, 'webhook results for every pod');
    const hook = (name: string): HandlerStatus => pods.sync.find((s) => s.name === `${name}-${NODE}`)!.handlers['webhook']!;

    // 2xx: one POST with the pod, the configured header and a JSON content type.
    const [web] = server.for('web');
    expect(server.for('web')).toHaveLength(1);
    expect(web!.headers['content-type']).toBe('application/json');
    expect(web!.headers['x-team']).toBe('platform');
    expect(web!.body).toMatchObject({ op: 'create', source: 'file', pod: { metadata: { name: `web-${NODE}`, namespace: 'default' } } });

    // 500, then 200: retried (as a resync) until it succeeded.
    expect(server.for('flaky').map((r) => [r.body.op, r.status])).toEqual([['create', 500], ['resync', 200]]);
    expect(hook('flaky')).toMatchObject({ lastResult: 'success', failures: 0, attempt: 2 });

    // No answer: the call times out after the handler's 1 s.
    expect(hook('stuck').lastError).toMatchObject({ code: 'PODCONFIG_HANDLER_TIMEOUT' });
    expect(server.for('stuck')[0]!.body.op).toBe('create');

    // A removed pod is POSTed as a kill.
    await rm(join(manifests, 'web.yaml'));
    const kill = await eventually(async () => server.for('web').find((r) => r.body.op === 'kill'), 15_000, 'kill POSTed');
    expect(kill.body).toMatchObject({ op: 'kill', reason: 'removed', gracePeriodSeconds: 30, pod: { metadata: { name: `web-${NODE}` } } });
  });
});
