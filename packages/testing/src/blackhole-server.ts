import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP listener on 127.0.0.1 that accepts connections, reads and drops what they send and never
 * answers: a "blackholed" server. An https request to {@link url} stays in its TLS handshake
 * until the client gives up. For tests of abort and cleanup: wait for {@link nextConnection}
 * (no sleeps), abort, then {@link allClosed} resolves once the client has closed every socket.
 */
export class BlackholeServer {
  readonly #server: Server;
  readonly #open = new Set<Socket>();
  readonly #closed: Promise<void>[] = [];

  private constructor(server: Server) {
    this.#server = server;
    server.on('connection', (socket) => {
      this.#open.add(socket);
      socket.on('error', () => undefined);
      socket.resume(); // reads (and drops) the ClientHello, so the client's FIN is seen and the socket closes
      this.#closed.push(once(socket, 'close').then(() => void this.#open.delete(socket)));
    });
  }

  static async listen(): Promise<BlackholeServer> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new BlackholeServer(server);
  }

  /** `https://127.0.0.1:<port>` */
  get url(): string {
    return `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Resolves when the next connection is accepted. */
  async nextConnection(): Promise<Socket> {
    const [socket] = (await once(this.#server, 'connection')) as [Socket];
    return socket;
  }

  /** Sockets accepted and not yet closed by either side. */
  get openSockets(): number {
    return this.#open.size;
  }

  /** Resolves when every socket accepted so far has closed. */
  async allClosed(): Promise<void> {
    await Promise.all(this.#closed);
  }

  /** Destroys the sockets still open and closes the listener. */
  async close(): Promise<void> {
    for (const socket of this.#open) socket.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}
