import { ConfigInvalidError, fileReadProblem, readBoundedFile } from '@podconfig/core';
import type { AgentConfig } from './agent-config.js';
import { settingName } from './settings.js';

/**
 * Reads a PEM file named by a flag at startup and checks it holds a PEM block of the expected kind
 * (`CERTIFICATE`, `PRIVATE KEY`), so a wrong file stops the agent with a message naming the flag
 * instead of failing every TLS handshake later. The content is never put in the message. Bounded (16 MiB)
 * and on the event loop (core's `readBoundedFile`): a FIFO is waited for until its writer ends it or `signal`
 * (the agent's shutdown) aborts, so SIGTERM still stops a start-up waiting there.
 */
export async function readPemFile(path: string, flag: string, kind: 'CERTIFICATE' | 'PRIVATE KEY', signal?: AbortSignal): Promise<Buffer> {
  let data: Buffer;
  try {
    data = await readBoundedFile(path, signal === undefined ? {} : { signal });
  } catch (err: unknown) {
    if (signal?.aborted === true) throw err;
    throw new ConfigInvalidError(`${flag} ${path}: cannot read (${fileReadProblem(err)})`, { cause: err });
  }
  const text = data.toString('latin1');
  const found = kind === 'CERTIFICATE'
    ? /-----BEGIN CERTIFICATE-----/.test(text)
    : /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/.test(text);
  if (!found) throw new ConfigInvalidError(`${flag} ${path}: not a PEM file with a ${kind} block`);
  return data;
}

/** The manifest URL's TLS files (`--manifest-url-ca`, `--manifest-url-client-cert`, `--manifest-url-client-key`), as read. */
export interface ManifestUrlTls {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

/** Reads the manifest URL's TLS files the configuration names; none when there is no manifest URL. */
export async function readManifestUrlTls(config: AgentConfig, signal?: AbortSignal): Promise<ManifestUrlTls> {
  if (config.manifestUrl === undefined) return {};
  const read = async (path: string | undefined, key: 'manifestUrlCaFile' | 'manifestUrlClientCertFile' | 'manifestUrlClientKeyFile',
    kind: 'CERTIFICATE' | 'PRIVATE KEY'): Promise<Buffer | undefined> =>
    path === undefined ? undefined : await readPemFile(path, settingName(config, key), kind, signal);
  const ca = await read(config.manifestUrlCaFile, 'manifestUrlCaFile', 'CERTIFICATE');
  const cert = await read(config.manifestUrlClientCertFile, 'manifestUrlClientCertFile', 'CERTIFICATE');
  const key = await read(config.manifestUrlClientKeyFile, 'manifestUrlClientKeyFile', 'PRIVATE KEY');
  return { ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }) };
}
