import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { AgentProcess, eventually } from '../support/agent-process.js';
import { metricSample } from '../support/metric-sample.js';

const SLOW = fileURLToPath(new URL('../../fixtures/plugins/slow.mjs', import.meta.url));
const HANGING = fileURLToPath(new URL('../../fixtures/plugins/hanging.mjs', import.meta.url));
const RECORDING = fileURLToPath(new URL('../../fixtures/plugins/recording.mjs', import.meta.url));
const NODE = 'shutdown-node';

/** One JSON line a test plugin wrote: flat, scalar fields. */
type Line = Readonly<Record<string, string | number | boolean | undefined>>;

async function jsonLines(file: string): Promise<Line[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8')).split('\n').slice(0, -1).map((l) => JSON.parse(l) as Line);
}

describe('podconfig-agent shutdown with handler calls in flight', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let agent: AgentProcess | undefined;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-e2e-shutdown-');
  });
  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    await tmp.cleanup();
  });

  it('aborts the slow call\'s signal on SIGTERM and exits 0 within the shutdown timeout', async () => {
    const manifests = join(tmp.path, 'manifests');
    const slow = join(tmp.path, 'slow.jsonl');
    const rec = join(tmp.path, 'recorder.jsonl');
    await mkdir(manifests);
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, [
      `staticPodPath: ${JSON.stringify(manifests)}`,
      'handlers:',
      `  - name: ${JSON.stringify(SLOW)}`,
      '    delay: 600000', // far longer than the test: only the abort can end the call
      `    record: ${JSON.stringify(slow)}`,
      `  - name: ${JSON.stringify(RECORDING)}`,
      `    file: ${JSON.stringify(rec)}`,
      '',
    ].join('\n'));
    agent = await AgentProcess.start(['--node-name', NODE, '--config', config, '--shutdown-timeout', '5s'], { cwd: tmp.path });

    // The slow handler is inside its create call (and the recorder, beside it, already done).
    await eventually(async () => ((await jsonLines(slow)).some((l) => l['event'] === 'start') ? true : undefined), 15_000, 'slow call started');
    await eventually(async () => ((await jsonLines(rec)).some((l) => l['call'] === 'create') ? true : undefined), 15_000, 'recorder done');
    // The recorder's line is written before its call returns: wait until the agent has taken the call in, or
    // a SIGTERM handled first would find it still running (an interrupted call).
    const recorded = { handler: 'recorder', call: 'create', outcome: 'success' };
    await eventually(async () => (metricSample((await agent!.get('/metrics')).body, 'podconfig_handler_calls_total', recorded) === 1 ? true : undefined), 15_000, 'recorder call taken in');

    expect(await agent.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect((await jsonLines(slow)).map((l) => `${String(l['event'])}:${String(l['call'])}:${String(l['pod'])}`)).toEqual([
      `start:create:default/web-${NODE}`,
      `aborted:create:default/web-${NODE}`,
    ]);
    // Everything finished inside the budget: nothing was abandoned and the hard deadline never fired.
    const messages = agent.logs.map((l) => l.msg);
    expect(messages).toContain('reconciler stopped');
    expect(agent.logs.find((l) => l.msg === 'reconciler stopped')).toMatchObject({ interruptedCalls: 1 });
    expect(messages).not.toContain('handler calls still running at shutdown; abandoned');
    expect(messages).not.toContain('shutdown deadline passed, exiting');
  });

  it('gives a call an Error naming the signal as its abort reason, and logs the call it cut short as one info line without a stack', async () => {
    const manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    // Its create waits for the abort, writes down what its signal's reason is, then throws it (throwIfAborted()).
    await writeFile(join(tmp.path, 'reason.mjs'), [
      "import { appendFileSync, writeFileSync } from 'node:fs';",
      'export default () => ({',
      "  name: 'reason',",
      '  syncPod: (_request, signal) => new Promise((resolve, reject) => {',
      "    appendFileSync('started', 'x');",
      "    signal.addEventListener('abort', () => {",
      '      const r = signal.reason;',
      "      writeFileSync('reason.json', JSON.stringify({ isError: r instanceof Error, name: r?.name, message: r?.message }));",
      '      try { signal.throwIfAborted(); resolve(); } catch (err) { reject(err); }',
      '    }, { once: true });',
      '  }),',
      '  killPod: async () => {},',
      '});', '',
    ].join('\n'));
    agent = await AgentProcess.start(['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', './reason.mjs', '--shutdown-timeout', '5s'], { cwd: tmp.path });
    await eventually(async () => (existsSync(join(tmp.path, 'started')) ? true : undefined), 15_000, 'the call to start');

    expect(await agent.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(JSON.parse(await readFile(join(tmp.path, 'reason.json'), 'utf8'))).toEqual({
      isError: true, name: 'AbortError', message: 'podconfig-agent received SIGTERM: shutting down', // was the string "SIGTERM"
    });
    expect(agent.logs.find((l) => l.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
    const cut = agent.logs.filter((l) => l.msg === 'handler call cut short by shutdown');
    expect(cut).toEqual([expect.objectContaining({ level: 30, handler: 'reason', pod: `default/web-${NODE}`, call: 'create' })]);
    expect(cut[0]).not.toHaveProperty('err'); // was a warn line with the error's stack, per call
    expect(agent.logs.map((l) => l.msg)).not.toContain('handler call failed');
    expect(agent.logs.find((l) => l.msg === 'reconciler stopped')).toMatchObject({ interruptedCalls: 1 });
  });

  it('exits as soon as the shutdown timeout has passed, though an abandoned call still holds a timer', async () => {
    const manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    // Its calls ignore their signal and hold a 10-minute timer: after shutdown, that timer is all that keeps the loop.
    await writeFile(join(tmp.path, 'timer-holder.mjs'), [
      "import { appendFileSync } from 'node:fs';",
      'export default () => ({',
      "  name: 'timer-holder',",
      "  syncPod: () => { appendFileSync('started', 'x'); return new Promise((resolve) => setTimeout(resolve, 600_000)); },",
      '  killPod: async () => {},',
      '});', '',
    ].join('\n'));
    agent = await AgentProcess.start(['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', './timer-holder.mjs', '--shutdown-timeout', '1s'], { cwd: tmp.path });
    await eventually(async () => (existsSync(join(tmp.path, 'started')) ? true : undefined), 15_000, 'the call to start');

    expect(await agent.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const messages = agent.logs.map((l) => l.msg);
    expect(messages).toContain('handler calls still running at shutdown; abandoned');
    expect(messages).toContain('agent stopped');
    // Before, the timer kept the process until the hard deadline (shutdown timeout + 5 s) fired.
    expect(messages).not.toContain('shutdown deadline passed, exiting');
  });

  it.each([
    ['SIGTERM', 'SIGTERM'],
    ['SIGTERM', 'SIGINT'],
    ['SIGINT', 'SIGTERM'],
    ['SIGHUP', 'SIGINT'],
  ] as const)('exits 1 at once on a second signal (%s, then %s), with a log line, as the kubelet does', async (first, second) => {
    const manifests = join(tmp.path, 'manifests');
    const hung = join(tmp.path, 'hanger.jsonl');
    await mkdir(manifests);
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, [`staticPodPath: ${JSON.stringify(manifests)}`, 'handlers:', `  - name: ${JSON.stringify(HANGING)}`, `    record: ${JSON.stringify(hung)}`, ''].join('\n'));
    // A long shutdown timeout: only the second signal can end the shutdown within the test.
    agent = await AgentProcess.start(['--node-name', NODE, '--config', config, '--shutdown-timeout', '10m'], { cwd: tmp.path });
    await eventually(async () => ((await jsonLines(hung)).length > 0 ? true : undefined), 15_000, 'hanging call started');
    agent.child.kill(first);
    await agent.waitForLog((l) => l.msg === 'shutting down');
    expect(await agent.stop(second)).toEqual({ code: 1, signal: null });
    expect(agent.logs.find((l) => l.msg === 'second signal received, exiting')).toMatchObject({ signal: second });
  });

  it('abandons a call that ignores its signal once the shutdown timeout has passed, and still exits 0', async () => {
    const manifests = join(tmp.path, 'manifests');
    const hung = join(tmp.path, 'hanger.jsonl');
    await mkdir(manifests);
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, [
      `staticPodPath: ${JSON.stringify(manifests)}`,
      'handlers:',
      `  - name: ${JSON.stringify(HANGING)}`,
      `    record: ${JSON.stringify(hung)}`,
      '',
    ].join('\n'));
    agent = await AgentProcess.start(['--node-name', NODE, '--config', config, '--shutdown-timeout', '1s'], { cwd: tmp.path });
    await eventually(async () => ((await jsonLines(hung)).length > 0 ? true : undefined), 15_000, 'hanging call started');

    expect(await agent.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    const abandoned = agent.logs.find((l) => l.msg === 'handler calls still running at shutdown; abandoned');
    expect(abandoned).toMatchObject({ calls: 1, shutdownTimeoutMs: 1000 });
    expect(agent.logs.map((l) => l.msg)).not.toContain('shutdown deadline passed, exiting');
  });
});
