import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PodConfigError } from '@podconfig/core';
import { createTestPki, tempDir } from '@podconfig/testing';
import { readPemFile } from './pem-file.js';

describe('readPemFile()', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => { dir = await tempDir(); });
  afterEach(async () => { await dir.cleanup(); });

  it('reads a certificate and a private key', async () => {
    const pki = await createTestPki();
    await writeFile(join(dir.path, 'ca.crt'), pki.ca.cert);
    await writeFile(join(dir.path, 'tls.key'), pki.client.key);
    expect((await readPemFile(join(dir.path, 'ca.crt'), '--manifest-url-ca', 'CERTIFICATE')).toString()).toBe(pki.ca.cert);
    expect((await readPemFile(join(dir.path, 'tls.key'), '--manifest-url-client-key', 'PRIVATE KEY')).toString()).toBe(pki.client.key);
  });

  it('rejects a file without the expected PEM block, naming the flag and file but not the content', async () => {
    const path = join(dir.path, 'wrong.pem');
    await writeFile(path, 'token: super-secret-value\n');
    const err = await readPemFile(path, '--manifest-url-ca', 'CERTIFICATE').then(() => undefined, (e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
    expect((err as Error).message).toBe(`--manifest-url-ca ${path}: not a PEM file with a CERTIFICATE block`);
  });

  it('rejects a missing file', async () => {
    const path = join(dir.path, 'none.pem');
    await expect(readPemFile(path, '--manifest-url-client-cert', 'CERTIFICATE')).rejects.toThrow(`--manifest-url-client-cert ${path}: cannot read (ENOENT: no such file or directory)`);
  });

  it('refuses an endless file at the configuration file limit, and stops waiting for a FIFO\'s writer when the signal aborts', async () => {
    await expect(readPemFile('/dev/zero', '--manifest-url-ca', 'CERTIFICATE')).rejects
      .toThrow('--manifest-url-ca /dev/zero: cannot read (larger than the limit of 16777216 bytes)');
    const fifo = join(dir.path, 'ca.fifo');
    await promisify(execFile)('mkfifo', [fifo]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    await expect(readPemFile(fifo, '--manifest-url-ca', 'CERTIFICATE', controller.signal)).rejects.toThrow(/^shutting down$/);
  });
});
