import { watch } from 'node:fs';
import { access, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { PodConfigError, isPodLister, type Pod } from '@podconfig/core';
import { makePod, processRunning, tempDir } from '@podconfig/testing';
import { ExecSyncHandler, type ExecSyncHandlerOptions } from './exec-sync-handler.js';
import { ListingExecSyncHandler } from './listing-exec-sync-handler.js';

function captureLogger(): { logger: pino.Logger; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => raw.push(line) });
  return { logger, lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}


/** Resolves once `file` exists, woken by directory events rather than by polling. */
async function waitForFile(file: string, dir: string): Promise<void> {
  const exists = () => access(file).then(() => true, () => false);
  const watcher = watch(dir);
  try {
    await new Promise<void>((resolve, reject) => {
      watcher.on('error', reject);
      watcher.on('change', () => void exists().then((yes) => yes && resolve()));
      void exists().then((yes) => yes && resolve());
    });
  } finally {
    watcher.close();
  }
}

const signal = new AbortController().signal;

describe(ExecSyncHandler.name, () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  const script = async (name: string, body: string): Promise<string> => {
    const file = join(tmp.path, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  };
  const handler = (o: Partial<ExecSyncHandlerOptions> & { command: string }): ExecSyncHandler =>
    new ExecSyncHandler({ nodeName: 'node-1', logger: pino({ level: 'silent' }), env: { OUT: tmp.path }, ...o });

  beforeEach(async () => {
    tmp = await tempDir('podconfig-exec-');
  });
  afterEach(async () => {
    await tmp.cleanup();
  });

  describe('syncPod()', () => {
    it('runs the command with the pod on stdin and the operation in the environment', async () => {
      const command = await script('record.sh', 'cat > "$OUT/stdin.json"\nenv > "$OUT/env.txt"');
      const pod = makePod('web', { namespace: 'prod', uid: 'u-web' });
      await handler({ command, env: { OUT: tmp.path, EXTRA: 'from-options' } })
        .syncPod({ type: 'update', pod, source: 'http', attempt: 1 }, signal);

      expect(JSON.parse(await readFile(join(tmp.path, 'stdin.json'), 'utf8'))).toEqual(pod);
      const env = Object.fromEntries((await readFile(join(tmp.path, 'env.txt'), 'utf8')).split('\n')
        .filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      expect(env).toMatchObject({
        PODCONFIG_OP: 'update', POD_NAMESPACE: 'prod', POD_NAME: 'web', POD_UID: 'u-web',
        PODCONFIG_SOURCE: 'http', PODCONFIG_NODE_NAME: 'node-1', EXTRA: 'from-options',
      });
      expect(env['PATH']).toBe(process.env['PATH']); // inherits the process environment
    });

    it('passes the configured arguments without a shell', async () => {
      const command = await script('args.sh', 'for a in "$@"; do printf "%s\\n" "$a"; done > "$OUT/args.txt"');
      await handler({ command, args: ['one', 'two words', '$(id)'] })
        .syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, signal);
      expect(await readFile(join(tmp.path, 'args.txt'), 'utf8')).toBe('one\ntwo words\n$(id)\n');
    });

    it('never interprets shell metacharacters in pod data', async () => {
      const canary = join(tmp.path, 'pwned');
      const evil = `$(touch ${canary})\`touch ${canary}\`;touch ${canary}`;
      const command = await script('name.sh', 'printf "%s" "$POD_NAME" > "$OUT/name.txt"\ncat > "$OUT/stdin.json"');
      const pod = makePod(evil, { namespace: `x;touch ${canary}`, labels: { app: evil }, uid: `$(touch ${canary})` });
      await handler({ command }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);

      expect(await readFile(join(tmp.path, 'name.txt'), 'utf8')).toBe(evil);
      expect((JSON.parse(await readFile(join(tmp.path, 'stdin.json'), 'utf8')) as Pod).metadata?.labels?.['app']).toBe(evil);
      await expect(access(canary)).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('delivers a 2 MB pod on stdin', async () => {
      const command = await script('big.sh', 'cat > "$OUT/stdin.json"');
      const pod = makePod('big', { annotations: { blob: 'x'.repeat(2 * 1024 * 1024) } });
      await handler({ command }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      expect(await readFile(join(tmp.path, 'stdin.json'), 'utf8')).toBe(JSON.stringify(pod));
    });

    it('succeeds when the command exits without reading a 2 MB pod', async () => {
      const command = await script('ignore.sh', 'exit 0');
      const pod = makePod('big', { annotations: { blob: 'x'.repeat(2 * 1024 * 1024) } });
      await handler({ command }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
    });

    it('throws PODCONFIG_HANDLER_FAILED naming the command, exit code and pod on a non-zero exit', async () => {
      const command = await script('fail.sh', 'echo "bad things" >&2\nexit 3');
      const err: unknown = await handler({ command })
        .syncPod({ type: 'create', pod: makePod('web', { namespace: 'prod', uid: 'u1' }), source: 'file', attempt: 1 }, signal)
        .catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_FAILED')).toBe(true);
      expect((err as Error).message).toBe(`exec: ${command} exited with code 3 for create of pod prod/web (uid u1)`);
      // An orphan a listing reported by UID alone is named by its UID.
      const orphan: unknown = await handler({ command })
        .killPod({ reason: 'orphaned', pod: { metadata: { uid: 'u-orphan' } }, gracePeriodSeconds: 30, attempt: 1 }, signal)
        .catch((e: unknown) => e);
      expect((orphan as Error).message).toBe(`exec: ${command} exited with code 3 for kill of pod with uid u-orphan`);
    });

    it('fails on every non-zero exit code, 1 and 255 too', async () => {
      for (const code of [1, 2, 255]) {
        const command = await script(`exit-${code}.sh`, `exit ${code}`);
        await expect(handler({ command }).syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, signal))
          .rejects.toMatchObject({ code: 'PODCONFIG_HANDLER_FAILED', message: expect.stringContaining(`exited with code ${code} `) as unknown });
      }
    });

    it('gives its own PODCONFIG_* and POD_* variables precedence over configured ones of the same name', async () => {
      const command = await script('env.sh', 'env > "$OUT/env.txt"');
      const env = { OUT: tmp.path, PODCONFIG_OP: 'x', PODCONFIG_NODE_NAME: 'y', PODCONFIG_SOURCE: 'z', POD_NAME: 'w', POD_UID: 'v' };
      await handler({ command, env }).syncPod({ type: 'update', pod: makePod('web', { uid: 'u-web' }), source: 'http', attempt: 1 }, signal);
      const lines = (await readFile(join(tmp.path, 'env.txt'), 'utf8')).split('\n');
      for (const line of ['PODCONFIG_OP=update', 'PODCONFIG_NODE_NAME=node-1', 'PODCONFIG_SOURCE=http', 'POD_NAME=web', 'POD_UID=u-web']) {
        expect(lines).toContain(line);
      }
    });

    it('throws PODCONFIG_HANDLER_FAILED when the command dies from a signal', async () => {
      const command = await script('killed.sh', 'kill -9 $$');
      await expect(handler({ command }).syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, signal))
        .rejects.toMatchObject({ code: 'PODCONFIG_HANDLER_FAILED', message: expect.stringContaining('was killed by SIGKILL') });
    });

    it('throws PODCONFIG_HANDLER_FAILED when the command cannot be started', async () => {
      const command = join(tmp.path, 'missing');
      const err: unknown = await handler({ command }).syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, signal)
        .catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_FAILED')).toBe(true);
      expect((err as Error).message).toContain(`cannot start ${command}`);
      expect((err as Error).cause).toMatchObject({ code: 'ENOENT' });
    });

    it('kills the command and its children on timeout and throws PODCONFIG_HANDLER_TIMEOUT', async () => {
      const command = await script('slow.sh', 'sleep 30 &\necho $! > "$OUT/child.pid"\necho $$ > "$OUT/main.pid"\nwait');
      const err: unknown = await handler({ command, timeoutMs: 1000 })
        .syncPod({ type: 'create', pod: makePod('slow', { uid: 'u-slow' }), source: 'file', attempt: 1 }, signal)
        .catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_TIMEOUT')).toBe(true);
      expect((err as Error).message).toContain(`${command} timed out after 1000 ms`);
      expect((err as Error).message).toContain('default/slow (uid u-slow)');

      const main = Number(await readFile(join(tmp.path, 'main.pid'), 'utf8'));
      const child = Number(await readFile(join(tmp.path, 'child.pid'), 'utf8'));
      expect(await processRunning(main)).toBe(false);
      expect(() => process.kill(main, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' })); // reaped, not a zombie
      expect(await processRunning(child)).toBe(false);
    });

    it('sends SIGKILL after the grace period to a command that ignores SIGTERM', async () => {
      const command = await script('stubborn.sh', 'trap "" TERM\necho $$ > "$OUT/main.pid"\nwhile :; do sleep 1; done');
      const err: unknown = await handler({ command, timeoutMs: 1000, killGraceMs: 100 })
        .syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, signal)
        .catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_TIMEOUT')).toBe(true);
      const main = Number(await readFile(join(tmp.path, 'main.pid'), 'utf8'));
      expect(() => process.kill(main, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    });

    it('kills the command and returns without an error when the signal aborts', async () => {
      const command = await script('wait.sh', 'echo $$ > "$OUT/main.pid.tmp"\nmv "$OUT/main.pid.tmp" "$OUT/main.pid"\nexec sleep 30');
      const controller = new AbortController();
      const call = handler({ command }).syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 },
        controller.signal);
      await waitForFile(join(tmp.path, 'main.pid'), tmp.path);
      controller.abort();
      await call;
      const main = Number(await readFile(join(tmp.path, 'main.pid'), 'utf8'));
      expect(() => process.kill(main, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    });

    it('returns without an error when the signal aborts, though the timeout passes while a command that ignores SIGTERM is killed', async () => {
      const command = await script('stubborn.sh',
        'trap "" TERM\necho $$ > "$OUT/main.pid.tmp"\nmv "$OUT/main.pid.tmp" "$OUT/main.pid"\nwhile :; do sleep 1; done');
      const controller = new AbortController();
      // Only the timers runCommand sets are faked: the timeout and the SIGKILL fire when the test says, in that order.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        const call = handler({ command, timeoutMs: 1000, killGraceMs: 5000 })
          .syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, controller.signal)
          .then(() => 'returned', (e: unknown) => e);
        await waitForFile(join(tmp.path, 'main.pid'), tmp.path); // SIGTERM is ignored from here on
        controller.abort(); // SIGTERM, ignored; SIGKILL due in 5 s
        vi.advanceTimersByTime(1000); // the call's timeout passes while the command still runs
        vi.advanceTimersByTime(4000); // SIGKILL
        expect(await call).toBe('returned'); // before: PODCONFIG_HANDLER_TIMEOUT
      } finally {
        vi.useRealTimers();
      }
      const main = Number(await readFile(join(tmp.path, 'main.pid'), 'utf8'));
      expect(() => process.kill(main, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    });

    it("does not start a pod's command while the pod's previous one, abandoned by the reconciler, still runs", async () => {
      // Each run notes its pid; a run that finds the previous one alive notes an overlap.
      const command = await script('once.sh', [
        'trap "" TERM',
        'if [ -f "$OUT/last.pid" ] && kill -0 "$(cat "$OUT/last.pid")" 2>/dev/null; then echo overlap >> "$OUT/overlaps"; fi',
        'echo $$ > "$OUT/last.pid.tmp"; mv "$OUT/last.pid.tmp" "$OUT/last.pid"',
        'echo $$ >> "$OUT/runs"',
        'while :; do sleep 1; done',
      ].join('\n'));
      const exec = handler({ command, timeoutMs: 60_000, killGraceMs: 300 });
      const pod = makePod('a');
      const first = new AbortController();
      // The reconciler's call limit passes: it aborts the signal and abandons the call (which still waits for the kill).
      const abandoned = exec.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, first.signal);
      await waitForFile(join(tmp.path, 'last.pid'), tmp.path);
      first.abort();
      const retry = new AbortController();
      const next = exec.syncPod({ type: 'create', pod, source: 'file', attempt: 2 }, retry.signal);
      await abandoned;
      await vi.waitFor(async () => expect((await readFile(join(tmp.path, 'runs'), 'utf8')).trim().split('\n')).toHaveLength(2), { timeout: 10_000 });
      retry.abort();
      await next;
      await expect(readFile(join(tmp.path, 'overlaps'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
      // Another pod does not wait.
      const other = new AbortController();
      const otherCall = exec.syncPod({ type: 'create', pod: makePod('b'), source: 'file', attempt: 1 }, other.signal);
      await vi.waitFor(async () => expect((await readFile(join(tmp.path, 'runs'), 'utf8')).trim().split('\n')).toHaveLength(3), { timeout: 10_000 });
      other.abort();
      await otherCall;
    });

    it('ends a call that waits for the pod\'s previous command when its own signal aborts, without starting one or waiting on', async () => {
      const command = await script('slow.sh', 'trap "" TERM\necho $$ >> "$OUT/runs"\nwhile :; do sleep 1; done');
      const exec = handler({ command, timeoutMs: 60_000, killGraceMs: 2_000 });
      const pod = makePod('a');
      const first = new AbortController();
      const abandoned = exec.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, first.signal);
      await waitForFile(join(tmp.path, 'runs'), tmp.path);
      first.abort(); // SIGKILL comes 2 s later
      const retry = new AbortController();
      const order: string[] = [];
      const next = exec.syncPod({ type: 'create', pod, source: 'file', attempt: 2 }, retry.signal).then(() => order.push('retry'));
      retry.abort();
      await Promise.all([next, abandoned.then(() => order.push('abandoned'))]);
      expect(order).toEqual(['retry', 'abandoned']); // the retry returned while the first command still ran
      expect((await readFile(join(tmp.path, 'runs'), 'utf8')).trim().split('\n')).toHaveLength(1);
    });

    it('returns after the command exits even when a background process keeps its output open', async () => {
      const command = await script('daemon.sh', 'sleep 30 &\necho $! > "$OUT/daemon.pid"\necho started\nexit 0');
      await handler({ command }).syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, signal);
      const daemon = Number(await readFile(join(tmp.path, 'daemon.pid'), 'utf8'));
      try {
        expect(await processRunning(daemon)).toBe(true); // left alone: the command started it on purpose
      } finally {
        process.kill(daemon, 'SIGKILL');
      }
    });

    it('counts an exit 0 as success though its background process holds the output past the timeout, and leaves it alone', async () => {
      const command = await script('daemon.sh', 'sleep 30 &\necho $! > "$OUT/daemon.pid"\nexit 0');
      // The pipes drain for up to 1 s after the exit: a 300 ms timeout falls inside it.
      await handler({ command, timeoutMs: 300 }).syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, signal);
      const daemon = Number(await readFile(join(tmp.path, 'daemon.pid'), 'utf8'));
      try {
        expect(await processRunning(daemon)).toBe(true);
      } finally {
        process.kill(daemon, 'SIGKILL');
      }
    });

    it('logs stdout lines at debug and stderr lines at warn with the pod fields', async () => {
      const { logger, lines } = captureLogger();
      const command = await script('talk.sh', 'echo "out one"\necho "err one" >&2\nprintf "out two"');
      await new ExecSyncHandler({ command, nodeName: 'n', logger })
        .syncPod({ type: 'create', pod: makePod('web', { uid: 'u1' }), source: 'file', attempt: 1 }, signal);
      const output = lines().filter((l) => l['msg'] === 'command output');
      expect(output).toHaveLength(3);
      expect(output.filter((l) => l['stream'] === 'stdout')).toMatchObject([
        { level: 20, component: 'sync.exec', op: 'create', pod: 'default/web', uid: 'u1', line: 'out one' },
        { level: 20, line: 'out two' },
      ]);
      expect(output.filter((l) => l['stream'] === 'stderr')).toMatchObject([
        { level: 40, component: 'sync.exec', op: 'create', pod: 'default/web', uid: 'u1', line: 'err one' },
      ]);
    });

    it('caps the logged output at 64 KiB per stream and reports how much was dropped', async () => {
      const { logger, lines } = captureLogger();
      const command = await script('flood.sh', 'i=0\nwhile [ $i -lt 2000 ]; do echo "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789"; i=$((i+1)); done');
      await new ExecSyncHandler({ command, nodeName: 'n', logger })
        .syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, signal);
      const output = lines().filter((l) => l['msg'] === 'command output');
      const logged = output.map((l) => String(l['line'])).join('\n').length;
      expect(logged).toBeLessThanOrEqual(64 * 1024);
      expect(logged).toBeGreaterThan(60 * 1024);
      expect(lines().find((l) => l['msg'] === 'command output truncated')).toMatchObject({
        level: 40, stdoutDropped: 2000 * 101 - 64 * 1024, stderrDropped: 0,
      });
    });
  });

  describe('killPod()', () => {
    it('runs the command with op kill, the reason and the grace period', async () => {
      const command = await script('record.sh', 'cat > "$OUT/stdin.json"\nenv > "$OUT/env.txt"');
      const pod = { metadata: { uid: 'u-old', namespace: 'prod', name: 'old' } };
      await handler({ command }).killPod({ reason: 'orphaned', pod, gracePeriodSeconds: 17, attempt: 1 }, signal);
      const env = await readFile(join(tmp.path, 'env.txt'), 'utf8');
      for (const line of ['PODCONFIG_OP=kill', 'POD_UID=u-old', 'POD_NAMESPACE=prod', 'POD_NAME=old',
        'PODCONFIG_KILL_REASON=orphaned', 'PODCONFIG_GRACE_PERIOD_SECONDS=17', 'PODCONFIG_SOURCE=']) {
        expect(env.split('\n')).toContain(line);
      }
      expect(JSON.parse(await readFile(join(tmp.path, 'stdin.json'), 'utf8'))).toEqual(pod);
    });
  });

  describe('listPods()', () => {
    it('is absent unless a list command is configured', () => {
      expect(isPodLister(new ExecSyncHandler({ command: '/bin/true', nodeName: 'n', logger: pino({ level: 'silent' }) }))).toBe(false);
    });
  });
});

describe(ListingExecSyncHandler.name, () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('podconfig-exec-list-');
  });
  afterEach(async () => {
    await tmp.cleanup();
  });
  const lister = async (body: string): Promise<ListingExecSyncHandler> => {
    const file = join(tmp.path, 'list.sh');
    await writeFile(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return new ListingExecSyncHandler({ command: '/bin/true', list: { command: file, args: ['--all'] }, nodeName: 'node-1',
      logger: pino({ level: 'silent' }), env: { OUT: tmp.path } });
  };

  describe('listPods()', () => {
    it('reads UIDs and namespace/name strings from the list command', async () => {
      const handler = await lister('env > "$OUT/env.txt"\nprintf "%s" "$1" > "$OUT/arg.txt"\necho \'["uid-1", "kube-system/etcd-node-1"]\'');
      expect(isPodLister(handler)).toBe(true);
      expect(await handler.listPods(signal)).toEqual([{ uid: 'uid-1' }, { namespace: 'kube-system', name: 'etcd-node-1' }]);
      const env = (await readFile(join(tmp.path, 'env.txt'), 'utf8')).split('\n');
      expect(env).toContain('PODCONFIG_OP=list');
      expect(env).toContain('PODCONFIG_NODE_NAME=node-1');
      expect(await readFile(join(tmp.path, 'arg.txt'), 'utf8')).toBe('--all');
    });

    it('runs the list command with PODCONFIG_OP=list whatever the configured environment says', async () => {
      const file = join(tmp.path, 'list.sh');
      await writeFile(file, '#!/bin/sh\nenv > "$OUT/env.txt"\necho "[]"\n', { mode: 0o755 });
      const handler = new ListingExecSyncHandler({ command: '/bin/true', list: { command: file }, nodeName: 'node-1',
        logger: pino({ level: 'silent' }), env: { OUT: tmp.path, PODCONFIG_OP: 'x', PODCONFIG_NODE_NAME: 'y' } });
      expect(await handler.listPods(signal)).toEqual([]);
      const env = (await readFile(join(tmp.path, 'env.txt'), 'utf8')).split('\n');
      expect(env).toContain('PODCONFIG_OP=list');
      expect(env).toContain('PODCONFIG_NODE_NAME=node-1');
    });

    it('throws PODCONFIG_HANDLER_FAILED when the output is not a JSON array of strings', async () => {
      for (const output of ['not json', '{"a":1}', '[1]', '["ns/"]']) {
        const handler = await lister(`echo '${output}'`);
        await expect(handler.listPods(signal)).rejects.toMatchObject({ code: 'PODCONFIG_HANDLER_FAILED' });
      }
    });

    it('throws PODCONFIG_HANDLER_FAILED when the list command fails', async () => {
      const handler = await lister('exit 2');
      await expect(handler.listPods(signal)).rejects.toMatchObject({
        code: 'PODCONFIG_HANDLER_FAILED', message: expect.stringContaining('exited with code 2'),
      });
    });

    it('rejects with the abort reason when aborted', async () => {
      const handler = await lister('echo "[]"');
      const controller = new AbortController();
      controller.abort(new Error('shutting down'));
      await expect(handler.listPods(controller.signal)).rejects.toThrow('shutting down');
      expect((await stat(tmp.path)).isDirectory()).toBe(true);
    });
  });
});
