import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import {
  PodConfigError, podRef, podUid,
  type ActualPod, type KillPodRequest, type Pod, type PodLister, type StartableHandler, type SyncHandler,
  type SyncPodRequest,
} from '@podconfig/core';
import { componentLogger } from './component-logger.js';
import { nonEmptyString } from './constructor-checks.js';

export interface StateDirSyncHandlerOptions {
  /** The directory that mirrors the desired pod set; created by `start()`. */
  readonly dir: string;
  readonly logger: Logger;
}

/** `<namespace>_<name>.json`; a namespace (a DNS label) never contains `_`. */
const POD_FILE = /^([^._][^_]*)_([^/]+)\.json$/;
/**
 * Our temp files: `.<12 hex>.tmp` (short, so that a pod file name of up to 255 bytes still has one), and
 * `.<namespace>_<name>.json.<12 hex>.tmp` from earlier versions.
 */
const TEMP_FILE = /^\.(?:.+\.json\.)?[0-9a-f]{12}\.tmp$/;
const NAMESPACE = /^[A-Za-z0-9][A-Za-z0-9.-]*$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Keeps `dir/<namespace>_<name>.json` equal to the desired pod set: `syncPod` writes the pod as
 * JSON atomically (dot-prefixed temp file in `dir`, fsync, rename, mode 0600) and skips the write
 * when the file already holds the same bytes; `killPod` removes the file. `listPods` reads the
 * directory back, so pods left behind by an earlier run are found and cleaned up as orphans.
 */
export class StateDirSyncHandler implements SyncHandler, PodLister, StartableHandler {
  readonly name = 'state-dir';
  readonly #dir: string;
  readonly #log: Logger;
  /**
   * The call running for each file name. Calls for one pod never overlap, but an old pod's kill and its
   * replacement's sync (another UID, the same name) may: the kill's check of the file's UID and its unlink
   * must not straddle the sync's rename, or it removes the new pod's file.
   */
  readonly #busy = new Map<string, Promise<void>>();

  constructor(options: StateDirSyncHandlerOptions) {
    this.#dir = nonEmptyString('state-dir', 'dir', options.dir);
    this.#log = componentLogger(options.logger, 'sync.state-dir');
  }

