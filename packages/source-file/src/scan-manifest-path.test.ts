import { execFile } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PodConfigError } from '@podconfig/core';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { manifestNameFilter } from './manifest-name-filter.js';
import { READ_AHEAD, scanManifestPath, type ScannedEntry } from './scan-manifest-path.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function makeDir(): Promise<string> {
  const dir = await tempDir('podconfig-scan-');
  cleanups.push(dir.cleanup);
  return dir.path;
}

const filter = manifestNameFilter({ manifestFilter: 'default', extensions: undefined });
const signal = new AbortController().signal;
const text = (entry: ScannedEntry | undefined): string => (entry?.kind === 'manifest' ? entry.data.toString() : `<${entry?.kind}>`);

describe('scanManifestPath', () => {
  it('reads a directory\'s manifests at most READ_AHEAD entries ahead of the one asked for', async () => {
    const dir = await makeDir();
    const names = Array.from({ length: READ_AHEAD + 2 }, (_, i) => `m${String(i).padStart(3, '0')}`); // listed in byte order
    for (const name of names) await writeFile(join(dir, `${name}.yaml`), podManifestYaml(name));
    const result = await scanManifestPath(dir, { filter, maxEntries: names.length }, signal);
    if (result.mode !== 'directory') throw new Error(`expected a directory, got ${result.mode}`);
    const read: string[] = [];
    const last = names.at(-1)!;
    for await (const entry of result.entries) {
      read.push(text(entry));
      // The last file is READ_AHEAD + 1 entries behind the first: not read yet when the first is handed out,
      // so what it holds now is what the scan reads.
      if (read.length === 1) await writeFile(join(dir, `${last}.yaml`), podManifestYaml(last, { image: 'later:1' }));
    }
    expect(read).toEqual([...names.slice(0, -1).map((name) => podManifestYaml(name)), podManifestYaml(last, { image: 'later:1' })]);
  });

  it('stops at an abort with reads still ahead, leaving none of them unhandled', async () => {
    const dir = await makeDir();
    for (let i = 0; i < 3 * READ_AHEAD; i++) await writeFile(join(dir, `m${i}.yaml`), podManifestYaml(`m${i}`));
    const controller = new AbortController();
    const result = await scanManifestPath(dir, { filter, maxEntries: 100 }, controller.signal);
    if (result.mode !== 'directory') throw new Error(`expected a directory, got ${result.mode}`);
    const iterator = result.entries[Symbol.asyncIterator]();
    expect(text((await iterator.next()).value)).toBe(podManifestYaml('m0'));
    controller.abort(new Error('stop'));
    await expect(iterator.next()).rejects.toThrow('stop');
    // The reads that were ahead settle (rejecting with the abort) after this; an unhandled one fails the run.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  it('lists entries in byte order of the full path, skipped ones included', async () => {
    const dir = await makeDir();
    await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
    await writeFile(join(dir, 'B.yaml'), podManifestYaml('B'));
    await writeFile(join(dir, '.a.yaml'), podManifestYaml('a'));
    await mkdir(join(dir, 'c'));
    const result = await scanManifestPath(dir, { filter, maxEntries: 10 }, signal);
    if (result.mode !== 'directory') throw new Error(`expected a directory, got ${result.mode}`);
    const seen: string[] = [];
    for await (const entry of result.entries) seen.push(`${entry.kind} ${entry.file.slice(dir.length + 1)}`);
    expect(seen).toEqual(['skipped .a.yaml', 'manifest B.yaml', 'manifest b.yaml', 'skipped c']);
  });

  it('reports a file whose name is not UTF-8 as skipped for it, instead of passing over it; a sub-directory so named stays a directory', async () => {
    const dir = await makeDir();
    const latin1 = (name: string, byte: number, rest: string): Buffer => Buffer.concat([Buffer.from(`${dir}/${name}`), Buffer.from([byte]), Buffer.from(rest)]);
    await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
    await writeFile(latin1('caf', 0xe9, '.yaml'), podManifestYaml('cafe'));
    await mkdir(latin1('sub', 0xe9, ''));
    await writeFile(join(dir, 'cafz.yaml'), podManifestYaml('z'));
    // Not counted as an entry to read: one manifest more than maxEntries would refuse the directory.
    const result = await scanManifestPath(dir, { filter, maxEntries: 2 }, signal);
    if (result.mode !== 'directory') throw new Error(`expected a directory, got ${result.mode}`);
    const seen: string[] = [];
    for await (const entry of result.entries) seen.push(`${entry.kind} ${entry.file.slice(dir.length + 1)}${entry.kind === 'skipped' ? ` ${entry.reason}` : ''}`);
    expect(seen).toEqual(['manifest a.yaml', 'manifest cafz.yaml', 'skipped caf\uFFFD.yaml name-not-utf8', 'skipped sub\uFFFD directory']);
  });

  it('reads what the listing says is a file, follows symlinks, and skips a FIFO without opening it', async () => {
    const dir = await makeDir();
    const elsewhere = await makeDir();
    await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
    await writeFile(join(elsewhere, 'real.yaml'), podManifestYaml('real'));
    await symlink(join(elsewhere, 'real.yaml'), join(dir, 'b-link.yaml'));
    await symlink(elsewhere, join(dir, 'c-dirlink'));
    await symlink(join(elsewhere, 'nowhere.yaml'), join(dir, 'd-dangling.yaml'));
    await promisify(execFile)('mkfifo', [join(dir, 'e-fifo.yaml')]);
    const result = await scanManifestPath(dir, { filter, maxEntries: 10 }, signal);
    if (result.mode !== 'directory') throw new Error(`expected a directory, got ${result.mode}`);
    const what = (entry: ScannedEntry): string =>
      entry.kind === 'manifest' ? entry.data.toString() : entry.kind === 'skipped' ? entry.reason : entry.error.message;
    const seen: string[] = [];
    // Opening the FIFO for reading would wait for a writer that never comes: the scan would not end.
    for await (const entry of result.entries) seen.push(`${entry.file.slice(dir.length + 1)} ${entry.kind}: ${what(entry)}`);
    expect(seen).toEqual([
      `a.yaml manifest: ${podManifestYaml('a')}`,
      `b-link.yaml manifest: ${podManifestYaml('real')}`,
      'c-dirlink skipped: directory',
      'd-dangling.yaml unreadable: dangling symlink',
      'e-fifo.yaml skipped: not-regular',
    ]);
  });

  it('skips a symlink to a FIFO without opening it', async () => {
    const dir = await makeDir();
    const elsewhere = await makeDir();
    await promisify(execFile)('mkfifo', [join(elsewhere, 'fifo')]);
    await symlink(join(elsewhere, 'fifo'), join(dir, 'a-fifo-link.yaml'));
    await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
    const result = await scanManifestPath(dir, { filter, maxEntries: 10 }, signal);
    if (result.mode !== 'directory') throw new Error(`expected a directory, got ${result.mode}`);
    const seen: string[] = [];
    for await (const entry of result.entries) seen.push(`${entry.file.slice(dir.length + 1)} ${entry.kind === 'skipped' ? entry.reason : text(entry)}`);
    expect(seen).toEqual(['a-fifo-link.yaml not-regular', `b.yaml ${podManifestYaml('b')}`]);
  });

  it('fails, reading nothing, when a directory has more entries to read than maxEntries; filtered names, sub-directories and FIFOs do not count', async () => {
    const dir = await makeDir();
    for (const name of ['a.yaml', 'b.yaml', 'c.yaml', '.x.yaml', 'd.yaml~']) await writeFile(join(dir, name), podManifestYaml('p'));
    for (const name of ['sub-1', 'sub-2', 'sub-3']) await mkdir(join(dir, name));
    await promisify(execFile)('mkfifo', [join(dir, 'fifo.yaml')]);
    const atLimit = await scanManifestPath(dir, { filter, maxEntries: 3 }, signal);
    expect(atLimit.mode).toBe('directory');
    const over = await scanManifestPath(dir, { filter, maxEntries: 2 }, signal);
    expect(over).toMatchObject({ mode: 'error', other: false, directory: true });
    if (over.mode !== 'error') throw new Error('expected an error');
    expect(PodConfigError.is(over.error, 'PODCONFIG_SOURCE_UNAVAILABLE')).toBe(true);
    expect(over.error.message).toBe('manifest directory has 3 entries to read, more than the limit of 2');
  });

  it('reads a single file at once, and reports a missing path as missing', async () => {
    const dir = await makeDir();
    const file = join(dir, 'pod.yaml');
    await writeFile(file, podManifestYaml('a'));
    const result = await scanManifestPath(file, { filter, maxEntries: 1 }, signal);
    expect(result.mode).toBe('file');
    if (result.mode === 'file') expect(text(result.entries[0])).toBe(podManifestYaml('a'));
    expect(await scanManifestPath(join(dir, 'nope'), { filter, maxEntries: 1 }, signal)).toEqual({ mode: 'missing' });
    // A path below a regular file (ENOTDIR) is missing too, not an error.
    expect(await scanManifestPath(join(file, 'sub'), { filter, maxEntries: 1 }, signal)).toEqual({ mode: 'missing' });
  });
});
