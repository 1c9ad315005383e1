import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { AGENT_BIN, AgentProcess, eventually } from '../support/agent-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TEST_DIR = fileURLToPath(new URL('../', import.meta.url));
const RECORDING = join(ROOT, 'fixtures/plugins/recording.mjs');
const NODE = 'plugin-node';

type Line = Readonly<Record<string, unknown>>;

/** Complete JSON lines of a file (a line still being written is left out); none if it does not exist yet. */
async function jsonLines(file: string): Promise<Line[]> {
  if (!existsSync(file)) return [];
  const lines = (await readFile(file, 'utf8')).split('\n');
  return lines.slice(0, -1).map((l) => JSON.parse(l) as Line);
}

const linesMatching = (file: string, pred: (l: Line) => boolean, what: string): Promise<Line[]> =>
  eventually(async () => {
    const found = (await jsonLines(file)).filter(pred);
    return found.length > 0 ? found : undefined;
  }, 15_000, what);

interface PodsBody {
  items: { metadata: { name: string; uid: string } }[];
  sync: { name: string; uid: string; handlers: Record<string, { lastResult?: string; lastCall?: string }> }[];
}

/** The exit code of `child`; killed after `ms` if it has not exited, so a hang fails the test and leaves no process. */
async function exitCodeOf(child: ChildProcess, ms = 20_000): Promise<number | null> {
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  try {
    const [code] = (await once(child, 'close')) as [number | null];
    return code;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the built agent expecting it to exit by itself; resolves with its exit code and output. */
async function runToExit(args: readonly string[], cwd: string): Promise<{ code: number | null; output: string; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [AGENT_BIN, '--status-address', 'off', ...args], {
    cwd, env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => { output += b.toString(); stdout += b.toString(); });
  child.stderr.on('data', (b: Buffer) => { output += b.toString(); stderr += b.toString(); });
  return { code: await exitCodeOf(child), output, stdout, stderr };
}

describe('podconfig-agent handler plugins', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let manifests: string;
  let agent: AgentProcess | undefined;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-e2e-plugins-');
    manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
  });
  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    await tmp.cleanup();
  });

  describe('--handler PATH', () => {
    it('loads an ES module by a path relative to the working directory and sends it every create and kill', async () => {
      const rec = join(tmp.path, 'calls.jsonl');
      await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
      agent = await AgentProcess.start(
        ['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', `./fixtures/plugins/recording.mjs=${rec}`],
        { cwd: ROOT },
      );
      const [create] = await linesMatching(rec, (l) => l['call'] === 'create', 'create recorded');
      expect(create).toMatchObject({ handler: 'recorder', pod: `default/web-${NODE}`, source: 'file', attempt: 1 });

      await rm(join(manifests, 'web.yaml'));
      const [kill] = await linesMatching(rec, (l) => l['call'] === 'kill', 'kill recorded');
      expect(kill).toMatchObject({ handler: 'recorder', pod: `default/web-${NODE}`, uid: create!['uid'], reason: 'removed' });
      expect((await jsonLines(rec)).map((l) => l['call'])).toEqual(['create', 'kill']);
    });
  });

  describe('--handler PACKAGE', () => {
    it('loads @podconfig/example-sync-handler by package name from the working directory (test/)', async () => {
      const out = join(tmp.path, 'journal', 'calls.jsonl');
      await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
      agent = await AgentProcess.start(
        ['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', `@podconfig/example-sync-handler=${out}`],
        { cwd: TEST_DIR },
      );
      const [create] = await linesMatching(out, (l) => l['call'] === 'create', 'example plugin wrote a line');
      expect(create).toMatchObject({ handler: 'json-lines', pod: `default/web-${NODE}`, source: 'file', attempt: 1 });
      const a = agent;
      // Logged under the name the handler runs under (as /pods and metrics name it), not the spec.
      await a.waitForLog((l) => l.msg === 'appending handler calls to file' && l.component === 'sync.json-lines');
      const sync = await eventually(async () => {
        const body = await a.getJSON<PodsBody>('/pods');
        const web = body.sync.find((s) => s.name === `web-${NODE}`);
        return web?.handlers['json-lines']?.lastResult === 'success' ? web : undefined;
      }, 15_000, '/pods shows the json-lines handler');
      expect(sync.uid).toBe(create!['uid']);
    });
  });

  describe('--handler PACKAGE from the agent\'s own dependencies', () => {
    it('loads @podconfig/example-sync-handler from the repository root, where no node_modules holds it', async () => {
      const out = join(tmp.path, 'calls.jsonl');
      await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));
      expect(existsSync(join(ROOT, 'node_modules', '@podconfig', 'example-sync-handler'))).toBe(false);
      agent = await AgentProcess.start(
        ['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', `@podconfig/example-sync-handler=${out}`],
        // No NODE_PATH (pnpm exec sets one that holds every workspace package): as a user runs it.
        { cwd: ROOT, env: { NODE_PATH: '' } },
      );
      const [create] = await linesMatching(out, (l) => l['call'] === 'create', 'example plugin wrote a line');
      expect(create).toMatchObject({ handler: 'json-lines', pod: `default/web-${NODE}` });
    });
  });

  describe('config file handlers:', () => {
    it('passes an entry\'s fields to the plugin as options', async () => {
      const rec = join(tmp.path, 'audit.jsonl');
      const config = join(tmp.path, 'config.yaml');
      await writeFile(config, [
        'apiVersion: podconfig.io/v1alpha1',
        'kind: PodConfigAgentConfiguration',
        `staticPodPath: ${JSON.stringify(manifests)}`,
        'handlers:',
        `  - name: ${JSON.stringify(RECORDING)}`,
        `    file: ${JSON.stringify(rec)}`,
        '    handlerName: audit',
        '',
      ].join('\n'));
      await writeFile(join(manifests, 'db.yaml'), podManifestYaml('db'));
      agent = await AgentProcess.start(['--node-name', NODE, '--config', config], { cwd: tmp.path });
      const [create] = await linesMatching(rec, (l) => l['call'] === 'create', 'create recorded');
      expect(create).toMatchObject({ handler: 'audit', pod: `default/db-${NODE}` });
      const body = await agent.getJSON<PodsBody>('/pods');
      expect(Object.keys(body.sync.find((s) => s.name === `db-${NODE}`)!.handlers)).toEqual(['audit']);
    });
  });

  describe('startup failures', () => {
    it('exits with status 2 naming the handler when the module cannot be loaded', async () => {
      const { code, stdout, stderr } = await runToExit(['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', './no-such-plugin.mjs'], tmp.path);
      expect(code).toBe(2);
      // One line on stderr, as for a bad flag, with the cause (what Node.js could not find); no JSON, no stack.
      expect(stderr).toMatch(/^podconfig-agent: --handler\[0\]: handler "\.\/no-such-plugin\.mjs": cannot load module: Cannot find module '[^'\n]*no-such-plugin\.mjs'[^\n]*\n$/);
      expect(stdout).not.toContain('"level":60'); // was a fatal JSON line with a stack trace
      expect(stdout).not.toContain('invalid configuration');
    });

    it('exits with status 2 when the module has no default-exported factory', async () => {
      await writeFile(join(tmp.path, 'no-default.mjs'), 'export const handler = {};\n');
      const { code, output } = await runToExit(['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', './no-default.mjs'], tmp.path);
      expect(code).toBe(2);
      expect(output).toContain('the module must default-export a factory');
    });

    it('exits with status 2 when the factory rejects its options', async () => {
      const { code, output } = await runToExit(['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', RECORDING], tmp.path);
      expect(code).toBe(2);
      expect(output).toContain('recording plugin: option "file" is required');
    });

    it('exits with status 2 naming the module when its factory never settles within --handler-timeout', async () => {
      await writeFile(join(tmp.path, 'never.mjs'), 'export default () => new Promise(() => {});\n');
      const { code, output } = await runToExit(['--node-name', NODE, '--handler-timeout', '1s', '--handler', './never.mjs'], tmp.path);
      expect(code).toBe(2); // was 13, an unsettled top-level await, and no log
      expect(output).toContain('handler "./never.mjs": the module or its factory did not settle within 1s (--handler-timeout)');
    });

    it('exits with status 1 (retryable: a runtime may come up) and one stderr line naming the handler when its start() fails', async () => {
      await writeFile(join(tmp.path, 'bad-start.mjs'), [
        'export default () => ({',
        "  name: 'bad-start',",
        "  async start() { throw new Error('cannot reach the runtime socket'); },",
        '  async syncPod() {},',
        '  async killPod() {},',
        '});', '',
      ].join('\n'));
      const { code, stdout, stderr } = await runToExit(['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', './bad-start.mjs'], tmp.path);
      expect(code).toBe(1);
      // One line on stderr, as for a factory that throws; no JSON, no stack.
      expect(stderr).toBe('podconfig-agent: sync handler "bad-start" failed to start: cannot reach the runtime socket\n');
      expect(stdout).not.toContain('"level":60'); // was a fatal JSON line with a stack trace, and nothing on stderr
      expect(stdout).not.toContain('agent failed');
    });

    // Node.js 20 does not run TypeScript (22.18 and later strip the types and would run it).
    it('exits with status 2 and says to compile a TypeScript handler to JavaScript, which this Node.js does not run', async () => {
      await writeFile(join(tmp.path, 'my-handler.ts'), "export default (): object => ({ name: 'ts', async syncPod() {}, async killPod() {} });\n");
      const { code, stdout, stderr } = await runToExit(['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', './my-handler.ts'], tmp.path);
      expect(code).toBe(2);
      const hint = `(Node.js ${process.versions.node} does not run TypeScript: compile the handler to .js or .mjs (e.g. with tsc) and give that file as the handler)`;
      expect(stderr).toMatch(/^podconfig-agent: --handler\[0\]: handler "\.\/my-handler\.ts": cannot load module: Unknown file extension "\.ts" for [^\n]*my-handler\.ts /);
      expect(stderr.endsWith(`${hint}\n`)).toBe(true); // was Node.js's bare "Unknown file extension" and no hint
      expect(stderr.split('\n')).toHaveLength(2); // one line
      expect(stdout).not.toContain('"level":60');
    });

    it('exits 0 with an info log, not a fatal one, when SIGTERM comes while a factory is still running', async () => {
      await writeFile(join(tmp.path, 'waiting.mjs'), [
        "import { writeFileSync } from 'node:fs';",
        'export default ({ signal }) => {',
        "  writeFileSync('factory-called', '');",
        "  return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('factory cut short'))));",
        '};', '',
      ].join('\n'));
      const child = spawn(process.execPath, [AGENT_BIN, '--status-address', 'off', '--node-name', NODE, '--handler', './waiting.mjs'], {
        cwd: tmp.path, env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (b: Buffer) => { output += b.toString(); });
      child.stderr.on('data', (b: Buffer) => { output += b.toString(); });
      const exited = exitCodeOf(child);
      await eventually(async () => (existsSync(join(tmp.path, 'factory-called')) ? true : undefined), 15_000, 'the factory to run');
      child.kill('SIGTERM');
      expect(await exited).toBe(0); // was 2, "agent failed"
      expect(output).toContain('stopped during start-up');
      expect(output).not.toContain('"level":60');
    });

    it('exits with status 1 (retryable: the file may be written yet) and one stderr line naming --kubeconfig for a kubeconfig that does not exist', async () => {
      const missing = join(tmp.path, 'no-such-kubeconfig');
      const { code, stdout, stderr } = await runToExit(['--node-name', NODE, '--kubeconfig', missing], tmp.path);
      expect(code).toBe(1);
      expect(stderr).toBe(`podconfig-agent: --kubeconfig: kubeconfig ${missing}: does not exist\n`);
      expect(stdout).not.toContain('"level":60'); // was a fatal JSON line with a stack trace
      expect(stdout).not.toContain('invalid configuration');
    });

    it('keeps the error with its stack and causes for --log-level=debug, as a JSON log line', async () => {
      const missing = join(tmp.path, 'no-such-kubeconfig');
      const { code, stdout, stderr } = await runToExit(['--node-name', NODE, '--kubeconfig', missing, '--log-level', 'debug'], tmp.path);
      expect(code).toBe(1);
      expect(stderr).toBe(`podconfig-agent: --kubeconfig: kubeconfig ${missing}: does not exist\n`);
      const line = stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { msg: string; level: number; err?: { stack?: string; code?: string } })
        .find((l) => l.msg === 'invalid configuration');
      expect(line).toMatchObject({ level: 20, err: { code: 'PODCONFIG_CONFIG_INVALID', stack: expect.stringContaining('does not exist') } });
    });

    /** A plugin whose handler holds a timer from its factory on, until close() (which leaves closed.txt). */
    const writeHolder = (): Promise<void> => writeFile(join(tmp.path, 'holder.mjs'), [
      "import { writeFileSync } from 'node:fs';",
      'export default () => {',
      '  const timer = setInterval(() => undefined, 1000);',
      "  return { name: 'holder', async syncPod() {}, async killPod() {}, async close() { clearInterval(timer); writeFileSync('closed.txt', 'closed'); } };",
      '};', '',
    ].join('\n'));

    it('exits with status 2 when a later factory throws, having closed the handler an earlier one built', async () => {
      await writeHolder();
      await writeFile(join(tmp.path, 'thrower.mjs'), "export default async () => { await new Promise((r) => setTimeout(r, 200)); throw new Error('boom in constructor'); };\n");
      const { code, output } = await runToExit(['--node-name', NODE, '--pod-manifest-path', manifests, '--handler', './holder.mjs', '--handler', './thrower.mjs'], tmp.path);
      expect(code).toBe(2);
      expect(output).toContain('boom in constructor');
      expect(existsSync(join(tmp.path, 'closed.txt'))).toBe(true);
    });

    it('exits with status 1 (retryable: the address may be freed) when the status address is taken, having closed the handlers', async () => {
      await writeHolder();
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      try {
        const port = (taken.address() as AddressInfo).port;
        const child = spawn(process.execPath, [AGENT_BIN, '--status-address', `127.0.0.1:${port}`, '--node-name', NODE, '--handler', './holder.mjs'], {
          cwd: tmp.path, env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
        expect(await exitCodeOf(child)).toBe(1);
        expect(stderr).toContain(`status server: cannot listen on 127.0.0.1:${port}`);
        expect(existsSync(join(tmp.path, 'closed.txt'))).toBe(true);
      } finally {
        taken.close();
      }
    });
  });
});
