import type { Dirent, Stats } from 'node:fs';
import { readdir, stat, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { PodConfigError, SourceUnavailableError } from '@podconfig/core';
import { readManifestFile } from '@podconfig/manifest';
import type { IgnoreReason } from './manifest-name-filter.js';

/** One directory entry (or the single file) as the scan found it. */
export type ScannedEntry =
  /** A regular file (symlinks followed) and its bytes, read with the 10 MiB cap. */
  | { readonly kind: 'manifest'; readonly file: string; readonly data: Buffer }
  /** It exists but could not be read: a dangling symlink, a symlink loop, too large, an I/O error. */
  | { readonly kind: 'unreadable'; readonly file: string; readonly error: PodConfigError }
  /** Not a manifest: filtered by name, a sub-directory ("not recursing"), or not a regular file. */
  | { readonly kind: 'skipped'; readonly file: string; readonly reason: SkipReason };

export type ScanResult =
  | { readonly mode: 'missing' }
  /**
   * The path cannot be used now. `other`: it is a socket, device, …; `directory`: it is a directory
   * whose listing failed, or that holds more than `maxEntries` entries to read.
   */
  | { readonly mode: 'error'; readonly error: PodConfigError; readonly other: boolean; readonly directory: boolean }
  /**
   * A single file: its one entry, read. A directory: `entries` is lazy and single-use: manifests are
   * read at most {@link READ_AHEAD} entries ahead of the one asked for, so a consumer that handles one
   * entry before asking for the next holds at most `READ_AHEAD + 1` files' bytes at a time.
   */
  | { readonly mode: 'file'; readonly stat: Stats; readonly entries: readonly [ScannedEntry] }
  | { readonly mode: 'directory'; readonly stat: Stats; readonly entries: AsyncIterable<ScannedEntry> };

export interface ScanOptions {
  readonly filter: (name: string) => IgnoreReason | undefined;
  /**
   * Most directory entries a scan considers: names that pass `filter` (each costs a read when it is a
   * file, and a `stat` first when it is a symlink). More than this makes the scan an error without
   * reading any of them.
   */
  readonly maxEntries: number;
}

/**
 * One full listing of the manifest path (spec §2.2): stat following symlinks; a directory is listed
 * non-recursively in byte order of the full path and its entries are read as they are iterated, a few
 * ahead; a regular file is read on its own. Entries that vanish while the scan runs are left
 * out, as if the scan had started a moment later.
 */
export async function scanManifestPath(path: string, options: ScanOptions, signal: AbortSignal): Promise<ScanResult> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch (err: unknown) {
    if (isNotFound(err)) return { mode: 'missing' };
    const error = new SourceUnavailableError(`cannot stat manifest path: ${errCode(err)}`, { cause: err });
    return { mode: 'error', other: false, directory: false, error };
  }
  if (st.isFile()) {
    const entry = await readEntry(path, signal);
    // The file went away between stat and read: the same as not being there.
    return entry === undefined ? { mode: 'missing' } : { mode: 'file', stat: st, entries: [entry] };
  }
  if (!st.isDirectory()) {
    return {
      mode: 'error',
      other: true,
      directory: false,
      error: new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', 'manifest path is not a directory or a regular file', { retryable: true }),
    };
  }
  let listed: Dirent<Buffer>[];
  try {
    // As bytes: a name that is not UTF-8 would come back with U+FFFD in it, a name no open() finds.
    listed = await readdir(path, { withFileTypes: true, encoding: 'buffer' });
  } catch (err: unknown) {
    if (isNotFound(err)) return { mode: 'missing' };
    const error = new SourceUnavailableError(`cannot list manifest directory: ${errCode(err)}`, { cause: err });
    return { mode: 'error', other: false, directory: true, error };
  }
  const prefix = Buffer.from(join(path, '/'));
  const files = listed.map((d) => {
    const name = d.name.toString('utf8');
    const file = join(path, name);
    const listedAs = listedType(d);
    const type: ListedType = (listedAs === 'file' || listedAs === 'symlink') && !Buffer.from(name).equals(d.name) ? 'not-utf8' : listedAs;
    return { file, order: Buffer.concat([prefix, d.name]), skip: options.filter(name), type };
  });
  // What a scan reads: sub-directories and special files are reported, not read, so they do not count.
  const candidates = files.reduce((n, f) => (f.skip === undefined && (f.type === 'file' || f.type === 'symlink') ? n + 1 : n), 0);
  if (candidates > options.maxEntries) {
    const error = new PodConfigError(
      'PODCONFIG_SOURCE_UNAVAILABLE',
      `manifest directory has ${candidates} entries to read, more than the limit of ${options.maxEntries}`,
      { retryable: true },
    );
    return { mode: 'error', other: false, directory: true, error };
  }
  files.sort((a, b) => Buffer.compare(a.order, b.order));
  return { mode: 'directory', stat: st, entries: directoryEntries(files, signal) };
}

