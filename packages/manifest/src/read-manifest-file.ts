import { close, constants, open, read } from 'node:fs';
import { fileReadProblem } from '@podconfig/core';
import { ManifestInvalidError } from './manifest-invalid-error.js';
import { MAX_MANIFEST_BYTES } from './max-manifest-bytes.js';

const CHUNK_BYTES = 64 * 1024;

/**
 * First-read buffers not in use. A manifest is read into one and copied out at its size, so reading the
 * usual few-KiB file allocates no 64 KiB chunk of external memory for the garbage collector to account
 * for. A scan reads a few files at once: a few are kept.
 */
const spareChunks: Buffer[] = [];
const MAX_SPARE_CHUNKS = 32;

/**
 * Reads a manifest file, enforcing the 10 MiB cap while reading: it stops at the first byte past the cap
 * and throws `ManifestInvalidError` (`PODCONFIG_MANIFEST_TOO_LARGE`), so an endless or huge file costs at
 * most 10 MiB. An I/O failure (missing file, permissions, a directory) is a `ManifestInvalidError`
 * (`PODCONFIG_MANIFEST_INVALID`) whose `cause` is the Node.js error (`cause.code` is `ENOENT`, `EACCES`, …).
 * On abort it rejects with the signal's reason.
 *
 * It is meant for regular files: a read that comes back short is taken as the end of the file, as it is
 * for a regular file (so a small file costs one read, not a second one to see the end), and the file is
 * opened non-blocking, so a FIFO found where a file was listed reads as empty instead of waiting for a
 * writer.
 */
export async function readManifestFile(path: string, signal: AbortSignal): Promise<Buffer> {
  signal.throwIfAborted();
  let fd: number;
  try {
    fd = await openFile(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err: unknown) {
    throw ioError(path, err);
  }
  const first = spareChunks.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
  try {
    const bytesRead = await readChunk(fd, first, path);
    signal.throwIfAborted();
    if (bytesRead < CHUNK_BYTES) return Buffer.from(first.subarray(0, bytesRead));
    return await readRest(fd, Buffer.from(first), path, signal);
  } finally {
    if (spareChunks.length < MAX_SPARE_CHUNKS) spareChunks.push(first);
    await closeFile(fd);
  }
}

/** The rest of a file whose first chunk came back full: chunk by chunk, up to the cap. */
async function readRest(fd: number, first: Buffer, path: string, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [first];
  let total = first.length;
  for (;;) {
    signal.throwIfAborted();
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    const bytesRead = await readChunk(fd, chunk, path);
    total += bytesRead;
    if (total > MAX_MANIFEST_BYTES) {
      throw new ManifestInvalidError('PODCONFIG_MANIFEST_TOO_LARGE', path, `file is larger than the limit of ${MAX_MANIFEST_BYTES} bytes`, { mayDefinePod: false });
    }
    chunks.push(chunk.subarray(0, bytesRead));
    if (bytesRead < CHUNK_BYTES) return Buffer.concat(chunks, total);
  }
}

async function readChunk(fd: number, chunk: Buffer, path: string): Promise<number> {
  try {
    return await readInto(fd, chunk);
  } catch (err: unknown) {
    throw ioError(path, err);
  }
}

// node:fs's callback calls, not node:fs/promises' FileHandle: a handle is an object with a finalizer and an event
// emitter around the descriptor, and a scan of 1,000 manifests spent ~40 ms more of the main thread on them (by
// micro-benchmark, 16 files at a time). The descriptor is closed in `finally`, as the handle was.
function openFile(path: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => {
    open(path, flags, (err, fd) => (err === null ? resolve(fd) : reject(err)));
  });
}

function readInto(fd: number, chunk: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, chunk, 0, CHUNK_BYTES, null, (err, bytesRead) => (err === null ? resolve(bytesRead) : reject(err)));
  });
}

function closeFile(fd: number): Promise<void> {
  return new Promise((resolve) => {
    // A failed close of a descriptor opened for reading loses nothing; the bytes read stand.
    close(fd, () => resolve());
  });
}

function ioError(path: string, err: unknown): ManifestInvalidError {
  return new ManifestInvalidError('PODCONFIG_MANIFEST_INVALID', path, `cannot read the file (${fileReadProblem(err)})`, { cause: err });
}
