import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { AgentProcess, eventually, type LogLine } from '../support/agent-process.js';

const NODE = 'e2e-node';

/** The YAML "billion laughs": each level references the previous one nine times. */
function aliasBomb(): string {
  const levels = 'abcdefghi'.split('');
  return levels
    .map((name, i) => `${name}: &${name} [${Array(9).fill(i === 0 ? '"lol"' : `*${levels[i - 1]!}`).join(', ')}]`)
    .join('\n');
}

/** Kills the log handler reported (one line per killPod call). */
const kills = (agent: AgentProcess): LogLine[] => agent.logs.filter((l) => l.component === 'sync.log' && l['op'] === 'kill');
const creates = (agent: AgentProcess, pod: string): LogLine[] =>
  agent.logs.filter((l) => l.component === 'sync.log' && l['op'] === 'create' && l['pod'] === pod);

describe('podconfig-agent with a static pod directory', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let manifests: string;
  let state: string;
  let agent: AgentProcess | undefined;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-e2e-');
    manifests = join(tmp.path, 'manifests');
    state = join(tmp.path, 'state');
    await mkdir(manifests);
  });

  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    await tmp.cleanup();
  });

  const start = async (extra: string[] = []): Promise<AgentProcess> => {
    agent = await AgentProcess.start([
      '--node-name', NODE, '--pod-manifest-path', manifests, '--file-check-frequency', '1h',
      '--handler', 'log', '--handler', `state-dir=${state}`, '--log-level', 'debug', ...extra,
    ]);
    return agent;
  };

  const podsAre = (a: AgentProcess, expected: string[]) =>
    eventually(async () => {
      const names = await a.podNames();
      return JSON.stringify(names) === JSON.stringify(expected) ? names : undefined;
    }, 15_000, `/pods = ${JSON.stringify(expected)}`);

  const stateFile = (pod: string) => join(state, `default_${pod}.json`);

  it('follows create, in-place edit, atomic rename, invalid edit, shadow duplicate and delete, without spurious kills', async () => {
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    const a = await start();
    await podsAre(a, [`default/web-${NODE}`]);
    await eventually(async () => (existsSync(stateFile(`web-${NODE}`)) ? true : undefined), 10_000, 'state file');
    expect((await a.get('/readyz')).status).toBe(200);

    // Create.
    await writeFile(join(manifests, 'db.yaml'), podManifestYaml('db'));
    await podsAre(a, [`default/db-${NODE}`, `default/web-${NODE}`]);

    // /pods shows a literal env value redacted (the status server has no authentication); the handler gets it.
    await writeFile(join(manifests, 'secret.yaml'), podManifestYaml('secret', { extra: '    env:\n    - name: DB_PASSWORD\n      value: hunter2' }));
    await eventually(async () => (existsSync(stateFile(`secret-${NODE}`)) ? true : undefined), 10_000, 'secret state file');
    const shown = (await a.get('/pods')).body;
    expect(shown).toContain('"name":"DB_PASSWORD","value":"[REDACTED]"');
    expect(shown).not.toContain('hunter2');
    expect(await readFile(stateFile(`secret-${NODE}`), 'utf8')).toContain('hunter2');
    await rm(join(manifests, 'secret.yaml'));
    await podsAre(a, [`default/db-${NODE}`, `default/web-${NODE}`]);

    // In-place edit: new content → new UID → the old one is killed, the new one created.
    const uidOf = async (name: string): Promise<string> => {
      const list = await a.getJSON<{ items: { metadata: { name: string; uid: string } }[] }>('/pods');
      return list.items.find((p) => p.metadata.name === name)!.metadata.uid;
    };
    const webUid1 = await uidOf(`web-${NODE}`);
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web', { image: 'nginx:1.27' }));
    await eventually(async () => ((await uidOf(`web-${NODE}`)) !== webUid1 ? true : undefined), 10_000, 'web restarted');
    await eventually(async () => (JSON.parse(await readFile(stateFile(`web-${NODE}`), 'utf8')).spec.containers[0].image === 'nginx:1.27' ? true : undefined));

    // Atomic rename through a temp file with identical content: no restart.
    const webUid2 = await uidOf(`web-${NODE}`);
    const killsBefore = kills(a).length;
    await writeFile(join(manifests, '.web.yaml.tmp'), podManifestYaml('web', { image: 'nginx:1.27' }));
    await rename(join(manifests, '.web.yaml.tmp'), join(manifests, 'web.yaml'));
    // A marker change after the rename: once it is applied, the rename has been processed too.
    await writeFile(join(manifests, 'marker.yaml'), podManifestYaml('marker'));
    await podsAre(a, [`default/db-${NODE}`, `default/marker-${NODE}`, `default/web-${NODE}`]);
    expect(await uidOf(`web-${NODE}`)).toBe(webUid2);
    expect(kills(a).length).toBe(killsBefore);

    // Invalid edit: the pod stays (D4), /sources shows the error.
    await writeFile(join(manifests, 'db.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: db\nspec: [');
    await eventually(async () => {
      const s = await a.getJSON<{ sources: { name: string; details: { invalid?: { file: string; error: string }[] } }[] }>('/sources');
      const file = s.sources.find((x) => x.name === 'file');
      return file?.details.invalid?.some((i) => i.file === join(manifests, 'db.yaml') && /yaml|flow|collection/i.test(i.error)) === true ? true : undefined;
    }, 10_000, '/sources reports db.yaml invalid');
    expect(await a.podNames()).toContain(`default/db-${NODE}`);

    // Shadow duplicate (D1): a later file with the same pod name does not replace the pod.
    await writeFile(join(manifests, 'web.yaml.d.yaml'), podManifestYaml('web', { image: 'shadow:1' }));
    await eventually(async () => {
      const s = await a.getJSON<{ sources: { name: string; details: { shadowed?: unknown[] } }[] }>('/sources');
      return (s.sources.find((x) => x.name === 'file')?.details.shadowed?.length ?? 0) > 0 ? true : undefined;
    }, 10_000, '/sources reports the shadow');
    expect(await uidOf(`web-${NODE}`)).toBe(webUid2);
    await rm(join(manifests, 'web.yaml.d.yaml'));
    await rm(join(manifests, 'marker.yaml'));
    await podsAre(a, [`default/db-${NODE}`, `default/web-${NODE}`]);

    // Delete.
    await rm(join(manifests, 'web.yaml'));
    await podsAre(a, [`default/db-${NODE}`]);
    await eventually(async () => (existsSync(stateFile(`web-${NODE}`)) ? undefined : true), 10_000, 'state file removed');

    // D18: pods whose file still held a valid manifest were never killed. The kills are exactly:
    // web's first UID (edit), secret and marker (deleted), web (deleted).
    const killed = kills(a).map((l) => `${String(l['pod'])}:${String(l['uid'])}`);
    expect(killed.filter((k) => k.startsWith(`default/db-${NODE}`))).toEqual([]);
    expect(killed.sort()).toEqual([
      `default/secret-${NODE}:${String(creates(a, `default/secret-${NODE}`)[0]?.['uid'])}`,
      `default/marker-${NODE}:${String(creates(a, `default/marker-${NODE}`)[0]?.['uid'])}`,
      `default/web-${NODE}:${webUid1}`,
      `default/web-${NODE}:${webUid2}`,
    ].sort());

    // SIGTERM: clean exit 0.
    expect(await a.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });

  it('empties the set once when the directory is removed, and recovers when it is re-created', async () => {
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    const a = await start();
    await podsAre(a, [`default/web-${NODE}`]);
    await rm(manifests, { recursive: true });
    await podsAre(a, []);
    await mkdir(manifests);
    await writeFile(join(manifests, 'api.yaml'), podManifestYaml('api'));
    // fileCheckFrequency is 1h: only the re-armed watch can explain this.
    await podsAre(a, [`default/api-${NODE}`]);
    expect((await a.get('/healthz')).status).toBe(200);
  });

  it('rejects bad input with clear errors, keeps every good pod and keeps running', async () => {
    await writeFile(join(manifests, 'good.yaml'), podManifestYaml('good'));
    const a = await start();
    await podsAre(a, [`default/good-${NODE}`]);
    const bad: Record<string, string | Buffer> = {
      'empty.yaml': '',
      'garbage.yaml': Buffer.from([0x00, 0xff, 0xfe, 0x13, 0x37, 0x00, 0x9c]),
      'bomb.yaml': aliasBomb(),
      'huge.yaml': Buffer.alloc(20 * 1024 * 1024, 'a'),
      'list.yaml': 'apiVersion: v1\nkind: PodList\nitems: []\n',
      'service.yaml': 'apiVersion: v1\nkind: Service\nmetadata: {name: svc}\nspec: {}\n',
      'unknown-field.yaml': podManifestYaml('typo', { extra: '    imagePulPolicy: Always' }),
      'long-name.yaml': podManifestYaml('x'.repeat(250)),
    };
    for (const [file, content] of Object.entries(bad)) await writeFile(join(manifests, file), content);
    await eventually(async () => {
      const s = await a.getJSON<{ sources: { name: string; details: { invalid?: { file: string; error: string }[] } }[] }>('/sources');
      const invalid = s.sources.find((x) => x.name === 'file')?.details.invalid ?? [];
      return Object.keys(bad).every((f) => invalid.some((i) => i.file.endsWith(f))) ? invalid : undefined;
    }, 15_000, 'every bad file reported in /sources');
    const s = await a.getJSON<{ sources: { name: string; details: { invalid: { file: string; error: string }[] } }[] }>('/sources');
    // Each entry names its file and says what is wrong with it.
    const reasons = Object.fromEntries(s.sources.find((x) => x.name === 'file')!.details.invalid.map((i) => [i.file.split('/').pop(), i.error]));
    expect(reasons).toMatchObject({
      'empty.yaml': expect.stringMatching(/empty/i),
      'garbage.yaml': expect.stringMatching(/control character|UTF-8|binary/i),
      'bomb.yaml': expect.stringMatching(/alias/i),
      'huge.yaml': expect.stringMatching(/10485760|10 MiB|too large/i),
      'list.yaml': expect.stringMatching(/PodList/),
      'service.yaml': expect.stringMatching(/Service/),
      'unknown-field.yaml': expect.stringMatching(/unknown field "spec\.containers\[0\]\.imagePulPolicy"/),
      'long-name.yaml': expect.stringMatching(/253|too long|must be no more/i),
    });
    expect(await a.podNames()).toEqual([`default/good-${NODE}`]);
    expect(kills(a)).toEqual([]);
    expect((await a.get('/healthz')).status).toBe(200);
    expect(await a.stop()).toEqual({ code: 0, signal: null });
  });
});
