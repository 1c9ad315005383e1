import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, open, readdir, readlink, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PodConfigError } from '@podconfig/core';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { ManifestInvalidError } from './manifest-invalid-error.js';
import { MAX_MANIFEST_BYTES } from './max-manifest-bytes.js';
import { readManifestFile } from './read-manifest-file.js';

const signal = new AbortController().signal;

async function failure(promise: Promise<unknown>): Promise<ManifestInvalidError> {
  const err: unknown = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ManifestInvalidError);
  return err as ManifestInvalidError;
}

describe(readManifestFile.name, () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('podconfig-manifest-');
  });
  afterEach(async () => {
    await dir.cleanup();
  });

  it('reads a whole small file', async () => {
    const path = join(dir.path, 'web.yaml');
    await writeFile(path, podManifestYaml('web'));
    expect((await readManifestFile(path, signal)).toString('utf8')).toBe(podManifestYaml('web'));
  });

  it('reads files around the 64 KiB chunk whole, none of them sharing bytes with the next read', async () => {
    const sizes = [1, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 3 * 64 * 1024, 10];
    const read: Buffer[] = [];
    for (const [i, size] of sizes.entries()) {
      const path = join(dir.path, `m${i}.yaml`);
      await writeFile(path, Buffer.alloc(size, 0x61 + i));
      read.push(await readManifestFile(path, signal));
    }
    // Each file is read into a reused chunk and copied out: an earlier result must not change with a later read.
    expect(read.map((b) => b.length)).toEqual(sizes);
    read.forEach((b, i) => expect(b.every((byte) => byte === 0x61 + i)).toBe(true));
  });

  it('reads a FIFO with no writer as no bytes instead of waiting for one', async () => {
    const path = join(dir.path, 'fifo.yaml');
    await promisify(execFile)('mkfifo', [path]);
    expect((await readManifestFile(path, signal)).length).toBe(0);
  });

  it('reads an empty file as no bytes', async () => {
    const path = join(dir.path, 'empty.yaml');
    await writeFile(path, '');
    expect((await readManifestFile(path, signal)).length).toBe(0);
  });

  it('reads a file of exactly MAX_MANIFEST_BYTES', async () => {
    const path = join(dir.path, 'exact.yaml');
    await writeFile(path, Buffer.alloc(MAX_MANIFEST_BYTES, 0x20));
    expect((await readManifestFile(path, signal)).length).toBe(MAX_MANIFEST_BYTES);
  });

  it('rejects a file of MAX_MANIFEST_BYTES + 1 as too large', async () => {
    const path = join(dir.path, 'one-over.yaml');
    await writeFile(path, Buffer.alloc(MAX_MANIFEST_BYTES + 1, 0x20));
    const err = await failure(readManifestFile(path, signal));
    expect(err.code).toBe('PODCONFIG_MANIFEST_TOO_LARGE');
  });

  it('rejects a 20 MiB file as too large', async () => {
    const path = join(dir.path, 'huge.yaml');
    await writeFile(path, '');
    await truncate(path, 20 * 1024 * 1024);
    const err = await failure(readManifestFile(path, signal));
    expect(err.code).toBe('PODCONFIG_MANIFEST_TOO_LARGE');
    expect(err.origin).toBe(path);
    expect(err.message).toBe(`${path}: file is larger than the limit of ${MAX_MANIFEST_BYTES} bytes`);
    // No pod's manifest is that large: a file source holds no orphan kills for it.
    expect(err.mayDefinePod).toBe(false);
  });

  it('stops reading at the cap instead of reading everything (an endless file)', async () => {
    // /dev/zero never ends: only a reader that enforces the cap while streaming returns at all.
    if (!existsSync('/dev/zero')) throw new Error('this test needs /dev/zero (Linux)');
    const path = join(dir.path, 'endless.yaml');
    await symlink('/dev/zero', path);
    expect((await failure(readManifestFile(path, signal))).code).toBe('PODCONFIG_MANIFEST_TOO_LARGE');
  });

  it('turns a missing file into PODCONFIG_MANIFEST_INVALID with the ENOENT error as cause', async () => {
    const path = join(dir.path, 'gone.yaml');
    const err = await failure(readManifestFile(path, signal));
    expect(PodConfigError.is(err, 'PODCONFIG_MANIFEST_INVALID')).toBe(true);
    expect((err.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(err.message).toBe(`${path}: cannot read the file (ENOENT: no such file or directory)`);
  });

  it('turns reading a directory into PODCONFIG_MANIFEST_INVALID (EISDIR)', async () => {
    const path = join(dir.path, 'sub');
    await mkdir(path);
    expect(((await failure(readManifestFile(path, signal))).cause as NodeJS.ErrnoException).code).toBe('EISDIR');
  });

  it('turns a permission error into PODCONFIG_MANIFEST_INVALID (EACCES) when not root', async () => {
    const path = join(dir.path, 'locked.yaml');
    await writeFile(path, podManifestYaml('web'));
    await chmod(path, 0o000);
    if (process.getuid?.() === 0) {
      // root reads anyway: the file comes back whole
      expect((await readManifestFile(path, signal)).toString('utf8')).toBe(podManifestYaml('web'));
    } else {
      expect(((await failure(readManifestFile(path, signal))).cause as NodeJS.ErrnoException).code).toBe('EACCES');
    }
  });

  it('rejects with the abort reason when the signal is already aborted, and closes the file', async () => {
    const path = join(dir.path, 'web.yaml');
    await writeFile(path, podManifestYaml('web'));
    const controller = new AbortController();
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(readManifestFile(path, controller.signal)).rejects.toBe(reason);
    // the file is not held open: it can be opened exclusively for writing and removed by cleanup
    const handle = await open(path, 'r+');
    await handle.close();
  });

  it('rejects with the abort reason when aborted while a small file is being read, and closes the file', async () => {
    const path = join(dir.path, 'web.yaml');
    await writeFile(path, podManifestYaml('web'));
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const reading = readManifestFile(path, controller.signal);
    controller.abort(reason); // the open is under way: the one read a small file needs comes back after it
    await expect(reading).rejects.toBe(reason);
    const handle = await open(path, 'r+');
    await handle.close();
  });

  it('closes every file it opens, whether it reads it, refuses it as too large or is aborted (no descriptor left)', async () => {
    if (!existsSync('/proc/self/fd')) throw new Error('this test needs /proc/self/fd (Linux)');
    const openInDir = async (): Promise<string[]> => {
      const targets = await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
      return targets.filter((t) => t.startsWith(dir.path));
    };
    const small = join(dir.path, 'web.yaml');
    await writeFile(small, podManifestYaml('web'));
    const large = join(dir.path, 'large.yaml');
    await writeFile(large, '');
    await truncate(large, MAX_MANIFEST_BYTES + 1);
    await Promise.all(Array.from({ length: 50 }, () => readManifestFile(small, signal)));
    await failure(readManifestFile(large, signal));
    await failure(readManifestFile(dir.path, signal)); // EISDIR at the read, after the open
    const controller = new AbortController();
    const reading = readManifestFile(large, controller.signal);
    setImmediate(() => controller.abort(new Error('shutting down')));
    await reading.catch(() => undefined);
    expect(await openInDir()).toEqual([]);
  });

  it('rejects with the abort reason when aborted while reading an endless file', async () => {
    if (!existsSync('/dev/zero')) throw new Error('this test needs /dev/zero (Linux)');
    const path = join(dir.path, 'endless.yaml');
    await symlink('/dev/zero', path);
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const reading = readManifestFile(path, controller.signal);
    setImmediate(() => controller.abort(reason)); // the read loop needs ~160 chunk reads to reach the cap
    await expect(reading).rejects.toBe(reason);
  });
});
