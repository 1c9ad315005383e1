import { createServer, type Server } from 'node:http';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { AgentProcess, eventually } from '../support/agent-process.js';

const NODE = 'e2e-node';

/**
 * Decisions D2, D4 and D10 keep the kubelet's behaviour behind flags. Each flag is exercised on
 * the real agent, next to the default it replaces.
 */
describe('podconfig-agent kubelet-compatibility flags', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let manifests: string;
  let agent: AgentProcess | undefined;
  let server: Server | undefined;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-e2e-');
    manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
  });

  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    server?.closeAllConnections();
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    server = undefined;
    await tmp.cleanup();
  });

  const start = async (extra: string[]): Promise<AgentProcess> =>
    (agent = await AgentProcess.start(['--node-name', NODE, '--pod-manifest-path', manifests, '--file-check-frequency', '1h', '--handler', 'log', ...extra]));
  const podsAre = (a: AgentProcess, expected: string[]) =>
    eventually(async () => (JSON.stringify(await a.podNames()) === JSON.stringify(expected) ? true : undefined), 15_000, `/pods = ${JSON.stringify(expected)}`);

  it('--invalid-manifest=drop removes a pod whose manifest turns invalid (the kubelet behaviour; D4 default tested in file-source.test.ts)', async () => {
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    await writeFile(join(manifests, 'db.yaml'), podManifestYaml('db'));
    const a = await start(['--invalid-manifest=drop']);
    await podsAre(a, [`default/db-${NODE}`, `default/web-${NODE}`]);
    await writeFile(join(manifests, 'web.yaml'), 'kind: Pod\n');
    await podsAre(a, [`default/db-${NODE}`]);
    await a.waitForLog((l) => l.component === 'sync.log' && l['op'] === 'kill' && l['pod'] === `default/web-${NODE}`);
  });

  it('--invalid-manifest=drop keeps the last good pod of a single-file path that turns invalid, as the kubelet does (D4 flag, checklist 26)', async () => {
    const file = join(manifests, 'web.yaml');
    await writeFile(file, podManifestYaml('web'));
    const a = (agent = await AgentProcess.start(['--node-name', NODE, '--pod-manifest-path', file, '--file-check-frequency', '1h', '--handler', 'log', '--invalid-manifest=drop']));
    await podsAre(a, [`default/web-${NODE}`]);
    await a.waitForLog((l) => l.component === 'sync.log' && l['op'] === 'create');
    await writeFile(file, 'kind: Pod\n');
    const invalid = await a.waitForLog((l) => l.component === 'source.file' && l.msg === 'manifest invalid');
    expect(invalid['keptLastGood']).toBe(true);
    expect(await a.podNames()).toEqual([`default/web-${NODE}`]);
    expect(a.logs.filter((l) => l.component === 'sync.log' && l['op'] === 'kill')).toEqual([]);
  });

  it('--manifest-filter=none reads editor artefacts like the kubelet; the default ignores them (D2)', async () => {
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    await writeFile(join(manifests, 'web.yaml.bak'), podManifestYaml('backup'));
    await writeFile(join(manifests, 'other.yaml~'), podManifestYaml('tilde'));
    const a = await start(['--manifest-filter=none']);
    await podsAre(a, [`default/backup-${NODE}`, `default/tilde-${NODE}`, `default/web-${NODE}`]);
    await a.stop();
    agent = undefined;
    const b = await start([]);
    await podsAre(b, [`default/web-${NODE}`]);
  });

  it('--readiness=all-sources holds a static pod kill until every source is ready; per-source (D10) does not', async () => {
    // A manifest URL that keeps failing: the http source never becomes ready (first-success).
    server = createServer((_req, res) => res.writeHead(500).end('down'));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods`;
    const flags = ['--manifest-url', url, '--http-ready=first-success', '--http-check-frequency', '1h'];

    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    const a = await start([...flags, '--readiness=all-sources']);
    await podsAre(a, [`default/web-${NODE}`]);
    await a.waitForLog((l) => l.component === 'sync.log' && l['op'] === 'create');
    expect((await a.get('/readyz')).status).toBe(503);
    await rm(join(manifests, 'web.yaml'));
    await podsAre(a, []);
    // The REMOVE was consumed; the kill waits for the http source. Prove the wait with /pods'
    // per-handler state rather than with time: the pod is held as kill-deferred.
    await eventually(async () => {
      const list = await a.getJSON<{ sync: { name: string; handlers: Record<string, { state: string }> }[] }>('/pods');
      return list.sync.find((s) => s.name === `web-${NODE}`)?.handlers['log']?.state === 'kill-deferred' ? true : undefined;
    }, 10_000, 'kill deferred');
    expect(a.logs.filter((l) => l.component === 'sync.log' && l['op'] === 'kill')).toEqual([]);
    await a.stop();
    agent = undefined;

    // Default per-source readiness: the file source is ready, so the kill happens at once.
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    const b = await start(flags);
    await b.waitForLog((l) => l.component === 'sync.log' && l['op'] === 'create');
    await rm(join(manifests, 'web.yaml'));
    await b.waitForLog((l) => l.component === 'sync.log' && l['op'] === 'kill' && l['pod'] === `default/web-${NODE}`);
    expect((await b.get('/readyz')).status).toBe(503);
  });
});