  /** Creates the directory and removes temp files an interrupted earlier run left behind. */
  async start(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    try {
      // Owner only, as the kubelet's file store: the files hold whole pods, env values included.
      await mkdir(this.#dir, { recursive: true, mode: 0o700 });
      // A directory and pod files from before (0755 / 0644) are narrowed too: mkdir leaves an existing
      // directory's mode alone, and an unchanged pod is never written again.
      await this.#ownerOnly(this.#dir, 0o700, { directory: true });
      for (const entry of await readdir(this.#dir)) {
        if (TEMP_FILE.test(entry)) await unlink(join(this.#dir, entry)).catch(ignoreMissing);
        else if (POD_FILE.test(entry)) await this.#ownerOnly(join(this.#dir, entry), 0o600, { directory: false });
      }
    } catch (err: unknown) {
      throw new PodConfigError('PODCONFIG_HANDLER_FAILED', `state-dir: cannot prepare directory ${this.#dir}`, {
        cause: err,
        retryable: true,
      });
    }
  }

  async syncPod(request: SyncPodRequest, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const { pod } = request;
    const base = fileName(pod);
    if (base === undefined) {
      throw new PodConfigError(
        'PODCONFIG_HANDLER_FAILED',
        `state-dir: pod ${podRef(pod)} (uid ${podUid(pod)}) has no usable namespace and name for a file name`,
        { retryable: true }, // as every handler error: the reconciler retries, and newer work for the pod replaces it
      );
    }
    const file = join(this.#dir, base);
    const bytes = Buffer.from(`${JSON.stringify(pod, null, 2)}\n`);
    try {
      const written = await this.#exclusive(base, async () => {
        if (signal.aborted) return false;
        // A file of another size cannot hold these bytes: it is not read.
        const current = await readPodFile(file, signal, { size: bytes.length });
        if (current instanceof Buffer && current.equals(bytes)) return false;
        await this.#writeAtomic(base, bytes);
        return true;
      });
      if (!written) return;
    } catch (err: unknown) {
      if (signal.aborted) return;
      throw fileError('write', file, pod, err);
    }
    this.#log.debug({ op: request.type, pod: podRef(pod), uid: podUid(pod), file }, 'pod file written');
  }

  /**
   * Removes the pod's file. An absent file is fine. A file that holds a pod with another UID
   * under the same name is left alone: it belongs to the pod that replaced this one.
   */
  async killPod(request: KillPodRequest, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const { pod } = request;
    const base = fileName(pod);
    if (base === undefined) return;
    const file = join(this.#dir, base);
    const uid = podUid(pod);
    try {
      const removed = await this.#exclusive(base, async () => {
        if (signal.aborted) return false;
        const current = await readPodFile(file, signal).catch((err: unknown) => {
          // A name too long for a file was never written: nothing to remove.
          if ((err as NodeJS.ErrnoException | undefined)?.code === 'ENAMETOOLONG') return undefined;
          throw err;
        });
        if (current === undefined) return false;
        const held = current === NOT_READ ? undefined : uidOf(current.toString('utf8'));
        if (uid !== '' && held !== undefined && held !== uid) {
          this.#log.debug({ pod: podRef(pod), uid, fileUid: held, file }, 'pod file belongs to another uid, kept');
          return false;
        }
        await unlink(file).catch(ignoreMissing);
        await syncDirectory(this.#dir);
        return true;
      });
      if (!removed) return;
    } catch (err: unknown) {
      if (signal.aborted) return;
      throw fileError('remove', file, pod, err);
    }
    this.#log.debug({ op: 'kill', reason: request.reason, pod: podRef(pod), uid, file }, 'pod file removed');
  }

  /**
   * The pods the directory holds: namespace and name from each regular file `<namespace>_<name>.json`
   * whose names `syncPod` could have written (dot-files, other names, directories, FIFOs ignored: a kill
   * could not clear them, and a FIFO would block the read), the UID from its content when it parses. A
   * missing directory holds no pods.
   */
  async listPods(signal: AbortSignal): Promise<readonly ActualPod[]> {
    signal.throwIfAborted();
    try {
      const entries = await readdir(this.#dir, { withFileTypes: true }).catch((err: unknown) => {
        if (isMissing(err)) return [];
        throw err;
      });
      const pods: ActualPod[] = [];
      for (const entry of entries.filter((e) => e.isFile()).map((e) => e.name).sort()) {
        const match = POD_FILE.exec(entry);
        if (match === null) continue;
        const [, namespace = '', name = ''] = match;
        if (!NAMESPACE.test(namespace) || !NAME.test(name)) continue;
        // Checked again as it is read: it may have been replaced since the listing.
        const bytes = await readPodFile(join(this.#dir, entry), signal).catch((err: unknown) => {
          if (err instanceof NotRegularFileError) return undefined;
          throw err;
        });
        if (bytes === undefined) continue;
        const uid = bytes === NOT_READ ? undefined : uidOf(bytes.toString('utf8'));
        pods.push(uid === undefined ? { namespace, name } : { uid, namespace, name });
      }
      return pods;
    } catch (err: unknown) {
      signal.throwIfAborted();
      throw new PodConfigError('PODCONFIG_HANDLER_FAILED', `state-dir: cannot list ${this.#dir}`, {
        cause: err,
        retryable: true,
      });
    }
  }

  /**
   * Narrows `path` to `mode` when others may read it, if it is what it should be: the directory, or a regular
   * pod file (a directory named like one is skipped, as by listPods: 0600 would lock it). An entry that is a symlink
   * is left alone (chmod would change whatever it points to); the directory itself is followed, as a `dir` given
   * through a link is still where the pod specs go.
   */
  async #ownerOnly(path: string, mode: number, o: { readonly directory: boolean }): Promise<void> {
    const info = await (o.directory ? stat(path) : lstat(path)).catch(() => undefined);
    if (info === undefined || (o.directory ? !info.isDirectory() : !info.isFile()) || (info.mode & 0o077) === 0) return;
    try {
      await chmod(path, mode);
    } catch (err: unknown) {
      // Someone else's directory: it stays as it is, and the operator hears of it.
      this.#log.warn({ err, path }, 'cannot narrow the mode of a state-dir entry; others may read pod specs');
    }
  }

  /** Runs `fn` after the call running for `base`, if any, and before the next one. */
  async #exclusive<T>(base: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#busy.get(base);
    const run = (before ?? Promise.resolve()).then(fn);
    const done = run.then(() => undefined, () => undefined);
    this.#busy.set(base, done);
    try {
      return await run;
    } finally {
      if (this.#busy.get(base) === done) this.#busy.delete(base);
    }
  }

  async #writeAtomic(base: string, bytes: Buffer): Promise<void> {
    const temp = join(this.#dir, `.${randomBytes(6).toString('hex')}.tmp`);
    try {
      // 0600, as the kubelet's file store writes (os.CreateTemp): a manifest may be readable by root alone.
      const handle = await this.#createTemp(temp);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, join(this.#dir, base));
    } catch (err: unknown) {
      await unlink(temp).catch(ignoreMissing);
      throw err;
    }
    await syncDirectory(this.#dir);
  }

  /**
   * Creates a temp file, and the directory first if it is gone (removed while the agent runs): as the kubelet makes
   * its pod directories on every sync, instead of failing every write until a restart.
   */
  async #createTemp(temp: string): Promise<FileHandle> {
    try {
      return await open(temp, 'wx', 0o600);
    } catch (err: unknown) {
      if ((err as NodeJS.ErrnoException | undefined)?.code !== 'ENOENT') throw err;
      await mkdir(this.#dir, { recursive: true, mode: 0o700 });
      this.#log.warn({ dir: this.#dir }, 'state directory was missing: created it again');
      return await open(temp, 'wx', 0o600);
    }
  }
}

function fileName(pod: Pod): string | undefined {
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  if (!NAMESPACE.test(namespace) || !NAME.test(name)) return undefined;
  return `${namespace}_${name}.json`;
}

/** A FIFO, a device or a directory where a pod file belongs. */
class NotRegularFileError extends Error {}

/**
 * The most of a pod file read to learn its UID. The agent writes a pod as indented JSON: at most ~1.5 MiB from the
 * API server, and a 10 MiB manifest of short list items grows ~6 times when indented. A larger file's UID counts
 * as unknown.
 */
const MAX_POD_FILE_BYTES = 256 * 1024 * 1024;
/** What {@link readPodFile} answers for a file it did not read: larger than its limit, or not of the size asked for. */
const NOT_READ = Symbol('not read');

/**
 * The bytes of a pod file, undefined when there is none, or {@link NOT_READ}: when it is larger than
 * {@link MAX_POD_FILE_BYTES}, or, with `size`, when it has another size. Opened non-blocking, as the manifest reader
 * does, and checked with fstat: a FIFO would otherwise block the open and the read until a writer came, holding a
 * libuv pool thread (four in all) for as long, and a device may never end. Such a file is an error, not read. The
 * read stops one byte past what fstat said (a file that grew, or a procfs file a symlink points at, which says 0).
 */
async function readPodFile(file: string, signal: AbortSignal, o: { size?: number } = {}): Promise<Buffer | typeof NOT_READ | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err: unknown) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(`${file} is not a regular file`);
    if (stats.size > MAX_POD_FILE_BYTES || (o.size !== undefined && stats.size !== o.size)) return NOT_READ;
    const buffer = Buffer.alloc(stats.size + 1);
    let length = 0;
    while (length < buffer.length) {
      signal.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length > stats.size ? NOT_READ : buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

function fileError(action: 'write' | 'remove', file: string, pod: Pod, err: unknown): PodConfigError {
  const why = err instanceof NotRegularFileError ? ': it is not a regular file (a FIFO, a device or a directory)' : '';
  return new PodConfigError('PODCONFIG_HANDLER_FAILED', `state-dir: cannot ${action} ${file} for pod ${podRef(pod)}${why}`, {
    cause: err,
    retryable: true,
  });
}

function uidOf(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as { metadata?: { uid?: unknown } } | null;
    const uid = value?.metadata?.uid;
    return typeof uid === 'string' && uid !== '' ? uid : undefined;
  } catch {
    return undefined;
  }
}

/** Makes a rename or unlink in `dir` durable. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function ignoreMissing(err: unknown): void {
  if (!isMissing(err)) throw err;
}
