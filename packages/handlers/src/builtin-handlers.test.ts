import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ConfigInvalidError, PodConfigError, isClosable, isPodLister, isStartable, type SyncHandler } from '@podconfig/core';
import { createTestPki, makePod, tempDir } from '@podconfig/testing';
import { builtinHandlers } from './builtin-handlers.js';
import { programProblem } from './find-program.js';
import { ExecSyncHandler } from './exec-sync-handler.js';
import { ListingExecSyncHandler } from './listing-exec-sync-handler.js';
import { LogSyncHandler } from './log-sync-handler.js';
import { StateDirSyncHandler } from './state-dir-sync-handler.js';
import { WebhookSyncHandler } from './webhook-sync-handler.js';

const logger = pino({ level: 'silent' });
const signal = new AbortController().signal;

async function make(name: keyof typeof builtinHandlers, options: Record<string, unknown>): Promise<SyncHandler> {
  return builtinHandlers[name]({ logger, nodeName: 'node-1', options, signal });
}

async function configError(name: keyof typeof builtinHandlers, options: Record<string, unknown>): Promise<Error> {
  const err: unknown = await make(name, options).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigInvalidError);
  expect(PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
  return err as Error;
}

describe('builtinHandlers', () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  const closables: SyncHandler[] = [];
  beforeEach(async () => {
    tmp = await tempDir('podconfig-factories-');
  });
  afterEach(async () => {
    for (const handler of closables.splice(0)) if (isClosable(handler)) await handler.close(signal);
    await tmp.cleanup();
  });

  it('names exactly the four built-in handlers', () => {
    expect(Object.keys(builtinHandlers).sort()).toEqual(['exec', 'log', 'state-dir', 'webhook']);
    expect(Object.isFrozen(builtinHandlers)).toBe(true);
  });

  describe('log', () => {
    it('builds a LogSyncHandler and rejects any option', async () => {
      expect(await make('log', {})).toBeInstanceOf(LogSyncHandler);
      expect(await make('log', { name: 'log' })).toBeInstanceOf(LogSyncHandler);
      expect((await configError('log', { arg: 'x' })).message)
        .toBe('handler "log": option "arg" is not supported (this handler takes no NAME=ARG value)');
      expect((await configError('log', { level: 'debug' })).message).toBe('handler "log": option "level" is unknown');
    });
  });

  describe('state-dir', () => {
    it('takes the directory from NAME=ARG or from dir', async () => {
      const dir = join(tmp.path, 'pods');
      const fromArg = await make('state-dir', { arg: dir });
      expect(fromArg).toBeInstanceOf(StateDirSyncHandler);
      expect(isStartable(fromArg) && isPodLister(fromArg)).toBe(true);
      if (isStartable(fromArg)) await fromArg.start(signal);
      await fromArg.syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, signal);
      const fromDir = await make('state-dir', { dir });
      expect(isPodLister(fromDir) ? await fromDir.listPods(signal) : []).toEqual([{ uid: 'uid-default-a', namespace: 'default', name: 'a' }]);
    });

    it('warns about a relative directory, naming where it lands', async () => {
      const lines: Record<string, unknown>[] = [];
      const capture = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
      await builtinHandlers['state-dir']({ logger: capture, nodeName: 'node-1', options: { dir: join(tmp.path, 'abs') }, signal });
      expect(lines).toEqual([]);
      await builtinHandlers['state-dir']({ logger: capture, nodeName: 'node-1', options: { dir: 'relative/pods' }, signal });
      expect(lines).toMatchObject([{ level: 40, dir: 'relative/pods', resolved: join(process.cwd(), 'relative/pods') }]);
    });

    it('rejects a missing or empty directory', async () => {
      expect((await configError('state-dir', {})).message).toBe('handler "state-dir": option "dir" is required (the directory)');
      expect((await configError('state-dir', { dir: '' })).message)
        .toBe('handler "state-dir": option "dir" must be a non-empty string (the directory)');
      expect((await configError('state-dir', { dir: '/a', arg: '/b' })).message)
        .toBe('handler "state-dir": option "dir" and NAME=ARG both give the directory: use one');
      expect((await configError('state-dir', { dir: '/var/lib/\u0000x' })).message).toBe('handler "state-dir": option "dir" has a NUL byte');
    });
  });

  describe('exec', () => {
    it('builds an ExecSyncHandler from NAME=ARG, without listPods', async () => {
      const handler = await make('exec', { arg: '/bin/true' });
      expect(handler).toBeInstanceOf(ExecSyncHandler);
      expect(isPodLister(handler)).toBe(false);
    });

    it('refuses at start a program that cannot run, looking a bare name up in PATH (the env option\'s first)', async () => {
      const notExecutable = join(tmp.path, 'hook.sh');
      await writeFile(notExecutable, '#!/bin/sh\n', { mode: 0o644 });
      const cases: [Record<string, unknown>, string][] = [
        [{ arg: '/nonexistent/hook' }, 'handler "exec": option "command" names "/nonexistent/hook": no such file'],
        [{ arg: tmp.path }, `handler "exec": option "command" names ${JSON.stringify(tmp.path)}: not a regular file`],
        [{ arg: 'no-such-program-podconfig' }, 'handler "exec": option "command" names "no-such-program-podconfig": not found in PATH'],
        [{ arg: '/bin/sh -c touch x' }, 'handler "exec": option "command" names "/bin/sh -c touch x": no such file (it names one program, never split into arguments: give them as args in the config file\'s handlers: entry)'],
        [{ command: '/bin/true', list: ['/nonexistent/list', '--json'] }, 'handler "exec": option "list" names "/nonexistent/list": no such file'],
        [{ command: 'sh', env: { PATH: tmp.path } }, 'handler "exec": option "command" names "sh": not found in PATH'],
      ];
      if (process.getuid?.() !== 0) cases.push([{ arg: notExecutable }, `handler "exec": option "command" names ${JSON.stringify(notExecutable)}: not executable (EACCES)`]);
      for (const [options, message] of cases) expect((await configError('exec', options)).message).toBe(message);
      expect(await make('exec', { arg: 'sh' })).toBeInstanceOf(ExecSyncHandler);
      // No PATH at all: execvp looks in /usr/bin:/bin, where sh is.
      expect(programProblem('sh', undefined, tmp.path)).toBeUndefined();
    });

    it('warns at start when its own time limits outlast the reconciler\'s call timeout', async () => {
      const lines: Record<string, unknown>[] = [];
      const capture = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
      const build = (timeout: string, callTimeoutMs: number): Promise<SyncHandler> =>
        Promise.resolve(builtinHandlers.exec({ logger: capture, nodeName: 'node-1', options: { command: '/bin/true', timeout, killGrace: '5s' }, signal, callTimeoutMs }));
      await build('55s', 60_000);
      expect(lines).toEqual([]);
      await build('2m', 60_000);
      expect(lines).toMatchObject([{ level: 40, timeoutMs: 120_000, killGraceMs: 5_000, callTimeoutMs: 60_000 }]);
    });

    it('builds a ListingExecSyncHandler when list is set, and runs it with the parsed options', async () => {
      const script = join(tmp.path, 'list.sh');
      await writeFile(script, '#!/bin/sh\nprintf \'["%s/%s"]\' "$NS" "$PODCONFIG_NODE_NAME"\n', { mode: 0o755 });
      const handler = await make('exec', {
        command: '/bin/true', args: ['-x'], timeout: '1m30s', killGrace: '250ms', env: { NS: 'kube-system', N: 1, B: true },
        list: [script, '--json'],
      });
      expect(handler).toBeInstanceOf(ListingExecSyncHandler);
      expect(isPodLister(handler) ? await handler.listPods(signal) : undefined).toEqual([{ namespace: 'kube-system', name: 'node-1' }]);
    });

    it('rejects invalid options naming the handler and the option', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{}, 'handler "exec": option "command" is required (the program to run)'],
        [{ command: 5 }, 'handler "exec": option "command" must be a non-empty string (the program to run)'],
        [{ command: '/bin/x', timeout: 'soon' }, 'handler "exec": option "timeout" must be a duration like 30s'],
        [{ command: '/bin/x', timeout: '30' }, 'handler "exec": option "timeout" must be a duration like 30s'],
        [{ command: '/bin/x', timeout: -1 }, 'handler "exec": option "timeout" must be a duration string like "30s", got the number -1'],
        [{ command: '/bin/x', timeout: 30 }, 'handler "exec": option "timeout" must be a duration string like "30s", got the number 30'],
        [{ command: '/bin/x', killGrace: '0s' }, 'handler "exec": option "killGrace" must be a duration like 30s'],
        [{ command: '/bin/x', timeout: '600h' }, 'handler "exec": option "timeout" must be at most 596h31m23.647s, the longest timer Node.js sets'],
        [{ command: '/bin/x', args: '-x -y' }, 'handler "exec": option "args" must be a list of strings'],
        [{ command: '/bin/x', env: ['A=1'] }, 'handler "exec": option "env" must be a map of variable names to values'],
        [{ command: '/bin/x', env: { 'A-B': '1' } }, 'handler "exec": option "env" has a variable name that is not [A-Za-z_][A-Za-z0-9_]*'],
        [{ command: '/bin/x', env: { A: { b: 1 } } }, 'handler "exec": option "env" must map "A" to a string'],
        [{ command: '/bin/x', list: [] }, 'handler "exec": option "list" must be a command: a string or a list of strings (program first)'],
        [{ command: '/bin/x', shell: true }, 'handler "exec": option "shell" is unknown'],
      ];
      for (const [options, message] of cases) expect((await configError('exec', options)).message).toBe(message);
    });

    it('rejects a NUL byte in the command, its arguments or the list command, naming the option and not the value', async () => {
      const secret = 's3cret\u0000tail'; // spawn would refuse it on every call
      const cases: [Record<string, unknown>, string][] = [
        [{ command: `/bin/${secret}` }, 'handler "exec": option "command" has a NUL byte'],
        [{ arg: `/bin/${secret}` }, 'handler "exec": option "command" has a NUL byte'],
        [{ command: '/bin/x', args: ['-x', secret] }, 'handler "exec": option "args" has a NUL byte in entry 1'],
        [{ command: '/bin/x', list: `/bin/${secret}` }, 'handler "exec": option "list" has a NUL byte'],
        [{ command: '/bin/x', list: ['/bin/list', secret] }, 'handler "exec": option "list" has a NUL byte in entry 1'],
      ];
      for (const [options, message] of cases) {
        const err = await configError('exec', options);
        expect(err.message).toBe(message);
        expect(inspect(err)).not.toContain('s3cret');
      }
    });
  });

  describe('webhook', () => {
    it('builds a WebhookSyncHandler from NAME=ARG or from its options', async () => {
      const fromArg = await make('webhook', { arg: 'http://127.0.0.1:1/hook' });
      closables.push(fromArg);
      expect(fromArg).toBeInstanceOf(WebhookSyncHandler);
      expect(isClosable(fromArg)).toBe(true);

      const pki = await createTestPki();
      const caFile = join(tmp.path, 'ca.pem');
      await writeFile(caFile, pki.ca.cert);
      const full = await make('webhook', {
        url: 'https://127.0.0.1:1/hook', headers: { 'X-A': ['1', '2'], 'X-B': '3' }, caFile, timeout: '5s',
      });
      closables.push(full);
      expect(full).toBeInstanceOf(WebhookSyncHandler);
      closables.push(await make('webhook', { url: 'http://127.0.0.1:1/', headers: [['X-A', '1'], ['X-A', '2']] }));
    });

    it('warns, naming the URL without its credentials, when it would post pods in clear beyond loopback', async () => {
      const warnings: string[] = [];
      const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
      for (const url of ['http://127.0.0.1:1/hook', 'http://[::1]:1/hook', 'http://localhost:1/hook', 'https://hooks.example/hook', 'http://user:sekrit@hooks.example/hook?token=t']) {
        closables.push(await builtinHandlers.webhook({ logger: log, nodeName: 'node-1', options: { url }, signal }));
      }
      expect(warnings.map((l) => JSON.parse(l) as { msg: string; url: string })).toMatchObject([
        { msg: 'webhook URL is http:// beyond loopback: pod specs and headers are sent unencrypted', url: 'http://hooks.example/hook?…' },
      ]);
      expect(warnings.join('')).not.toMatch(/sekrit|token=/);
    });

    it('rejects invalid options without quoting secret values', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{}, 'handler "webhook": option "url" is required (the URL to POST to)'],
        [{ url: 'not a url ?token=sekrit' }, 'handler "webhook": option "url" must be an absolute http or https URL'],
        [{ url: 'ftp://user:sekrit@host/x' }, 'handler "webhook": option "url" must be an absolute http or https URL'],
        [{ url: 'http://h/', headers: 'Authorization: sekrit' },
          'handler "webhook": option "headers" must be a map of header names to values or a list of [name, value] pairs'],
        [{ url: 'http://h/', headers: [['Authorization']] }, 'handler "webhook": option "headers" entry 0 must be a [name, value] pair of strings'],
        [{ url: 'http://h/', headers: { 'Bad Name': 'sekrit' } }, 'handler "webhook": option "headers" entry 0 has an invalid header name'],
        [{ url: 'http://h/', headers: [['X-A', 'ok'], ['Authorization', 'sekrit\r\nX-Evil: 1']] },
          'handler "webhook": option "headers" entry 1 ("Authorization") has a value with a control character or a character outside Latin-1'],
        [{ url: 'http://h/', headers: { 'X-Token': 'sekrit\u0001' } },
          'handler "webhook": option "headers" entry 0 ("X-Token") has a value with a control character or a character outside Latin-1'],
        [{ url: 'http://h/', headers: { 'X-Token': 'sekrit€' } },
          'handler "webhook": option "headers" entry 0 ("X-Token") has a value with a control character or a character outside Latin-1'],
        [{ url: 'http://h/', headers: { 'Content-Length': '10' } },
          'handler "webhook": option "headers" may not set "Content-Length" (the handler sets the request\'s framing)'],
        [{ url: 'http://us%zzer:sekrit@h/' }, 'handler "webhook": option "url" has user info that is not valid percent-encoding'],
        [{ url: 'http://h/', headers: { Authorization: 42 } }, 'handler "webhook": option "headers" must map "Authorization" to a string or a list of strings'],
        [{ url: 'http://h/', timeout: '10' }, 'handler "webhook": option "timeout" must be a duration like 30s'],
        [{ url: 'http://h/', timeout: 10 }, 'handler "webhook": option "timeout" must be a duration string like "30s", got the number 10'],
        [{ url: 'http://h/?token=sekrit\u0000' }, 'handler "webhook": option "url" has a NUL byte'], // not sent as %00
      ];
      for (const [options, message] of cases) {
        const err = await configError('webhook', options);
        expect(err.message).toBe(message);
        expect(inspect(err)).not.toContain('sekrit');
      }
    });

    it('rejects a caFile that cannot be read or holds no certificate', async () => {
      const missing = join(tmp.path, 'missing.pem');
      expect((await configError('webhook', { url: 'https://h/', caFile: missing })).message)
        .toBe(`handler "webhook": option "caFile": cannot read ${missing} (ENOENT: no such file or directory)`);
      const empty = join(tmp.path, 'empty.pem');
      await writeFile(empty, 'nothing here');
      expect((await configError('webhook', { url: 'https://h/', caFile: empty })).message)
        .toBe(`handler "webhook": option "caFile": ${empty} holds no PEM certificate`);
    });
  });
});

function inspect(value: unknown): string {
  return JSON.stringify(value, Object.getOwnPropertyNames(value)) + String(value);
}
