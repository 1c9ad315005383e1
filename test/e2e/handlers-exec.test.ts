import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Pod } from '@podconfig/core';
import { podManifestYaml, processRunning, tempDir } from '@podconfig/testing';
import { AgentProcess, eventually } from '../support/agent-process.js';

const NODE = 'exec-node';

/**
 * The hook: keeps what arrived on stdin, then succeeds with a marker file or fails with exit 3
 * (pods named fail-*). One file pair per call. Its handler has a generous timeout, so a loaded
 * machine (a 1 MB stdin, /bin/sh start-up) never makes a call time out.
 */
const HOOK = `#!/bin/sh
set -eu
base="$MARKERS/$PODCONFIG_OP.$POD_NAME.$POD_UID"
cat > "$base.stdin"
case "$POD_NAME" in
  fail-*) exit 3 ;;
esac
echo "$PODCONFIG_SOURCE $PODCONFIG_NODE_NAME \${PODCONFIG_KILL_REASON:-}" > "$base.done"
`;

/**
 * The second exec handler (`exec-2`, small timeout): for pods named slow-* it records its pid and
 * sleeps far longer than any test (600 s), so only the timeout can end it; other pods succeed.
 */
const SLOW_HOOK = `#!/bin/sh
set -eu
cat > /dev/null
case "$POD_NAME" in
  slow-*) echo $$ > "$MARKERS/slow.$PODCONFIG_OP.$POD_UID.pid"; exec sleep 600 ;;
esac
`;

/** Generous: a bound for a loaded 2-core runner, not an expected duration. */
const HOOK_TIMEOUT = '20s';


interface HandlerStatus { attempt: number; failures: number; lastResult?: string; lastError?: { message: string; code: string } }
interface PodsBody {
  items: { metadata: { name: string; uid: string } }[];
  sync: { name: string; uid: string; desired: boolean; handlers: Record<string, HandlerStatus> }[];
}

/** A valid pod of about 1 MB: annotations are capped at 256 KiB in total, so most of it is an env value. */
function bigManifest(annotation: string, env: string): string {
  return [
    'apiVersion: v1', 'kind: Pod', 'metadata:', '  name: big', '  annotations:', `    example.com/blob: "${annotation}"`,
    'spec:', '  containers:', '  - name: main', '    image: registry.k8s.io/pause:3.10', '    env:', '    - name: BLOB', `      value: "${env}"`, '',
  ].join('\n');
}

/** The pid a hook wrote to `file`, once it has. */
async function pidWritten(file: string, what: string): Promise<number> {
  return eventually(async () => {
    const text = existsSync(file) ? await readFile(file, 'utf8') : '';
    return text.trim() === '' ? undefined : Number(text);
  }, 30_000, what);
}

/** SIGKILL for a process a test started, which should be gone already. */
function killLeftover(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone, as it should be
  }
}

/** An agent config: static pods from `manifests`, then one exec handler per `[hook, its settings]`, each given `MARKERS`. */
function execConfig(manifests: string, markers: string, handlers: readonly (readonly [string, readonly string[]])[]): string {
  return [
    `staticPodPath: ${JSON.stringify(manifests)}`,
    'handlers:',
    ...handlers.flatMap(([hook, settings]) => [
      '  - name: exec', // the second runs as exec-2
      `    command: ${JSON.stringify(hook)}`,
      ...settings.map((l) => `    ${l}`),
      `    env: { MARKERS: ${JSON.stringify(markers)} }`,
    ]),
    '',
  ].join('\n');
}

