/**
 * A watch body that ends mid-line (the server or a proxy closed the stream with its last line cut off) is an
 * unexpected EOF, not an undecodable stream: the Reflector re-watches at the last resourceVersion without a
 * relist (spec §5.3; client-go's StreamWatcher logs io.ErrUnexpectedEOF and closes the watch). Real KubeClient
 * and Reflector against a raw node:http server that ends a chunked body in the middle of a line.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as tick } from 'node:timers/promises';
import { ListWatch, Reflector, UndeltaStore } from '@podconfig/cache';
import type { Pod } from '@podconfig/core';
import { KubeClient } from '@podconfig/kube-client';
import { InstantClock } from '@podconfig/testing';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const pod = (name: string, rv: number): Pod => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name, namespace: 'default', uid: `u-${name}`, resourceVersion: String(rv) },
  spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'x' }] },
});

async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await tick();
}

describe(Reflector.name, () => {
  it('re-watches at the last resourceVersion, without a relist or an error, when a watch body ends mid-line', async () => {
    const requests: { watch: boolean; resourceVersion: string }[] = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      const watch = query.get('watch') === 'true';
      requests.push({ watch, resourceVersion: query.get('resourceVersion') ?? '' });
      res.writeHead(200, { 'content-type': 'application/json' });
      if (!watch) {
        res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [pod('a', 5)] }));
      } else if (requests.filter((r) => r.watch).length === 1) {
        res.write(`${JSON.stringify({ type: 'ADDED', object: pod('b', 6) })}\n`);
        res.end('{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"na'); // chunked terminator sent
      } else {
        res.flushHeaders(); // held open until the test ends
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const clock = new InstantClock();
    const { port } = server.address() as AddressInfo;
    const client = new KubeClient({
      config: { server: new URL(`http://127.0.0.1:${port}`), tls: { insecureSkipVerify: false }, auth: { type: 'none' }, source: 'test', identity: 'test', warnings: [] },
      logger,
      clock,
      qps: Infinity,
    });
    cleanups.push(() => client.close());
    const store = new UndeltaStore({ push: () => undefined });
    const reflector = new Reflector<Pod>({
      listerWatcher: new ListWatch<Pod>({ client, path: '/api/v1/pods', kind: 'Pod' }),
      sink: store,
      logger,
      clock,
      watchList: false,
      expectedKind: 'Pod',
      name: 'pods',
    });
    const controller = new AbortController();
    const running = reflector.run(controller.signal);
    cleanups.push(async () => {
      controller.abort();
      await running;
    });

    await until(() => requests.filter((r) => r.watch).length === 2 && reflector.status().connected);
    expect(requests).toEqual([
      { watch: false, resourceVersion: '0' },
      { watch: true, resourceVersion: '5' },
      { watch: true, resourceVersion: '6' },
    ]);
    expect(reflector.status()).toMatchObject({ relists: 0, watchRestarts: 1, consecutiveFailures: 0, undecodableEvents: 0 });
    expect(reflector.status().lastError).toBeUndefined();
    expect([...store.snapshot().keys()].sort()).toEqual(['default/a', 'default/b']);
    // A normal close within 1 s of the watch's start (the clock did not move): the rest of that second, no backoff step.
    expect(clock.sleeps).toEqual([1000]);
    expect(lines.filter((l) => l.msg === 'watch stream ended mid-line (unexpected EOF)')).toMatchObject([{ level: 30, line: 2 }]);
  });
});
