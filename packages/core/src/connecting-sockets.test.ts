import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConnectingSockets } from './connecting-sockets.js';

type Callback = (err: Error | null, socket: Socket | null) => void;

/** A connector in undici's shape: calls back once the socket has received its first byte (never, here). */
const connectOnFirstByte = (options: { port: number }, callback: Callback): Socket => {
  const socket = connect(options.port, '127.0.0.1');
  socket.once('data', () => callback(null, socket));
  socket.once('error', (err) => callback(err, null));
  return socket;
};

describe(ConnectingSockets.name, () => {
  it('destroys a socket whose connector has not called back, and the connector reports the reason', async () => {
    const server = createServer((s) => s.resume());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const accepted = once(server, 'connection') as Promise<[Socket]>;
      const sockets = new ConnectingSockets();
      const reported = new Promise<Error | null>((resolve) => {
        sockets.wrap(connectOnFirstByte)({ port: (server.address() as AddressInfo).port }, (err) => resolve(err));
      });
      const [serverSide] = await accepted;
      expect(sockets.size).toBe(1);
      const reason = new Error('closed');
      sockets.destroy(reason);
      expect(await reported).toBe(reason);
      expect(sockets.size).toBe(0);
      await once(serverSide, 'close');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('forgets a socket once its connector has called back', () => {
    const sockets = new ConnectingSockets();
    const socket = { destroy: (): void => expect.fail('a connected socket is not destroyed') };
    let done!: () => void;
    sockets.wrap((_options: undefined, callback: () => void) => ((done = callback), socket))(undefined, () => undefined);
    expect(sockets.size).toBe(1);
    done();
    expect(sockets.size).toBe(0);
    sockets.destroy(new Error('closed'));
  });
});
