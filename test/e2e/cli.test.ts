import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { closeSync, constants, openSync, readSync, readlinkSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { request } from 'undici';
import { AGENT_BIN, AgentProcess, eventually } from '../support/agent-process.js';
import { freePort } from '../support/realapi.js';

/** `node --import` it to hold the load of one module (see the file). */
const HOLD_LOAD = fileURLToPath(new URL('../support/hold-load/register.mjs', import.meta.url));

const run = (args: string[], cwd?: string) =>
  spawnSync(process.execPath, [AGENT_BIN, ...args], { cwd, encoding: 'utf8', timeout: 20_000, env: { ...process.env, KUBECONFIG: '' } });

describe('podconfig-agent command line', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => { tmp = await tempDir('podconfig-cli-'); });
  afterEach(async () => { await tmp.cleanup(); });

  it('prints --version and --help and exits 0', () => {
    expect(run(['--version'])).toMatchObject({ status: 0, stdout: expect.stringMatching(/^podconfig-agent v\d+\.\d+\.\d+\n$/) });
    const help = run(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--pod-manifest-path');
  });

  it('with --log-level=debug also logs a bad flag\'s error with its stack (JSON, stdout), as for errors found later', () => {
    const r = run(['--sync-frequency', 'soon', '--log-level=debug', '--status-address', 'off']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('podconfig-agent: --sync-frequency: invalid duration "soon" (use Go syntax like 20s, 1m30s, 500ms)\n');
    const line = JSON.parse(r.stdout.trim()) as { level: number; msg: string; err: { stack: string } };
    expect(line).toMatchObject({ level: 20, msg: 'invalid configuration' });
    expect(line.err.stack).toContain('ConfigInvalidError');
    expect(run(['--sync-frequency', 'soon', '--status-address', 'off']).stdout).toBe('');
  });

  it.each([
    [['--sync-frequency', 'soon'], '--sync-frequency'],
    [['--pod-manifest-pth', '/x'], '--pod-manifest-pth'],
    [['--readiness=some'], '--readiness'],
    [['--manifest-url', 'ftp://h/x'], '--manifest-url'],
  ])('exits 2 for %j with a message naming %s, before doing anything', (args, name) => {
    const r = run([...args, '--status-address', 'off']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(name);
    expect(r.stdout).toBe('');
  });

  /**
   * Runs the built agent until its reconciler has started and `holdMs` more, then stops it with SIGTERM.
   * Resolves with whether it was still running then, and its exit code; it is killed if a step fails.
   */
  async function startThenStop(args: readonly string[], holdMs = 0): Promise<{ running: boolean; code: number | null }> {
    const child = spawn(process.execPath, [AGENT_BIN, ...args], { env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      let started = false;
      createInterface({ input: child.stdout }).on('line', (line) => { if (line.includes('reconciler started')) started = true; });
      await eventually(async () => (started || child.exitCode !== null ? true : undefined), 15_000, 'the reconciler to start');
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      const running = child.exitCode === null;
      child.kill('SIGTERM');
      return { running, code: (await exited)[0] };
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }

  it('runs with no pod source and no status server until it is stopped, then exits 0', async () => {
    // It exited by itself before: 13, an unsettled top-level await.
    expect(await startThenStop(['--status-address', 'off'], 1_000)).toEqual({ running: true, code: 0 });
  });

  it('writes its shutdown lines in order, the last one last, before it exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [AGENT_BIN, '--status-address', 'off'], { env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      const messages: string[] = [];
      const lines = createInterface({ input: child.stdout });
      const closed = once(lines, 'close');
      const started = new Promise<void>((resolve) => lines.on('line', (line) => {
        const msg = (JSON.parse(line) as { msg: string }).msg;
        messages.push(msg);
        if (msg === 'reconciler started') resolve();
      }));
      await started;
      child.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
      await closed;
      const shutdown = messages.slice(messages.indexOf('shutting down'));
      expect(shutdown[0]).toBe('shutting down');
      expect(shutdown.at(-1)).toBe('agent stopped');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('exits 0 on SIGTERM after the reader of its stdout has gone away (a log pipe that died)', async () => {
    // Before, the log lines of the shutdown, written to the closed pipe at exit, were retried for good (EPIPE):
    // the process hung at exit, deaf to every later signal, until SIGKILL.
    const child = spawn(process.execPath, [AGENT_BIN, '--status-address', 'off'], { env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
      const lines = createInterface({ input: child.stdout });
      await new Promise<void>((resolve) => lines.on('line', (line) => { if (line.includes('reconciler started')) resolve(); }));
      lines.close();
      child.stdout.destroy(); // the read end closes: the agent's next write meets EPIPE
      child.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
      expect(stderr).toBe('');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('answers /healthz and exits 0 on SIGTERM while its stdout is a full FIFO nobody reads (a stalled log reader)', async () => {
    // Before, a log write that met a full pipe was retried in a loop that held the event loop: /healthz went
    // unanswered and SIGTERM unheard for as long as the reader stalled.
    const manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
    for (let i = 0; i < 300; i++) await writeFile(join(manifests, `p${i}.yaml`), podManifestYaml(`p${i}`));
    const fifo = join(tmp.path, 'stdout.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // The read end is opened first (without waiting for a writer) and never read until the agent has exited.
    const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writeEnd = openSync(fifo, constants.O_WRONLY);
    const port = await freePort();
    const child = spawn(process.execPath, [AGENT_BIN, '--log-level', 'debug', '--status-address', `127.0.0.1:${port}`, '--pod-manifest-path', manifests], {
      env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', writeEnd, 'pipe'],
    });
    closeSync(writeEnd);
    try {
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      const get = async (path: string): Promise<{ status: number; body: string } | undefined> => {
        try {
          const res = await request(`http://127.0.0.1:${port}${path}`, { headersTimeout: 5_000, bodyTimeout: 5_000 });
          return { status: res.statusCode, body: await res.body.text() };
        } catch {
          return undefined; // not listening yet
        }
      };
      expect(await eventually(async () => { const r = await get('/readyz'); return r?.status === 200 ? r : undefined; }, 20_000, '/readyz ok')).toEqual({ status: 200, body: 'ok\n' });
      expect(await get('/healthz')).toEqual({ status: 200, body: 'ok\n' });
      child.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
      // The FIFO was full: the agent had written more than it holds, and nobody had read any of it.
      const held = Buffer.alloc(1 << 20);
      expect(readSync(readEnd, held)).toBeGreaterThanOrEqual(60_000);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      closeSync(readEnd);
    }
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('exits 0, as for a later signal, on a %s that comes while the agent\'s modules load', async (sig) => {
    // The hooks hold the load of main.js (what the agent imports first that is heavy) and say so: the
    // signal is sent at that point, then the load goes on. Before, the signal killed the process (143, 130).
    const child = spawn(process.execPath, ['--import', pathToFileURL(HOLD_LOAD).href, AGENT_BIN, '--status-address', 'off'], {
      env: { ...process.env, KUBECONFIG: '', PODCONFIG_HOLD_MODULE: '/agent/dist/main.js' }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      const logs: string[] = [];
      createInterface({ input: child.stdout }).on('line', (line) => logs.push(line));
      const stderr = createInterface({ input: child.stderr });
      const holding = new Promise<string>((resolve) => stderr.on('line', (line) => { if (line.startsWith('holding ')) resolve(line); }));
      await Promise.race([holding, exited]);
      expect(await holding).toMatch(/main\.js$/);
      child.kill(sig);
      child.stdin.end('go on\n');
      expect(await exited).toEqual([0, null]);
      expect(logs.some((l) => l.includes('"msg":"shutting down"') && l.includes(`"signal":"${sig}"`))).toBe(true);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it.each(['--kubeconfig', '--config'])('exits 0 on SIGTERM while %s names a FIFO nobody writes to (the start-up waits for a writer, as kubectl does)', async (flag) => {
    const fifo = join(tmp.path, 'fifo');
    spawnSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [AGENT_BIN, '--status-address', 'off', '--node-name', 'n1', flag, fifo], {
      env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => { output += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { output += b.toString(); });
    const closed = once(child, 'close') as Promise<[number | null]>;
    try {
      // Waiting: the FIFO is among the agent's open files.
      await eventually(async () => (await readdir(`/proc/${child.pid}/fd`)).some((fd) => {
        try { return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === fifo; } catch { return false; }
      }) || undefined, 15_000, 'the agent to open the FIFO');
      child.kill('SIGTERM');
      const [code] = await closed;
      expect(code).toBe(0); // was: alive after SIGTERM, a thread blocked in open() for good
      expect(output).not.toContain('podconfig-agent:');
      // Stopped by the signal, not by the shutdown deadline's process.exit (which came 15 s later).
      expect(output).not.toContain('shutdown deadline passed');
      if (flag === '--kubeconfig') expect(output).toContain('stopped during start-up');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('reads its config file from a FIFO and still loads the file watcher after it (the watch sees a new manifest)', async () => {
    const manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'a.yaml'), podManifestYaml('a'));
    const fifo = join(tmp.path, 'config-fifo');
    spawnSync('mkfifo', [fifo]);
    const writing = writeFile(fifo, `staticPodPath: ${manifests}\nfileCheckFrequency: 1h\n`); // opens when the agent reads
    // No NODE_PATH (pnpm sets it for scripts): its fallback directory would find chokidar's dependency anyway.
    const a = await AgentProcess.start(['--node-name', 'n1', '--log-level', 'debug', '--config', fifo], { env: { NODE_PATH: '' } });
    let stopped: Awaited<ReturnType<AgentProcess['stopWithin']>> | undefined;
    try {
      await writing;
      // chokidar is imported when the watch is first armed. After a FIFO was read, that import failed (Node.js 20's
      // realpath read a stale stat of the FIFO) and the agent exited 1 with 'pod source "file" failed'.
      await a.waitForLog((l) => l.msg === 'manifest watch armed');
      await writeFile(join(manifests, 'b.yaml'), podManifestYaml('b'));
      // The periodic re-scan is an hour away: only the watch can bring it.
      await eventually(async () => (await a.podNames()).includes('default/b-n1') || undefined, 15_000, 'the new manifest through the watch');
    } finally {
      stopped = await a.stopWithin();
    }
    expect(stopped.code).toBe(0);
  });

  it('serves the Node.js runtime metrics (process_*, nodejs_*) on /metrics: the CLI owns the process, a library embedder does not', async () => {
    const a = await AgentProcess.start([]);
    try {
      const { status, body } = await a.get('/metrics');
      expect(status).toBe(200);
      expect(body).toMatch(/^process_cpu_seconds_total /m);
      expect(body).toContain('podconfig_handler_calls_total');
    } finally {
      await a.stopWithin();
    }
  });

  it('exits 1, which a supervisor restarts, when what a setting names is not there yet: a --kubeconfig not written yet, the status port still taken', async () => {
    // kubeadm join writes kubelet.conf after the node has booted: the deploy unit restarts on 1, never on 2.
    const missing = run(['--kubeconfig', join(tmp.path, 'kubelet.conf'), '--status-address', 'off']);
    expect({ status: missing.status, stderr: missing.stderr }).toEqual({
      status: 1, stderr: `podconfig-agent: --kubeconfig: kubeconfig ${join(tmp.path, 'kubelet.conf')}: does not exist\n`,
    });
    // The same file there but broken is a bad value: 2.
    await writeFile(join(tmp.path, 'kubelet.conf'), 'clusters: [\n');
    expect(run(['--kubeconfig', join(tmp.path, 'kubelet.conf'), '--status-address', 'off']).status).toBe(2);
    // The agent before this one still holds the status port.
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const taken = spawnSync(process.execPath, [AGENT_BIN, '--kubeconfig=', '--status-address', `127.0.0.1:${port}`], { encoding: 'utf8', timeout: 20_000 });
      expect(taken.status).toBe(1);
      expect(taken.stderr).toMatch(new RegExp(`^podconfig-agent: status server: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('exits 2 for a config file with no settings (a truncated file must not start the agent without its sources), as the kubelet refuses one', async () => {
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, '# emptied by a failed deploy\n');
    const r = run(['--config', config, '--status-address', 'off']);
    expect({ status: r.status, stderr: r.stderr }).toEqual({
      status: 2, stderr: `podconfig-agent: --config ${config}: the file is empty (it holds no settings; leave --config out to run without one)\n`,
    });
  });

  it('exits 2 for a KubeletConfiguration field that misspells one podconfig uses, and warns of one the kubelet has not', async () => {
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPth: /etc/kubernetes/manifests\n');
    const r = run(['--config', config, '--status-address', 'off']);
    expect({ status: r.status, stderr: r.stderr }).toEqual({
      status: 2, stderr: `podconfig-agent: --config ${config}: unknown field "staticPodPth" (did you mean "staticPodPath"?)\n`,
    });
    await writeFile(config, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPath: ${tmp.path}\ncgroupDriver: systemd\nfutureKubeletField: 1\n`);
    const a = await AgentProcess.start(['--config', config]);
    try {
      const warned = await a.waitForLog((l) => l.msg === 'ignoring fields KubeletConfiguration v1beta1 does not have (as of Kubernetes 1.36): a newer kubelet\'s, or misspelt');
      expect(warned).toMatchObject({ level: 40, fields: [{ field: 'futureKubeletField' }] });
    } finally {
      await a.stopWithin();
    }
  });

  it('starts on a kubeadm-written kubelet config, whose frequencies are 0s (unset)', async () => {
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, [
      'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', 'syncFrequency: 0s', 'fileCheckFrequency: 0s',
      'httpCheckFrequency: 0s', 'nodeStatusUpdateFrequency: 0s', `staticPodPath: ${tmp.path}`, '',
    ].join('\n'));
    expect(await startThenStop(['--config', config, '--status-address', 'off'])).toEqual({ running: true, code: 0 });
  });

  it('exits 2 for an invalid config file value, naming the field and the file', async () => {
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nfileCheckFrequency: often\n');
    const r = run(['--config', config, '--status-address', 'off']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--config ${config}: field "fileCheckFrequency"`);
  });

  it('exits 2 for a bare number as a duration in the config file (the kubelet refuses it), naming the file and the field', async () => {
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nsyncFrequency: 60\n');
    const r = run(['--config', config, '--status-address', 'off']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`podconfig-agent: --config ${config}: field "syncFrequency": must be a duration string like "20s", got the number 60\n`);
  });

  it('exits 2 for a bare number as an exec handler timeout in the config file, naming the file and the entry', async () => {
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, 'handlers:\n  - log\n  - name: exec\n    command: /bin/true\n    timeout: 30\n');
    const r = run(['--config', config, '--status-address', 'off']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`podconfig-agent: --config ${config}: field "handlers"[1]: handler "exec": option "timeout" must be a duration string like "30s", got the number 30\n`);
    expect(r.stdout).not.toContain('"level":60');
  });

  it('resolves a relative staticPodPath in the config file against the file\'s directory, not the working directory', async () => {
    const confDir = join(tmp.path, 'etc');
    const elsewhere = join(tmp.path, 'elsewhere');
    await mkdir(join(confDir, 'manifests'), { recursive: true });
    await mkdir(elsewhere);
    await writeFile(join(confDir, 'manifests', 'web.yaml'), podManifestYaml('web'));
    await writeFile(join(confDir, 'config.yaml'), 'staticPodPath: manifests\n');
    const agent = await AgentProcess.start(['--node-name', 'n1', '--config', join(confDir, 'config.yaml')], { cwd: elsewhere });
    try {
      expect(await eventually(async () => ((await agent.podNames()).length > 0 ? agent.podNames() : undefined), 15_000, 'the pod')).toEqual(['default/web-n1']);
    } finally {
      await agent.stop();
    }
  });

  it('exits 2 when a CA file set in the config file is not PEM, naming the field as written and the resolved path', async () => {
    await writeFile(join(tmp.path, 'ca.pem'), 'not a certificate\n');
    const config = join(tmp.path, 'config.yaml');
    await writeFile(config, 'staticPodURL: https://127.0.0.1:1/pods\nstaticPodURLCAFile: ca.pem\n');
    const r = run(['--config', config, '--status-address', 'off'], '/');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`--config ${config}: field "staticPodURLCAFile" ${join(tmp.path, 'ca.pem')}: not a PEM file`);
    expect(r.stderr).not.toContain('--manifest-url-ca');
  });

  it('exits 2 when --manifest-url-ca is not a PEM certificate', async () => {
    const ca = join(tmp.path, 'ca.pem');
    await writeFile(ca, 'not a certificate\n');
    const r = run(['--manifest-url', 'https://127.0.0.1:1/pods', '--manifest-url-ca', ca, '--status-address', 'off']);
    expect(r.status).toBe(2);
    expect(r.stdout + r.stderr).toContain('--manifest-url-ca');
  });
});
