import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processRunning, tempDir } from '@podconfig/testing';
import { runCommand } from './run-command.js';

let dir: { path: string; cleanup: () => Promise<void> } | undefined;
afterEach(async () => {
  await dir?.cleanup();
});

describe(runCommand.name, () => {
  it('kills what the program left in its group after the grace period, also when the program itself exited on SIGTERM', async () => {
    dir = await tempDir('run-command-');
    const script = join(dir.path, 'leaves-a-child.sh');
    // The background child ignores SIGTERM and holds stdout open; the script itself dies of SIGTERM. The grace
    // period is longer than the 1 s the pipes get to drain after the script's exit, so the run ends before it.
    await writeFile(script, `#!/bin/sh\n( trap '' TERM; exec sleep 60 ) &\necho $! > "${join(dir.path, 'child')}"\nexec sleep 60\n`);
    await chmod(script, 0o755);
    const result = await runCommand({
      command: script, args: [], env: {}, stdin: '', timeoutMs: 200, killGraceMs: 1_500, stdoutLimit: 1024, stderrLimit: 1024,
    }, new AbortController().signal);
    expect(result.timedOut).toBe(true);
    const child = Number(await readFile(join(dir.path, 'child'), 'utf8'));
    await expect.poll(() => processRunning(child), { timeout: 10_000 }).toBe(false);
  });

  it('reports a run that timed out as timed out, not aborted, when the signal aborts during the grace period', async () => {
    const controller = new AbortController();
    // The shell survives SIGTERM (its sleep does not) and says so; the abort comes after that, before the SIGKILL.
    const result = await runCommand({
      command: 'sh', args: ['-c', "trap 'echo term' TERM; echo ready; while :; do sleep 1; done"], env: { PATH: process.env['PATH'] },
      stdin: '', timeoutMs: 200, killGraceMs: 500, stdoutLimit: 1024, stderrLimit: 1024,
      onStdoutLine: (line) => { if (line === 'term') controller.abort(); },
    }, controller.signal);
    expect(controller.signal.aborted).toBe(true);
    expect(result).toMatchObject({ timedOut: true, aborted: false, exitSignal: 'SIGKILL' });
  });

  it('leaves nothing that holds the event loop once it resolved, the SIGKILL still due included', async () => {
    const controller = new AbortController();
    const run = runCommand({
      command: 'sleep', args: ['30'], env: { PATH: process.env['PATH'] }, stdin: '', timeoutMs: 60_000, killGraceMs: 60_000, stdoutLimit: 1024, stderrLimit: 1024,
    }, controller.signal);
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    controller.abort();
    expect(await run).toMatchObject({ aborted: true, exitSignal: 'SIGTERM' });
    // The run's timers: its timeout cleared, the group's SIGKILL unref'd (getActiveResourcesInfo lists ref'd ones).
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThan(before);
  });
});
