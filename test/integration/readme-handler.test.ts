import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isClosable, type SyncHandler } from '@podconfig/core';
import { loadConfigFile, loadSyncHandler, resolveConfig } from '@podconfig/agent';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { AgentProcess, eventually } from '../support/agent-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = 'readme-node';

/** The fenced code block right after `<!-- example: NAME -->` in a Markdown text, or undefined. */
function exampleBlock(markdown: string, name: string): string | undefined {
  const marker = markdown.indexOf(`<!-- example: ${name} -->`);
  if (marker < 0) return undefined;
  const match = /^```[a-z]*\n([\s\S]*?)^```$/m.exec(markdown.slice(marker));
  return match?.[1];
}

/** The example from docs/handlers.md; README.md must carry the same code (it is what developers copy). */
async function documentedExample(name: string): Promise<string> {
  const docs = exampleBlock(await readFile(join(ROOT, 'docs/handlers.md'), 'utf8'), name);
  if (docs === undefined) throw new Error(`docs/handlers.md has no "${name}" example`);
  const readme = exampleBlock(await readFile(join(ROOT, 'README.md'), 'utf8'), name);
  expect(readme, `README.md has no "${name}" example`).toBe(docs);
  return docs;
}

describe('docs/handlers.md "Write your own handler"', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let agent: AgentProcess | undefined;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-readme-');
  });
  afterEach(async () => {
    await agent?.kill();
    agent = undefined;
    await tmp.cleanup();
  });

  describe('my-handler.mjs', () => {
    it('runs as documented with --handler ./my-handler.mjs: syncs, kills and removes leftovers', async () => {
      await writeFile(join(tmp.path, 'my-handler.mjs'), await documentedExample('my-handler.mjs'));
      const manifests = join(tmp.path, 'manifests');
      const pods = join(tmp.path, 'pods'); // the example's default directory, relative to the working directory
      await mkdir(manifests);
      await mkdir(pods);
      await writeFile(join(pods, 'left-from-an-earlier-run'), 'default/old\n');
      await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));

      agent = await AgentProcess.start(
        ['--node-name', NODE, '--pod-manifest-path', './manifests', '--handler', './my-handler.mjs'],
        { cwd: tmp.path },
      );
      const a = agent;
      const uid = await eventually(async () => {
        const list = await a.getJSON<{ items: { metadata: { name: string; uid: string } }[] }>('/pods');
        return list.items.find((p) => p.metadata.name === `web-${NODE}`)?.metadata.uid;
      }, 15_000, 'web in /pods');
      // The handler logs once its write has finished: reading the file before that could see it half written.
      await a.waitForLog((l) => l.msg === 'pod written' && l['op'] === 'create' && l['uid'] === uid);
      expect(await readFile(join(pods, uid), 'utf8')).toBe(`default/web-${NODE}\n`);

      // listPods reported a file no source wants: killed as an orphan once the file source is ready.
      await eventually(async () => (existsSync(join(pods, 'left-from-an-earlier-run')) ? undefined : true), 15_000, 'leftover removed');

      await rm(join(manifests, 'web.yaml'));
      await eventually(async () => ((await readdir(pods)).length === 0 ? true : undefined), 15_000, 'pod file removed');
      expect(await a.stop()).toEqual({ code: 0, signal: null });
    });
  });

  describe('config.yaml', () => {
    it('is a valid config file whose handler entries all load', async () => {
      await writeFile(join(tmp.path, 'my-handler.mjs'), await documentedExample('my-handler.mjs'));
      const configFile = join(tmp.path, 'config.yaml');
      // The example's hook is the reader's program: the exec factory checks that it can run, so one stands in for it.
      const hook = join(tmp.path, 'pod-hook');
      await writeFile(hook, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      const example = await documentedExample('config.yaml');
      expect(example).toContain('/usr/local/bin/pod-hook');
      await writeFile(configFile, example.replaceAll('/usr/local/bin/pod-hook', hook));

      const config = resolveConfig({ 'node-name': NODE }, (await loadConfigFile(configFile)).fields);
      expect(config.staticPodPath).toBe('/etc/kubernetes/manifests');
      const stop = new AbortController();
      const handlers: SyncHandler[] = [];
      try {
        for (const spec of config.handlers) {
          handlers.push(await loadSyncHandler(spec, { logger: pino({ level: 'silent' }), nodeName: NODE, signal: stop.signal, cwd: tmp.path }));
        }
        expect(handlers.map((h) => h.name)).toEqual(['log', 'my-handler', 'exec', 'webhook']);
      } finally {
        stop.abort();
        for (const h of handlers) if (isClosable(h)) await h.close(new AbortController().signal);
      }
    });
  });
});
