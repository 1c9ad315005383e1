/**
 * The built agent's http source over HTTPS (issue 4): a `node:https` server on 127.0.0.1 with a
 * test CA made at test time (`createTestPki()`), real TLS handshakes. `--manifest-url-ca` trusts the
 * CA; a server that requires a client certificate gets one from `--manifest-url-client-cert/-key`.
 * Without the CA (or without the client certificate) the source reports the failure in /sources and
 * runs no pods; `NODE_OPTIONS=--use-openssl-ca` with `SSL_CERT_FILE` trusts a CA as Go programs do.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestPki, podManifestYaml, tempDir, type TestPki } from '@podconfig/testing';
import { AgentProcess, eventually } from '../support/agent-process.js';

const NODE = 'tls-node';
const SHOWS_WITHIN_MS = 15_000;

interface HttpSourceStatus {
  readonly seen: boolean;
  readonly healthy: boolean;
  readonly pods: number;
  readonly lastError?: { readonly message: string; readonly code?: string };
  readonly counters: { readonly polls_success: number; readonly polls_error: number };
}

/** An HTTPS manifest server on 127.0.0.1 serving one Pod as YAML; remembers the client certificates' CNs. */
class TlsManifestServer {
  readonly clientNames: string[] = [];
  readonly #server: Server;

