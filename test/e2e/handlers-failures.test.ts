import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { AgentProcess, eventually } from '../support/agent-process.js';
import { metricSample } from '../support/metric-sample.js';

const PLUGINS = fileURLToPath(new URL('../../fixtures/plugins/', import.meta.url));
const NODE = 'side-node';

/** One JSON line a test plugin wrote: flat, scalar fields. */
type Line = Readonly<Record<string, string | number | boolean | undefined>>;

async function jsonLines(file: string): Promise<Line[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8')).split('\n').slice(0, -1).map((l) => JSON.parse(l) as Line);
}

interface HandlerStatus {
  state: string;
  attempt: number;
  failures: number;
  lastCall?: string;
  lastResult?: string;
  lastError?: { message: string; code: string };
}
interface PodsBody {
  items: { metadata: { name: string; uid: string } }[];
  sync: { name: string; uid: string; desired: boolean; handlers: Record<string, HandlerStatus> }[];
}

describe('podconfig-agent with failing, hanging and slow handlers next to a recording one', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let agent: AgentProcess | undefined;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-e2e-side-');
  });
  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    await tmp.cleanup();
  });

  // Retries come 10–15 s after a failure (the kubelet's backOffPeriod, jittered).
  it('keeps the recorder in order while the others fail and retry, and reports both in /pods and /metrics', { timeout: 60_000 }, async () => {
    const manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
    const rec = join(tmp.path, 'recorder.jsonl');
    const thrown = join(tmp.path, 'thrower.jsonl');
    const slow = join(tmp.path, 'slow.jsonl');
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, [
      `staticPodPath: ${JSON.stringify(manifests)}`,
      'handlers:',
      `  - name: ${JSON.stringify(join(PLUGINS, 'recording.mjs'))}`,
      `    file: ${JSON.stringify(rec)}`,
      `  - name: ${JSON.stringify(join(PLUGINS, 'throwing.mjs'))}`,
      `    pod: bad-${NODE}`,
      `    record: ${JSON.stringify(thrown)}`,
      `  - name: ${JSON.stringify(join(PLUGINS, 'hanging.mjs'))}`,
      `  - name: ${JSON.stringify(join(PLUGINS, 'slow.mjs'))}`,
      '    delay: 200',
      `    record: ${JSON.stringify(slow)}`,
      '',
    ].join('\n'));
    for (const name of ['web', 'bad', 'db']) await writeFile(join(manifests, `${name}.yaml`), podManifestYaml(name));

    agent = await AgentProcess.start(['--node-name', NODE, '--config', config, '--handler-timeout', '1s'], { cwd: tmp.path });
    const a = agent;
    const recorded = (pred: (l: Line) => boolean, what: string): Promise<Line[]> =>
      eventually(async () => {
        const found = (await jsonLines(rec)).filter(pred);
        return found.length > 0 ? found : undefined;
      }, 15_000, what);

    const creates = await eventually(async () => {
      const c = (await jsonLines(rec)).filter((l) => l['call'] === 'create');
      return c.length === 3 ? c : undefined;
    }, 15_000, 'three creates recorded');
    const uidOf = (pod: string): unknown => creates.find((l) => l['pod'] === `default/${pod}-${NODE}`)?.['uid'];
    const web1 = uidOf('web');

    // An edit (new UID) and a delete: the recorder sees them while the others fail.
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web', { image: 'nginx:1.27' }));
    await rm(join(manifests, 'db.yaml'));
    const [web2create] = await recorded((l) => l['call'] === 'create' && l['pod'] === `default/web-${NODE}` && l['uid'] !== web1, 'new web created');
    await recorded((l) => l['call'] === 'kill' && l['pod'] === `default/db-${NODE}`, 'db killed');
    const web2 = web2create!['uid'];

    // Per UID, in order: create, then kill; the new web is created only after the old one's kill (§6.6).
    const lines = await jsonLines(rec);
    const perUid = (uid: unknown): unknown[] => lines.filter((l) => l['uid'] === uid).map((l) => (l['reason'] === undefined ? l['call'] : `${String(l['call'])}:${String(l['reason'])}`));
    expect(perUid(web1)).toEqual(['create', 'kill:removed']);
    expect(perUid(web2)).toEqual(['create']);
    expect(perUid(uidOf('bad'))).toEqual(['create']);
    expect(perUid(uidOf('db'))).toEqual(['create', 'kill:removed']);
    expect(lines.findIndex((l) => l['uid'] === web1 && l['call'] === 'kill')).toBeLessThan(lines.findIndex((l) => l['uid'] === web2));
    expect(lines.map((l) => l['handler'])).toEqual(lines.map(() => 'recorder'));

    // /pods: the old web stays listed while the hanger still owes its kill; the recorder is done with it.
    // The thrower's last error and attempts for "bad"; the hanger's timeouts; the others fine.
    const pods = await eventually(async () => {
      const body = await a.getJSON<PodsBody>('/pods');
      const bad = body.sync.find((s) => s.name === `bad-${NODE}`)?.handlers;
      const web = body.sync.find((s) => s.uid === web2)?.handlers;
      return bad?.['thrower'] !== undefined && bad.thrower.attempt >= 2 && bad.thrower.failures >= 2 &&
        bad['hanger'] !== undefined && bad.hanger.attempt >= 2 && bad.hanger.lastResult === 'timeout' &&
        bad['slow']?.lastResult === 'success' && web?.['slow']?.lastResult === 'success' ? body : undefined;
    }, 30_000, 'thrower and hanger retried, slow done');
    const bad = pods.sync.find((s) => s.name === `bad-${NODE}`)!.handlers;
    expect(bad['thrower']).toMatchObject({
      lastResult: 'error',
      lastError: { message: `thrower: refusing ${bad['thrower']!.lastCall} of pod bad-${NODE}`, code: 'PODCONFIG_HANDLER_FAILED' },
    });
    expect(bad['hanger']!.lastError).toMatchObject({ code: 'PODCONFIG_HANDLER_TIMEOUT' });
    expect(bad['recorder']).toMatchObject({ lastResult: 'success', failures: 0, attempt: 1 });
    for (const s of pods.sync.filter((p) => p.desired)) {
      expect(s.handlers['recorder']).toMatchObject({ lastResult: 'success', failures: 0 });
      if (s.name !== `bad-${NODE}`) expect(s.handlers['thrower']).toMatchObject({ lastResult: 'success', failures: 0 });
    }
    // The thrower was called again for "bad" (retries), and every other call of it succeeded.
    const thrownLines = await jsonLines(thrown);
    const threw = thrownLines.filter((l) => l['threw'] === true);
    expect(threw.length).toBeGreaterThanOrEqual(2);
    expect(threw.every((l) => l['pod'] === `default/bad-${NODE}`)).toBe(true);
    expect(thrownLines.filter((l) => l['pod'] === `default/bad-${NODE}`).map((l) => l['attempt']).slice(0, 2)).toEqual([1, 2]);
    // The slow handler finished its calls.
    expect((await jsonLines(slow)).filter((l) => l['event'] === 'done' && l['call'] === 'create').length).toBeGreaterThanOrEqual(3);

    // /metrics counts the outcomes per handler.
    const { body: metrics } = await a.get('/metrics');
    expect(metricSample(metrics, 'podconfig_handler_calls_total', { handler: 'recorder', call: 'create', outcome: 'success' })).toBe(4);
    expect(metricSample(metrics, 'podconfig_handler_calls_total', { handler: 'recorder', call: 'kill', outcome: 'success' })).toBe(2);
    expect(metricSample(metrics, 'podconfig_handler_calls_total', { handler: 'thrower', call: 'create', outcome: 'error' })).toBe(1);
    expect(metricSample(metrics, 'podconfig_handler_calls_total', { handler: 'thrower', call: 'resync', outcome: 'error' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(metrics, 'podconfig_handler_calls_total', { handler: 'hanger', call: 'create', outcome: 'timeout' })).toBeGreaterThanOrEqual(3);
    expect(metricSample(metrics, 'podconfig_handler_calls_total', { handler: 'hanger', call: 'create', outcome: 'success' })).toBe(0);
    // …and where each handler's pods stand: the recorder is done with every pod, the thrower still owes "bad".
    const podsIn = (handler: string, state: string): number => metricSample(metrics, 'podconfig_handler_pods', { handler, state });
    expect(podsIn('recorder', 'idle')).toBeGreaterThanOrEqual(2); // the desired web and bad
    expect(['queued', 'running', 'backoff'].map((state) => podsIn('recorder', state))).toEqual([0, 0, 0]);
    expect(podsIn('thrower', 'backoff') + podsIn('thrower', 'queued') + podsIn('thrower', 'running')).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/^podconfig_sync_loop_held_seconds 0$/m);
    const { version } = JSON.parse(await readFile(new URL('../../agent/package.json', import.meta.url), 'utf8')) as { version: string };
    expect(metrics).toContain(`podconfig_build_info{version="${version}",nodejs_version="${process.version}"} 1`);
  });
});
