import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** One tunnel the proxy opened: the `user:password` it was given (RFC 1929), and `host:port` asked for. */
export interface Socks5Tunnel {
  readonly auth: string | undefined;
  readonly target: string;
}

export interface Socks5ProxyOptions {
  /** `user:password` the proxy requires (RFC 1929); none by default. */
  readonly auth?: string;
  /** Every tunnel goes to this port on 127.0.0.1, whatever host and port it asks for. */
  readonly forwardTo?: number;
}

/**
 * A SOCKS5 proxy on 127.0.0.1: RFC 1928 CONNECT to an IPv4 address or a host name, with RFC 1929
 * user/password authentication when `auth` (`user:password`) is given (a wrong pair is refused). It
 * logs each tunnel in {@link tunnels}. With `forwardTo`, every tunnel goes to that port on 127.0.0.1,
 * whatever it asks for (so tests can name hosts that do not resolve). For tests of clients that reach
 * a server through `socks5://`.
 */
export class Socks5Proxy {
  /** The tunnels opened, in order. */
  readonly tunnels: Socks5Tunnel[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  private constructor(server: Server, options: Socks5ProxyOptions) {
    this.#server = server;
    server.on('connection', (downstream) => {
      this.#track(downstream);
      this.#serve(downstream, options).catch(() => downstream.destroy());
    });
  }

  static async listen(options: Socks5ProxyOptions = {}): Promise<Socks5Proxy> {
    const server = createServer();
    const proxy = new Socks5Proxy(server, options);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return proxy;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** `socks5://[userinfo@]127.0.0.1:<port>`; `userinfo` as given (percent-encoded if it must be). */
  url(userinfo?: string): URL {
    return new URL(`socks5://${userinfo === undefined ? '' : `${userinfo}@`}127.0.0.1:${this.port}`);
  }

  /** Destroys every socket (tunnels included) and closes the listener. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  async #serve(downstream: Socket, { auth, forwardTo }: Socks5ProxyOptions): Promise<void> {
    const [, methods = 0] = await read(downstream, 2);
    const offered = [...(await read(downstream, methods))];
    const method = auth === undefined ? 0 : 2;
    if (!offered.includes(method)) return void downstream.end(Buffer.from([5, 0xff]));
    downstream.write(Buffer.from([5, method]));
    let user: string | undefined;
    if (method === 2) {
      const [, userLength = 0] = await read(downstream, 2);
      const name = (await read(downstream, userLength)).toString();
      const [passwordLength = 0] = await read(downstream, 1);
      user = `${name}:${(await read(downstream, passwordLength)).toString()}`;
      if (user !== auth) return void downstream.end(Buffer.from([1, 1]));
      downstream.write(Buffer.from([1, 0]));
    }
    const [, , , type] = await read(downstream, 4);
    const host = type === 1
      ? [...(await read(downstream, 4))].join('.')
      : (await read(downstream, (await read(downstream, 1))[0] ?? 0)).toString();
    const port = (await read(downstream, 2)).readUInt16BE(0);
    this.tunnels.push({ auth: user, target: `${host}:${port}` });
    const upstream = connect(forwardTo ?? port, forwardTo === undefined ? host : '127.0.0.1', () => {
      downstream.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
      upstream.pipe(downstream).pipe(upstream);
    });
    this.#track(upstream);
    upstream.on('error', () => downstream.destroy());
    downstream.on('close', () => upstream.destroy());
  }
}

/** Exactly `n` bytes from `socket` (paused mode). */
async function read(socket: Socket, n: number): Promise<Buffer> {
  if (n === 0) return Buffer.alloc(0); // socket.read(0) never returns data: an empty field (a user without a password)
  for (;;) {
    const chunk = socket.read(n) as Buffer | null;
    if (chunk !== null) return chunk;
    await once(socket, 'readable');
  }
}