describe('podconfig-agent with the exec handler and a real shell script', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let agent: AgentProcess | undefined;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-e2e-exec-');
  });
  afterEach(async () => {
    // SIGTERM first: the exec handler kills and reaps its running scripts on the way out.
    await agent?.stopWithin();
    agent = undefined;
    await tmp.cleanup();
  });

  /** Starts the agent on one static pod with `hook` (its lines) as its only exec handler; the hook's markers directory. */
  async function startWithHook(hookLines: readonly string[], handlerLines: readonly string[]): Promise<{ agent: AgentProcess; markers: string }> {
    const manifests = join(tmp.path, 'manifests');
    const markers = join(tmp.path, 'markers');
    const hook = join(tmp.path, 'hook.sh');
    await mkdir(manifests);
    await mkdir(markers);
    await writeFile(hook, ['#!/bin/sh', ...hookLines, ''].join('\n'));
    await chmod(hook, 0o755);
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, execConfig(manifests, markers, [[hook, handlerLines]]));
    agent = await AgentProcess.start(['--node-name', NODE, '--config', config], { cwd: tmp.path });
    return { agent, markers };
  }

  it('runs the script per call: success, exit 3 retried, timeout (a second exec handler), a 1 MB pod intact on stdin, kill', { timeout: 120_000 }, async () => {
    const manifests = join(tmp.path, 'manifests');
    const markers = join(tmp.path, 'markers');
    const hook = join(tmp.path, 'hook.sh');
    const slowHook = join(tmp.path, 'slow-hook.sh');
    await mkdir(manifests);
    await mkdir(markers);
    await writeFile(hook, HOOK);
    await chmod(hook, 0o755);
    await writeFile(slowHook, SLOW_HOOK);
    await chmod(slowHook, 0o755);
    const annotation = randomBytes(150 * 1024).toString('base64'); // 200 KiB of text
    const env = randomBytes(600 * 1024).toString('base64'); // 800 KiB of text
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
    await writeFile(join(manifests, 'fail.yaml'), podManifestYaml('fail'));
    await writeFile(join(manifests, 'slow.yaml'), podManifestYaml('slow'));
    await writeFile(join(manifests, 'big.yaml'), bigManifest(annotation, env));
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, execConfig(manifests, markers, [
      [hook, [`timeout: ${HOOK_TIMEOUT}`, 'killGrace: 1s']],
      [slowHook, ['timeout: 1s', 'killGrace: 1s']], // exec-2
    ]));

    agent = await AgentProcess.start(['--node-name', NODE, '--config', config], { cwd: tmp.path });
    const a = agent;
    const pods = await eventually(async () => {
      const body = await a.getJSON<PodsBody>('/pods');
      const status = (name: string, handler: string): HandlerStatus | undefined =>
        body.sync.find((s) => s.name === `${name}-${NODE}`)?.handlers[handler];
      return status('web', 'exec')?.lastResult === 'success' && status('big', 'exec')?.lastResult === 'success' &&
        status('slow', 'exec')?.lastResult === 'success' && (status('fail', 'exec')?.failures ?? 0) >= 2 &&
        status('slow', 'exec-2')?.lastError !== undefined ? body : undefined;
    }, 60_000, 'exec results for every pod');
    const uid = (name: string): string => pods.items.find((p) => p.metadata.name === `${name}-${NODE}`)!.metadata.uid;
    const status = (name: string, handler = 'exec'): HandlerStatus => pods.sync.find((s) => s.name === `${name}-${NODE}`)!.handlers[handler]!;

    // Success: the marker of the create call, with the environment the handler sets.
    expect(await readFile(join(markers, `create.web-${NODE}.${uid('web')}.done`), 'utf8')).toBe(`file ${NODE} \n`);
    const webPod = JSON.parse(await readFile(join(markers, `create.web-${NODE}.${uid('web')}.stdin`), 'utf8')) as Pod;
    expect(webPod.metadata).toMatchObject({ name: `web-${NODE}`, namespace: 'default', uid: uid('web') });

    // Exit 3: failed, shown in /pods, retried (as a resync) with a higher attempt.
    expect(status('fail')).toMatchObject({ lastResult: 'error', lastError: { code: 'PODCONFIG_HANDLER_FAILED' } });
    expect(status('fail').lastError!.message).toContain('exited with code 3');
    expect(status('fail').attempt).toBeGreaterThanOrEqual(2);
    const failFiles = (await readdir(markers)).filter((f) => f.includes(`fail-${NODE}`));
    expect(failFiles).toContain(`create.fail-${NODE}.${uid('fail')}.stdin`);
    expect(failFiles).toContain(`resync.fail-${NODE}.${uid('fail')}.stdin`);
    expect(failFiles.filter((f) => f.endsWith('.done'))).toEqual([]);

    // Timeout: exec-2's script would sleep 600 s; its 1 s timeout ends the call and kills the script.
    // The first handler (generous timeout) ran the same pod fine.
    expect(status('slow', 'exec-2').lastError).toMatchObject({ code: 'PODCONFIG_HANDLER_TIMEOUT' });
    expect(status('slow', 'exec-2').lastResult).not.toBe('success');
    // A script that got as far as sleeping is killed (600 s is far beyond this wait).
    const pidFile = await eventually(async () => (await readdir(markers)).find((f) => f.startsWith('slow.') && f.endsWith(`.${uid('slow')}.pid`)), 30_000, 'a sleeping slow script');
    const pid = Number(await readFile(join(markers, pidFile), 'utf8'));
    expect(pid).toBeGreaterThan(0);
    await eventually(async () => ((await processRunning(pid)) ? undefined : true), 30_000, `the slow script (pid ${pid}) killed`);
    expect(existsSync(join(markers, `create.slow-${NODE}.${uid('slow')}.done`))).toBe(true);

    // The ~1 MB pod arrived whole on stdin.
    const bigText = await readFile(join(markers, `create.big-${NODE}.${uid('big')}.stdin`), 'utf8');
    expect(bigText.length).toBeGreaterThan(1_000_000);
    const big = JSON.parse(bigText) as Pod;
    expect(big.metadata?.annotations?.['example.com/blob']).toBe(annotation);
    expect(big.spec?.containers[0]?.env).toEqual([{ name: 'BLOB', value: env }]);

    // Kill: the script runs with PODCONFIG_OP=kill and the reason.
    await rm(join(manifests, 'web.yaml'));
    const killMarker = join(markers, `kill.web-${NODE}.${uid('web')}.done`);
    await eventually(async () => (existsSync(killMarker) ? true : undefined), 30_000, 'kill marker');
    expect(await readFile(killMarker, 'utf8')).toBe(`file ${NODE} removed\n`);
  });

  it('ends the process groups of the hooks it stopped at shutdown before it exits: a child ignoring SIGTERM gets its SIGKILL', async () => {
    // The hook leaves a child that ignores SIGTERM in its group, then waits: running when the agent stops.
    const { agent: a, markers } = await startWithHook([
      'cat > /dev/null',
      `( trap '' TERM; exec sleep 600 ) </dev/null >/dev/null 2>&1 &`,
      'echo $! > "$MARKERS/child.pid"',
      'exec sleep 600',
    ], ['timeout: 10m', 'killGrace: 3s']);
    const pid = await pidWritten(join(markers, 'child.pid'), 'the hook\'s child started');
    try {
      // The call is aborted: the group gets SIGTERM (the hook dies, its child does not), and SIGKILL 3 s later.
      const stopped = a.stop();
      let exited = false;
      void stopped.then(() => { exited = true; });
      await a.waitForLog((l) => l.msg === "waiting for stopped commands' process groups to end (SIGKILL at the end of their killGrace)", 20_000);
      // Its handler calls are over, yet the agent waits for the group's SIGKILL rather than leave the child to init.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(exited).toBe(false);
      expect(await processRunning(pid)).toBe(true);
      expect(await stopped).toEqual({ code: 0, signal: null });
      agent = undefined;
      // Gone with the agent (a SIGKILL takes a moment to land; without it the child sleeps 600 s).
      await expect.poll(() => processRunning(pid), { timeout: 3_000 }).toBe(false);
    } finally {
      killLeftover(pid);
    }
  });

  it('shuts down on SIGHUP as on SIGTERM (exit 0), ending the hook it was running, which the signal\'s default action would leave to init', async () => {
    // Its own process group (the exec handler's): only the agent can end it.
    const { agent: a, markers } = await startWithHook(['cat > /dev/null', 'echo $$ > "$MARKERS/hook.pid"', 'exec sleep 600'], ['timeout: 10m']);
    const pid = await pidWritten(join(markers, 'hook.pid'), 'the hook started');
    try {
      expect(await a.stop('SIGHUP')).toEqual({ code: 0, signal: null });
      expect(a.logs.find((l) => l.msg === 'shutting down')).toMatchObject({ signal: 'SIGHUP' });
      agent = undefined;
      await expect.poll(() => processRunning(pid), { timeout: 3_000 }).toBe(false);
    } finally {
      killLeftover(pid);
    }
  });
});
