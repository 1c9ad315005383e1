import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { AgentProcess, eventually, type LogLine } from '../support/agent-process.js';

const NODE = 'e2e-node';
const SECRET = 'Bearer s3cr3t-t0ken-value';

/** A manifest server on 127.0.0.1 whose answer the test changes. */
class ManifestServer {
  status = 200;
  body = '';
  readonly requests: IncomingHttpHeaders[] = [];
  readonly server: Server = createServer((req, res) => {
    this.requests.push(req.headers);
    res.writeHead(this.status, { 'content-type': 'application/yaml' }).end(this.body);
  });

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/pods.yaml?token=query-secret`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const podList = (...names: string[]): string =>
  JSON.stringify({
    apiVersion: 'v1', kind: 'PodList',
    items: names.map((name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] } })),
  });

const logCalls = (agent: AgentProcess, op: string): LogLine[] => agent.logs.filter((l) => l.component === 'sync.log' && l['op'] === op);

describe('podconfig-agent with a manifest directory and a manifest URL', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let manifests: string;
  let http: ManifestServer;
  let agent: AgentProcess | undefined;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-e2e-');
    manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
    http = new ManifestServer();
  });

  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    await http.close();
    await tmp.cleanup();
  });

  it('merges both sources, runs one static pod per full name, survives URL failures, and never logs secrets', async () => {
    await writeFile(join(manifests, 'etcd.yaml'), podManifestYaml('etcd'));
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    http.body = podList('api', 'etcd');
    const url = await http.listen();
    const a = (agent = await AgentProcess.start([
      '--node-name', NODE, '--pod-manifest-path', manifests, '--manifest-url', url,
      '--manifest-url-header', `Authorization:${SECRET}`, '--manifest-url-header', 'X-Extra:a,X-Extra:b',
      '--http-check-frequency', '200ms', '--file-check-frequency', '1h', '--handler', 'log', '--log-level', 'debug',
    ]));

    // Both sources' pods are desired; etcd comes from both (same full name, different UIDs).
    const desired = async () => {
      const list = await a.getJSON<{ items: { metadata: { name: string; uid: string; annotations: Record<string, string> } }[] }>('/pods');
      return list.items.map((p) => `${p.metadata.annotations['kubernetes.io/config.source']}:${p.metadata.name}`).sort();
    };
    const expected = [`file:etcd-${NODE}`, `file:web-${NODE}`, `http:api-${NODE}`, `http:etcd-${NODE}`];
    await eventually(async () => (JSON.stringify(await desired()) === JSON.stringify(expected) ? true : undefined), 15_000, 'both sources merged');
    expect((await a.get('/readyz')).status).toBe(200);

    // Headers arrive in order; repeated names keep every value.
    expect(http.requests[0]?.['authorization']).toBe(SECRET);
    expect(http.requests[0]?.['x-extra']).toBe('a, b');

    // Spec §6.6: only one of the two etcd pods is created on the handler; the other waits for the name.
    const etcdCreates = () => logCalls(a, 'create').filter((l) => l['pod'] === `default/etcd-${NODE}`);
    await eventually(async () => {
      const pods = await a.getJSON<{ sync: { name: string; handlers: Record<string, { state: string }> }[] }>('/pods');
      const waiting = pods.sync.filter((p) => p.name === `etcd-${NODE}` && p.handlers['log']?.state === 'waiting-for-name');
      return waiting.length === 1 && logCalls(a, 'create').length >= 3 ? true : undefined;
    }, 10_000, 'three creates, and one etcd pod waiting for its name');
    expect(etcdCreates()).toHaveLength(1);

    // The URL fails (500, then garbage): nothing good is lost, /sources shows the error.
    http.status = 500;
    await eventually(async () => {
      const s = await a.getJSON<{ sources: { name: string; healthy: boolean; lastError?: { message: string } }[] }>('/sources');
      const h = s.sources.find((x) => x.name === 'http');
      return h !== undefined && !h.healthy && h.lastError !== undefined ? h : undefined;
    }, 10_000, 'http source unhealthy');
    http.status = 200;
    http.body = '{ not yaml: [';
    // Wait for the garbage body's own error (the 500's error was there before), naming the URL.
    const garbage = await eventually(async () => {
      const s = await a.getJSON<{ sources: { name: string; lastError?: { message: string; code?: string } }[] }>('/sources');
      const err = s.sources.find((x) => x.name === 'http')?.lastError;
      return err?.code === 'PODCONFIG_MANIFEST_INVALID' ? err : undefined;
    }, 10_000, 'garbage reported');
    expect(garbage.message).toContain('127.0.0.1');
    expect(await desired()).toEqual(expected);

    // Recovery with a changed list: api goes, cache comes.
    http.body = podList('cache', 'etcd');
    await eventually(async () => {
      const d = await desired();
      return d.includes(`http:cache-${NODE}`) && !d.includes(`http:api-${NODE}`) ? true : undefined;
    }, 10_000, 'recovered');

    // D18: only api (gone from the URL) was killed; nothing whose source still had it.
    await a.waitForLog((l) => l.component === 'sync.log' && l['op'] === 'kill' && l['pod'] === `default/api-${NODE}`);
    const killed = logCalls(a, 'kill').map((l) => String(l['pod']));
    expect(killed).toEqual([`default/api-${NODE}`]);

    // Secrets from the header and the query string never reach the logs or /sources.
    const sources = (await a.get('/sources')).body;
    const everything = `${a.logs.map((l) => JSON.stringify(l)).join('\n')}\n${a.stderr.join('\n')}\n${sources}`;
    expect(everything).not.toContain('s3cr3t');
    expect(everything).not.toContain('query-secret');

    expect(etcdCreates()).toHaveLength(1); // the second etcd pod never ran beside the first
    expect(await a.stop()).toEqual({ code: 0, signal: null });
  });
});
