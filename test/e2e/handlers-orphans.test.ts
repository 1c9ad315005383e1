import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { AgentProcess, eventually } from '../support/agent-process.js';

const LISTING = fileURLToPath(new URL('../../fixtures/plugins/listing.mjs', import.meta.url));
const NODE = 'orphan-node';
const EMPTY_POD_LIST = JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [] });

/** One JSON line a test plugin wrote: flat, scalar fields (and `pods`, a list of names). */
type Line = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

async function jsonLines(file: string): Promise<Line[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8')).split('\n').slice(0, -1).map((l) => JSON.parse(l) as Line);
}

/** A manifest URL on 127.0.0.1 that answers 500 until `serve()` switches it to an empty PodList. */
class ManifestServer {
  readonly statuses: number[] = [];
  #healthy = false;
  readonly #server: Server = createServer((req, res) => {
    req.resume();
    const status = this.#healthy ? 200 : 500;
    this.statuses.push(status);
    res.writeHead(status, { 'content-type': 'application/json' }).end(this.#healthy ? EMPTY_POD_LIST : '{"error":"not yet"}');
  });

  async listen(): Promise<string> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/pods`;
  }

  serve(): void {
    this.#healthy = true;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, 'close');
  }
}

describe('podconfig-agent orphan clean-up (handler listPods)', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let server: ManifestServer;
  let agent: AgentProcess | undefined;
  let manifests: string;
  let podsFile: string;
  let rec: string;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-e2e-orphans-');
    server = new ManifestServer();
    manifests = join(tmp.path, 'manifests');
    podsFile = join(tmp.path, 'running.json');
    rec = join(tmp.path, 'lister.jsonl');
    await mkdir(manifests);
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    // What the handler "runs" from an earlier life: a pod no source wants any more.
    await writeFile(podsFile, JSON.stringify([{ uid: 'ghost-uid', namespace: 'default', name: 'ghost' }]));
  });
  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    await server.close();
    await tmp.cleanup();
  });

  /** The config file: the static pod path (`manifests` unless given), the URL if any, `extra` lines, the listing handler. */
  const writeConfig = async (url: string | undefined, extra: string[], path = manifests): Promise<string> => {
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, [
      `staticPodPath: ${JSON.stringify(path)}`,
      ...(url === undefined ? [] : [`staticPodURL: ${url}`, 'httpCheckFrequency: 200ms']),
      ...extra,
      'handlers:',
      `  - name: ${JSON.stringify(LISTING)}`,
      `    pods: ${JSON.stringify(podsFile)}`,
      `    record: ${JSON.stringify(rec)}`,
      '',
    ].join('\n'));
    return config;
  };

  it('kills a reported pod nobody wants only once the http source is ready too', async () => {
    const url = await server.listen();
    // first-success: the http source is not ready while the URL fails (no grace period), so the
    // moment readiness arrives is the moment the test serves a PodList.
    const config = await writeConfig(url, ['httpReady: first-success']);
    agent = await AgentProcess.start(['--node-name', NODE, '--config', config], { cwd: tmp.path });
    const a = agent;

    // The file source is ready and its pod synced; the URL keeps failing.
    await eventually(async () => ((await jsonLines(rec)).some((l) => l['call'] === 'create' && l['pod'] === `default/web-${NODE}`) ? true : undefined),
      15_000, 'web created');
    await eventually(async () => (server.statuses.length >= 3 ? true : undefined), 15_000, 'three failed polls');
    expect(server.statuses.every((s) => s === 500)).toBe(true);
    const readyz = await a.get('/readyz');
    expect(readyz.status).toBe(503);
    expect(readyz.body).toContain('http');
    // Not one listing, so no orphan kill: orphan clean-up waits for every source (D10).
    expect((await jsonLines(rec)).filter((l) => l['call'] === 'list' || l['call'] === 'kill')).toEqual([]);
    expect(a.logs.some((l) => l.msg === 'all sources ready' || l.msg === 'killing orphaned pod')).toBe(false);
    expect(JSON.parse(await readFile(podsFile, 'utf8'))).toContainEqual({ uid: 'ghost-uid', namespace: 'default', name: 'ghost' });

    // The URL answers an empty PodList: the http source becomes ready, the orphan is listed and killed.
    server.serve();
    const kill = await eventually(async () => (await jsonLines(rec)).find((l) => l['call'] === 'kill'), 15_000, 'orphan killed');
    expect(kill).toMatchObject({ pod: 'default/ghost', uid: 'ghost-uid', reason: 'orphaned' });
    const lines = await jsonLines(rec);
    expect(lines.findIndex((l) => l['call'] === 'list')).toBeLessThan(lines.findIndex((l) => l['call'] === 'kill'));
    expect(lines.filter((l) => l['call'] === 'kill')).toHaveLength(1); // web is wanted: never killed
    expect((await a.get('/readyz')).status).toBe(200);
    expect(JSON.parse(await readFile(podsFile, 'utf8'))).toEqual([
      { uid: (await jsonLines(rec)).find((l) => l['call'] === 'create')!['uid'], namespace: 'default', name: `web-${NODE}` },
    ]);
  });

  it('with the default http readiness (D9), the grace period unblocks readiness but orphan kills wait for a definitive answer (D18)', async () => {
    const url = await server.listen();
    // Sweeps run every 2 s (housekeeping); a short syncFrequency keeps the handler's resyncs coming too.
    const config = await writeConfig(url, ['syncFrequency: 1s']);
    agent = await AgentProcess.start(['--node-name', NODE, '--config', config], { cwd: tmp.path });
    const a = agent;
    // The URL keeps failing: after the grace period the http source reports no pods and the node is ready...
    await a.waitForLog((l) => l.msg === 'no definitive answer from the manifest URL yet, reporting no http pods', 20_000);
    await a.waitForLog((l) => l.msg === 'all sources ready', 20_000);
    expect((await a.get('/readyz')).status).toBe(200);
    // ...but the orphan may still be wanted by the URL that never answered: its kill is held.
    await a.waitForLog((l) => l.msg === 'orphan kills held: a source may still want these pods (no definitive answer yet, or a manifest that has not decoded since start)', 20_000);
    expect((await jsonLines(rec)).filter((l) => l['call'] === 'kill')).toEqual([]);
    expect(server.statuses.every((s) => s === 500)).toBe(true);

    // The URL answers (an empty PodList): a definitive answer, so the next sweep kills the orphan.
    server.serve();
    const kill = await eventually(async () => (await jsonLines(rec)).find((l) => l['call'] === 'kill'), 20_000, 'orphan killed');
    expect(kill).toMatchObject({ pod: 'default/ghost', reason: 'orphaned' });
  });

  it('holds orphan kills while a manifest has not decoded since start: its pod may run from before the restart (D4, D18)', async () => {
    // From an earlier life the handler runs web and ghost; the agent starts with a typo in web's manifest.
    await writeFile(podsFile, JSON.stringify([{ namespace: 'default', name: `web-${NODE}` }, { uid: 'ghost-uid', namespace: 'default', name: 'ghost' }]));
    await writeFile(join(manifests, 'web.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: [oops\n');
    const config = await writeConfig(undefined, ['fileCheckFrequency: 1s', 'syncFrequency: 1s']);
    agent = await AgentProcess.start(['--node-name', NODE, '--config', config], { cwd: tmp.path });
    const a = agent;
    await a.waitForLog((l) => l.msg === 'all sources ready', 20_000);
    await a.waitForLog((l) => l.msg === 'orphan kills held: a source may still want these pods (no definitive answer yet, or a manifest that has not decoded since start)', 20_000);
    const sources = await a.getJSON<{ sources: { name: string; provisional?: boolean; healthy: boolean }[] }>('/sources');
    expect(sources.sources.find((s) => s.name === 'file')).toMatchObject({ provisional: true, healthy: false });
    expect((await jsonLines(rec)).filter((l) => l['call'] === 'kill')).toEqual([]);

    // The typo is fixed: web is synced, never killed; ghost, now known to be nobody's, is killed.
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    const kill = await eventually(async () => (await jsonLines(rec)).find((l) => l['call'] === 'kill'), 20_000, 'orphan killed');
    expect(kill).toMatchObject({ pod: 'default/ghost', uid: 'ghost-uid', reason: 'orphaned' });
    const lines = await jsonLines(rec);
    expect(lines.filter((l) => l['call'] === 'kill')).toHaveLength(1);
    expect(lines.some((l) => l['call'] === 'create' && l['pod'] === `default/web-${NODE}`)).toBe(true);
  });

  it('does not hold orphan kills for an invalid file that never defined a pod (notes beside the manifests)', async () => {
    // From an earlier life the handler runs web and ghost; ghost's manifest was deleted, and a note lies beside web's.
    await writeFile(podsFile, JSON.stringify([{ namespace: 'default', name: `web-${NODE}` }, { uid: 'ghost-uid', namespace: 'default', name: 'ghost' }]));
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    await writeFile(join(manifests, 'NOTES.txt'), 'web is the node\'s proxy; ask the platform team before editing\n');
    const config = await writeConfig(undefined, ['fileCheckFrequency: 1s', 'syncFrequency: 1s']);
    agent = await AgentProcess.start(['--node-name', NODE, '--config', config], { cwd: tmp.path });
    const a = agent;
    const kill = await eventually(async () => (await jsonLines(rec)).find((l) => l['call'] === 'kill'), 20_000, 'orphan killed');
    expect(kill).toMatchObject({ pod: 'default/ghost', uid: 'ghost-uid', reason: 'orphaned' });
    const sources = await a.getJSON<{ sources: { name: string; provisional?: boolean; healthy: boolean; details: { invalid: { file: string }[]; holdingOrphanKills: string[] } }[] }>('/sources');
    expect(sources.sources.find((s) => s.name === 'file')).toMatchObject({
      provisional: false, healthy: false, details: { invalid: [{ file: join(manifests, 'NOTES.txt') }], holdingOrphanKills: [] },
    });
    expect(a.logs.some((l) => l.msg === 'orphan kills held: a source may still want these pods (no definitive answer yet, or a manifest that has not decoded since start)')).toBe(false);
  });

  it('holds orphan kills while the manifest path has been unusable since start: its pods may be in it (D18)', async () => {
    // From an earlier life the handler runs web, whose manifest is in the directory, and ghost, which nobody wants...
    await writeFile(podsFile, JSON.stringify([{ namespace: 'default', name: `web-${NODE}` }, { uid: 'ghost-uid', namespace: 'default', name: 'ghost' }]));
    // ...and the agent starts with a path it cannot read: a symlink to itself (a botched swap, ELOOP).
    const path = join(tmp.path, 'current');
    await symlink('current', path);
    const config = await writeConfig(undefined, ['fileCheckFrequency: 1s', 'syncFrequency: 1s'], path);
    agent = await AgentProcess.start(['--node-name', NODE, '--config', config], { cwd: tmp.path });
    const a = agent;
    // The file source yields its one early (empty) SET, so the node is ready, but that SET is no answer.
    await a.waitForLog((l) => l.msg === 'all sources ready', 20_000);
    await a.waitForLog((l) => l.msg === 'orphan kills held: a source may still want these pods (no definitive answer yet, or a manifest that has not decoded since start)', 20_000);
    const sources = await a.getJSON<{ sources: { name: string; provisional?: boolean; healthy: boolean; lastError?: { message: string } }[] }>('/sources');
    expect(sources.sources.find((s) => s.name === 'file')).toMatchObject({
      provisional: true, healthy: false, lastError: { message: 'cannot stat manifest path: ELOOP' },
    });
    expect((await jsonLines(rec)).filter((l) => l['call'] === 'kill')).toEqual([]);

    // The path is fixed: web is read (and synced, never killed); ghost, now known to be nobody's, is killed.
    await symlink('manifests', `${path}.new`);
    await rename(`${path}.new`, path);
    const kill = await eventually(async () => (await jsonLines(rec)).find((l) => l['call'] === 'kill'), 20_000, 'orphan killed');
    expect(kill).toMatchObject({ pod: 'default/ghost', uid: 'ghost-uid', reason: 'orphaned' });
    const lines = await jsonLines(rec);
    expect(lines.filter((l) => l['call'] === 'kill')).toHaveLength(1);
    expect(lines.some((l) => l['call'] === 'create' && l['pod'] === `default/web-${NODE}`)).toBe(true);
  });
});
