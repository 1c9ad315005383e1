import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { PodConfigError } from './errors.js';

/**
 * The largest configuration file read whole: a kubeconfig, a token, a certificate or key, a CA bundle,
 * a config file. Real ones are kilobytes (a kubeconfig of a hundred clusters is well under 1 MiB); the
 * cap is there so that `/dev/zero` or an endless file named by mistake costs 16 MiB, not the process.
 */
export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;
/** How long a pipe with a writer but no data yet waits between looks: doubling from the first, up to the last. */
const FIRST_WAIT_MS = 5;
const LONGEST_WAIT_MS = 200;

export interface ReadBoundedFileOptions {
  /** Default {@link MAX_CONFIG_FILE_BYTES}. */
  readonly maxBytes?: number;
  /** Stops a wait for a pipe's writer (rejects with the signal's reason). */
  readonly signal?: AbortSignal;
}

/**
 * Reads a whole file, at most `maxBytes` of it: one byte more throws {@link FileTooLargeError}
 * (`PODCONFIG_FILE_TOO_LARGE`, naming the path, never the content). It never ties up a thread waiting: the file is opened non-blocking, so a
 * FIFO without a writer reads as empty at once (where `readFile` waits for one for good, deaf to
 * signals), and a pipe with a writer — a shell's `<(command)`, as kubectl users pass kubeconfigs — is read
 * as its data comes, until the writer closes it or `signal` aborts. I/O errors are Node.js's own (`code`
 * `ENOENT`, `EACCES`, `EISDIR`, …): callers name the file and the setting.
 */
export async function readBoundedFile(path: string, options: ReadBoundedFileOptions = {}): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? MAX_CONFIG_FILE_BYTES;
  const signal = options.signal;
  signal?.throwIfAborted();
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    let waitMs = FIRST_WAIT_MS;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes - total + 1));
      const bytesRead = await readOrWait(handle, chunk);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      if (bytesRead < 0) {
        // timers' own AbortError would hide the reason the caller gave.
        await sleep(waitMs, undefined, signal === undefined ? undefined : { signal }).catch(() => signal?.throwIfAborted());
        waitMs = Math.min(waitMs * 2, LONGEST_WAIT_MS);
        continue;
      }
      waitMs = FIRST_WAIT_MS;
      total += bytesRead;
      if (total > maxBytes) throw new FileTooLargeError(path, maxBytes);
      chunks.push(chunk.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
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
 * error's code (`ENOENT`, `EACCES`, …) or `larger than the limit of N bytes`.
 */
export function fileReadProblem(err: unknown): string {
  if (err instanceof FileTooLargeError) return `larger than the limit of ${err.maxBytes} bytes`;
  return (err as NodeJS.ErrnoException | undefined)?.code ?? 'error';
}

/** Bytes read (0 at the end), or -1 when a non-blocking pipe has no data yet. */
async function readOrWait(handle: FileHandle, chunk: Buffer): Promise<number> {
  try {
    return (await handle.read(chunk, 0, chunk.length, null)).bytesRead;
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return -1;
    throw err;
  }
}
