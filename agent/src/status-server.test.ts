import { get as httpGet } from 'node:http';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry, Counter, Gauge } from 'prom-client';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ANNOTATIONS, type ActualPod, type KillPodRequest, type PodLister, type PodUpdate, type SyncHandler } from '@podconfig/core';
import type { PodMerger } from '@podconfig/merge';
import { Reconciler, type HandlerCallEvent } from '@podconfig/reconcile';
import { ManualClock, makePod } from '@podconfig/testing';
import { Agent } from './agent.js';
import { AgentMetrics } from './metrics.js';
import { resolveConfig } from './settings.js';
import { MAX_LARGE_RESPONSES, StatusServer, type StatusProvider, type StatusServerOptions } from './status-server.js';

/** The merger's output, fed by the test: `push()` resolves once the reconciler has applied the update. */
class Feed implements AsyncIterable<PodUpdate> {
  readonly #queue: { readonly update: PodUpdate; readonly applied: () => void }[] = [];
  #applied: (() => void) | undefined;
  #wake: (() => void) | undefined;
  #returned = false;

  push(update: PodUpdate): Promise<void> {
    return new Promise<void>((applied) => {
      this.#queue.push({ update, applied });
      this.#wake?.();
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<PodUpdate> {
    return {
      next: async () => {
        // The reconciler asks for the next update once it has applied the one before.
        this.#applied?.();
        this.#applied = undefined;
        for (;;) {
          if (this.#returned) return { done: true, value: undefined };
          const item = this.#queue.shift();
          if (item !== undefined) {
            this.#applied = item.applied;
            return { done: false, value: item.update };
          }
          await new Promise<void>((resolve) => { this.#wake = resolve; });
        }
      },
      return: () => {
        this.#returned = true;
        this.#wake?.();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}


describe(StatusServer.name, () => {
  let controller = new AbortController();
  afterEach(() => {
    controller.abort();
    controller = new AbortController();
  });

  const start = async (provider: StatusProvider, idleSocketMs?: number, logger = pino({ level: 'silent' })): Promise<string> => {
    const registry = new Registry();
    new Counter({ name: 'podconfig_test_total', help: 'a test counter', registers: [registry] }).inc(3);
    const server = new StatusServer({
      address: { host: '127.0.0.1', port: 0 },
      registry,
      logger,
      ...(idleSocketMs === undefined ? {} : { idleSocketMs }),
    });
    const address = await server.start(provider, controller.signal);
    expect(address.address).toBe('127.0.0.1');
    return `http://127.0.0.1:${address.port}`;
  };

  const provider = (ready: string[]): StatusProvider => ({
    readiness: () => ({ configured: ['file', 'api'], ready, allReady: ready.length === 2 }),
    syncLoopError: () => undefined,
    pods: () => ({ kind: 'PodList', items: [{ metadata: { name: 'a' } }] }),
    sources: () => ({ sources: [{ name: 'file', pods: 1 }] }),
  });

  const get = async (url: string, init: { method?: 'GET' | 'POST' | 'HEAD' } = {}) => {
    const res = await request(url, { method: init.method ?? 'GET' });
    return { status: res.statusCode, type: String(res.headers['content-type']), body: await res.body.text() };
  };

  /**
   * Stalls {@link MAX_LARGE_RESPONSES} readers of `stalledPath` (each keeps its large response in flight), then: the
   * next large response (`probePath`) gets 503 and `/healthz` still 200; once the readers are gone, 200 again.
   */
  async function expectLargeResponsesCapped(base: string, stalledPath: string, probePath: string): Promise<void> {
    const port = Number(new URL(base).port);
    const stalled: Socket[] = [];
    try {
      for (let i = 0; i < MAX_LARGE_RESPONSES; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {}); // reset by the server when closed with a response unread
        socket.pause();
        socket.write(`GET ${stalledPath} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        stalled.push(socket);
      }
      await expect.poll(async () => (await get(`${base}${probePath}`)).status).toBe(503);
      expect((await get(`${base}/healthz`)).status).toBe(200);
    } finally {
      for (const socket of stalled) socket.destroy();
    }
    await expect.poll(async () => (await get(`${base}${probePath}`)).status).toBe(200);
  }

  describe('start()', () => {
    it('rejects a taken port as invalid configuration naming the address', async () => {
      const taken = new URL(await start(provider([]))).port;
      const second = new StatusServer({ address: { host: '127.0.0.1', port: Number(taken) }, registry: new Registry(), logger: pino({ level: 'silent' }) });
      await expect(second.start(provider([]), controller.signal)).rejects.toMatchObject({
        code: 'PODCONFIG_CONFIG_INVALID',
        message: expect.stringMatching(new RegExp(`^status server: cannot listen on 127\\.0\\.0\\.1:${taken}: .*EADDRINUSE`)) as string,
      });
    });

    it('serves /healthz, /pods, /sources and /metrics', async () => {
      const base = await start(provider(['file', 'api']));
      expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, body: 'ok\n' });
      expect(JSON.parse((await get(`${base}/pods`)).body)).toEqual({ kind: 'PodList', items: [{ metadata: { name: 'a' } }] });
      expect(JSON.parse((await get(`${base}/sources`)).body)).toEqual({ sources: [{ name: 'file', pods: 1 }] });
      const metrics = await get(`${base}/metrics`);
      expect(metrics.type).toContain('text/plain');
      expect(metrics.body).toContain('podconfig_test_total 3');
    });

    it('serves /livez as the liveness check, as the kubelet does', async () => {
      const base = await start(provider([]));
      expect(await get(`${base}/livez`)).toMatchObject({ status: 200, body: 'ok\n' });
      expect(await get(`${base}/livez?verbose`)).toMatchObject({ status: 200, body: '[+]ping ok\n[+]log ok\n[+]syncloop ok\nlivez check passed\n' });
    });

    it('leaves out the checks ?exclude= names, warning of names that match none, as Kubernetes components do', async () => {
      let syncLoopError: string | undefined = 'held';
      const ready = ['file'];
      const base = await start({ ...provider([]), syncLoopError: () => syncLoopError,
        readiness: () => ({ configured: ['file', 'api'], ready, allReady: ready.length === 2 }) });
      expect(await get(`${base}/healthz?exclude=syncloop`)).toMatchObject({ status: 200, body: 'ok\n' });
      expect(await get(`${base}/livez?exclude=syncloop&exclude=nope&exclude=%20ping&verbose`)).toMatchObject({
        status: 200,
        body: '[+]ping ok\n[+]log ok\n[+]syncloop excluded: ok\nwarn: some health checks cannot be excluded: no matches for " ping","nope"\nlivez check passed\n',
      });
      syncLoopError = undefined;
      expect(await get(`${base}/readyz?exclude=source/api`)).toMatchObject({ status: 200, body: 'ok\n' });
      expect(await get(`${base}/readyz?exclude=source/file`)).toMatchObject({
        status: 503, body: '[+]source/file excluded: ok\n[-]source/api failed: reason withheld\nreadyz check failed\n',
      });
    });

    it('serves a /pods or /sources body that was costly to build again for five times its build time, then a new one', async () => {
      // Each reading of this clock is 100 ms on: every build looks 100 ms long, so its body is reused until 500 ms after.
      let t = 0;
      const server = new StatusServer({ address: { host: '127.0.0.1', port: 0 }, registry: new Registry(), logger: pino({ level: 'silent' }), now: () => (t += 100) });
      let version = 0;
      const base = `http://127.0.0.1:${(await server.start({ ...provider([]), pods: () => ({ kind: 'PodList', version }) }, controller.signal)).port}`;
      const seen: number[] = [];
      for (let i = 0; i < 6; i++) {
        version = i;
        seen.push((JSON.parse((await get(`${base}/pods`)).body) as { version: number }).version);
      }
      // Built at 100-200: reused at 300, 400, 500, 600; built again at 700.
      expect(seen).toEqual([0, 0, 0, 0, 0, 5]);
    });

    it('answers one check at /<endpoint>/<check>, its reason included and its endpoint\'s failure status, as Kubernetes components do', async () => {
      let syncLoopError: string | undefined = undefined;
      const base = await start({ ...provider([]), syncLoopError: () => syncLoopError,
        readiness: () => ({ configured: ['file', 'api'], ready: ['file'], allReady: false }) });
      expect(await get(`${base}/healthz/ping`)).toMatchObject({ status: 200, body: 'ok\n' });
      expect(await get(`${base}/livez/syncloop`)).toMatchObject({ status: 200, body: 'ok\n' });
      expect(await get(`${base}/healthz/log`)).toMatchObject({ status: 200, body: 'ok\n' });
      syncLoopError = 'held by runtime errors';
      expect(await get(`${base}/healthz/syncloop`)).toMatchObject({ status: 500, body: 'internal server error: held by runtime errors\n' });
      expect(await get(`${base}/readyz/source/file`)).toMatchObject({ status: 200, body: 'ok\n' });
      expect(await get(`${base}/readyz/source/api`)).toMatchObject({ status: 503, body: 'service unavailable: not ready\n' });
      expect((await get(`${base}/healthz/nope`)).status).toBe(404);
      expect((await get(`${base}/healthz/`)).status).toBe(404); // as k8s.io/apiserver: /healthz and /healthz/<check> only
      expect((await get(`${base}/readyz/source/nope`)).status).toBe(404);
    });

    it('says why a source is not ready at /readyz/source/<name> to a loopback host name, as /sources would; withholds it in /readyz', async () => {
      const errors: Record<string, string> = { api: 'apiserver list failed: connect ECONNREFUSED 127.0.0.1:6443' };
      const base = await start({ ...provider(['file']), sourceError: (name) => errors[name] });
      expect(await get(`${base}/readyz/source/api`)).toMatchObject({
        status: 503, body: 'service unavailable: not ready: apiserver list failed: connect ECONNREFUSED 127.0.0.1:6443\n',
      });
      expect(await get(`${base}/readyz?verbose`)).toMatchObject({ status: 503, body: '[+]source/file ok\n[-]source/api failed: reason withheld\nreadyz check failed\n' });
      delete errors['api']; // not ready, nothing failed: still connecting
      expect(await get(`${base}/readyz/source/api`)).toMatchObject({ status: 503, body: 'service unavailable: not ready\n' });
      errors['api'] = 'SECRET-ISH detail';
      const port = new URL(base).port;
      const body = await new Promise<string>((resolve, reject) => {
        httpGet({ host: '127.0.0.1', port, path: '/readyz/source/api', headers: { host: `rebind.attacker.example:${port}` } }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; }).on('end', () => resolve(`${res.statusCode} ${text}`));
        }).on('error', reject);
      });
      expect(body).toBe('503 service unavailable: not ready\n'); // a page that rebound its name reads no /sources detail
    });

    it('answers /healthz and /livez 500 while the syncloop check fails, the reason withheld and logged once, as the kubelet does', async () => {
      let syncLoopError: string | undefined;
      const logged: { level: number; msg: string; reason?: string }[] = [];
      const logs = new Writable({
        write(chunk: Buffer, _encoding, done): void {
          logged.push(JSON.parse(chunk.toString()) as { level: number; msg: string; reason?: string });
          done();
        },
      });
      const base = await start({ ...provider([]), syncLoopError: () => syncLoopError }, undefined, pino({ level: 'info' }, logs));
      expect(await get(`${base}/healthz?verbose`)).toMatchObject({ status: 200, body: '[+]ping ok\n[+]log ok\n[+]syncloop ok\nhealthz check passed\n' });
      syncLoopError = 'the sync loop has been held by runtime errors for 301 s (longer than 300 s): handler "cri": socket gone';
      for (const path of ['/healthz', '/livez', '/healthz?verbose']) {
        const endpoint = path.slice(1).split('?')[0]!;
        expect(await get(`${base}${path}`)).toMatchObject({ status: 500, body: `[+]ping ok\n[+]log ok\n[-]syncloop failed: reason withheld\n${endpoint} check failed\n` });
      }
      syncLoopError = undefined;
      expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, body: 'ok\n' });
      expect(logged.filter((l) => l.msg.startsWith('healthz')).map((l) => [l.level, l.msg, l.reason])).toEqual([
        [40, 'healthz check failed', 'the sync loop has been held by runtime errors for 301 s (longer than 300 s): handler "cri": socket gone'],
        [30, 'healthz check passes again', undefined],
      ]);
    });

    it('sends its text answers with x-content-type-options: nosniff, so a browser never reads one as HTML', async () => {
      const base = await start(provider(['file']));
      for (const path of ['/healthz', '/readyz', '/nope']) {
        const res = await request(`${base}${path}`);
        await res.body.dump();
        expect([path, res.headers['x-content-type-options']]).toEqual([path, 'nosniff']);
      }
    });

    it('answers /readyz 200 when every source is ready, else 503 listing each source\'s check', async () => {
      const ready = ['file'];
      const base = await start({ ...provider([]), readiness: () => ({ configured: ['file', 'api'], ready, allReady: ready.length === 2 }) });
      for (const path of ['/readyz', '/readyz?verbose']) {
        expect(await get(`${base}${path}`)).toMatchObject({ status: 503, body: '[+]source/file ok\n[-]source/api failed: reason withheld\nreadyz check failed\n' });
      }
      ready.push('api');
      expect(await get(`${base}/readyz`)).toMatchObject({ status: 200, body: 'ok\n' });
    });

    it('answers 404 for unknown paths and 405 for other methods', async () => {
      const base = await start(provider([]));
      expect((await get(`${base}/nope`)).status).toBe(404);
      expect((await get(`${base}/pods`, { method: 'POST' })).status).toBe(405);
    });

    it('answers state only to loopback host names (no DNS rebinding), health checks to any', async () => {
      const base = await start(provider(['file', 'api']));
      const port = new URL(base).port;
      const status = (path: string, host: string): Promise<number> => new Promise((resolve, reject) => {
        httpGet({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject);
      });
      for (const path of ['/pods', '/sources', '/metrics']) expect(await status(path, `rebind.attacker.example:${port}`)).toBe(403);
      expect(await status('/healthz', `rebind.attacker.example:${port}`)).toBe(200);
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, '127.0.0.2']) expect(await status('/pods', host)).toBe(200);
    });

    it('checks the Host for a loopback address however it is written (127.1, an IPv6 spelling)', async () => {
      for (const host of ['127.1', '0:0:0:0:0:0:0:1']) {
        const server = new StatusServer({ address: { host, port: 0 }, registry: new Registry(), logger: pino({ level: 'silent' }) });
        const address = await server.start(provider([]), controller.signal);
        const connectTo = address.family === 'IPv6' ? '::1' : '127.0.0.1';
        const code = await new Promise<number>((resolve, reject) => {
          httpGet({ host: connectTo, port: address.port, path: '/pods', headers: { host: `rebind.attacker.example:${address.port}` } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          }).on('error', reject);
        });
        expect([host, code]).toEqual([host, 403]);
      }
    });

    describe('at maxConnections', () => {
      const startCapped = async (options: Partial<StatusServerOptions> = {}, statusProvider = provider([])): Promise<number> => {
        const server = new StatusServer({ address: { host: '127.0.0.1', port: 0 }, registry: new Registry(), logger: pino({ level: 'silent' }), maxConnections: 4, ...options });
        return (await server.start(statusProvider, controller.signal)).port;
      };
      const held: Socket[] = [];
      afterEach(() => {
        for (const socket of held.splice(0)) socket.destroy();
      });
      /** A connection the server has; `closed` once the server has closed it (it reads what comes, to see the end). */
      const open = async (port: number): Promise<Socket> => {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {}); // reset by the server when closed with a response unread
        socket.resume();
        held.push(socket);
        await once(socket, 'connect');
        return socket;
      };
      const healthz = async (socket: Socket, port: number): Promise<void> => {
        socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        expect(String(await once(socket, 'data'))).toMatch(/^HTTP\/1\.1 200/);
      };

      it('closes the silent connection held the longest to admit a new one: connections that never send a request cannot fail /healthz', async () => {
        const port = await startCapped();
        const silent: Socket[] = [];
        for (let i = 0; i < 4; i++) silent.push(await open(port));
        // A fifth, sixth, seventh: each answered, each closing the oldest silent one (the server takes them in order).
        for (let i = 0; i < 3; i++) await healthz(await open(port), port);
        await expect.poll(() => silent.map((s) => s.closed)).toEqual([true, true, true, false]);
      });

      it('counts a keep-alive connection between requests as idle: the least recently used one goes first', async () => {
        const port = await startCapped();
        const kept: Socket[] = [];
        for (let i = 0; i < 4; i++) {
          const socket = await open(port);
          await healthz(socket, port); // answered, kept open (keep-alive)
          kept.push(socket);
        }
        await healthz(kept[0]!, port); // used again: now the most recent
        await healthz(await open(port), port); // admitted: kept[1], idle the longest, goes
        await expect.poll(() => kept.map((s) => s.closed)).toEqual([false, true, false, false]);
        await healthz(kept[0]!, port);
      });

      it('closes a new connection only while every connection held has a request in flight, and admits one again once one is idle', async () => {
        // A body larger than the socket buffers: a client that does not read keeps its request in flight.
        const big = { kind: 'PodList', items: [{ metadata: { name: 'x'.repeat(32 * 1024 * 1024) } }] };
        let building = 0;
        // A clock that stands still: each build looks free, so none is reused (throttled-json.ts) and each request builds.
        const port = await startCapped({ now: () => 0 }, { ...provider([]), pods: () => { building++; return big; } });
        const stalled: Socket[] = [];
        for (let i = 0; i < 4; i++) {
          const socket = await open(port);
          socket.pause();
          socket.write(`GET /pods HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
          stalled.push(socket);
        }
        await expect.poll(() => building).toBe(4); // the server has taken all four requests in
        // Every one busy: a new connection is closed unanswered.
        const refused = await open(port);
        await expect.poll(() => refused.closed).toBe(true);
        expect(refused.bytesRead).toBe(0);
        expect(stalled.map((s) => s.closed)).toEqual([false, false, false, false]);
        stalled[0]!.destroy();
        await expect.poll(async () => (await get(`http://127.0.0.1:${port}/healthz`).catch(() => ({ status: 0 }))).status).toBe(200);
      });

      it('closes a connection that has not completed its request headers by headersTimeoutMs (408): a silent one, a slowloris', async () => {
        // The 30 s idle reaper would never cut the slowloris: it sends a byte now and then.
        const port = await startCapped({ headersTimeoutMs: 200, maxConnections: 256 });
        const silent = await open(port);
        const slow = await open(port);
        let answer = '';
        slow.on('data', (chunk: Buffer) => {
          answer += chunk.toString('latin1');
        });
        slow.write('GET /healthz HTTP/1.1\r\n');
        const trickle = setInterval(() => slow.write('X-Slow: 1\r\n'), 50);
        try {
          await expect.poll(() => [silent.closed, slow.closed], { timeout: 10_000 }).toEqual([true, true]);
        } finally {
          clearInterval(trickle);
        }
        expect(answer).toMatch(/^HTTP\/1\.1 408/);
      });
    });

    it(`builds at most ${MAX_LARGE_RESPONSES} large responses at once: readers that stall get 503, not more memory`, async () => {
      // A body larger than the socket buffers: a client that does not read keeps its response in flight.
      const big = { kind: 'PodList', items: [{ metadata: { name: 'x'.repeat(32 * 1024 * 1024) } }] };
      const base = await start({ ...provider([]), pods: () => big });
      await expectLargeResponsesCapped(base, '/pods', '/sources');
    });

    it('closes a connection that moves no bytes: a silent one, a reader that stalled; not one in use', async () => {
      // 300 ms for the default 30 s (at 30 s, Node's own socket timeout, used before, never fired: the server's
      // connection check, every 30 s, held it off; below the check's period it fires, so this cannot show that).
      const big = { kind: 'PodList', items: [{ metadata: { name: 'x'.repeat(32 * 1024 * 1024) } }] };
      const reaped: number[] = [];
      const logs = new Writable({
        write(chunk: Buffer, _encoding, done): void {
          const line = JSON.parse(chunk.toString()) as { msg: string; remotePort?: number };
          if (line.msg === 'closing a connection that moved no bytes' && line.remotePort !== undefined) reaped.push(line.remotePort);
          done();
        },
      });
      const base = await start({ ...provider([]), pods: () => big }, 300, pino({ level: 'debug' }, logs));
      const port = Number(new URL(base).port);
      const opened = (socket: Socket): Promise<number> => new Promise((resolve) => socket.once('connect', () => resolve(socket.localPort!)));
      const silent = connect(port, '127.0.0.1');
      const stalled = Array.from({ length: MAX_LARGE_RESPONSES }, () => {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => {}); // reset by the server: it is cut with its response unread
        socket.pause();
        socket.write(`GET /pods HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        return socket;
      });
      const ports = await Promise.all([silent, ...stalled].map(opened));
      const busy = connect(port, '127.0.0.1');
      let answers = 0;
      busy.on('data', (chunk: Buffer) => {
        answers += chunk.toString('latin1').split('HTTP/1.1 200').length - 1;
      });
      let busyClosed = false;
      busy.once('close', () => {
        busyClosed = true;
      });
      // A request every 50 ms over four idle periods: the connection in use stays open.
      const requests = 24;
      const inUse = (async (): Promise<void> => {
        for (let i = 0; i < requests; i++) {
          busy.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      try {
        await expect.poll(() => [...reaped].sort(), { timeout: 5_000 }).toEqual([...ports].sort());
        // The stalled readers held every large response: with them cut, /sources answers again.
        expect((await get(`${base}/sources`)).status).toBe(200);
        await inUse;
        await expect.poll(() => answers).toBe(requests);
        expect(busyClosed).toBe(false);
      } finally {
        for (const socket of [silent, ...stalled, busy]) socket.destroy();
      }
    });

    describe("with endpoints: 'metrics' (the metrics server)", () => {
      const startMetrics = async (statusProvider: StatusProvider, options: Partial<StatusServerOptions> = {}): Promise<{ base: string; port: number }> => {
        const registry = new Registry();
        new Counter({ name: 'podconfig_test_total', help: 'a test counter', registers: [registry] }).inc(3);
        const server = new StatusServer({
          address: { host: '127.0.0.1', port: 0 }, endpoints: 'metrics', setting: '--metrics-bind-address', registry, logger: pino({ level: 'silent' }), ...options,
        });
        const { port } = await server.start(statusProvider, controller.signal);
        return { base: `http://127.0.0.1:${port}`, port };
      };
      /** A GET with its own `Host` header (undici sets it from the URL). */
      const getAs = (port: number, path: string, host: string): Promise<{ status: number; body: string }> => new Promise((resolve, reject) => {
        httpGet({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        }).on('error', reject);
      });

      it('serves /metrics and the health checks, with their single checks and options, and 404 for /pods, /sources and the rest', async () => {
        const { base } = await startMetrics(provider(['file']));
        const metrics = await get(`${base}/metrics`);
        expect(metrics).toMatchObject({ status: 200 });
        expect(metrics.type).toContain('text/plain');
        expect(metrics.body).toContain('podconfig_test_total 3');
        expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, body: 'ok\n' });
        expect(await get(`${base}/livez?verbose`)).toMatchObject({ status: 200, body: '[+]ping ok\n[+]log ok\n[+]syncloop ok\nlivez check passed\n' });
        expect(await get(`${base}/healthz/ping`)).toMatchObject({ status: 200, body: 'ok\n' });
        expect(await get(`${base}/readyz`)).toMatchObject({ status: 503, body: '[+]source/file ok\n[-]source/api failed: reason withheld\nreadyz check failed\n' });
        expect(await get(`${base}/readyz?exclude=source/api`)).toMatchObject({ status: 200, body: 'ok\n' });
        expect(await get(`${base}/readyz/source/file`)).toMatchObject({ status: 200, body: 'ok\n' });
        expect(await get(`${base}/readyz/source/api`)).toMatchObject({ status: 503, body: 'service unavailable: not ready\n' });
        expect((await get(`${base}/readyz/source/nope`)).status).toBe(404);
        for (const path of ['/pods', '/sources', '/', '/nope', '/metrics/x', '/pods?verbose']) {
          expect([path, (await get(`${base}${path}`)).status]).toEqual([path, 404]);
        }
        expect((await get(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
        expect((await get(`${base}/metrics`, { method: 'HEAD' })).status).toBe(200);
      });

      it('answers /readyz 200 once every source is ready', async () => {
        const { base } = await startMetrics(provider(['file', 'api']));
        expect(await get(`${base}/readyz`)).toMatchObject({ status: 200, body: 'ok\n' });
      });

      it('answers /metrics to any Host, a name that is no loopback one too (it holds no pod data); /pods stays 404', async () => {
        const { port } = await startMetrics(provider(['file', 'api']));
        const metrics = await getAs(port, '/metrics', `prometheus.monitoring.svc:${port}`);
        expect(metrics.status).toBe(200);
        expect(metrics.body).toContain('podconfig_test_total 3');
        expect((await getAs(port, '/healthz', `10.0.0.7:${port}`)).status).toBe(200);
        expect((await getAs(port, '/pods', `10.0.0.7:${port}`)).status).toBe(404);
        expect((await getAs(port, '/sources', `localhost:${port}`)).status).toBe(404);
      });

      it('withholds a source\'s error at /readyz/source/<name> from every Host, as it serves no /sources', async () => {
        const { port } = await startMetrics({ ...provider(['file']), sourceError: () => 'apiserver list failed: connect ECONNREFUSED 127.0.0.1:6443' });
        for (const host of [`127.0.0.1:${port}`, `prometheus.example:${port}`]) {
          expect(await getAs(port, '/readyz/source/api', host)).toEqual({ status: 503, body: 'service unavailable: not ready\n' });
        }
      });

      it('rejects a taken port as invalid configuration naming the metrics server and its flag, retryable', async () => {
        const { port } = await startMetrics(provider([]));
        const second = new StatusServer({
          address: { host: '127.0.0.1', port }, endpoints: 'metrics', setting: '--metrics-bind-address', registry: new Registry(), logger: pino({ level: 'silent' }),
        });
        await expect(second.start(provider([]), controller.signal)).rejects.toMatchObject({
          code: 'PODCONFIG_CONFIG_INVALID',
          retryable: true,
          message: expect.stringMatching(new RegExp(`^metrics server \\(--metrics-bind-address\\): cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`)) as string,
        });
      });

      it('logs where it listens as the metrics server, without the status server\'s warning', async () => {
        const logged: { level: number; msg: string; component?: string; address?: string; port?: number }[] = [];
        const logs = new Writable({
          write(chunk: Buffer, _encoding, done): void {
            logged.push(JSON.parse(chunk.toString()) as (typeof logged)[number]);
            done();
          },
        });
        const { port } = await startMetrics(provider([]), { logger: pino({ level: 'info' }, logs) });
        expect(logged).toEqual([expect.objectContaining({ level: 30, msg: 'metrics server listening', component: 'status.metrics', address: '127.0.0.1', port })]);
      });

      it(`keeps the status server's limit of ${MAX_LARGE_RESPONSES} large responses built at once for /metrics: scrapers that stall get 503`, async () => {
        // A body larger than the socket buffers: a scraper that does not read keeps its response in flight.
        const registry = new Registry();
        new Gauge({ name: 'podconfig_test_big', help: 'a big label', labelNames: ['x'], registers: [registry] }).labels('x'.repeat(32 * 1024 * 1024)).set(1);
        const { base } = await startMetrics(provider([]), { registry });
        await expectLargeResponsesCapped(base, '/metrics', '/metrics');
      });

      it('keeps the status server\'s connection cap: a new connection closes the silent one held the longest', async () => {
        const { port } = await startMetrics(provider([]), { maxConnections: 2 });
        const held: Socket[] = [];
        try {
          const open = async (): Promise<Socket> => {
            const socket = connect(port, '127.0.0.1');
            socket.on('error', () => {});
            socket.resume();
            held.push(socket);
            await once(socket, 'connect');
            return socket;
          };
          const silent = [await open(), await open()];
          const probe = await open();
          probe.write(`GET /healthz HTTP/1.1\r\nHost: 10.0.0.7:${port}\r\n\r\n`);
          expect(String(await once(probe, 'data'))).toMatch(/^HTTP\/1\.1 200/);
          await expect.poll(() => silent.map((s) => s.closed)).toEqual([true, false]);
        } finally {
          for (const socket of held) socket.destroy();
        }
      });
    });

    it('stops listening when the signal aborts', async () => {
      const local = new AbortController();
      const registry = new Registry();
      const server = new StatusServer({ address: { host: '127.0.0.1', port: 0 }, registry, logger: pino({ level: 'silent' }) });
      const { port } = await server.start(provider([]), local.signal);
      local.abort();
      await expect(request(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    });
  });

  describe('/pods', () => {
    it('shows the orphan kills under way and the desired pod waiting for one under its name, until the kills succeed', async () => {
      // A handler that knows its pods by name: it lists an orphan default/web without a UID (its kill is slow) and
      // one with a UID whose first kill fails.
      const clock = new ManualClock();
      /** Kills in flight that the test ends, by pod name. */
      const release = new Map<string, () => void>();
      const ended: HandlerCallEvent[] = [];
      /** Resolves once `done()` holds, checked now and whenever a kill starts or a call ends. */
      const waiters = new Set<() => void>();
      const changed = (): void => { for (const check of [...waiters]) check(); };
      const until = (done: () => boolean): Promise<void> => new Promise((resolve) => {
        const check = (): void => {
          if (!done()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
      let report: readonly ActualPod[] = [{ namespace: 'default', name: 'web' }, { uid: 'uid-stale', namespace: 'default', name: 'stale' }];
      const handler: SyncHandler & PodLister = {
        name: 'runtime',
        syncPod: () => Promise.resolve(),
        killPod: ({ pod, attempt }: KillPodRequest) => {
          if (pod.metadata?.name === 'stale' && attempt === 1) return Promise.reject(new Error('container runtime busy'));
          return new Promise<void>((resolve) => {
            release.set(pod.metadata?.name ?? '', resolve);
            changed();
          });
        },
        listPods: () => Promise.resolve(report),
      };
      const callsEnded = (n: number): Promise<void> => until(() => ended.length >= n);
      const killStarted = (name: string): Promise<void> => until(() => release.has(name));
      const reconciler = new Reconciler({
        handlers: [handler], sources: ['file'], logger: pino({ level: 'silent' }), clock, random: () => 0.5,
        observer: { handlerCall: (event) => { ended.push(event); changed(); } },
      });
      const agent = new Agent({
        config: resolveConfig({ 'status-address': 'off' }, {}), logger: pino({ level: 'silent' }), clock, metrics: new AgentMetrics(),
        merger: { stats: () => ({ sources: {} }) } as unknown as PodMerger, reconciler, sources: [], statusServer: undefined,
      });
      // /pods as the agent builds it, with the reconciler's orphan kills.
      const base = await start({
        readiness: () => agent.readiness(), syncLoopError: () => agent.syncLoopError(), sources: () => agent.sources(),
        pods: () => agent.pods(),
      });
      const feed = new Feed();
      const stop = new AbortController();
      const done = reconciler.run(feed, stop.signal);
      interface Pods { items: { metadata: { uid: string } }[]; sync: { uid: string; handlers: Record<string, Record<string, unknown>> }[]; orphanKills: unknown }
      const pods = async (): Promise<Pods> => JSON.parse((await get(`${base}/pods`)).body) as Pods;
      try {
        await feed.push({ source: 'file', op: 'ADD', pods: [] }); // the file source is ready: orphan clean-up begins
        await killStarted('web');
        await callsEnded(1); // the stale orphan's kill failed
        report = [{ uid: 'W1', namespace: 'default', name: 'web' }];
        const web = makePod('web', { uid: 'W1', annotations: { [ANNOTATIONS.configSource]: 'file' } });
        await feed.push({ source: 'file', op: 'ADD', pods: [web] });

        const now = new Date(clock.now()).toISOString();
        const waiting = await pods();
        expect(waiting.items.map((p) => p.metadata.uid)).toEqual(['W1']);
        expect(waiting.sync.find((p) => p.uid === 'W1')?.handlers['runtime']).toMatchObject({
          state: 'waiting-for-name', waitingFor: { uid: '', namespace: 'default', name: 'web', orphan: true },
        });
        expect(waiting.orphanKills).toEqual({
          items: [
            {
              uid: '', namespace: 'default', name: 'web', handler: 'runtime', state: 'running', attempt: 1, failures: 0, lastCall: 'kill',
              lastCallTime: now, waitingPods: [{ uid: 'W1', namespace: 'default', name: 'web' }],
            },
            {
              uid: 'uid-stale', namespace: 'default', name: 'stale', handler: 'runtime', state: 'backoff', attempt: 1, failures: 1,
              lastCall: 'kill', lastResult: 'error', lastCallTime: now,
              lastError: { message: 'container runtime busy', code: 'PODCONFIG_HANDLER_FAILED', time: now },
              nextRetryTime: new Date(clock.now() + 12_500).toISOString(), // 10 s, jittered by 0.5 × random() = 0.5
            },
          ],
          omitted: 0,
        });

        release.get('web')?.();
        await callsEnded(3); // the orphan killed, then W1 created
        clock.advance(12_500); // the stale orphan's retry (and a clean-up, which lists W1 alone)
        await killStarted('stale');
        release.get('stale')?.();
        await callsEnded(4);
        const after = await pods();
        expect(after.orphanKills).toEqual({ items: [], omitted: 0 });
        expect(after.sync.map((p) => [p.uid, p.handlers['runtime']?.['state'], p.handlers['runtime']?.['waitingFor']])).toEqual([['W1', 'idle', undefined]]);
      } finally {
        stop.abort();
        await done;
      }
    });
  });
});