/**
 * How many entries are read ahead of the one the consumer is handling. A listed regular file is read in
 * three threadpool round trips (open, read, close); a symlink costs a `stat` first. Each round trip
 * wakes a threadpool thread, which on a small VM takes the CPU from the decoding on the main thread;
 * 16 in flight made a 1,000-file first set faster than 4 or 8, and 64 no faster (test/bench/PROFILING.md's
 * twelfth pass). At most this many files' bytes are held besides the one handed out.
 */
export const READ_AHEAD = 16;

/** Why a listed entry is not read: the name filters', or what the entry is. */
export type SkipReason = IgnoreReason | 'directory' | 'not-regular' | 'name-not-utf8';

/**
 * What the listing says an entry is (`readdir`'s file types; Node.js `lstat`s where the file system does
 * not say). Only a symlink needs a `stat` to know what it points to. `not-utf8`: a file or symlink whose name
 * is not UTF-8, which this scan cannot name to open it.
 */
type ListedType = 'file' | 'directory' | 'symlink' | 'other' | 'not-utf8';

function listedType(d: Dirent<Buffer>): ListedType {
  if (d.isFile()) return 'file';
  if (d.isDirectory()) return 'directory';
  return d.isSymbolicLink() ? 'symlink' : 'other';
}

/**
 * The entries of a listed directory, in the listing's order, each resolved and read at most
 * {@link READ_AHEAD} entries ahead of the consumer: at most that many files' bytes besides the one
 * handed out are held at once.
 */
async function* directoryEntries(
  files: readonly { readonly file: string; readonly skip: IgnoreReason | undefined; readonly type: ListedType }[],
  signal: AbortSignal,
): AsyncGenerator<ScannedEntry, void, undefined> {
  const ahead: Promise<ScannedEntry | undefined>[] = [];
  let next = 0;
  while (next < files.length || ahead.length > 0) {
    while (next < files.length && ahead.length < READ_AHEAD) {
      const { file, skip, type } = files[next++]!;
      const resolving = resolveEntry(file, skip, type, signal);
      // Awaited in turn below; one left behind (abort, the consumer stopping) must not go unhandled.
      resolving.catch(() => undefined);
      ahead.push(resolving);
    }
    signal.throwIfAborted();
    const entry = await ahead.shift();
    if (entry !== undefined) yield entry;
  }
}

/**
 * One listed name as the scan reports it; undefined when it was deleted while the directory was listed.
 * A symlink is followed with a `stat`; other entries are what the listing says they are. A file replaced
 * by something else after the listing is read all the same: a directory fails with `EISDIR`, and
 * `readManifestFile` does not block on a FIFO.
 */
async function resolveEntry(
  file: string,
  skip: IgnoreReason | undefined,
  type: ListedType,
  signal: AbortSignal,
): Promise<ScannedEntry | undefined> {
  if (skip !== undefined) return { kind: 'skipped', file, reason: skip };
  if (type === 'file') return readEntry(file, signal);
  if (type === 'directory') return { kind: 'skipped', file, reason: 'directory' };
  if (type === 'other') return { kind: 'skipped', file, reason: 'not-regular' };
  // Reported, not passed over in silence: the kubelet (Go) reads such a file. Its name here is a lossy decoding (two
  // such names may read alike), so it is skipped, not an invalid manifest whose last good pod a name could bring back.
  if (type === 'not-utf8') return { kind: 'skipped', file, reason: 'name-not-utf8' };
  let entryStat: Stats;
  try {
    entryStat = await stat(file); // follows symlinks
  } catch (err: unknown) {
    const dangling = isNotFound(err) && (await exists(file));
    if (isNotFound(err) && !dangling) return undefined; // deleted while we listed
    const message = dangling ? 'dangling symlink' : `cannot stat manifest: ${errCode(err)}`;
    return { kind: 'unreadable', file, error: new PodConfigError('PODCONFIG_MANIFEST_INVALID', message, { cause: err }) };
  }
  if (entryStat.isDirectory()) return { kind: 'skipped', file, reason: 'directory' };
  if (!entryStat.isFile()) return { kind: 'skipped', file, reason: 'not-regular' };
  return readEntry(file, signal);
}

async function readEntry(file: string, signal: AbortSignal): Promise<ScannedEntry | undefined> {
  try {
    return { kind: 'manifest', file, data: await readManifestFile(file, signal) };
  } catch (err: unknown) {
    signal.throwIfAborted();
    if (isNotFound(err)) return undefined; // vanished mid-scan: the kubelet suppresses this error too
    const error = PodConfigError.is(err)
      ? err
      : new PodConfigError('PODCONFIG_MANIFEST_INVALID', `cannot read manifest: ${errCode(err)}`, { cause: err });
    return { kind: 'unreadable', file, error };
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** ENOENT or ENOTDIR, on the error or anywhere down its `cause` chain (readManifestFile may wrap it). */
export function isNotFound(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function errCode(err: unknown): string {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
}
