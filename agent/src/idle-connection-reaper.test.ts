import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { IdleConnectionReaper, type IdleConnectionReaperOptions, type ReapReason } from './idle-connection-reaper.js';

let server: Server | undefined;
let reaper: IdleConnectionReaper | undefined;
const clients: Socket[] = [];
afterEach(async () => {
  reaper?.close();
  reaper = undefined;
  for (const c of clients.splice(0)) c.destroy();
  if (server !== undefined) {
    server.close();
    await once(server, 'close');
    server = undefined;
  }
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A server whose connections the reaper tracks; `reaped` lists what it cut and why, `connect()` opens one more. */
async function reaping(options: Omit<IdleConnectionReaperOptions, 'onReap'>): Promise<{
  reaper: IdleConnectionReaper;
  reaped: [Socket, ReapReason][];
  connect: () => Promise<{ client: Socket; socket: Socket }>;
}> {
  const reaped: [Socket, ReapReason][] = [];
  const r = new IdleConnectionReaper({ ...options, onReap: (socket, reason) => reaped.push([socket, reason]) });
  reaper = r;
  const s = createServer((socket) => {
    socket.on('error', () => {});
    socket.resume();
    r.track(socket);
  });
  server = s;
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const open = async (): Promise<{ client: Socket; socket: Socket }> => {
    const client = connect((s.address() as AddressInfo).port, '127.0.0.1');
    client.on('error', () => {});
    client.resume();
    clients.push(client);
    const [, [socket]] = await Promise.all([once(client, 'connect'), once(s, 'connection') as Promise<[Socket]>]);
    return { client, socket };
  };
  return { reaper: r, reaped, connect: open };
}

/** A client connected to a server whose end of the connection the reaper tracks; `reaped` lists what it cut. */
async function tracked(idleMs: number): Promise<{ client: Socket; reaped: [Socket, ReapReason][] }> {
  const { reaped, connect: open } = await reaping({ idleMs });
  const { client } = await open();
  return { client, reaped };
}

/** Holds the event loop, as building a large response or a long GC does. */
function holdEventLoop(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy: nothing else runs
  }
}

describe(IdleConnectionReaper.name, () => {
  it('cuts a connection that moves no bytes for idleMs', async () => {
    const { reaped } = await tracked(150);
    await expect.poll(() => reaped.map(([, reason]) => reason), { timeout: 5_000 }).toEqual(['idle']);
  });

  describe('track() at maxConnections', () => {
    const HOUR = 3_600_000; // no idle cut during these tests

    it('admits a new connection by closing the one without a request in flight idle the longest', async () => {
      const { reaper: r, reaped, connect: open } = await reaping({ idleMs: HOUR, maxConnections: 3 });
      const [a, b, c] = [await open(), await open(), await open()];
      const busy = r.requestStarted(a.socket); // in flight: not to be taken
      r.requestStarted(b.socket)(); // a request came and went: b is now the most recently used
      const d = await open();
      expect(reaped).toEqual([[c.socket, 'evicted']]);
      await expect.poll(() => c.client.closed).toBe(true);
      busy();
      const e = await open(); // a's request ended after b's: b is idle the longer
      expect(reaped.slice(1)).toEqual([[b.socket, 'evicted']]);
      expect([a, d, e].map(({ client }) => client.closed)).toEqual([false, false, false]);
    });

    it('closes the new connection itself when every connection held has a request in flight', async () => {
      const { reaper: r, reaped, connect: open } = await reaping({ idleMs: HOUR, maxConnections: 2 });
      const held = [await open(), await open()];
      const ends = held.map(({ socket }) => r.requestStarted(socket));
      const refused = await open();
      expect(reaped).toEqual([[refused.socket, 'refused']]);
      await expect.poll(() => refused.client.closed).toBe(true);
      ends[1]!();
      ends[1]!(); // a second call does nothing: the count stays right
      const admitted = await open();
      expect(reaped.slice(1)).toEqual([[held[1]!.socket, 'evicted']]);
      expect([held[0]!.client.closed, admitted.client.closed]).toEqual([false, false]);
    });
  });

  for (const [idleFirst, hold] of [[200, 500], [240, 130]] as const) {
    it(`keeps a connection whose bytes waited behind a held event loop (idle ${idleFirst} ms of 300, then held ${hold} ms)`, async () => {
      const { client, reaped } = await tracked(300);
      await sleep(idleFirst); // idle for most of idleMs
      client.write('x'); // in the kernel at once; read by the server only once the loop runs again
      holdEventLoop(hold); // past idleMs: the sweep that comes first finds no byte read yet
      // Unheld, timers run before the socket is read: the sweep must not take the waiting byte for silence.
      await sleep(150); // still less than idleMs after the byte was read
      expect(reaped).toEqual([]);
    });
  }
});
