import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { AgentProcess, eventually } from '../support/agent-process.js';

describe('podconfig-agent --metrics-bind-address', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let agent: AgentProcess | undefined;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-e2e-metrics-');
  });

  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    await tmp.cleanup();
  });

  it('serves /metrics and the health checks on a second listener, 404 for /pods and /sources, beside the status server', async () => {
    const manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    const a = await AgentProcess.start(['--node-name', 'e2e-node', '--pod-manifest-path', manifests, '--metrics-bind-address', '127.0.0.1:0']);
    agent = a;
    const listening = await a.waitForLog((l) => l.msg === 'metrics server listening');
    expect(listening).toMatchObject({ component: 'status.metrics', address: '127.0.0.1' });
    const metricsBase = `http://127.0.0.1:${String(listening['port'])}`;
    expect(metricsBase).not.toBe(a.baseUrl);
    expect((await a.waitForLog((l) => l.msg === 'configuration'))['settings']).toMatchObject({ statusAddress: '127.0.0.1:0', metricsBindAddress: '127.0.0.1:0' });
    const get = (path: string): Promise<{ status: number; body: string }> => a.get(path, metricsBase);

    await eventually(async () => ((await get('/readyz')).status === 200 ? true : undefined), 15_000, 'metrics server /readyz 200');
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('podconfig_build_info{');
    expect(metrics.body).toContain('podconfig_source_pods{source="file"} 1');
    expect(await get('/healthz')).toEqual({ status: 200, body: 'ok\n' });
    expect(await get('/livez?verbose')).toEqual({ status: 200, body: '[+]ping ok\n[+]log ok\n[+]syncloop ok\nlivez check passed\n' });
    expect(await get('/readyz/source/file')).toEqual({ status: 200, body: 'ok\n' });
    expect((await get('/pods')).status).toBe(404);
    expect((await get('/sources')).status).toBe(404);
    // The status server is unchanged: it still has the state.
    expect(await a.podNames()).toEqual(['default/web-e2e-node']);

    expect(await a.stop()).toEqual({ code: 0, signal: null });
  });
});
