import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { IdleConnectionReaper } from './idle-connection-reaper.js';

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

/** A client connected to a server whose end of the connection the reaper tracks; `reaped` lists what it cut. */
async function tracked(idleMs: number): Promise<{ client: Socket; reaped: Socket[] }> {
  const reaped: Socket[] = [];
  const r = new IdleConnectionReaper(idleMs, (s) => reaped.push(s));
  reaper = r;
  const s = createServer((socket) => {
    socket.on('error', () => {});
    socket.resume();
    r.track(socket);
  });
  server = s;
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const client = connect((s.address() as AddressInfo).port, '127.0.0.1');
  client.on('error', () => {});
  clients.push(client);
  await Promise.all([once(client, 'connect'), once(s, 'connection')]);
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
    await expect.poll(() => reaped.length, { timeout: 5_000 }).toBe(1);
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
