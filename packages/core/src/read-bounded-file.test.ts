import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:fs';
import { open, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '@podconfig/testing';
import { PodConfigError } from './errors.js';
import { FileTooLargeError, MAX_CONFIG_FILE_BYTES, fileReadProblem, readBoundedFile } from './read-bounded-file.js';

let dir: { path: string; cleanup: () => Promise<void> };
let writer: FileHandle | undefined;
beforeEach(async () => {
  dir = await tempDir('read-bounded-file-');
});
afterEach(async () => {
  await writer?.close();
  writer = undefined;
  await dir.cleanup();
});

/** The package's directory: its dependencies (socks) resolve from there. */
const CORE_DIR = new URL('..', import.meta.url).pathname;

async function fifo(): Promise<string> {
  const path = join(dir.path, 'fifo');
  await promisify(execFile)('mkfifo', [path]);
  return path;
}

/**
 * A pseudo-terminal in canonical mode (no echo) holding 2,000 lines: it prints the device's path once the line
 * discipline has taken them all in (it does so on a kernel worker, after the write returns), then "drained" once
 * they have all been read, and ends the input (^D) when its stdin says so.
 */
const PTY_SERVER = `
import fcntl, os, pty, struct, sys, termios, time
m, s = pty.openpty()
a = termios.tcgetattr(s); a[3] &= ~termios.ECHO; termios.tcsetattr(s, termios.TCSANOW, a)
queued = lambda: struct.unpack("i", fcntl.ioctl(s, termios.FIONREAD, b"\\0" * 4))[0]
os.write(m, b"x\\n" * 2000)
while queued() < 4000: time.sleep(0.001)
print(os.ttyname(s), flush=True)
while queued() > 0: time.sleep(0.01)
print("drained", flush=True)
sys.stdin.readline()
os.write(m, b"\\x04")
sys.stdin.readline()
`;

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(() => undefined, (err: unknown) => err);
}

