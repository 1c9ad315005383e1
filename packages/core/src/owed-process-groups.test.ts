import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processRunning, tempDir } from '@podconfig/testing';
import { processGroupKillsPending, processGroupKillsSettled } from './owed-process-groups.js';
import { runCommand } from './run-command.js';

/** The built module a separate Node.js process imports (the test command builds before it runs). */
const RUN_COMMAND_JS = fileURLToPath(new URL('../dist/run-command.js', import.meta.url));

let dir: { path: string; cleanup: () => Promise<void> } | undefined;
const leftovers: number[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  await dir?.cleanup();
  dir = undefined;
});

/**
 * A hook that leaves a child ignoring SIGTERM in its group (its pid in `child`), then either exits at once
 * (`exit`) or waits to be stopped (`wait`).
 */
async function hook(mode: 'exit' | 'wait'): Promise<{ script: string; child: () => Promise<number> }> {
  dir = await tempDir('owed-process-groups-');
  const childFile = join(dir.path, 'child');
  const script = join(dir.path, 'hook.sh');
  await writeFile(script, `#!/bin/sh\n( trap '' TERM; exec sleep 60 ) </dev/null >/dev/null 2>&1 &\necho $! > "${childFile}"\n${mode === 'wait' ? 'exec sleep 60\n' : ''}`);
  await chmod(script, 0o755);
  return {
    script,
    child: async () => {
      const pid = Number(await readFile(childFile, 'utf8'));
      if (pid > 0 && !leftovers.includes(pid)) leftovers.push(pid);
      return pid;
    },
  };
}

/** Runs the hook from a separate Node.js process, which stops it (`wait`) and exits at once after the call. */
async function runInProcessThatExits(script: string, mode: 'exit' | 'wait'): Promise<void> {
  const program = `
    const { runCommand } = await import(${JSON.stringify(RUN_COMMAND_JS)});
    const controller = new AbortController();
    const run = runCommand({ command: ${JSON.stringify(script)}, args: [], env: {}, stdin: '', timeoutMs: 60000,
      killGraceMs: 60000, stdoutLimit: 1024, stderrLimit: 1024 }, controller.signal);
    ${mode === 'wait' ? 'setTimeout(() => controller.abort(), 300);' : ''}
    await run;
    process.exit(0);
  `;
  const node = spawn(process.execPath, ['--input-type=module', '-e', program], { stdio: 'inherit' });
  const [code] = (await once(node, 'exit')) as [number | null];
  expect(code).toBe(0);
}

describe('owed process groups', () => {
  it('waits for a stopped command\'s SIGKILL: what it left ignoring SIGTERM ends within its grace', async () => {
    const { script, child } = await hook('wait');
    const controller = new AbortController();
    const run = runCommand({
      command: script, args: [], env: {}, stdin: '', timeoutMs: 60_000, killGraceMs: 700, stdoutLimit: 1024, stderrLimit: 1024,
    }, controller.signal);
    await expect.poll(async () => (await child().catch(() => 0)) > 0, { timeout: 10_000 }).toBe(true);
    const pid = await child();
    controller.abort();
    const result = await run;
    expect(result).toMatchObject({ aborted: true, exitSignal: 'SIGTERM' });
    expect(processGroupKillsPending()).toEqual([result.pid]);
    expect(await processRunning(pid)).toBe(true); // the call is over; its group is not
    await processGroupKillsSettled();
    expect(processGroupKillsPending()).toEqual([]);
    await expect.poll(() => processRunning(pid), { timeout: 10_000 }).toBe(false);
  });

  it('never signals a group once it is empty: its id may be another process\'s by then', async () => {
    const kill = vi.spyOn(process, 'kill');
    const controller = new AbortController();
    const run = runCommand({
      command: 'sleep', args: ['60'], env: { PATH: process.env['PATH'] }, stdin: '', timeoutMs: 60_000, killGraceMs: 200, stdoutLimit: 1024, stderrLimit: 1024,
    }, controller.signal);
    controller.abort();
    const { pid } = await run; // the SIGTERM ended the only member
    await new Promise((resolve) => setTimeout(resolve, 500)); // past the grace
    expect(kill.mock.calls.filter(([target, sig]) => target === -pid! && sig === 'SIGKILL')).toEqual([]);
    expect(processGroupKillsPending()).toEqual([]);
  });

  it('lets a group go at the end of its grace even while it still looks alive (a zombie under a PID 1 that never reaps)', async () => {
    const kill = process.kill.bind(process);
    // Every probe finds a member, as one that has exited but is never reaped keeps the group's id.
    vi.spyOn(process, 'kill').mockImplementation((target: number, sig?: string | number) => (sig === 0 ? true : kill(target, sig)));
    const controller = new AbortController();
    const run = runCommand({
      command: 'sleep', args: ['60'], env: { PATH: process.env['PATH'] }, stdin: '', timeoutMs: 60_000, killGraceMs: 300, stdoutLimit: 1024, stderrLimit: 1024,
    }, controller.signal);
    controller.abort();
    const { pid } = await run;
    expect(processGroupKillsPending()).toEqual([pid]);
    const bound = AbortSignal.timeout(10_000);
    await processGroupKillsSettled(bound);
    expect(bound.aborted).toBe(false);
    expect(processGroupKillsPending()).toEqual([]);
  });

  it('sends a due SIGKILL at once when the process exits before the grace is over', async () => {
    const { script, child } = await hook('wait');
    await runInProcessThatExits(script, 'wait'); // its grace is a minute; it exits at once
    const pid = await child();
    await expect.poll(() => processRunning(pid), { timeout: 10_000 }).toBe(false);
  });

  it('leaves what a command that exited by itself started in the background: that was its choice', async () => {
    const { script, child } = await hook('exit');
    await runInProcessThatExits(script, 'exit');
    const pid = await child();
    expect(await processRunning(pid)).toBe(true);
  });
});