  constructor(pki: TestPki, requireClientCert: boolean) {
    this.#server = createServer(
      { cert: pki.server.cert, key: pki.server.key, ...(requireClientCert ? { ca: pki.ca.cert, requestCert: true, rejectUnauthorized: true } : {}) },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        if (typeof peer.subject?.CN === 'string') this.clientNames.push(peer.subject.CN);
        res.writeHead(200, { 'content-type': 'application/yaml' }).end(podManifestYaml('secure'));
      },
    );
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}/pod.yaml`;
  }

  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    return closed;
  }
}

async function httpStatus(agent: AgentProcess): Promise<HttpSourceStatus> {
  const body = await agent.getJSON<{ sources: ({ name: string } & HttpSourceStatus)[] }>('/sources');
  const http = body.sources.find((s) => s.name === 'http');
  if (http === undefined) throw new Error(`no http source in /sources: ${JSON.stringify(body)}`);
  return http;
}

async function podNames(agent: AgentProcess): Promise<string[]> {
  const list = await agent.getJSON<{ items: { metadata: { name: string; annotations: Record<string, string> } }[] }>('/pods');
  return list.items.map((p) => `${p.metadata.annotations['kubernetes.io/config.source']}:${p.metadata.name}`);
}

/** Waits for `count` failed polls and returns the status then. */
function failures(agent: AgentProcess, count: number): Promise<HttpSourceStatus> {
  return eventually(async () => {
    const s = await httpStatus(agent);
    return s.counters.polls_error >= count && s.lastError !== undefined ? s : undefined;
  }, SHOWS_WITHIN_MS, `${count} failed polls`);
}

describe('podconfig-agent with an https:// --manifest-url', () => {
  let pki: TestPki;
  let tmp: { path: string; cleanup: () => Promise<void> };
  let files: { ca: string; cert: string; key: string };
  const servers: TlsManifestServer[] = [];
  let agent: AgentProcess | undefined;

  beforeAll(async () => {
    pki = await createTestPki();
    tmp = await tempDir('podconfig-e2e-tls-');
    files = { ca: join(tmp.path, 'ca.crt'), cert: join(tmp.path, 'client.crt'), key: join(tmp.path, 'client.key') };
    await writeFile(files.ca, pki.ca.cert);
    await writeFile(files.cert, pki.client.cert);
    await writeFile(files.key, pki.client.key, { mode: 0o600 });
  });

  afterEach(async () => {
    const stopped = await agent?.stopWithin();
    agent = undefined;
    for (const server of servers.splice(0)) await server.close();
    expect(stopped ?? { code: 0, signal: null }).toEqual({ code: 0, signal: null });
  });

  afterAll(async () => {
    await tmp.cleanup();
  });

  async function serve(requireClientCert: boolean): Promise<TlsManifestServer> {
    const server = new TlsManifestServer(pki, requireClientCert);
    await server.listen();
    servers.push(server);
    return server;
  }

  async function start(url: string, ...flags: string[]): Promise<AgentProcess> {
    return startWith({}, url, ...flags);
  }

  async function startWith(env: NodeJS.ProcessEnv, url: string, ...flags: string[]): Promise<AgentProcess> {
    agent = await AgentProcess.start(['--node-name', NODE, '--manifest-url', url, '--http-check-frequency', '200ms', '--handler', 'log', ...flags], { env });
    return agent;
  }

  it('with --manifest-url-ca: the handshake verifies and the pod (one Pod as YAML) runs', async () => {
    const server = await serve(false);
    const a = await start(server.url, '--manifest-url-ca', files.ca);
    await eventually(async () => ((await podNames(a)).includes(`http:secure-${NODE}`) ? true : undefined), SHOWS_WITHIN_MS, 'the https pod');
    expect(await httpStatus(a)).toMatchObject({ seen: true, healthy: true, pods: 1 });
    expect(server.clientNames).toEqual([]);
  });

  it('without the CA: a TLS error naming the URL in /sources, no http pods', async () => {
    const server = await serve(false);
    const a = await start(server.url);
    const s = await failures(a, 2);
    expect(s.lastError).toMatchObject({ code: 'PODCONFIG_TLS' });
    expect(s.lastError!.message).toContain(`${server.url}: TLS failure`);
    // Which roots were trusted, and how to trust another CA, as an operator used to Go's system store needs to know.
    expect(s.lastError!.message).toContain("(trusted: Node.js's bundled roots, not the system's store (NODE_EXTRA_CA_CERTS adds to them; NODE_OPTIONS=--use-openssl-ca reads the system's, and SSL_CERT_FILE))");
    expect(s).toMatchObject({ healthy: false, pods: 0 });
    expect(await podNames(a)).toEqual([]);
    expect(a.logs.filter((l) => l.component === 'sync.log')).toEqual([]);
  });

  it('without the CA but with NODE_OPTIONS=--use-openssl-ca and SSL_CERT_FILE naming it: trusted, as a Go program trusts SSL_CERT_FILE', async () => {
    const server = await serve(false);
    const a = await startWith({ NODE_OPTIONS: '--use-openssl-ca', SSL_CERT_FILE: files.ca, SSL_CERT_DIR: tmp.path }, server.url);
    await eventually(async () => ((await podNames(a)).includes(`http:secure-${NODE}`) ? true : undefined), SHOWS_WITHIN_MS, 'the https pod');
    expect(await httpStatus(a)).toMatchObject({ seen: true, healthy: true, pods: 1 });
  });

  it('a server requiring a client certificate: --manifest-url-client-cert/-key present one and the pod runs', async () => {
    const server = await serve(true);
    const a = await start(server.url, '--manifest-url-ca', files.ca, '--manifest-url-client-cert', files.cert, '--manifest-url-client-key', files.key);
    await eventually(async () => ((await podNames(a)).includes(`http:secure-${NODE}`) ? true : undefined), SHOWS_WITHIN_MS, 'the https pod');
    expect(await httpStatus(a)).toMatchObject({ healthy: true, pods: 1 });
    expect(server.clientNames[0]).toBe('podconfig-test-client');
  });

  it('a server requiring a client certificate, none configured: the refusal in /sources, no http pods', async () => {
    const server = await serve(true);
    const a = await start(server.url, '--manifest-url-ca', files.ca);
    const s = await failures(a, 2);
    // TLS 1.3: the server refuses after the client's handshake is done, so the client mostly sees the
    // connection closed ("other side closed"), or the certificate_required alert if it reads it first.
    expect(['PODCONFIG_SOURCE_UNAVAILABLE', 'PODCONFIG_TLS']).toContain(s.lastError!.code);
    expect(s.lastError!.message).toContain(`${server.url}: `);
    expect(s).toMatchObject({ healthy: false, pods: 0 });
    expect(await podNames(a)).toEqual([]);
    expect(a.logs.filter((l) => l.component === 'sync.log')).toEqual([]);
    expect(server.clientNames).toEqual([]);
  });
});