describe(readBoundedFile.name, () => {
  it('reads a file of exactly the limit, and refuses one byte more naming the path', async () => {
    const path = join(dir.path, 'kubeconfig');
    await writeFile(path, 'x'.repeat(100_000));
    expect((await readBoundedFile(path, { maxBytes: 100_000 })).length).toBe(100_000);
    const err = await failure(readBoundedFile(path, { maxBytes: 99_999 }));
    expect(PodConfigError.is(err, 'PODCONFIG_FILE_TOO_LARGE')).toBe(true);
    expect(err).toBeInstanceOf(FileTooLargeError);
    expect(err).toMatchObject({ path, maxBytes: 99_999, message: `${path}: larger than the limit of 99999 bytes` });
    expect(fileReadProblem(err)).toBe('larger than the limit of 99999 bytes');
  });

  it('refuses a maxBytes that is not a whole number >= 0', async () => {
    for (const bad of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY]) {
      expect(PodConfigError.is(await failure(readBoundedFile('/dev/null', { maxBytes: bad })), 'PODCONFIG_CONFIG_INVALID')).toBe(true);
    }
    expect((await readBoundedFile('/dev/null', { maxBytes: 0 })).length).toBe(0);
  });

  it('stops an endless file at the limit (16 MiB by default)', async () => {
    expect(MAX_CONFIG_FILE_BYTES).toBe(16 * 1024 * 1024);
    expect(PodConfigError.is(await failure(readBoundedFile('/dev/zero')), 'PODCONFIG_FILE_TOO_LARGE')).toBe(true);
  });

  it('waits for a FIFO\'s writer on the event loop (no thread held), until the signal aborts', async () => {
    const path = await fifo();
    const controller = new AbortController();
    const read = failure(readBoundedFile(path, { signal: controller.signal }));
    // The event loop is free meanwhile: this timer fires while the read waits.
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    expect(await read).toEqual(new Error('shutting down'));
    // A writer that comes is read.
    const late = readBoundedFile(path);
    const writerProcess = spawn('sh', ['-c', 'printf token > "$1"', 'sh', path], { stdio: 'ignore' });
    const exited = once(writerProcess, 'exit'); // before the read ends: the writer exits as it ends it
    expect((await late).toString()).toBe('token');
    await exited;
  });

  it('reads a pipe whose writer is attached as its data comes, to the writer closing it', async () => {
    const path = await fifo();
    // O_RDWR opens a FIFO without waiting, and counts as a writer: a shell's <(command) as the reader sees it.
    writer = await open(path, constants.O_RDWR);
    const read = readBoundedFile(path);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writer.write('apiVersion: v1\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writer.write('kind: Config\n');
    await writer.close();
    writer = undefined;
    expect((await read).toString()).toBe('apiVersion: v1\nkind: Config\n');
  });

  it("leaves module resolution intact after reading a FIFO (Node.js 20's realpath read back another stat's result)", async () => {
    const path = await fifo();
    // A fresh process: core's built entry (which loads pino from core's node_modules, so the loader has that directory
    // cached) reads the FIFO, then imports another package through pnpm's symlink there, whose own dependency is found
    // only from its real path. With the callback fstat's shared result, that import failed.
    const program = [
      `const { readBoundedFile } = await import(${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)});`,
      "await import('pino');",
      'const text = (await readBoundedFile(process.argv[1])).toString();',
      "await import('socks');",
      "process.stdout.write(text + ' then socks loaded');",
    ].join('\n');
    // Without NODE_PATH (pnpm sets it for scripts): its fallback directory would find the dependency anyway.
    const env = { ...process.env };
    delete env.NODE_PATH;
    const child = promisify(execFile)(process.execPath, ['--input-type=module', '-e', program, path], { cwd: CORE_DIR, env, timeout: 30_000 });
    await writeFile(path, 'kind: Config'); // opens once the child opens it to read
    const { stdout } = await child;
    expect(stdout).toBe('kind: Config then socks loaded');
  });

  it('keeps what a pipe hands out a byte at a time at its size (not a read buffer per byte)', async () => {
    const path = await fifo();
    writer = await open(path, constants.O_RDWR);
    const before = process.memoryUsage().arrayBuffers;
    const read = readBoundedFile(path);
    for (let i = 0; i < 2_000; i++) {
      await writer.write('x');
      await new Promise((resolve) => setImmediate(resolve));
    }
    const during = process.memoryUsage().arrayBuffers;
    await writer.close();
    writer = undefined;
    expect((await read).toString()).toBe('x'.repeat(2_000));
    // A 64 KiB buffer kept per read would be ~125 MiB here.
    expect(during - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('keeps what a device hands out a little at a time at its size (not a read buffer per read)', async () => {
    // A terminal in canonical mode hands out one line per read(2): 2,000 reads of 2 bytes, then its end-of-file
    // (^D). The lines are all read while the device stays open, so what the reader keeps can be measured then.
    const tty = spawn('python3', ['-c', PTY_SERVER], { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = once(tty, 'exit');
    try {
      const lines = createInterface({ input: tty.stdout })[Symbol.asyncIterator]();
      const next = async (): Promise<string> => String((await lines.next()).value);
      const path = await next();
      const before = process.memoryUsage().arrayBuffers;
      const read = readBoundedFile(path);
      expect(await next()).toBe('drained');
      const during = process.memoryUsage().arrayBuffers;
      tty.stdin.write('eof\n');
      expect((await read).toString()).toBe('x\n'.repeat(2_000));
      // A 64 KiB buffer kept per read would be ~125 MiB here.
      expect(during - before).toBeLessThan(16 * 1024 * 1024);
    } finally {
      tty.kill('SIGKILL');
      await exited;
    }
  });

  it('reads one copy from a writer that writes the file again and again (a loop serving a secret)', async () => {
    const path = await fifo();
    await writeFile(`${path}.src`, 'apiVersion: v1\n');
    // cat, not the shell's printf: a reader gone mid-write kills the writer with SIGPIPE, here only cat.
    const loop = spawn('sh', ['-c', 'while :; do cat "$1.src" > "$1"; sleep 0.05; done', 'sh', path], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 5; i++) {
        expect((await readBoundedFile(path)).toString()).toBe('apiVersion: v1\n');
      }
    } finally {
      loop.kill('SIGKILL');
      await once(loop, 'exit');
    }
  });

  it('stops waiting for a pipe\'s data when the signal aborts', async () => {
    const path = await fifo();
    writer = await open(path, constants.O_RDWR);
    const controller = new AbortController();
    const read = failure(readBoundedFile(path, { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    expect(await read).toEqual(new Error('shutting down'));
  });

  it('passes I/O errors through with their code', async () => {
    const missing = await failure(readBoundedFile(join(dir.path, 'missing')));
    expect(missing).toMatchObject({ code: 'ENOENT' });
    expect(fileReadProblem(missing)).toBe('ENOENT: no such file or directory');
    expect(await failure(readBoundedFile(dir.path))).toMatchObject({ code: 'EISDIR' });
  });
});
