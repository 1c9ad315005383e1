import { close, constants, fstat, open, read } from 'node:fs';
import { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ConfigInvalidError, PodConfigError } from './errors.js';

/**
 * The largest configuration file read whole: a kubeconfig, a token, a certificate or key, a CA bundle,
 * a config file. Real ones are kilobytes (a kubeconfig of a hundred clusters is well under 1 MiB); the
 * cap is there so that `/dev/zero` or an endless file named by mistake costs 16 MiB, not the process.
 */
export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;
/** How long a device with no data yet (a terminal) waits between looks: doubling from the first, up to the last. */
const FIRST_WAIT_MS = 5;
const LONGEST_WAIT_MS = 200;

const openFd = promisify(open);
const fstatFd = promisify(fstat);
const closeFd = promisify(close);
const readFd = promisify(read);

export interface ReadBoundedFileOptions {
  /** Default {@link MAX_CONFIG_FILE_BYTES}; a whole number >= 0, else it throws `PODCONFIG_CONFIG_INVALID`. */
  readonly maxBytes?: number;
  /** Stops the read (it rejects with the signal's reason): a FIFO without a writer, or a silent one, is waited for until then. */
  readonly signal?: AbortSignal;
}

/** A file over {@link readBoundedFile}'s limit (`PODCONFIG_FILE_TOO_LARGE`). */
export class FileTooLargeError extends PodConfigError {
  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super('PODCONFIG_FILE_TOO_LARGE', `${path}: larger than the limit of ${maxBytes} bytes`);
  }
}

/**
 * Why a file could not be read, in a few words for a message that names the file already: the Node.js
 * error's code with the system's words for it (`ENOENT: no such file or directory`, `EACCES: permission denied`;
 * the path Node.js appends left out), or `larger than the limit of N bytes`.
 */
export function fileReadProblem(err: unknown): string {
  if (err instanceof FileTooLargeError) return `larger than the limit of ${err.maxBytes} bytes`;
  const e = err as NodeJS.ErrnoException | undefined;
  const code = e?.code;
  if (code === undefined) return 'error';
  // Node.js words a system error `ENOENT: no such file or directory, open '/x'`.
  const words = typeof e?.message === 'string' && e.message.startsWith(`${code}: `) ? /^[^,]*/.exec(e.message.slice(code.length + 2))?.[0] : undefined;
  return words === undefined || words === '' ? code : `${code}: ${words}`;
}

/**
 * Reads a whole file, at most `maxBytes` of it: one byte more throws {@link FileTooLargeError}
 * (`PODCONFIG_FILE_TOO_LARGE`, naming the path, never the content). It never ties up a thread waiting: the
 * file is opened non-blocking, and a FIFO or pipe — a shell's `<(command)`, as kubectl users pass
 * kubeconfigs, or a named FIFO a writer loop serves — is read on the event loop as its data comes, until
 * its writer closes it or `signal` aborts (`readFile` waits in a thread for a writer that may never come,
 * deaf to signals). I/O errors are Node.js's own (`code` `ENOENT`, `EACCES`, `EISDIR`, …): callers name the file
 * and the setting.
 */
export async function readBoundedFile(path: string, options: ReadBoundedFileOptions = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? MAX_CONFIG_FILE_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new ConfigInvalidError(`maxBytes must be a whole number of bytes >= 0, got ${maxBytes}`);
  const signal = options.signal;
  signal?.throwIfAborted();
  const fd = await openFd(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let stats;
  try {
    // bigint: Node.js 20's callback fstat leaves its result in a process-wide buffer that realpathSync reads back for a
    // path it has cached; a FIFO's result there made the ES module loader stop resolving a symlinked package path
    // halfway, and a later import (chokidar's, loaded when the file source arms its watch) failed: pnpm's dependencies
    // are found only from the real path. The bigint variant has its own buffer.
    stats = await fstatFd(fd, { bigint: true });
  } catch (err: unknown) {
    await closeFd(fd);
    throw err;
  }
  // The socket owns the descriptor from here and closes it.
  if (stats.isFIFO()) return readPipe(new Socket({ fd, readable: true, writable: false }), path, maxBytes, signal);
  try {
    return await readChunks(fd, path, maxBytes, signal);
  } finally {
    await closeFd(fd);
  }
}

/**
 * A regular file (or a device) chunk by chunk into one scratch buffer, each read copied out at its size: a
 * device handing out a byte at a time must not keep a 64 KiB buffer per byte. A device with no data yet
 * (`EAGAIN`: a terminal) is looked at again after a short wait.
 */
async function readChunks(fd: number, path: string, maxBytes: number, signal: AbortSignal | undefined): Promise<Buffer> {
  const scratch = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1));
  const chunks: Buffer[] = [];
  let total = 0;
  let waitMs = FIRST_WAIT_MS;
  for (;;) {
    signal?.throwIfAborted();
    let bytesRead: number;
    try {
      bytesRead = (await readFd(fd, scratch, 0, Math.min(scratch.length, maxBytes - total + 1), null)).bytesRead;
    } catch (err: unknown) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      // timers' own AbortError would hide the reason the caller gave.
      await sleep(waitMs, undefined, signal === undefined ? undefined : { signal }).catch(() => signal?.throwIfAborted());
      waitMs = Math.min(waitMs * 2, LONGEST_WAIT_MS);
      continue;
    }
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    waitMs = FIRST_WAIT_MS;
    total += bytesRead;
    if (total > maxBytes) throw new FileTooLargeError(path, maxBytes);
    chunks.push(Buffer.from(scratch.subarray(0, bytesRead)));
  }
}

/**
 * A FIFO through the event loop: its data as it comes, to its end (its writer gone), the cap or the abort. One
 * that has no writer yet is waited for, as a blocking read waits (a writer loop opens it when a reader does),
 * but on the event loop, so `signal` ends the wait.
 */
function readPipe(socket: Socket, path: string, maxBytes: number, signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const stop = (): boolean => {
      if (done) return false;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      socket.removeAllListeners('data');
      socket.destroy();
      return true;
    };
    const fail = (err: Error): void => {
      if (stop()) reject(err);
    };
    const onAbort = (): void => fail(signal?.reason as Error); // a signal's reason, as AbortSignal rejects with it
    socket.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) fail(new FileTooLargeError(path, maxBytes));
      else chunks.push(chunk); // Node.js sizes a read chunk to its bytes
    });
    socket.once('end', () => {
      if (stop()) resolve(Buffer.concat(chunks, total));
    });
    socket.once('error', fail);
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
