import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { buildConnector } from 'undici';

/** Time allowed to reach the proxy and finish the SOCKS5 and TLS handshakes (undici's connect timeout). */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** A SOCKS5 failure: `code` `ERR_SOCKS5`, a message without credentials. */
class Socks5Error extends Error {
  readonly code = 'ERR_SOCKS5';
}

/**
 * An undici connector that reaches each origin through a SOCKS5 proxy (RFC 1928, user/password
 * auth from the proxy URL as in RFC 1929; host names resolved by the proxy, as Go's
 * `x/net/proxy` does) and then speaks TLS to `https` origins with `tls`. Unlike undici's
 * `Socks5ProxyAgent`, the TLS server name (SNI) is only ever a host name: `tls.servername` when
 * given (`tls-server-name`), else the origin's host name, and none for an IP address (RFC 6066;
 * the certificate is still checked against the IP).
 */
export function socks5Connector(proxy: URL, tls: ConnectionOptions): buildConnector.connector {
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    let done = false;
    const finish = (err: Error | null, socket?: Socket): void => {
      if (done) return;
      done = true;
      if (err !== null) callback(err, null);
      else callback(null, socket!);
    };
    const raw = netConnect({ host: proxy.hostname.replace(/^\[|\]$/g, ''), port: Number(proxy.port) || 1080 });
    raw.setTimeout(HANDSHAKE_TIMEOUT_MS, () => raw.destroy(new Socks5Error(`SOCKS5 proxy ${proxy.host}: handshake timed out`)));
    raw.once('error', (err) => finish(err));
    raw.once('connect', () => {
      handshake(raw, proxy, host, port).then(
        () => {
          if (opts.protocol !== 'https:') {
            raw.setTimeout(0);
            finish(null, raw);
            return;
          }
          // The certificate is checked against `servername`, else `host` (an IP address is checked as one).
          const options: ConnectionOptions = { ...tls, socket: raw, host };
          const serverName = tls.servername ?? (isIP(host) === 0 ? host : undefined);
          if (serverName === undefined) delete options.servername;
          else options.servername = serverName;
          const secure = tlsConnect(options);
          raw.on('error', () => undefined); // the TLS socket reports what goes wrong from here on
          secure.once('secureConnect', () => {
            raw.setTimeout(0);
            finish(null, secure);
          });
          secure.once('error', (err: Error) => {
            secure.destroy();
            finish(err);
          });
        },
        (err: unknown) => {
          raw.destroy();
          finish(err instanceof Error ? err : new Socks5Error(String(err)));
        },
      );
    });
  };
}

async function handshake(socket: Socket, proxy: URL, host: string, port: number): Promise<void> {
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  const withAuth = user !== '' || pass !== '';
  socket.write(Buffer.from(withAuth ? [5, 2, 0, 2] : [5, 1, 0]));
  const [version, method] = await read(socket, 2);
  if (version !== 5) throw new Socks5Error(`SOCKS5 proxy ${proxy.host}: not a SOCKS5 server`);
  if (method === 2 && withAuth) {
    const u = Buffer.from(user, 'utf8');
    const p = Buffer.from(pass, 'utf8');
    if (u.length > 255 || p.length > 255) throw new Socks5Error(`SOCKS5 proxy ${proxy.host}: user name or password too long`);
    socket.write(Buffer.concat([Buffer.from([1, u.length]), u, Buffer.from([p.length]), p]));
    const [, status] = await read(socket, 2);
    if (status !== 0) throw new Socks5Error(`SOCKS5 proxy ${proxy.host}: user name or password refused`);
  } else if (method !== 0) {
    throw new Socks5Error(`SOCKS5 proxy ${proxy.host}: no acceptable authentication method`);
  }
  let address: Buffer;
  if (isIP(host) === 4) address = Buffer.from([1, ...host.split('.').map(Number)]);
  else if (isIP(host) === 6) address = Buffer.concat([Buffer.from([4]), ipv6Bytes(host)]);
  else {
    const name = Buffer.from(host, 'utf8');
    if (name.length > 255) throw new Socks5Error(`SOCKS5 proxy ${proxy.host}: host name too long`);
    address = Buffer.concat([Buffer.from([3, name.length]), name]);
  }
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16BE(port);
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), address, portBytes]));
  const [, reply, , type] = await read(socket, 4);
  if (reply !== 0) throw new Socks5Error(`SOCKS5 proxy ${proxy.host}: connect to ${host}:${port} failed (reply ${reply})`);
  const boundLength = type === 1 ? 4 : type === 4 ? 16 : type === 3 ? (await read(socket, 1))[0]! : -1;
  if (boundLength < 0) throw new Socks5Error(`SOCKS5 proxy ${proxy.host}: bad reply`);
  await read(socket, boundLength + 2);
}

/** Exactly `n` bytes from a paused socket. */
async function read(socket: Socket, n: number): Promise<Buffer> {
  for (;;) {
    const chunk = socket.read(n) as Buffer | null;
    if (chunk !== null) {
      if (chunk.length < n) throw new Socks5Error('SOCKS5 proxy closed the connection');
      return chunk;
    }
    if (socket.readableEnded || socket.destroyed) throw new Socks5Error('SOCKS5 proxy closed the connection');
    await new Promise<void>((resolve, reject) => {
      const cleanup = (): void => {
        socket.off('readable', onReadable);
        socket.off('close', onClose);
        socket.off('error', onClose);
      };
      const onReadable = (): void => {
        cleanup();
        resolve();
      };
      const onClose = (): void => {
        cleanup();
        reject(new Socks5Error('SOCKS5 proxy closed the connection'));
      };
      socket.on('readable', onReadable);
      socket.on('close', onClose);
      socket.on('error', onClose);
    });
  }
}

function ipv6Bytes(host: string): Buffer {
  const [head = '', tail = ''] = host.split('::');
  const parts = (s: string): number[] =>
    s === ''
      ? []
      : s.split(':').flatMap((h) => {
          if (!h.includes('.')) return [Number.parseInt(h, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = h.split('.').map(Number); // an embedded IPv4 address
          return [a * 256 + b, c * 256 + d];
        });
  const start = parts(head);
  const end = host.includes('::') ? parts(tail) : [];
  const words = host.includes('::') ? [...start, ...Array<number>(8 - start.length - end.length).fill(0), ...end] : start;
  const out = Buffer.alloc(16);
  words.forEach((w, i) => out.writeUInt16BE(w, i * 2));
  return out;
}
