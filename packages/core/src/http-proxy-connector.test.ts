import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { connect as netConnect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { createTestPki, issueTestCertificate } from '@podconfig/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { LegacyCommonNameError } from './go-server-verification.js';
import { basicAuthFromUserinfo, httpProxyConnector } from './http-proxy-connector.js';

const servers: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function listening<T extends Server>(server: T): Promise<T> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return server;
}

const portOf = (server: Server): number => (server.address() as AddressInfo).port;

/** A real CONNECT proxy on 127.0.0.1 that tunnels every CONNECT, whatever host it names, to `port` on 127.0.0.1. */
async function connectProxyTo(port: number): Promise<URL> {
  const proxy = createHttpServer();
  proxy.on('connect', (_req: IncomingMessage, downstream: Socket, head: Buffer) => {
    const upstream = netConnect(port, '127.0.0.1', () => {
      downstream.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(downstream).pipe(upstream);
    });
    for (const socket of [upstream, downstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
    }
  });
  await listening(proxy);
  return new URL(`http://127.0.0.1:${portOf(proxy)}`);
}

/** A fake proxy on 127.0.0.1 that answers each connection's first bytes with `answer` (then, optionally, hangs up). */
async function proxyAnswering(answer: string, hangUp: boolean): Promise<{ url: URL; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((socket: Socket) => {
    socket.once('data', (chunk: Buffer) => {
      requests.push(chunk.toString('latin1'));
      if (hangUp) socket.end(answer);
      else socket.write(answer);
    });
    socket.on('error', () => undefined);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { url: new URL(`http://user@127.0.0.1:${(server.address() as AddressInfo).port}`), requests };
}

/** Runs the connector for `target` and settles with the socket or the error. */
function tunnel(proxy: URL, target: { hostname: string; protocol: string; port: string }): Promise<Socket | Error> {
  return new Promise((resolve) => {
    httpProxyConnector(proxy, { timeoutMs: 30_000 })(target, (err, socket) => resolve(err ?? socket));
  });
}

describe(httpProxyConnector.name, () => {
  it('sends CONNECT with the authority (IPv6 in brackets) and Basic credentials for a user alone, and takes LF-only answers', async () => {
    const proxy = await proxyAnswering('HTTP/1.1 200 OK\n\n', false);
    const socket = await tunnel(proxy.url, { hostname: '[fd00::10]', protocol: 'http:', port: '' });
    expect(socket).not.toBeInstanceOf(Error);
    (socket as Socket).destroy();
    expect(proxy.requests).toEqual([`CONNECT [fd00::10]:80 HTTP/1.1\r\nHost: [fd00::10]:80\r\nProxy-Authorization: Basic ${Buffer.from('user:').toString('base64')}\r\n\r\n`]);
  });

  it.each([
    ['a proxy that hangs up before answering', '', true, 'closed the connection before answering CONNECT kube.test:443'],
    ['half an answer, then a hang-up', 'HTTP/1.1 200 OK\r\n', true, 'closed the connection before answering CONNECT kube.test:443'],
    ['a refusal', 'HTTP/1.1 407 Proxy Authentication Required\r\n\r\n', false, 'CONNECT kube.test:443 answered 407 Proxy Authentication Required'],
    ['a four-digit status', 'HTTP/1.1 2000 OK\r\n\r\n', false, 'its answer to CONNECT kube.test:443 is not HTTP'],
    ['garbage', 'SSH-2.0-OpenSSH\r\n\r\n', false, 'its answer to CONNECT kube.test:443 is not HTTP'],
  ])('fails at once on %s, naming the proxy by its host', async (_, answer, hangUp, message) => {
    const proxy = await proxyAnswering(answer, hangUp);
    const err = await tunnel(proxy.url, { hostname: 'kube.test', protocol: 'https:', port: '' });
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(`proxy ${proxy.url.host}: ${message}`);
  });
});

describe(`${httpProxyConnector.name} TLS through the tunnel`, () => {
  /** A TLS server on 127.0.0.1 presenting `cert`, reached through a CONNECT proxy as kube.test:443: the handshake's outcome. */
  async function handshakeThroughProxy(cert: string, key: string, ca: string): Promise<'ok' | Error> {
    const server = await listening(createTlsServer({ cert, key }, (socket) => socket.end()));
    const proxy = await connectProxyTo(portOf(server));
    return new Promise((resolve) => {
      httpProxyConnector(proxy, { tls: { ca }, timeoutMs: 30_000 })({ hostname: 'kube.test', protocol: 'https:', port: '' }, (err, socket) => {
        if (socket !== null) sockets.add(socket); // handed over at secureConnect: verified
        resolve(err ?? 'ok');
      });
    });
  }

  it('refuses a server certificate that names its host only in the Common Name, as Go does, and takes one with SANs', async () => {
    const pki = await createTestPki({ hosts: ['kube.test'] });
    const commonNameOnly = await issueTestCertificate(pki.ca, { commonName: 'kube.test' });
    const refused = await handshakeThroughProxy(commonNameOnly.cert, commonNameOnly.key, pki.ca.cert);
    expect(refused).toBeInstanceOf(LegacyCommonNameError);
    expect((refused as Error).message).toContain('certificate relies on legacy Common Name field (CN kube.test), use SANs instead: it has no subjectAltName to match kube.test');
    expect(await handshakeThroughProxy(pki.server.cert, pki.server.key, pki.ca.cert)).toBe('ok');
  });

  it('verifies a server against an intermediate CA given as the CA, as Go does', async () => {
    const pki = await createTestPki();
    const intermediate = await issueTestCertificate(pki.ca, { commonName: 'intermediate', role: 'ca' });
    const leaf = await issueTestCertificate(intermediate, { commonName: 'kube.test', hosts: ['kube.test'] });
    expect(await handshakeThroughProxy(leaf.cert + intermediate.cert, leaf.key, intermediate.cert)).toBe('ok');
    const unrelated = await createTestPki({ caName: 'unrelated' });
    expect(await handshakeThroughProxy(leaf.cert + intermediate.cert, leaf.key, unrelated.ca.cert)).toMatchObject({ code: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' });
  });
});

describe(basicAuthFromUserinfo.name, () => {
  it('sends a password without a user name, as Go does for any userinfo, and nothing without userinfo', () => {
    expect(basicAuthFromUserinfo(new URL('http://:s%C3%A9cret@proxy.test:3128'))).toBe(`Basic ${Buffer.from(':sécret').toString('base64')}`);
    expect(basicAuthFromUserinfo(new URL('http://proxy.test:3128'))).toBeUndefined();
  });
});
