import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { BlackholeServer, Socks5Proxy, createTestPki, issueTestCertificate } from '@podconfig/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { LegacyCommonNameError } from './go-server-verification.js';
import type { ConnectTarget } from './http-proxy-connector.js';
import { isSocks5Proxy, socks5Connector } from './socks5-connector.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Outcome = { err: Error; socket: null } | { err: null; socket: Socket };

function connectThrough(proxy: URL, target: ConnectTarget, options: Parameters<typeof socks5Connector>[1] = {}): { returned: Socket | undefined; outcome: Promise<Outcome> } {
  let returned: Socket | undefined;
  const outcome = new Promise<Outcome>((resolve) => {
    returned = socks5Connector(proxy, options)(target, (...args) => {
      resolve(args[0] === null ? { err: null, socket: args[1] } : { err: args[0], socket: null });
    });
  });
  return { returned, outcome };
}

describe('socks5Connector', () => {
  it('hands back a plain socket tunnelled to the host and port asked for, logging in with the URL\'s userinfo', async () => {
    const echo = createServer((socket) => socket.pipe(socket));
    echo.listen(0, '127.0.0.1');
    await once(echo, 'listening');
    cleanups.push(() => new Promise((resolve) => echo.close(() => resolve())));
    const proxy = await Socks5Proxy.listen({ auth: 'user:p w', forwardTo: (echo.address() as AddressInfo).port });
    cleanups.push(() => proxy.close());
    const { returned, outcome } = connectThrough(proxy.url('user:p%20w'), { hostname: 'echo.test', protocol: 'http:', port: '' });
    expect(returned).toBeDefined();
    const result = await outcome;
    expect(result.err).toBeNull();
    const socket = result.socket!;
    socket.write('ping');
    const [data] = (await once(socket, 'data')) as [Buffer];
    expect(data.toString()).toBe('ping');
    socket.destroy();
    expect(proxy.tunnels).toEqual([{ auth: 'user:p w', target: 'echo.test:80' }]);
  });

  it('logs in with a user name alone (an empty password, as Go sends it)', async () => {
    const target = createServer((socket) => socket.end());
    target.listen(0, '127.0.0.1');
    await once(target, 'listening');
    cleanups.push(() => new Promise((resolve) => target.close(() => resolve())));
    const proxy = await Socks5Proxy.listen({ auth: 'user:', forwardTo: (target.address() as AddressInfo).port });
    cleanups.push(() => proxy.close());
    const { outcome } = connectThrough(proxy.url('user'), { hostname: 'a.test', protocol: 'http:', port: '8080' });
    const result = await outcome;
    expect(result.err).toBeNull();
    result.socket!.destroy();
    expect(proxy.tunnels).toEqual([{ auth: 'user:', target: 'a.test:8080' }]);
  });

  it('fails at once, opening no socket, for a user name or password the protocol cannot carry (over 255 bytes)', async () => {
    const { returned, outcome } = connectThrough(new URL(`socks5://u:${'x'.repeat(256)}@127.0.0.1:1`), { hostname: 'a.test', protocol: 'https:', port: '' });
    expect(returned).toBeUndefined();
    const { err } = await outcome;
    expect(err).toMatchObject({ code: 'ERR_SOCKS5', message: 'SOCKS5 proxy 127.0.0.1:1: user name or password too long' });
  });

  it('gives up after timeoutMs on a proxy that never answers, closing its socket', async () => {
    const blackhole = await BlackholeServer.listen();
    cleanups.push(() => blackhole.close());
    const proxyUrl = new URL(`socks5://127.0.0.1:${new URL(blackhole.url).port}`);
    const { outcome } = connectThrough(proxyUrl, { hostname: 'a.test', protocol: 'https:', port: '' }, { timeoutMs: 200 });
    const { err } = await outcome;
    expect(err).toMatchObject({ code: 'ERR_SOCKS5', message: `SOCKS5 proxy ${proxyUrl.host}: handshake timed out` });
    await blackhole.allClosed();
  });

  it('refuses a server certificate that names its host only in the Common Name through the tunnel, as Go does; a socks5h URL tunnels as socks5', async () => {
    const pki = await createTestPki({ hosts: ['kube.test'] });
    const commonNameOnly = await issueTestCertificate(pki.ca, { commonName: 'kube.test' });
    const handshake = async (cert: string, key: string, scheme: string): Promise<Outcome> => {
      const server = createTlsServer({ cert, key }, (socket) => socket.end());
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
      const proxy = await Socks5Proxy.listen({ forwardTo: (server.address() as AddressInfo).port });
      cleanups.push(() => proxy.close());
      const url = new URL(proxy.url().href.replace('socks5:', scheme));
      const { outcome } = connectThrough(url, { hostname: 'kube.test', protocol: 'https:', port: '' }, { tls: { ca: pki.ca.cert } });
      const result = await outcome;
      result.socket?.destroy();
      expect(proxy.tunnels).toEqual([{ auth: undefined, target: 'kube.test:443' }]); // the proxy resolves the name
      return result;
    };
    expect((await handshake(commonNameOnly.cert, commonNameOnly.key, 'socks5:')).err).toBeInstanceOf(LegacyCommonNameError);
    expect((await handshake(pki.server.cert, pki.server.key, 'socks5:')).err).toBeNull();
    expect((await handshake(pki.server.cert, pki.server.key, 'socks5h:')).err).toBeNull();
  });
});

describe('isSocks5Proxy', () => {
  it('takes socks5 and socks5h, as Go does', () => {
    expect(['socks5://p:1080', 'socks5h://p:1080', 'http://p:3128', 'socks4://p'].map((u) => isSocks5Proxy(new URL(u)))).toEqual([true, true, false, false]);
  });
});
