import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigInvalidError } from '@podconfig/core';
import { tempDir } from '@podconfig/testing';
import { messageWithCauses, runCli } from './run-cli.js';

describe('messageWithCauses()', () => {
  it('appends each cause the message does not already say, on one line', () => {
    const inner = new Error("Cannot find module '/x/y.mjs'\nimported from /x");
    const err = new ConfigInvalidError('handler "./y.mjs": cannot load module', { cause: inner });
    expect(messageWithCauses(err)).toBe('handler "./y.mjs": cannot load module: Cannot find module \'/x/y.mjs\' imported from /x');
  });

  it('leaves out a cause the message repeats (a wrapped kubeconfig error)', () => {
    const inner = new Error('kubeconfig /k: does not exist');
    expect(messageWithCauses(new ConfigInvalidError('--kubeconfig: kubeconfig /k: does not exist', { cause: inner })))
      .toBe('--kubeconfig: kubeconfig /k: does not exist');
  });
});

describe('runCli()', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => { dir = await tempDir(); });
  afterEach(async () => {
    vi.restoreAllMocks();
    await dir.cleanup();
  });

  it('exits 1 with one stderr line naming the handler and the cause when a handler\'s start() fails', async () => {
    const plugin = join(dir.path, 'bad-start.mjs');
    await writeFile(plugin, [
      'export default () => ({',
      "  name: 'bad-start',",
      "  async start() { throw new Error('cannot reach the runtime', { cause: new Error('connect ECONNREFUSED /run/runtime.sock') }); },",
      '  async syncPod() {}, async killPod() {},',
      '});', '',
    ].join('\n'));
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { stderr.push(String(chunk)); return true; });
    const code = await runCli(['--node-name', 'n1', '--kubeconfig=', '--status-address', 'off', '--log-level', 'silent', '--handler', plugin], {
      signal: new AbortController().signal,
    });
    expect(code).toBe(1); // may clear by itself (a runtime not up yet): a supervisor restarts the agent
    expect(stderr).toEqual(['podconfig-agent: sync handler "bad-start" failed to start: cannot reach the runtime: connect ECONNREFUSED /run/runtime.sock\n']);
  });

  it('exits 2 with one stderr line for a --feature-gates pair without a value, or a watch-list it contradicts', async () => {
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { stderr.push(String(chunk)); return true; });
    const base = ['--node-name', 'n1', '--kubeconfig=', '--status-address', 'off', '--log-level', 'silent'];
    expect(await runCli([...base, '--feature-gates', 'WatchListClient'], { signal: new AbortController().signal })).toBe(2);
    expect(await runCli([...base, '--watch-list', '--feature-gates=WatchListClient=false'], { signal: new AbortController().signal })).toBe(2);
    expect(stderr).toEqual([
      'podconfig-agent: --feature-gates: malformed pair "WatchListClient", expect Name=true|false\n',
      'podconfig-agent: --watch-list turns the streaming initial list (watch-list, D13) on, but WatchListClient=false in --feature-gates turns it off: give one of them, or the same value\n',
    ]);
  });
});
