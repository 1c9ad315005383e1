import { getEventListeners } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PodConfigError, isPodLister, isStartable, type PodLister, type StartableHandler, type SyncHandler } from '@podconfig/core';
import { makePod, tempDir } from '@podconfig/testing';
import { loadSyncHandler, moduleLoadHint, type HandlerLoaderContext } from './handler-loader.js';

describe('loadSyncHandler()', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  const controller = new AbortController();
  beforeEach(async () => { dir = await tempDir(); });
  afterEach(async () => { await dir.cleanup(); });
  const ctx = () => ({ logger: pino({ level: 'silent' }), nodeName: 'n1', signal: controller.signal, cwd: dir.path });

  it('builds a built-in handler by name', async () => {
    const h = await loadSyncHandler({ name: 'log', options: {} }, ctx());
    expect(h.name).toBe('log');
  });

  it('loads a module by relative path and passes the context to its factory', async () => {
    await writeFile(join(dir.path, 'plugin.mjs'), [
      'export default (ctx) => ({',
      '  name: `custom-${ctx.nodeName}-${ctx.options.arg}`,',
      '  async syncPod() {}, async killPod() {},',
      '});',
    ].join('\n'));
    const h = await loadSyncHandler({ name: './plugin.mjs', options: { arg: 'x' } }, ctx());
    expect(h.name).toBe('custom-n1-x');
  });

  it("resolves a relative module path against the spec's baseDir (a config file's directory), and without one against the working directory", async () => {
    await mkdir(join(dir.path, 'etc'));
    await writeFile(join(dir.path, 'etc', 'plugin.mjs'), 'export default () => ({ name: "from-etc", async syncPod() {}, async killPod() {} });');
    const h = await loadSyncHandler({ name: './plugin.mjs', options: {}, baseDir: join(dir.path, 'etc') }, ctx());
    expect(h.name).toBe('from-etc');
    const err = await loadSyncHandler({ name: './plugin.mjs', options: {} }, ctx()).catch((e: unknown) => e);
    expect((err as Error).message).toContain('cannot load module');
  });

  it.each(['plugin.mjs', 'plugin.js', 'plugin.cjs'])('loads a bare file name %s from the working directory, not as a package name', async (file) => {
    // `--handler plugin.mjs` is what a user types for a file next to them; as a package name it would not be found.
    const source = file.endsWith('.cjs')
      ? 'module.exports = (ctx) => ({ name: `bare-${ctx.nodeName}`, async syncPod() {}, async killPod() {} });'
      : 'export default (ctx) => ({ name: `bare-${ctx.nodeName}`, async syncPod() {}, async killPod() {} });';
    // A .js file is ESM only under a package.json with "type": "module".
    await writeFile(join(dir.path, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(join(dir.path, file), source);
    const h = await loadSyncHandler({ name: file, options: {} }, ctx());
    expect(h.name).toBe('bare-n1');
  });

  it.each([
    ['a missing module', './missing.mjs', undefined, 'cannot load module'],
    ['a module without a default export', './nodefault.mjs', 'export const x = 1;', 'must default-export a factory'],
    ['a factory that returns no handler', './bad.mjs', 'export default () => ({ name: "x" });', 'must return an object with a non-empty name, syncPod() and killPod(): it has no syncPod(), it has no killPod()'],
    ['a factory that throws', './throws.mjs', 'export default () => { throw new Error("boom"); };', 'factory failed: boom'],
  ])('fails with PODCONFIG_PLUGIN_LOAD naming the handler for %s', async (_what, name, source, message) => {
    if (source !== undefined) await writeFile(join(dir.path, name), source);
    const err = await loadSyncHandler({ name, options: {} }, ctx()).catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_PLUGIN_LOAD')).toBe(true);
    expect((err as Error).message).toContain(`handler "${name}"`);
    expect((err as Error).message).toContain(message);
  });

  it.each(['./missing.ts', 'missing.ts', 'missing.mts'])('takes %s as a path to load, not as a package name', async (name) => {
    const err = await loadSyncHandler({ name, options: {} }, ctx()).catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_PLUGIN_LOAD')).toBe(true);
    expect((err as Error).message).toContain(`handler "${name}": cannot load module: Cannot find module`);
  });

  describe('moduleLoadHint()', () => {
    // Node.js's refusal as Node.js 20 words it. vitest runs a .ts module itself, so an import here would not meet it:
    // the built agent does (test/e2e/handlers-plugins.test.ts).
    const refusal = (ext: string): Error => Object.assign(new TypeError(`Unknown file extension "${ext}" for /p/handler${ext}`), { code: 'ERR_UNKNOWN_FILE_EXTENSION' });

    it.each(['.ts', '.mts', '.cts', '.tsx'])('says to compile a TypeScript handler (%s) to JavaScript', (ext) => {
      expect(moduleLoadHint(refusal(ext), `./handler${ext}`)).toBe(
        `Node.js ${process.versions.node} does not run TypeScript: compile the handler to .js or .mjs (e.g. with tsc) and give that file as the handler`);
    });

    it('says what a handler module is for another extension Node.js does not load', () => {
      expect(moduleLoadHint(refusal('.yaml'), './handler.yaml')).toBe(
        'a handler module is JavaScript: an ES module (.mjs, or .js under a package.json with "type": "module") or CommonJS (.cjs)');
    });

    it('adds nothing to other load failures, whose message says enough', () => {
      expect(moduleLoadHint(Object.assign(new Error("Cannot find module '/p/x.ts'"), { code: 'ERR_MODULE_NOT_FOUND' }), './x.ts')).toBeUndefined();
      expect(moduleLoadHint(new SyntaxError('Unexpected token'), './x.mjs')).toBeUndefined();
      expect(moduleLoadHint(undefined, './x.ts')).toBeUndefined();
    });
  });

  it('fails for an unknown package name', async () => {
    const err = await loadSyncHandler({ name: 'podconfig-no-such-plugin', options: {} }, ctx()).catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_PLUGIN_LOAD')).toBe(true);
  });

  it('runs a handler under its "id" and keeps its methods, private state and capabilities', async () => {
    const h = await loadSyncHandler({ name: 'state-dir', options: { arg: dir.path, id: 'mirror-dir' } }, ctx());
    expect(h.name).toBe('mirror-dir');
    expect(isPodLister(h)).toBe(true);
    expect(isStartable(h)).toBe(true);
    await (h as SyncHandler & StartableHandler).start(controller.signal);
    const pod = makePod('web');
    await h.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, controller.signal); // uses the class's private fields
    expect(await (h as SyncHandler & PodLister).listPods(controller.signal)).toEqual([{ uid: pod.metadata!.uid, namespace: 'default', name: 'web' }]);
  });

  it('applies the rename the agent asks for (a second exec becomes exec-2)', async () => {
    const h = await loadSyncHandler({ name: 'log', options: {} }, { ...ctx(), rename: (own) => `${own}-2` });
    expect(h.name).toBe('log-2');
  });

  it('loads an ESM-only package (exports with only an "import" condition) from node_modules of the working directory', async () => {
    const pkg = join(dir.path, 'node_modules', '@acme', 'esm-handler');
    await mkdir(join(pkg, 'lib'), { recursive: true });
    await writeFile(join(pkg, 'package.json'), JSON.stringify({
      name: '@acme/esm-handler', type: 'module', exports: { '.': { types: './lib/index.d.ts', import: './lib/index.js' } },
    }));
    await writeFile(join(pkg, 'lib', 'index.js'), 'export default () => ({ name: "esm-only", async syncPod() {}, async killPod() {} });\n');
    const nested = join(dir.path, 'work', 'dir');
    await mkdir(nested, { recursive: true });
    // From a sub-directory too: node_modules of a parent directory count, as for Node.js.
    expect((await loadSyncHandler({ name: '@acme/esm-handler', options: {} }, { ...ctx(), cwd: nested })).name).toBe('esm-only');
  });

  it('names the directory it searched when a package is not installed', async () => {
    const err = await loadSyncHandler({ name: 'podconfig-no-such-plugin', options: {} }, ctx()).catch((e: unknown) => e);
    expect((err as Error).message).toBe(
      `handler "podconfig-no-such-plugin": cannot load module: no package "podconfig-no-such-plugin" among the agent's own dependencies, nor in node_modules of ${dir.path} or a parent directory`);
  });

  it("prefers the agent's own dependency to a package of the same name in the working directory", async () => {
    const shadow = join(dir.path, 'node_modules', '@podconfig', 'example-sync-handler');
    await mkdir(shadow, { recursive: true });
    await writeFile(join(shadow, 'package.json'), JSON.stringify({ name: '@podconfig/example-sync-handler', type: 'module', exports: './index.js' }));
    await writeFile(join(shadow, 'index.js'), 'export default () => ({ name: "shadow", async syncPod() {}, async killPod() {} });\n');
    const h = await loadSyncHandler({ name: '@podconfig/example-sync-handler', options: { arg: join(dir.path, 'calls.jsonl') } }, ctx());
    expect(h.name).not.toBe('shadow');
  });

  it('says so when an installed package does not export itself for import', async () => {
    const pkg = join(dir.path, 'node_modules', 'cjs-only');
    await mkdir(pkg, { recursive: true });
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'cjs-only', exports: { '.': { require: './index.cjs' } } }));
    const err = await loadSyncHandler({ name: 'cjs-only', options: {} }, ctx()).catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_PLUGIN_LOAD')).toBe(true);
    expect((err as Error).message).toContain(`No "exports" main defined in ${pkg}/package.json imported from ${dir.path}/`);
  });

  it('leaves no listener on the agent\'s signal per handler loaded, and the signal a handler keeps still aborts at shutdown', async () => {
    const agent = new AbortController();
    await writeFile(join(dir.path, 'keeps.mjs'), 'export default (ctx) => ({ name: "keeps", signal: ctx.signal, async syncPod() {}, async killPod() {} });\n');
    const handlers = [];
    for (let i = 0; i < 12; i++) handlers.push(await loadSyncHandler({ name: './keeps.mjs', options: {} }, { ...ctx(), signal: agent.signal }));
    expect(getEventListeners(agent.signal, 'abort')).toHaveLength(0);
    const kept = (handlers[0] as unknown as { signal: AbortSignal }).signal;
    expect(kept.aborted).toBe(false);
    agent.abort(new Error('shutdown'));
    expect(kept.aborted).toBe(true);
  });

  it('fails naming the module when its factory never settles within the timeout, and aborts the signal the factory got', async () => {
    const hooks = globalThis as { neverFactorySignal?: AbortSignal };
    await writeFile(join(dir.path, 'never.mjs'), 'export default (ctx) => { globalThis.neverFactorySignal = ctx.signal; return new Promise(() => {}); };\n');
    const err = await loadSyncHandler({ name: './never.mjs', options: {} }, { ...ctx(), timeoutMs: 50 }).catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_PLUGIN_LOAD')).toBe(true);
    expect((err as Error).message).toBe('handler "./never.mjs": the module or its factory did not settle within 50ms (--handler-timeout)');
    // What the factory waits for (a file that is a silent pipe, a request) ends with it, instead of holding the process.
    expect(hooks.neverFactorySignal?.aborted).toBe(true);
    expect(hooks.neverFactorySignal?.reason).toBe(err);
    expect(controller.signal.aborted).toBe(false);
    delete hooks.neverFactorySignal;
  });

  it('closes a handler whose factory finished only after its load was given up', async () => {
    const hooks = globalThis as { lateFactoryFinish?: () => void; lateHandlerClosed?: boolean };
    await writeFile(join(dir.path, 'late.mjs'), [
      'export default () => new Promise((resolve) => {',
      '  globalThis.lateFactoryFinish = () => resolve({',
      '    name: "late", async syncPod() {}, async killPod() {},',
      '    async close() { globalThis.lateHandlerClosed = true; },',
      '  });',
      '});',
    ].join('\n'));
    try {
      const err = await loadSyncHandler({ name: './late.mjs', options: {} }, { ...ctx(), timeoutMs: 50 }).catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_PLUGIN_LOAD')).toBe(true);
      expect(hooks.lateHandlerClosed).toBeUndefined();
      hooks.lateFactoryFinish!();
      await expect.poll(() => hooks.lateHandlerClosed).toBe(true);
    } finally {
      delete hooks.lateFactoryFinish;
      delete hooks.lateHandlerClosed;
    }
  });

  it('stops waiting for a factory when the signal aborts', async () => {
    await writeFile(join(dir.path, 'never.mjs'), 'export default () => new Promise(() => {});\n');
    const stop = new AbortController();
    const loading = loadSyncHandler({ name: './never.mjs', options: {} }, { ...ctx(), signal: stop.signal });
    stop.abort();
    await expect(loading).rejects.toThrow('loading stopped: the agent is shutting down');
  });

  it('puts where the spec was given in front of its errors, keeping the code', async () => {
    const err = await loadSyncHandler({ name: 'exec', options: { command: '/bin/true', timeout: 30 }, origin: '--config /c.yaml: field "handlers"[1]' }, ctx())
      .catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
    expect((err as Error).message).toBe('--config /c.yaml: field "handlers"[1]: handler "exec": option "timeout" must be a duration string like "30s", got the number 30');
  });

  /**
   * Writes a plugin `file` whose factory body is `body` (it has `logger`), loads it with a logger at info that
   * records its lines, makes one syncPod call, and returns the lines.
   */
  const logsOfOneSync = async (file: string, body: readonly string[], more: Partial<HandlerLoaderContext> = {}): Promise<Record<string, unknown>[]> => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l) as Record<string, unknown>) });
    await writeFile(join(dir.path, file), ['export default ({ logger }) => {', ...body, '};'].join('\n'));
    const h = await loadSyncHandler({ name: `./${file}`, options: {} }, { ...ctx(), logger, ...more });
    await h.syncPod({ type: 'create', pod: makePod('web'), source: 'file', attempt: 1 }, controller.signal);
    return lines;
  };

  it('logs under the name the handler runs under, also through a child its factory took before it was named', async () => {
    const lines = await logsOfOneSync('my-handler.mjs', [
      '  logger.info("in the factory");',
      '  const log = logger.child({ part: "calls" });',
      '  return { name: "my-handler", async syncPod() { log.info("sync"); }, async killPod() {} };',
    ], { rename: (own) => `${own}-2` });
    expect(lines.map((l) => [l['component'], l['msg']])).toEqual([['sync../my-handler.mjs', 'in the factory'], ['sync.my-handler-2', 'sync']]);
    expect(lines[1]).toMatchObject({ part: 'calls' });
  });

  it('keeps no level a factory failed to set on its logger (pino refuses an unknown one)', async () => {
    const lines = await logsOfOneSync('typo.mjs', [
      '  const log = logger.child({});',
      '  try { log.level = "verbose"; } catch {}',
      '  return { name: "typo", async syncPod() { log.info("sync"); }, async killPod() {} };',
    ]);
    expect(lines).toMatchObject([{ component: 'sync.typo', msg: 'sync' }]);
  });

  it('keeps the level and bindings a factory set on its child logger once the handler is named', async () => {
    const lines = await logsOfOneSync('verbose.mjs', [
      '  const log = logger.child({ part: "calls" });',
      '  log.level = "debug";',
      '  log.setBindings({ mode: "verbose" });',
      '  return { name: "verbose", async syncPod() { log.debug("sync"); }, async killPod() {} };',
    ]);
    expect(lines).toMatchObject([{ level: 20, component: 'sync.verbose', part: 'calls', mode: 'verbose', msg: 'sync' }]);
  });

  it('rejects an invalid id', async () => {
    const err = await loadSyncHandler({ name: 'log', options: { id: 'Not Valid' } }, ctx()).catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
  });

  it('passes built-in option errors through (ConfigInvalidError naming the handler)', async () => {
    const err = await loadSyncHandler({ name: 'exec', options: {} }, ctx()).catch((e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
    expect((err as Error).message).toContain('exec');
  });
});
