import { chmod, lstat, mkdir, readdir, readFile, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, watch } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { PodConfigError, type Pod } from '@podconfig/core';
import { makePod, tempDir } from '@podconfig/testing';
import { StateDirSyncHandler } from './state-dir-sync-handler.js';

const logger = pino({ level: 'silent' });
const signal = new AbortController().signal;

describe(StateDirSyncHandler.name, () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  let dir: string;
  let handler: StateDirSyncHandler;

  beforeEach(async () => {
    tmp = await tempDir('podconfig-state-dir-');
    dir = join(tmp.path, 'state', 'pods');
    handler = new StateDirSyncHandler({ dir, logger });
  });
  const fifos: string[] = [];
  afterEach(async () => {
    // A read blocked on a FIFO (before the fix) holds a libuv thread until a writer comes and goes: be that writer.
    for (const fifo of fifos.splice(0)) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: nobody has it open for reading.
      }
    }
    await tmp.cleanup();
  });
  const mkfifo = (path: string): void => {
    execFileSync('mkfifo', [path]);
    fifos.push(path);
  };

  const fileOf = (namespace: string, name: string): string => join(dir, `${namespace}_${name}.json`);
  const readPod = async (namespace: string, name: string): Promise<Pod> =>
    JSON.parse(await readFile(fileOf(namespace, name), 'utf8')) as Pod;

  describe('start()', () => {
    it('creates the directory and removes temp files a crashed run left behind', async () => {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, '.default_a.json.0123456789ab.tmp'), '{"partial');
      await writeFile(join(dir, '.keep-me'), 'not ours');
      await handler.start(signal);
      expect((await readdir(dir)).sort()).toEqual(['.keep-me']);
    });

    it('narrows a directory and pod files an earlier version left readable by others to 0700 and 0600', async () => {
      await mkdir(dir, { recursive: true, mode: 0o755 });
      await chmod(dir, 0o755);
      await writeFile(fileOf('default', 'web'), '{}', { mode: 0o644 });
      await chmod(fileOf('default', 'web'), 0o644);
      await writeFile(join(dir, 'notes.txt'), 'not ours', { mode: 0o644 });
      await mkdir(fileOf('default', 'x'), { mode: 0o755 });
      await chmod(fileOf('default', 'x'), 0o755);
      await handler.start(signal);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect((await stat(fileOf('default', 'web'))).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, 'notes.txt'))).mode & 0o777).toBe(0o644); // not a pod file: left alone
      expect((await stat(fileOf('default', 'x'))).mode & 0o777).toBe(0o755); // a directory named like one: not locked
    });

    it('narrows a directory given through a symlink (the directory, not the link), and leaves a linked pod file alone', async () => {
      const real = join(tmp.path, 'real');
      await mkdir(real, { mode: 0o755 });
      await chmod(real, 0o755);
      await mkdir(join(tmp.path, 'state'));
      await symlink(real, dir);
      const outside = join(tmp.path, 'outside.json');
      await writeFile(outside, '{}', { mode: 0o644 });
      await chmod(outside, 0o644);
      await symlink(outside, join(real, 'default_linked.json'));
      await handler.start(signal);
      expect((await stat(real)).mode & 0o777).toBe(0o700);
      expect((await stat(outside)).mode & 0o777).toBe(0o644); // an entry's link is not followed
    });

    it('does nothing when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      await handler.start(controller.signal);
      await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });

  describe('syncPod()', () => {
    it('creates the directory again when it was removed while running, and writes the pod', async () => {
      await handler.start(signal);
      await tmp.cleanup(); // the whole tree, as `rm -rf` of the state directory's parent
      const pod = makePod('web', { namespace: 'prod', uid: 'u1' });
      await handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      expect(await readPod('prod', 'web')).toEqual(pod);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    });

    it('writes the pod as JSON with mode 0600 (it may hold secrets) when it is created and updated', async () => {
      await handler.start(signal);
      const pod = makePod('web', { namespace: 'prod', uid: 'u1' });
      await handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      expect(await readPod('prod', 'web')).toEqual(pod);
      expect((await stat(fileOf('prod', 'web'))).mode & 0o777).toBe(0o600);

      const updated = makePod('web', { namespace: 'prod', uid: 'u1', image: 'nginx:2' });
      await handler.syncPod({ type: 'update', pod: updated, source: 'file', attempt: 1 }, signal);
      expect(await readPod('prod', 'web')).toEqual(updated);
      expect(await readdir(dir)).toEqual(['prod_web.json']);
    });

    it('does not rewrite the file when the content is unchanged', async () => {
      await handler.start(signal);
      const pod = makePod('web', { uid: 'u1' });
      await handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      const before = await stat(fileOf('default', 'web'));
      await handler.syncPod({ type: 'resync', pod: makePod('web', { uid: 'u1' }), source: 'file', attempt: 1 }, signal);
      await handler.syncPod({ type: 'create', pod, source: 'file', attempt: 2 }, signal);
      const after = await stat(fileOf('default', 'web'));
      expect(after.ino).toBe(before.ino); // every write renames a new inode into place
      expect(after.mtimeMs).toBe(before.mtimeMs);

      await handler.syncPod({ type: 'update', pod: makePod('web', { uid: 'u1', image: 'x:2' }), source: 'file', attempt: 1 },
        signal);
      expect((await stat(fileOf('default', 'web'))).ino).not.toBe(before.ino);
    });

    it('never exposes a partial file to a concurrent reader', async () => {
      await handler.start(signal);
      const big = (tag: string): Pod => makePod('big', { uid: 'u-big', labels: { tag }, annotations: { blob: tag.repeat(200_000) } });
      const versions = [big('a'), big('b')];
      const expected = new Set(versions.map((p) => JSON.stringify(p)));
      await handler.syncPod({ type: 'create', pod: versions[0]!, source: 'file', attempt: 1 }, signal);

      let writing = true;
      const reads: string[] = [];
      const reader = (async () => {
        while (writing) reads.push(await readFile(fileOf('default', 'big'), 'utf8'));
      })();
      for (let i = 1; i <= 10; i++) {
        await handler.syncPod({ type: 'update', pod: versions[i % 2]!, source: 'file', attempt: 1 }, signal);
      }
      writing = false;
      await reader;

      expect(reads.length).toBeGreaterThan(0);
      for (const text of reads) expect(expected.has(JSON.stringify(JSON.parse(text)))).toBe(true);
      expect(await readdir(dir)).toEqual(['default_big.json']); // no temp files left
    });

    it('throws a retryable PODCONFIG_HANDLER_FAILED for a pod whose name cannot be a file name', async () => {
      await handler.start(signal);
      for (const [namespace, name] of [['prod', '../../etc'], ['prod', '.x'], ['prod', ''], ['a_b', 'web']] as const) {
        const pod = makePod(name, { namespace });
        const err: unknown = await handler.syncPod({ type: 'create', pod, source: 'http', attempt: 1 }, signal).catch((e: unknown) => e);
        expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_FAILED')).toBe(true);
        expect((err as PodConfigError).retryable).toBe(true); // the README: every state-dir error is retryable
      }
      expect(await readdir(dir)).toEqual([]);
    });

    it('throws PODCONFIG_HANDLER_FAILED when the directory cannot be written', async () => {
      // A file where the directory belongs (root may write anywhere else).
      await mkdir(join(tmp.path, 'state'));
      await writeFile(dir, 'not a directory');
      const err: unknown = await handler.syncPod({ type: 'create', pod: makePod('web'), source: 'file', attempt: 1 }, signal)
        .catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_FAILED')).toBe(true);
      expect((err as Error).cause).toMatchObject({ code: 'ENOTDIR' });
    });

    it('throws a retryable PODCONFIG_HANDLER_FAILED naming the path when a FIFO is where the pod file belongs', async () => {
      await handler.start(signal);
      const pod = makePod('web');
      mkfifo(fileOf('default', 'web')); // no writer ever comes: a blocking read would wait for ever
      const err: unknown = await handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal).catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_FAILED')).toBe(true);
      expect((err as PodConfigError).retryable).toBe(true);
      expect((err as Error).message).toBe(
        `state-dir: cannot write ${fileOf('default', 'web')} for pod default/web: it is not a regular file (a FIFO, a device or a directory)`);
      expect((await lstat(fileOf('default', 'web'))).isFIFO()).toBe(true); // left as it was
    });
  });

  describe('killPod()', () => {
    it('throws a retryable PODCONFIG_HANDLER_FAILED naming the path, and keeps it, when a FIFO is where the pod file belongs', async () => {
      await handler.start(signal);
      mkfifo(fileOf('default', 'web'));
      const err: unknown = await handler.killPod({ reason: 'removed', pod: makePod('web'), gracePeriodSeconds: 30, attempt: 1 }, signal)
        .catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_FAILED')).toBe(true);
      expect((err as PodConfigError).retryable).toBe(true);
      expect((err as Error).message).toContain(`cannot remove ${fileOf('default', 'web')} for pod default/web: it is not a regular file`);
      expect((await lstat(fileOf('default', 'web'))).isFIFO()).toBe(true);
    });

    it('removes the file, and succeeds again when it is already gone', async () => {
      await handler.start(signal);
      const pod = makePod('web', { uid: 'u1' });
      await handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      await handler.killPod({ reason: 'removed', pod, gracePeriodSeconds: 30, attempt: 1 }, signal);
      expect(await readdir(dir)).toEqual([]);
      await handler.killPod({ reason: 'removed', pod, gracePeriodSeconds: 30, attempt: 2 }, signal);
      expect(await readdir(dir)).toEqual([]);
    });

    it('never removes the file of a pod that replaces the killed one under the same name while the kill runs', async () => {
      await handler.start(signal);
      // A big old file: the kill's read of it takes long enough for the replacement's rename to land meanwhile.
      const padding = { 'podconfig.test/padding': 'x'.repeat(2 * 1024 * 1024) };
      for (let i = 0; i < 5; i++) {
        const old = makePod('web', { uid: `old-${i}`, annotations: padding });
        const replacement = makePod('web', { uid: `new-${i}` });
        await handler.syncPod({ type: 'create', pod: old, source: 'api', attempt: 1 }, signal);
        // The kill starts once the replacement's temp file is there: its rename comes during the kill's read.
        const tempSeen = new Promise<void>((resolve) => {
          const watcher = watch(dir, (_event, name) => {
            if (name?.endsWith('.tmp') === true) {
              watcher.close();
              resolve();
            }
          });
        });
        const sync = handler.syncPod({ type: 'create', pod: replacement, source: 'api', attempt: 1 }, signal);
        await tempSeen;
        await handler.killPod({ reason: 'removed', pod: old, gracePeriodSeconds: 30, attempt: 1 }, signal);
        await sync;
        expect((await readPod('default', 'web')).metadata?.uid, `round ${i}`).toBe(`new-${i}`);
      }
    });

    it('writes a pod whose file name is up to 255 bytes, and kills one whose name could never be a file', async () => {
      await handler.start(signal);
      const long = makePod('a'.repeat(247 - 'default_'.length)); // the file name: 247 + ".json" = 252 bytes
      await handler.syncPod({ type: 'create', pod: long, source: 'file', attempt: 1 }, signal);
      expect(await readdir(dir)).toEqual([`default_${long.metadata!.name!}.json`]);
      const tooLong = makePod('b'.repeat(253));
      await handler.killPod({ reason: 'removed', pod: tooLong, gracePeriodSeconds: 30, attempt: 1 }, signal);
    });

    it('keeps a file that now holds another pod with the same name', async () => {
      await handler.start(signal);
      const replacement = makePod('web', { uid: 'new-uid' });
      await handler.syncPod({ type: 'create', pod: replacement, source: 'file', attempt: 1 }, signal);
      const old = { metadata: { uid: 'old-uid', namespace: 'default', name: 'web' } };
      await handler.killPod({ reason: 'orphaned', pod: old, gracePeriodSeconds: 30, attempt: 1 }, signal);
      expect(await readPod('default', 'web')).toEqual(replacement);
    });
  });

  describe('listPods()', () => {
    it('reports the pods in the directory, including files from a previous run', async () => {
      await mkdir(dir, { recursive: true });
      await writeFile(fileOf('kube-system', 'etcd-node1'), JSON.stringify(makePod('etcd-node1', { namespace: 'kube-system', uid: 'u-etcd' })));
      await writeFile(fileOf('default', 'broken'), '{not json');
      await writeFile(join(dir, '.default_hidden.json'), JSON.stringify(makePod('hidden')));
      await writeFile(join(dir, 'README.txt'), 'not a pod');
      await handler.start(signal);
      await handler.syncPod({ type: 'create', pod: makePod('web', { uid: 'u-web' }), source: 'file', attempt: 1 }, signal);

      expect(await handler.listPods(signal)).toEqual([
        { namespace: 'default', name: 'broken' },
        { uid: 'u-web', namespace: 'default', name: 'web' },
        { uid: 'u-etcd', namespace: 'kube-system', name: 'etcd-node1' },
      ]);
    });

    it('reports only regular files with names a pod could have, so that every one it reports a kill can clear', async () => {
      await mkdir(join(dir, 'default_sub.json'), { recursive: true });
      execFileSync('mkfifo', [join(dir, 'default_fifo.json')]);
      for (const name of ['default_.hidden.json', 'default_sp ace.json', 'nä_x.json']) await writeFile(join(dir, name), '{}');
      await handler.start(signal);
      expect(await handler.listPods(signal)).toEqual([]);
    });

    it('reads no file larger than 256 MiB: its UID counts as unknown, so a kill removes it; a sync replaces a file of another size', async () => {
      await mkdir(dir, { recursive: true });
      // Valid JSON, padded with spaces past the limit: read, it would give its UID.
      const huge = Buffer.alloc(256 * 1024 * 1024 + 1, ' ');
      huge.write(JSON.stringify(makePod('huge', { uid: 'u-huge' })));
      await writeFile(fileOf('default', 'huge'), huge);
      // Sparse: as large on the file system's word, not on the disk.
      await writeFile(fileOf('default', 'big'), JSON.stringify(makePod('big', { uid: 'u-big' })));
      await truncate(fileOf('default', 'big'), 256 * 1024 * 1024 + 1);
      await handler.start(signal);
      expect(await handler.listPods(signal)).toEqual([{ namespace: 'default', name: 'big' }, { namespace: 'default', name: 'huge' }]);
      // A kill of another UID removes it: the file's own UID is not known, as for a file that does not parse.
      await handler.killPod({ reason: 'orphaned', pod: { metadata: { uid: 'u-other', namespace: 'default', name: 'huge' } }, gracePeriodSeconds: 0, attempt: 1 }, signal);
      const pod = makePod('big', { uid: 'u-big' });
      await handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      expect(await readPod('default', 'big')).toEqual(pod);
      expect(await handler.listPods(signal)).toEqual([{ uid: 'u-big', namespace: 'default', name: 'big' }]);
    });

    it('reports nothing when the directory does not exist', async () => {
      expect(await handler.listPods(signal)).toEqual([]);
    });

    it('lets a previous run\'s orphan be killed by what it reports', async () => {
      await mkdir(dir, { recursive: true });
      await writeFile(fileOf('default', 'old'), JSON.stringify(makePod('old', { uid: 'u-old' })));
      const next = new StateDirSyncHandler({ dir, logger });
      await next.start(signal);
      const [orphan] = await next.listPods(signal);
      await next.killPod({ reason: 'orphaned', pod: { metadata: { ...orphan } }, gracePeriodSeconds: 0, attempt: 1 }, signal);
      expect(await next.listPods(signal)).toEqual([]);
    });
  });
});
