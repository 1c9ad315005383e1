import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { basicAuthFromUserinfo, httpProxyConnector } from './http-proxy-connector.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

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

describe(basicAuthFromUserinfo.name, () => {
  it('sends a password without a user name, as Go does for any userinfo, and nothing without userinfo', () => {
    expect(basicAuthFromUserinfo(new URL('http://:s%C3%A9cret@proxy.test:3128'))).toBe(`Basic ${Buffer.from(':sécret').toString('base64')}`);
    expect(basicAuthFromUserinfo(new URL('http://proxy.test:3128'))).toBeUndefined();
  });
});
