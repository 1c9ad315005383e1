import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type ConnectionOptions, type PeerCertificate, type Server } from 'node:tls';
import { createTestPki, issueTestCertificate, type PemPair, type TestPki } from '@podconfig/testing';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LegacyCommonNameError, checkServerIdentity, withGoServerVerification } from './go-server-verification.js';
import { tlsFailure } from './tls-failure.js';

let pki: TestPki;
let other: TestPki;
/** CN localhost, no subjectAltName: what Go refuses and Node.js's own check accepts. */
let commonNameOnly: PemPair;
/** CN localhost, a subjectAltName with an IP address only. */
let ipOnly: PemPair;
beforeAll(async () => {
  [pki, other] = await Promise.all([createTestPki(), createTestPki({ caName: 'unrelated CA' })]);
  commonNameOnly = await issueTestCertificate(pki.ca, { commonName: 'localhost' });
  ipOnly = await issueTestCertificate(pki.ca, { commonName: 'localhost', hosts: ['127.0.0.1'] });
});

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A TLS server on 127.0.0.1 presenting `cert` (a chain: leaf first); its port. */
async function serveTls(cert: string, key: string): Promise<number> {
  const server = createServer({ cert, key }, (socket) => socket.end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

/** A real handshake with `options`: `ok`, or the error it failed with. */
function handshake(port: number, options: ConnectionOptions): Promise<'ok' | Error> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ...options });
    socket.once('secureConnect', () => {
      socket.destroy();
      resolve('ok');
    });
    socket.once('error', (err) => {
      socket.destroy();
      resolve(err);
    });
  });
}

const peer = (pem: string): PeerCertificate => new X509Certificate(pem).toLegacyObject();

describe(checkServerIdentity.name, () => {
  it('refuses a host name that only the Common Name holds, as Go does, and says so naming the host', () => {
    const err = checkServerIdentity('localhost', peer(commonNameOnly.cert));
    expect(err).toBeInstanceOf(LegacyCommonNameError);
    expect(err).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID', host: 'localhost' });
    expect(err?.message).toBe(
      "Hostname/IP does not match certificate's altnames: certificate relies on legacy Common Name field (CN localhost), use SANs instead: it has no subjectAltName to match localhost",
    );
    // tlsFailure, which words every PODCONFIG_TLS error, keeps Go's words.
    expect(tlsFailure(new Error('fetch failed', { cause: err }))?.reason).toBe(
      'certificate relies on legacy Common Name field (CN localhost), use SANs instead: it has no subjectAltName to match localhost',
    );
  });

  it('refuses a Common Name beside SANs that hold no DNS name, where Node.js falls back to it', () => {
    const err = checkServerIdentity('localhost', peer(ipOnly.cert));
    expect(err).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID', host: 'localhost' });
    expect(tlsFailure(err)?.reason).toBe('certificate is valid for 127.0.0.1, not localhost');
    expect(checkServerIdentity('127.0.0.1', peer(ipOnly.cert))).toBeUndefined();
  });

  it("keeps Node.js's checks otherwise: DNS and IP SANs match, other names do not", () => {
    const cert = peer(pki.server.cert); // 127.0.0.1, ::1, localhost
    for (const host of ['localhost', 'localhost.', '127.0.0.1', '::1']) expect(checkServerIdentity(host, cert), host).toBeUndefined();
    expect(checkServerIdentity('kube.example', cert)).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(checkServerIdentity('127.0.0.1', peer(commonNameOnly.cert))).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });
});

describe(withGoServerVerification.name, () => {
  it('fails a real handshake with a Common-Name-only certificate, checked against servername, and passes one with SANs', async () => {
    const cnPort = await serveTls(commonNameOnly.cert, commonNameOnly.key);
    // Node.js alone accepts it: why podconfig's connections never use its default.
    expect(await handshake(cnPort, { ca: pki.ca.cert, servername: 'localhost' })).toBe('ok');
    expect(await handshake(cnPort, withGoServerVerification({ ca: pki.ca.cert, servername: 'localhost' }))).toBeInstanceOf(LegacyCommonNameError);
    const sanPort = await serveTls(pki.server.cert, pki.server.key);
    expect(await handshake(sanPort, withGoServerVerification({ ca: pki.ca.cert, servername: 'localhost' }))).toBe('ok');
    expect(await handshake(sanPort, withGoServerVerification({ ca: pki.ca.cert }))).toBe('ok'); // the IP address connected to
  });

  it('takes a CA that is an intermediate as a trust anchor, as Go does; an unrelated CA still fails', async () => {
    const intermediate = await issueTestCertificate(pki.ca, { commonName: 'podconfig test intermediate CA', role: 'ca' });
    const leaf = await issueTestCertificate(intermediate, { commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] });
    const port = await serveTls(leaf.cert + intermediate.cert, leaf.key);
    // OpenSSL's default wants a self-signed root at the end of the chain.
    expect(await handshake(port, { ca: intermediate.cert })).toMatchObject({ code: 'UNABLE_TO_GET_ISSUER_CERT' });
    expect(await handshake(port, withGoServerVerification({ ca: intermediate.cert }))).toBe('ok');
    expect(await handshake(port, withGoServerVerification({ ca: pki.ca.cert }))).toBe('ok'); // the root, as before
    const untrusted = await handshake(port, withGoServerVerification({ ca: other.ca.cert }));
    expect(tlsFailure(untrusted)).toMatchObject({ untrusted: true });
  });

  it('keeps the options given, adding allowPartialTrustChain only with a CA', () => {
    expect(withGoServerVerification({ servername: 'kube', rejectUnauthorized: false })).toEqual({
      servername: 'kube', rejectUnauthorized: false, checkServerIdentity,
    });
    expect(withGoServerVerification({ ca: 'PEM' })).toEqual({ ca: 'PEM', rejectUnauthorized: true, checkServerIdentity, allowPartialTrustChain: true });
  });

  it('verifies whatever NODE_TLS_REJECT_UNAUTHORIZED says, which Go has not: only the caller turns verification off', async () => {
    const port = await serveTls(pki.server.cert, pki.server.key);
    const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      // Node.js alone would take any server now.
      expect(await handshake(port, { ca: other.ca.cert })).toBe('ok');
      expect(tlsFailure(await handshake(port, withGoServerVerification({ ca: other.ca.cert })))).toMatchObject({ untrusted: true });
      expect(await handshake(port, withGoServerVerification({ ca: other.ca.cert, rejectUnauthorized: false }))).toBe('ok');
    } finally {
      if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
    }
  });
});
