import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions as HttpsServerOptions } from 'node:https';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { ANNOTATIONS, ConfigInvalidError, type Clock, type PodSetUpdate } from '@podconfig/core';
import { MAX_MANIFEST_BYTES, OFF_THREAD_MIN_BYTES } from '@podconfig/manifest';
import { BlackholeServer, InstantClock, Socks5Proxy, createTestPki, issueTestCertificate, podManifestYaml, take, type TestPki } from '@podconfig/testing';
import { pino, type Logger } from 'pino';
import { Agent, MockAgent } from 'undici';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpPodSource, UNCONDITIONAL_POLL_EVERY, type HttpPodSourceOptions } from './http-pod-source.js';

// ---------------------------------------------------------------------------------------------
// A real manifest server on 127.0.0.1 that answers the n-th request with the n-th step and leaves
// every later request unanswered (the source under test then simply waits, until the test ends).

type Step = (req: IncomingMessage, res: ServerResponse) => void;

interface Seen {
  readonly url: string;
  /** Header pairs in wire order, names lowercased. */
  readonly headers: [string, string][];
}

interface Served {
  readonly origin: string;
  readonly port: number;
  readonly requests: Seen[];
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function serve(steps: Step[], tls?: HttpsServerOptions): Promise<Served> {
  const requests: Seen[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const headers: [string, string][] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i]!.toLowerCase(), req.rawHeaders[i + 1]!]);
    requests.push({ url: req.url ?? '', headers });
    steps[requests.length - 1]?.(req, res);
  };
  const server: Server = tls === undefined ? createHttpServer(handler) : createHttpsServer(tls, handler);
  const port = await listen(server);
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { origin: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`, port, requests };
}

const reply =
  (status: number, body: string | Buffer = '', headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    const length = status === 204 || status === 304 ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    res.writeHead(status, { ...length, ...headers });
    res.end(body);
  };
const ok = (body: string | Buffer, headers: Record<string, string> = {}): Step => reply(200, body, headers);
const hang: Step = () => undefined;
const drop: Step = (req) => req.socket.destroy();
const redirect = (location: string, status = 302): Step => reply(status, '', { location });
/** Headers at once, then one byte every 20 ms, forever: only an overall deadline ends it. */
const drip: Step = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/yaml' });
  const timer = setInterval(() => res.write(' '), 20);
  res.on('close', () => clearInterval(timer));
};
/** A body streamed in 16 KiB chunks without a Content-Length. */
const chunked =
  (size: number): Step =>
  (_req, res) => {
    res.writeHead(200);
    let sent = 0;
    const more = (): void => {
      while (sent < size) {
        const n = Math.min(16 * 1024, size - sent);
        sent += n;
        if (!res.write(Buffer.alloc(n, 0x20))) {
          res.once('drain', more);
          return;
        }
      }
      res.end();
    };
    more();
  };

// ---------------------------------------------------------------------------------------------
// Manifests, logs, sources.

const IMAGE = 'registry.k8s.io/pause:3.10';
const podObject = (name: string): object => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'main', image: IMAGE }] },
});
const podJson = (name: string): string => JSON.stringify(podObject(name));
const podListJson = (...items: object[]): string => JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items });
const A = podJson('a');
const B = podJson('b');
const C = podJson('c');

const names = (update: PodSetUpdate): string[] => [...update.pods].map((pod) => pod.metadata?.name ?? '').sort();

interface Captured {
  readonly logger: Logger;
  text(): string;
  entries(): { level: number; msg: string; [key: string]: unknown }[];
}

/** A real pino logger writing JSON lines into memory, so tests can search what would be logged. */
function captureLogs(): Captured {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const logger = pino({ level: 'trace' }, stream);
  const text = (): string => chunks.join('');
  return {
    logger,
    text,
    entries: () => text().split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)),
  };
}

function makeSource(url: string, options: Partial<HttpPodSourceOptions> = {}) {
  const clock = new InstantClock();
  const logs = captureLogs();
  const source = new HttpPodSource({
    url: new URL(url),
    nodeName: 'Node-A',
    logger: logs.logger,
    clock,
    random: () => 0,
    ...options,
  });
  return { source, clock, logs };
}

/** The first `n` SETs of a fresh `updates()` run; the run is ended (its `finally` runs) afterwards. */
function first(source: HttpPodSource, n: number): Promise<PodSetUpdate[]> {
  return take(source.updates(new AbortController().signal), n);
}

/** A port nobody listens on (it was just closed). */
async function closedPort(): Promise<number> {
  const server = createHttpServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** An InstantClock that awaits `before(i)` ahead of the i-th sleep, so a test can change the world between polls. */
class HookedClock implements Clock {
  readonly inner = new InstantClock();
  constructor(private readonly before: (index: number) => Promise<void>) {}
  now(): number {
    return this.inner.now();
  }
  monotonic(): number {
    return this.inner.monotonic();
  }
  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    await this.before(this.inner.sleeps.length);
    await this.inner.sleep(ms, signal);
  }
}

let pki: TestPki;
beforeAll(async () => {
  pki = await createTestPki();
});

// ---------------------------------------------------------------------------------------------

describe(HttpPodSource.name, () => {
  describe('constructor', () => {
    it('throws ConfigInvalidError for a scheme other than http: or https:', () => {
      const make = (url: string) => () => makeSource(url);
      expect(make('ftp://127.0.0.1/pods')).toThrow(ConfigInvalidError);
      expect(make('file:///etc/pods.yaml')).toThrow('scheme file: is not supported');
    });

    it('takes the URL as a string too, and refuses one that is no absolute URL without quoting it (it may hold a password)', () => {
      const { source } = makeSource('http://127.0.0.1:1/pods', { url: 'http://127.0.0.1:1/pods.yaml' });
      expect(source.status().details['url']).toBe('http://127.0.0.1:1/pods.yaml');
      const make = () => makeSource('http://127.0.0.1:1/pods', { url: '//user:s3cret@127.0.0.1/pods' });
      expect(make).toThrow(new ConfigInvalidError('manifest URL (the url option): not an absolute URL, such as http://127.0.0.1:8080/pods.yaml'));
    });

    it('warns, naming the headers and not their values, when credentials would go to a host beyond loopback in clear', () => {
      const warning = 'manifest URL is http:// beyond loopback: its headers and credentials are sent unencrypted';
      const warned = (url: string, options: Partial<HttpPodSourceOptions> = {}) =>
        makeSource(url, options).logs.entries().filter((e) => e.msg === warning).map((e) => ({ level: e.level, headers: e['headers'], url: e['url'] }));
      expect(warned('http://10.0.0.1/pods', { headers: [['Authorization', 'Bearer clear-secret']] })).toEqual([{ level: 40, headers: ['Authorization'], url: 'http://10.0.0.1/pods' }]);
      expect(warned('http://user:clear-secret@pods.example/pods')).toEqual([{ level: 40, headers: [], url: 'http://pods.example/pods' }]);
      expect(warned('http://10.0.0.1/pods')).toEqual([]); // nothing to leak
      expect(warned('http://127.0.0.1:1/pods', { headers: [['X-Token', 't']] })).toEqual([]);
      expect(warned('http://[::1]:1/pods', { headers: [['X-Token', 't']] })).toEqual([]);
      expect(warned('https://10.0.0.1/pods', { headers: [['X-Token', 't']] })).toEqual([]);
    });

    it('throws ConfigInvalidError for contradictory or malformed options', () => {
      const url = 'http://127.0.0.1:1/pods';
      expect(() => makeSource(url, { cert: pki.client.cert })).toThrow('needs both cert and key');
      expect(() => makeSource(url, { dispatcher: new MockAgent(), ca: pki.ca.cert })).toThrow('injected dispatcher');
      expect(() => makeSource(url, { headers: [['bad name', 'x']] })).toThrow('manifest URL header 1');
      expect(() => makeSource(url, { periodMs: 0 })).toThrow('periodMs must be a positive number');
      expect(() => makeSource(url, { maxRedirects: -1 })).toThrow('maxRedirects');
      expect(() => makeSource(url, { nodeName: '' })).toThrow('nodeName');
      expect(() => makeSource(url, { nodeName: ' ' })).toThrow('http source: nodeName: the node name is empty (only white space)');
    });

    it('throws ConfigInvalidError for a maxBytes above the decoder limit (it could not be honoured)', () => {
      const url = 'http://127.0.0.1:1/pods';
      expect(() => makeSource(url, { maxBytes: MAX_MANIFEST_BYTES + 1 })).toThrow(ConfigInvalidError);
      expect(() => makeSource(url, { maxBytes: 2 * MAX_MANIFEST_BYTES })).toThrow(`maxBytes must not exceed ${MAX_MANIFEST_BYTES}`);
      expect(() => makeSource(url, { maxBytes: MAX_MANIFEST_BYTES })).not.toThrow();
    });

    it('throws ConfigInvalidError, without quoting it, for URL userinfo with a malformed percent escape', () => {
      const make = (): unknown => makeSource('http://user:s3cr%zz@127.0.0.1:1/pods');
      expect(make).toThrow(ConfigInvalidError);
      expect(make).toThrow('manifest URL: the userinfo (user:password@) has a malformed percent escape');
      expect(make).not.toThrow(/s3cr/);
    });

    it('throws ConfigInvalidError naming a header the HTTP client owns (Go never sends a configured Host)', () => {
      const url = 'http://127.0.0.1:1/pods';
      for (const name of ['Host', 'connection', 'Keep-Alive', 'Upgrade', 'Expect', 'Transfer-Encoding', 'Content-Length', 'Trailer']) {
        const make = (): unknown => makeSource(url, { headers: [['x-ok', '1'], [name, 'value']] });
        expect(make).toThrow(ConfigInvalidError);
        expect(make).toThrow(`manifest URL header 2: the header '${name}' is set by the HTTP client and cannot be configured`);
      }
    });

    it('does no I/O: nothing is requested until updates() is iterated', async () => {
      const server = await serve([ok(A)]);
      const { source } = makeSource(`${server.origin}/pods`);
      const updates = source.updates(new AbortController().signal);
      expect(server.requests).toHaveLength(0);
      await updates.return();
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('updates()', () => {
    it('emits a SET with the single Pod a 200 serves, polling once at start', async () => {
      const server = await serve([ok(A)]);
      const { source, clock } = makeSource(`${server.origin}/pods`);
      const [update] = await first(source, 1);
      expect(update!.source).toBe('http');
      expect(update!.op).toBe('SET');
      const pods = update!.pods.toArray();
      expect(pods).toHaveLength(1);
      const pod = pods[0]!;
      expect(pod.metadata?.name).toBe('a-node-a');
      expect(pod.metadata?.namespace).toBe('default');
      expect(pod.spec?.nodeName).toBe('Node-A');
      expect(pod.metadata?.uid).toMatch(/^[0-9a-f]{32}$/);
      expect(pod.metadata?.annotations?.[ANNOTATIONS.configHash]).toBe(pod.metadata?.uid);
      expect(update!.pods.has('default/a-node-a')).toBe(true);
      expect(clock.sleeps).toEqual([]);
      expect(server.requests.map((r) => r.url)).toEqual(['/pods']);
    });

    it('emits every pod of a large YAML PodList (parsed on the manifest worker thread, off the event loop)', async () => {
      const items = Array.from({ length: 120 }, (_, i) =>
        `- metadata: {name: web-${i}, annotations: {note: "${'x'.repeat(OFF_THREAD_MIN_BYTES / 100)}"}}\n  spec: {containers: [{name: c, image: i, args: [find, .]}]}`);
      const body = `apiVersion: v1\nkind: PodList\nitems:\n${items.join('\n')}\n`;
      expect(Buffer.byteLength(body)).toBeGreaterThan(OFF_THREAD_MIN_BYTES);
      const server = await serve([ok(body)]);
      const { source } = makeSource(`${server.origin}/pods`);
      const [update] = await first(source, 1);
      expect(update!.pods.size).toBe(120);
      expect(update!.pods.get('default/web-119-node-a')?.spec?.containers[0]?.args).toEqual(['find', '.']);
    });

    it('emits every pod of a PodList', async () => {
      const server = await serve([ok(podListJson(podObject('a'), podObject('b')))]);
      const { source } = makeSource(`${server.origin}/pods`);
      const [update] = await first(source, 1);
      expect(names(update!)).toEqual(['a-node-a', 'b-node-a']);
    });

    it('emits an empty SET for a PodList without items', async () => {
      const server = await serve([ok(podListJson())]);
      const { source } = makeSource(`${server.origin}/pods`);
      const [update] = await first(source, 1);
      expect(update!.pods.size).toBe(0);
    });

    it('reads YAML bodies', async () => {
      const server = await serve([ok(podManifestYaml('web', { namespace: 'kube-system' }))]);
      const { source } = makeSource(`${server.origin}/pods.yaml`);
      const [update] = await first(source, 1);
      expect([...update!.pods.keys()]).toEqual(['kube-system/web-node-a']);
    });

    it('derives UIDs from the URL (path and query count, userinfo and fragment do not)', async () => {
      const server = await serve([ok(A), ok(A), ok(A), ok(A), ok(A)]);
      const uid = async (url: string): Promise<string | undefined> => {
        const [update] = await first(makeSource(url).source, 1);
        return update!.pods.toArray()[0]?.metadata?.uid;
      };
      const base = await uid(`${server.origin}/pods`);
      expect(await uid(`${server.origin}/other`)).not.toBe(base);
      expect(await uid(`${server.origin}/pods?v=2`)).not.toBe(base);
      expect(await uid(`http://user:pw@127.0.0.1:${server.port}/pods`)).toBe(base);
      expect(await uid(`${server.origin}/pods#section`)).toBe(base);
    });

    it('sends no SET when the body is unchanged, and polls periodMs after each completed poll', async () => {
      const server = await serve([ok(A), ok(A), ok(B)]);
      const { source, clock } = makeSource(`${server.origin}/pods`, { periodMs: 15_000 });
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      expect(clock.sleeps).toEqual([15_000, 15_000]);
      expect(source.status().counters).toEqual({ polls_success: 3, polls_not_modified: 0, polls_error: 0 });
    });

    it('starts the next poll periodMs after the previous one finished, however long it took (a sliding period, spec §8)', async () => {
      const made: { clock?: InstantClock } = {};
      // Each answer takes 4 s of the source's clock: a fixed-rate ticker would wait only 11 s after it.
      const slow = (body: string): Step => (req, res) => {
        made.clock!.advance(4_000);
        ok(body)(req, res);
      };
      const server = await serve([slow(A), slow(A), slow(B)]);
      const { source, clock } = makeSource(`${server.origin}/pods`, { periodMs: 15_000 });
      made.clock = clock;
      expect((await first(source, 2)).map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      expect(clock.sleeps).toEqual([15_000, 15_000]);
    });

    it('sends If-None-Match from the applied ETag; a 304 changes nothing', async () => {
      const notModifiedIfMatch: Step = (req, res) => {
        res.writeHead(req.headers['if-none-match'] === '"a1"' ? 304 : 500);
        res.end();
      };
      const server = await serve([ok(A, { etag: '"a1"' }), notModifiedIfMatch, ok(B, { etag: '"b1"' }), notModifiedIfMatch]);
      const { source } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      const inm = server.requests.map((r) => r.headers.find(([n]) => n === 'if-none-match')?.[1]);
      expect(inm).toEqual([undefined, '"a1"', '"a1"']);
      expect(source.status().counters).toEqual({ polls_success: 2, polls_not_modified: 1, polls_error: 0 });
      expect(source.status().details).toMatchObject({ etag: '"b1"', lastStatusCode: 200 });
    });

    it('sends If-Modified-Since from the applied Last-Modified; a 304 changes nothing', async () => {
      const when = 'Wed, 21 Oct 2026 07:28:00 GMT';
      const notModified: Step = (req, res) => {
        res.writeHead(req.headers['if-modified-since'] === when ? 304 : 500);
        res.end();
      };
      const server = await serve([ok(A, { 'last-modified': when }), notModified, notModified, ok(B)]);
      const { source, clock } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      expect(server.requests.map((r) => r.headers.find(([n]) => n === 'if-modified-since')?.[1])).toEqual([
        undefined,
        when,
        when,
        when,
      ]);
      expect(clock.sleeps).toEqual([20_000, 20_000, 20_000]);
      expect(source.status().counters.polls_not_modified).toBe(2);
    });

    it('sends only If-None-Match when the applied response had an ETag (RFC 9110: it overrides If-Modified-Since)', async () => {
      const when = 'Wed, 21 Oct 2026 07:28:00 GMT';
      const server = await serve([ok(A, { etag: '"a1"', 'last-modified': when }), reply(304), ok(B)]);
      const { source } = makeSource(`${server.origin}/pods`);
      expect((await first(source, 2)).map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      const sent = server.requests[1]!.headers.map(([name]) => name);
      expect(sent).toContain('if-none-match');
      expect(sent).not.toContain('if-modified-since');
    });

    describe('against a server that answers If-Modified-Since by mtime (Python http.server, serve-static, Apache)', () => {
      /** One file whose content and mtime the test changes; 304 when mtime <= If-Modified-Since. */
      function fileServer(content: string, mtime: Date) {
        const file = { content, mtime };
        const step: Step = (req, res) => {
          const since = req.headers['if-modified-since'];
          if (since !== undefined && file.mtime.getTime() <= Date.parse(since)) {
            res.writeHead(304);
            res.end();
            return;
          }
          reply(200, file.content, { 'last-modified': file.mtime.toUTCString() })(req, res);
        };
        return { file, steps: Array.from({ length: 20 }, () => step) };
      }
      const t0 = new Date('2026-10-01T00:00:00Z');
      const t1 = new Date('2026-10-02T00:00:00Z');

      it(`picks up a restored older file (mtime kept, cp -p) by the ${UNCONDITIONAL_POLL_EVERY}th poll, which is unconditional`, async () => {
        const { file, steps } = fileServer(A, t0);
        const server = await serve(steps);
        const clock = new HookedClock(async (i) => {
          if (i === 0) Object.assign(file, { content: B, mtime: t1 });
          if (i === 1) Object.assign(file, { content: A, mtime: t0 }); // the rollback
        });
        const { source } = makeSource(`${server.origin}/pods`, { clock });
        const updates = await first(source, 3);
        expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a'], ['a-node-a']]);
        const ims = server.requests.map((r) => r.headers.find(([n]) => n === 'if-modified-since')?.[1]);
        expect(ims).toHaveLength(UNCONDITIONAL_POLL_EVERY + 1);
        expect(ims[0]).toBeUndefined();
        expect(ims[UNCONDITIONAL_POLL_EVERY]).toBeUndefined();
        expect(ims.slice(1, UNCONDITIONAL_POLL_EVERY).every((v) => v !== undefined)).toBe(true);
        expect(source.status().counters.polls_not_modified).toBe(UNCONDITIONAL_POLL_EVERY - 2);
      });

      it('restores the pods when the same body returns with its older mtime after an empty body (D7)', async () => {
        const { file, steps } = fileServer(A, t0);
        const server = await serve(steps);
        const clock = new HookedClock(async (i) => {
          if (i === 0) Object.assign(file, { content: '', mtime: t1 });
          if (i === 1) Object.assign(file, { content: A, mtime: t0 });
        });
        const { source } = makeSource(`${server.origin}/pods`, { clock });
        const updates = await first(source, 3);
        expect(updates.map(names)).toEqual([['a-node-a'], [], ['a-node-a']]);
        // No validators are kept for an empty answer: the third poll asks unconditionally.
        expect(server.requests).toHaveLength(3);
        expect(server.requests[2]!.headers.map(([name]) => name)).not.toContain('if-modified-since');
      });
    });

    it('yields the applied pods as the first SET of a second updates() run, asking unconditionally', async () => {
      const server = await serve([ok(A, { etag: '"a"' }), ok(A, { etag: '"a"' })]);
      const { source } = makeSource(`${server.origin}/pods`);
      expect((await first(source, 1)).map(names)).toEqual([['a-node-a']]);
      expect((await first(source, 1)).map(names)).toEqual([['a-node-a']]);
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]!.headers.map(([name]) => name)).not.toContain('if-none-match');
    });

    it("yields the last applied pods as a second run's grace SET while the URL fails (D18)", async () => {
      const server = await serve([ok(A), reply(500), reply(500)]);
      const { source, logs } = makeSource(`${server.origin}/pods`);
      expect((await first(source, 1)).map(names)).toEqual([['a-node-a']]);
      expect((await first(source, 1)).map(names)).toEqual([['a-node-a']]);
      expect(source.status()).toMatchObject({ provisional: false, pods: 1, healthy: false });
      expect(logs.entries().filter((e) => e.msg.startsWith('no answer from the manifest URL yet'))).toMatchObject([{ level: 40, pods: 1 }]);
    });

    it('keeps reporting the last completed poll in lastStatusCode while the next one is in flight', async () => {
      let arrived: () => void = () => undefined;
      const second = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const server = await serve([
        ok(A),
        (req, res) => {
          arrived();
          hang(req, res);
        },
      ]);
      const { source } = makeSource(`${server.origin}/pods`);
      const controller = new AbortController();
      const updates = source.updates(controller.signal);
      expect(names((await updates.next()).value as PodSetUpdate)).toEqual(['a-node-a']);
      const next = updates.next();
      await second;
      expect(source.status().details.lastStatusCode).toBe(200);
      controller.abort();
      await expect(next).resolves.toEqual({ done: true, value: undefined });
      expect(server.requests).toHaveLength(2);
    });

    it('returns on abort while the TLS connect of an injected dispatcher to a blackholed https URL is pending', async () => {
      const blackhole = await BlackholeServer.listen();
      cleanups.push(() => blackhole.close()); // destroys the server side: the pending connect then fails and closes
      const dispatcher = new Agent({ connect: { timeout: 0 } }); // no connect timeout: only the abort can end the poll
      cleanups.push(() => dispatcher.destroy());
      const { source } = makeSource(`${blackhole.url}/pods`, { dispatcher });
      const controller = new AbortController();
      const accepted = blackhole.nextConnection();
      const next = source.updates(controller.signal).next();
      await accepted;
      controller.abort(new Error('shutdown'));
      await expect(next).resolves.toEqual({ done: true, value: undefined });
    });

    it('returns on abort while the TLS connect to a blackholed https URL is pending, and closes that socket', async () => {
      const blackhole = await BlackholeServer.listen();
      cleanups.push(() => blackhole.close());
      const { source } = makeSource(`${blackhole.url}/pods`);
      const controller = new AbortController();
      const accepted = blackhole.nextConnection();
      const next = source.updates(controller.signal).next();
      await accepted; // the TCP connection is up; the TLS handshake never answers
      controller.abort(new Error('shutdown'));
      await expect(next).resolves.toEqual({ done: true, value: undefined });
      await blackhole.allClosed(); // the run's Agent and its pending connect are gone
    });

    describe('gzip (as Go\'s transport)', () => {
      const gz = (text: string): Buffer => gzipSync(Buffer.from(text));

      it('asks for gzip and decodes a gzip-encoded body', async () => {
        const server = await serve([ok(gz(podListJson(podObject('a'), podObject('b'))), { 'content-encoding': 'gzip' })]);
        const { source } = makeSource(`${server.origin}/pods`);
        const [update] = await first(source, 1);
        expect(names(update!)).toEqual(['a-node-a', 'b-node-a']);
        expect(server.requests[0]!.headers).toContainEqual(['accept-encoding', 'gzip']);
      });

      it('sends a User-Agent, unless a configured header names one', async () => {
        const server = await serve([ok(A), ok(A)]);
        await first(makeSource(`${server.origin}/pods`, { userAgent: 'podconfig-agent' }).source, 1);
        await first(makeSource(`${server.origin}/pods`, { headers: [['User-Agent', 'mine/1']] }).source, 1);
        expect(server.requests.map((r) => r.headers.filter(([name]) => name === 'user-agent'))).toEqual([
          [['user-agent', 'podconfig-agent']],
          [['user-agent', 'mine/1']],
        ]);
      });

      it('leaves Accept-Encoding to a configured header', async () => {
        const server = await serve([ok(A)]);
        const { source } = makeSource(`${server.origin}/pods`, { headers: [['Accept-Encoding', 'identity']] });
        await first(source, 1);
        expect(server.requests[0]!.headers.filter(([name]) => name === 'accept-encoding')).toEqual([['accept-encoding', 'identity']]);
      });

      it('bounds the decompressed body by maxBytes, and names the URL when gzip is broken', async () => {
        const bomb = gzipSync(Buffer.alloc(64 * 1024 + 1, 0x20)); // a few hundred bytes on the wire
        const server = await serve([
          ok(A),
          ok(bomb, { 'content-encoding': 'gzip' }),
          ok('not gzip at all', { 'content-encoding': 'gzip' }),
          ok(gz(B), { 'content-encoding': 'gzip' }),
        ]);
        const { source, logs } = makeSource(`${server.origin}/pods`, { maxBytes: 64 * 1024 });
        const updates = await first(source, 2);
        expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
        const errors = logs.entries().filter((e) => e.msg === 'manifest poll failed').map((e) => e.err as { code: string; message: string });
        expect(errors.map((e) => e.code)).toEqual(['PODCONFIG_BODY_TOO_LARGE', 'PODCONFIG_MANIFEST_INVALID']);
        expect(errors[1]!.message).toMatch(new RegExp(`^${server.origin}/pods: the gzip-encoded body does not decompress`));
      });

      it('reports the status of a 200 whose body could not be read', async () => {
        const server = await serve(Array.from({ length: 10 }, () => ok('not gzip at all', { 'content-encoding': 'gzip' })));
        const { source } = makeSource(`${server.origin}/pods`, { periodMs: 10 });
        await first(source, 1); // the grace SET
        expect(source.status()).toMatchObject({ lastError: { code: 'PODCONFIG_MANIFEST_INVALID' }, details: { lastStatusCode: 200 } });
      });

      it('accepts a gzip body that decompresses to exactly maxBytes', async () => {
        const body = Buffer.from(A + ' '.repeat(64 * 1024 - A.length));
        const server = await serve([ok(gzipSync(body), { 'content-encoding': 'gzip' })]);
        const { source } = makeSource(`${server.origin}/pods`, { maxBytes: 64 * 1024, readiness: 'first-success' });
        const [update] = await first(source, 1);
        expect(names(update!)).toEqual(['a-node-a']);
      });

      it('decodes x-gzip and a Content-Encoding in any case, as Go does', async () => {
        const server = await serve([ok(gz(A), { 'content-encoding': 'x-gzip' }), ok(gz(B), { 'content-encoding': ' GZIP ' })]);
        const { source } = makeSource(`${server.origin}/pods`, { readiness: 'first-success' });
        const updates = await first(source, 2);
        expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
        expect(source.status().counters).toEqual({ polls_success: 2, polls_not_modified: 0, polls_error: 0 });
      });
    });

    it('accepts a body of exactly maxBytes, with a Content-Length or streamed', async () => {
      const body = A + ' '.repeat(64 * 1024 - A.length);
      const streamed: Step = (_req, res) => {
        res.writeHead(200);
        res.end(body.replace('"a"', '"b"'));
      };
      const server = await serve([ok(body), streamed]);
      const { source } = makeSource(`${server.origin}/pods`, { maxBytes: 64 * 1024, readiness: 'first-success' });
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      expect(source.status().counters.polls_error).toBe(0);
    });

    it('restores the pods when a body returns after an empty body (D7)', async () => {
      const server = await serve([ok(A), ok(''), ok(A)]);
      const { source } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 3);
      expect(updates.map(names)).toEqual([['a-node-a'], [], ['a-node-a']]);
    });

    it('treats a 404 as "no pods": an empty SET (D9)', async () => {
      const server = await serve([ok(A), reply(404), reply(404), ok(B)]);
      const { source, clock } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 3);
      expect(updates.map(names)).toEqual([['a-node-a'], [], ['b-node-a']]);
      expect(clock.sleeps).toEqual([20_000, 20_000, 20_000]);
    });

    it('sends no SET when an empty answer follows an empty answer', async () => {
      const server = await serve([reply(404), ok(''), ok(podListJson()), ok(A)]);
      const { source } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([[], ['a-node-a']]);
      expect(server.requests).toHaveLength(4);
    });

    it('warns once when the URL starts serving no pods, not on every empty poll, and an empty body is no failure (checklist 45, 48)', async () => {
      const server = await serve([ok(A), ok(''), ok(''), ok(''), ok(B)]);
      const { source, logs } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 3);
      expect(updates.map(names)).toEqual([['a-node-a'], [], ['b-node-a']]);
      const entries = logs.entries();
      expect(entries.filter((e) => e.msg === 'manifest URL serves no pods, removing the http pods').map((e) => e.level)).toEqual([40]);
      expect(entries.filter((e) => e.msg.startsWith('manifest poll failed'))).toEqual([]);
      expect(source.status().counters.polls_error).toBe(0);
    });

    it('reads the first YAML document of a body, and warns once per body when later ones hold something', async () => {
      const yaml = (name: string): string => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: main, image: ${IMAGE}}]}\n`;
      const two = `${yaml('a')}---\n${yaml('b')}`;
      const server = await serve([ok(two), ok(two), ok(`---\n${yaml('c')}---\n# nothing\n`)]);
      const { source, logs } = makeSource(`${server.origin}/pods`, { periodMs: 10 });
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['a-node-a'], ['c-node-a']]);
      expect(logs.entries().filter((e) => e.msg.startsWith('manifest has YAML documents after the first'))).toMatchObject([{ level: 40 }]);
    });

    it('keeps the first of two pods with the same name in a PodList and warns', async () => {
      const server = await serve([ok(podListJson(podObject('a'), { ...podObject('a'), spec: { containers: [{ name: 'other', image: IMAGE }] } }))]);
      const { source, logs } = makeSource(`${server.origin}/pods`);
      const [update] = await first(source, 1);
      expect(update!.pods.toArray().map((pod) => pod.spec?.containers[0]?.name)).toEqual(['main']);
      expect(logs.entries().filter((e) => e.msg.startsWith('duplicate pod'))).toMatchObject([{ level: 40, pod: 'default/a-node-a' }]);
    });

    it('keeps the first of two pods with the same UID in a PodList, not the smaller name, and warns once per body (D14)', async () => {
      const pinned = (name: string): object => {
        const pod = podObject(name) as { metadata: Record<string, unknown> };
        return { ...pod, metadata: { ...pod.metadata, uid: 'pinned-uid' } };
      };
      const body = podListJson(pinned('zzz'), pinned('aaa'));
      const server = await serve([ok(body), ok(body), ok(A)]);
      const { source, logs } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['zzz-node-a'], ['a-node-a']]);
      expect(server.requests).toHaveLength(3);
      expect(logs.entries().filter((e) => e.msg.startsWith('duplicate pod'))).toEqual([expect.objectContaining({
        level: 40, msg: 'duplicate pod UID in manifest, the first one wins', pod: 'default/aaa-node-a', winner: 'default/zzz-node-a', uid: 'pinned-uid',
      })]);
    });

    it('emits its first SET for a first answer of 404', async () => {
      const server = await serve([reply(404)]);
      const { source } = makeSource(`${server.origin}/pods`);
      const [update] = await first(source, 1);
      expect(update!.pods.size).toBe(0);
      expect(source.status()).toMatchObject({ seen: true, provisional: false, healthy: true, pods: 0 });
    });

    it('warns once when the URL answers 404 without pods to remove: a mistyped URL looks the same', async () => {
      const server = await serve([reply(404), reply(404), ok(A)]);
      const { source, logs } = makeSource(`${server.origin}/pods`);
      expect((await first(source, 2)).map(names)).toEqual([[], ['a-node-a']]);
      expect(logs.entries().filter((e) => e.msg === 'manifest URL not found (404): no http pods')).toMatchObject([{ level: 40, reason: 'not found' }]);
    });

    it('sends configured headers in order, repeated names included', async () => {
      const server = await serve([ok(A)]);
      const { source } = makeSource(`${server.origin}/pods`, {
        headers: [
          ['a', '1'],
          ['a', '2'],
          ['b', '3'],
        ],
      });
      await first(source, 1);
      const sent = server.requests[0]!.headers.filter(([name]) => name === 'a' || name === 'b');
      expect(sent).toEqual([
        ['a', '1'],
        ['a', '2'],
        ['b', '3'],
      ]);
    });

    it('sends a non-ASCII header value as its UTF-8 bytes, as Go does', async () => {
      const server = await serve([ok(A)]);
      const { source } = makeSource(`${server.origin}/pods`, { headers: [['x-note', 'café €']] });
      await first(source, 1);
      const raw = server.requests[0]!.headers.find(([name]) => name === 'x-note')?.[1];
      // node:http hands header bytes over as latin1: one character per byte.
      expect(Buffer.from(raw!, 'latin1')).toEqual(Buffer.from('café €', 'utf8'));
    });

    it('sends URL userinfo as basic auth, not in the request line', async () => {
      const server = await serve([ok(A)]);
      const { source } = makeSource(`http://us%40er:p%3Ass@127.0.0.1:${server.port}/pods?x=1`);
      await first(source, 1);
      const auth = server.requests[0]!.headers.find(([name]) => name === 'authorization')?.[1];
      expect(auth).toBe(`Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
      expect(server.requests[0]!.url).toBe('/pods?x=1');
    });

    it('lets a configured Authorization header replace the basic auth of the URL userinfo', async () => {
      const server = await serve([ok(A)]);
      const { source } = makeSource(`http://user:pw@127.0.0.1:${server.port}/pods`, { headers: [['Authorization', 'Bearer x']] });
      await first(source, 1);
      expect(server.requests[0]!.headers.filter(([name]) => name === 'authorization')).toEqual([['authorization', 'Bearer x']]);
    });

    it('leaves If-None-Match to a configured header, even once an ETag was applied', async () => {
      const server = await serve([ok(A, { etag: '"a1"' }), ok(B, { etag: '"b1"' })]);
      const { source } = makeSource(`${server.origin}/pods`, { headers: [['If-None-Match', '"pinned"']] });
      await first(source, 2);
      for (const request of server.requests) {
        expect(request.headers.filter(([name]) => name === 'if-none-match')).toEqual([['if-none-match', '"pinned"']]);
      }
    });

    it('leaves If-Modified-Since to a configured header, even once a Last-Modified was applied', async () => {
      const pinned = 'Thu, 01 Jan 2026 00:00:00 GMT';
      const server = await serve([ok(A, { 'last-modified': 'Wed, 21 Oct 2026 07:28:00 GMT' }), ok(B)]);
      const { source } = makeSource(`${server.origin}/pods`, { headers: [['If-Modified-Since', pinned]] });
      await first(source, 2);
      for (const request of server.requests) {
        expect(request.headers.filter(([name]) => name === 'if-modified-since')).toEqual([['if-modified-since', pinned]]);
      }
    });

    it('treats a redirect status without a Location as the final answer (an HTTP status error)', async () => {
      const server = await serve([ok(A), reply(302), ok(B)]);
      const { source } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      expect(server.requests.map((r) => r.url)).toEqual(['/pods', '/pods', '/pods']);
      expect(source.status().lastError).toMatchObject({ code: 'PODCONFIG_HTTP_STATUS', message: `${server.origin}/pods: HTTP 302` });
    });

    it('accepts maxRedirects 0 and then follows no redirect', async () => {
      const target = await serve([ok(A)]);
      const server = await serve([redirect(`${target.origin}/pods`), ok(B)]);
      const { source } = makeSource(`${server.origin}/pods`, { maxRedirects: 0, readiness: 'first-success' });
      const [update] = await first(source, 1);
      expect(names(update!)).toEqual(['b-node-a']);
      expect(target.requests).toHaveLength(0);
      expect(source.status().lastError?.code).toBe('PODCONFIG_REDIRECT');
    });

    it('follows a same-scheme redirect with the configured headers', async () => {
      const server = await serve([redirect('/moved'), ok(A)]);
      const { source } = makeSource(`${server.origin}/pods`, { headers: [['x-key', 'k']] });
      const [update] = await first(source, 1);
      expect(names(update!)).toEqual(['a-node-a']);
      expect(server.requests.map((r) => r.url)).toEqual(['/pods', '/moved']);
      expect(server.requests[1]!.headers).toContainEqual(['x-key', 'k']);
    });

    it('sends no configured header and no userinfo credential to another origin, and sends them again back at the manifest URL\'s', async () => {
      const targetSteps: Step[] = [];
      const target = await serve(targetSteps);
      const server = await serve([redirect(`${target.origin}/elsewhere`), ok(A)]);
      targetSteps.push(redirect(`${server.origin}/back`));
      const url = new URL(`${server.origin}/pods`);
      url.username = 'user';
      url.password = 'pw';
      const { source } = makeSource(url.href, { headers: [['X-Auth-Token', 't0ken'], ['Cookie', 'session=s'], ['x-key', 'k']] });
      await first(source, 1);
      const names = (headers: readonly (readonly [string, string])[]): string[] => headers.map(([name]) => name);
      expect(server.requests.map((r) => r.url)).toEqual(['/pods', '/back']);
      const basic = `Basic ${Buffer.from('user:pw').toString('base64')}`;
      for (const request of server.requests) {
        expect(request.headers).toEqual(expect.arrayContaining([['authorization', basic], ['x-auth-token', 't0ken'], ['cookie', 'session=s'], ['x-key', 'k']]));
      }
      const elsewhere = names(target.requests[0]!.headers);
      expect(elsewhere).not.toContain('authorization');
      expect(elsewhere).not.toContain('x-auth-token');
      expect(elsewhere).not.toContain('cookie');
      expect(elsewhere).not.toContain('x-key');
      expect(elsewhere).toContain('user-agent');
    });

    it('follows at most maxRedirects redirects', async () => {
      const loop = Array.from({ length: 4 }, (_, i) => redirect(`/hop${i}`));
      const server = await serve([...loop, ok(A)]);
      const { source } = makeSource(`${server.origin}/pods`, { maxRedirects: 3, readiness: 'first-success' });
      const [update] = await first(source, 1);
      // Poll 1: /pods + 3 redirects, then the 4th redirect is refused. Poll 2: the 200.
      expect(server.requests).toHaveLength(5);
      expect(names(update!)).toEqual(['a-node-a']);
      expect(source.status().lastError).toMatchObject({
        code: 'PODCONFIG_REDIRECT',
        message: expect.stringContaining('stopped after 4 requests (3 redirects followed)'),
      });
    });

    it('follows a redirect from http to https (as Go does), keeping the path the server names', async () => {
      const secure = await serve([ok(A)], { cert: pki.server.cert, key: pki.server.key });
      const server = await serve([redirect(`${secure.origin}/secure/pods`, 301)]);
      const { source } = makeSource(`${server.origin}/pods`, { ca: pki.ca.cert, readiness: 'first-success' });
      const [update] = await first(source, 1);
      expect(names(update!)).toEqual(['a-node-a']);
      expect(secure.requests.map((r) => r.url)).toEqual(['/secure/pods']);
      expect(source.status().counters).toMatchObject({ polls_success: 1, polls_error: 0 });
    });

    it("follows 9 redirects and refuses the 10th, like Go's default policy (at most 10 requests)", async () => {
      const hops = (n: number): Step[] => Array.from({ length: n }, (_, i) => redirect(`/hop${i}`));
      const server = await serve([...hops(9), ok(A), ...hops(10), ok(B)]);
      const { source } = makeSource(`${server.origin}/pods`, { readiness: 'first-success' });
      const updates = await first(source, 2);
      // Poll 1: 10 requests, the 10th answers 200. Poll 2: the 10th answer is a redirect, refused.
      // Poll 3: the 200 after it.
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      expect(server.requests).toHaveLength(21);
      expect(source.status().lastError).toMatchObject({
        code: 'PODCONFIG_REDIRECT',
        message: `${server.origin}/pods: stopped after 10 requests (9 redirects followed)`,
      });
    });

    it('refuses a redirect from https to http', async () => {
      const plain = await serve([ok(A)]);
      const server = await serve([redirect(`${plain.origin}/pods`), reply(404)], { cert: pki.server.cert, key: pki.server.key });
      const { source } = makeSource(`${server.origin}/pods`, { ca: pki.ca.cert });
      const [update] = await first(source, 1);
      expect(update!.pods.size).toBe(0);
      expect(plain.requests).toHaveLength(0);
      expect(source.status().lastError).toMatchObject({ code: 'PODCONFIG_REDIRECT', message: expect.stringContaining('https: to http:') });
    });

    it('does not retry the invalid body as success: the same invalid body is an error again (D7)', async () => {
      const bad = '{"apiVersion":"v1","kind":"Pod","metadata":{},"spec":{"containers":[]}}';
      const server = await serve([ok(A, { etag: '"a"' }), ok(bad, { etag: '"bad"' }), ok(bad, { etag: '"bad"' }), ok(B)]);
      const { source, logs } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      expect(source.status().counters.polls_error).toBe(2);
      expect(server.requests.map((r) => r.headers.find(([n]) => n === 'if-none-match')?.[1])).toEqual([
        undefined,
        '"a"',
        '"a"',
        '"a"',
      ]);
      const warned = logs.entries().filter((e) => e.msg === 'manifest poll failed');
      expect(warned).toHaveLength(1);
      expect((warned[0]!.err as { code: string }).code).toBe('PODCONFIG_MANIFEST_INVALID');
    });

    describe('keeps the applied pods through a failure and recovers after it', () => {
      // Each case: A is applied, the failure happens, then B is served. The two SETs must be exactly
      // [A, B]: no SET in between dropped A (D18), and the poll after the failure recovers.
      const cases: {
        name: string;
        code: string;
        failure: (ctx: { https: Served }) => Step[];
        options?: Partial<HttpPodSourceOptions>;
        message?: RegExp;
      }[] = [
        { name: 'a 500', code: 'PODCONFIG_HTTP_STATUS', failure: () => [reply(500, 'oops')], message: /HTTP 500$/ },
        { name: 'a 204', code: 'PODCONFIG_HTTP_STATUS', failure: () => [reply(204)], message: /HTTP 204$/ },
        { name: 'an unsolicited 304', code: 'PODCONFIG_HTTP_STATUS', failure: () => [reply(304)] },
        { name: 'a response that never comes', code: 'PODCONFIG_TIMEOUT', failure: () => [hang], options: { timeoutMs: 750 } },
        { name: 'a slow-drip body', code: 'PODCONFIG_TIMEOUT', failure: () => [drip], options: { timeoutMs: 750 } },
        { name: 'a dropped connection', code: 'PODCONFIG_SOURCE_UNAVAILABLE', failure: () => [drop] },
        {
          name: 'an oversized body with Content-Length',
          code: 'PODCONFIG_BODY_TOO_LARGE',
          failure: () => [ok(Buffer.alloc(64 * 1024 + 1, 0x20))],
          options: { maxBytes: 64 * 1024 },
        },
        {
          name: 'a declared Content-Length over the cap (refused before the body arrives)',
          code: 'PODCONFIG_BODY_TOO_LARGE',
          failure: () => [
            (_req, res) => {
              res.writeHead(200, { 'content-length': String(64 * 1024 + 1) });
              res.write('{');
            },
          ],
          options: { maxBytes: 64 * 1024 },
        },
        {
          name: 'an oversized streamed body',
          code: 'PODCONFIG_BODY_TOO_LARGE',
          failure: () => [chunked(1024 * 1024)],
          options: { maxBytes: 64 * 1024 },
        },
        {
          name: 'a redirect loop',
          code: 'PODCONFIG_REDIRECT',
          failure: () => Array.from({ length: 11 }, (_, i) => redirect(i % 2 === 0 ? '/loop' : '/pods', 307)),
          message: /stopped after 10 requests \(9 redirects followed\)/,
        },
        {
          name: 'a redirect to a scheme other than http: or https:',
          code: 'PODCONFIG_REDIRECT',
          failure: () => [redirect('ftp://127.0.0.1/pods', 301)],
          message: /redirect to a ftp: URL refused/,
        },
        { name: 'a garbage body', code: 'PODCONFIG_MANIFEST_INVALID', failure: () => [ok('\u0001\u0002 not yaml: [')] },
        {
          name: 'a PodList with one invalid item',
          code: 'PODCONFIG_MANIFEST_INVALID',
          failure: () => [ok(podListJson(podObject('c'), { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { containers: [] } }))],
        },
      ];

      it.each(cases)('$name', async ({ code, failure, options, message }) => {
        const https = await serve([ok(C)], { cert: pki.server.cert, key: pki.server.key });
        const steps = failure({ https });
        const server = await serve([ok(A), ...steps, ok(B)]);
        const { source, clock, logs } = makeSource(`${server.origin}/pods`, options);
        const updates = await first(source, 2);
        expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
        expect(https.requests).toHaveLength(0);
        const status = source.status();
        expect(status.lastError?.code).toBe(code);
        expect(status.lastError?.message).toContain(`${server.origin}/`);
        if (message !== undefined) expect(status.lastError?.message).toMatch(message);
        expect(status).toMatchObject({ healthy: true, pods: 1, counters: { polls_success: 2, polls_error: 1 } });
        expect(status.details).toMatchObject({ consecutiveFailures: 0 });
        expect(clock.sleeps).toEqual([20_000, 20_000]);
        const levels = logs.entries().filter((e) => /manifest (poll failed|URL recovered)/.test(e.msg));
        expect(levels.map((e) => [e.level, e.msg])).toEqual([
          [40, 'manifest poll failed'],
          [30, 'manifest URL recovered'],
        ]);
      });
    });

    it('drops a whole body it refuses (over the cap, or in an encoding it does not decode) without an unhandled error', async () => {
      // Small bodies arrive whole before they are refused: undici then reports the drop as an 'error' on the body,
      // which, with no listener, ended the process.
      const cap = B.length + 8;
      const server = await serve([ok(A), ok(B, { 'content-encoding': 'br' }), ok(' '.repeat(cap + 1)), ok(B)]);
      const { source, logs } = makeSource(`${server.origin}/pods`, { maxBytes: cap });
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      const errors = logs.entries().filter((e) => /manifest poll failed/.test(e.msg)).map((e) => (e.err as { code: string }).code);
      expect(errors).toEqual(['PODCONFIG_MANIFEST_INVALID', 'PODCONFIG_BODY_TOO_LARGE']);
    });

    it('rejects a body over the default 10 MiB cap', async () => {
      const server = await serve([ok(A), ok(Buffer.alloc(MAX_MANIFEST_BYTES + 1, 0x20)), ok(B)]);
      const { source } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      expect(source.status().lastError?.code).toBe('PODCONFIG_BODY_TOO_LARGE');
    });

    it('retries a refused connection and applies the pods once the server is up', async () => {
      const port = await closedPort();
      const pods = await serveLater(port, [ok(A)]);
      const clock = new HookedClock(async (i) => {
        if (i === 0) await pods.start();
      });
      const { source } = makeSource(`http://127.0.0.1:${port}/pods`, { clock });
      const [update] = await first(source, 1);
      expect(names(update!)).toEqual(['a-node-a']);
      expect(clock.inner.sleeps).toEqual([20_000]);
      expect(source.status().lastError).toMatchObject({
        code: 'PODCONFIG_SOURCE_UNAVAILABLE',
        message: expect.stringContaining('ECONNREFUSED'),
      });
    });

    it('backs off exponentially with jitter on failure, capped, and resets after a success (D8)', async () => {
      const fail = reply(503);
      const server = await serve([ok(A), fail, fail, fail, fail, fail, ok(B), fail, ok(C)]);
      const { source, clock, logs } = makeSource(`${server.origin}/pods`);
      const updates = await first(source, 3);
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a'], ['c-node-a']]);
      expect(clock.sleeps).toEqual([20_000, 20_000, 40_000, 80_000, 160_000, 300_000, 20_000, 20_000]);
      // Logged once per state change, not every poll.
      const entries = logs.entries();
      expect(entries.filter((e) => e.msg === 'manifest poll failed').map((e) => e.consecutiveFailures)).toEqual([1, 1]);
      // The repeats at debug: a URL down for hours does not fill the log at info.
      expect(entries.filter((e) => e.msg === 'manifest poll failed again').map((e) => e.level)).toEqual([20, 20, 20, 20]);
      expect(entries.filter((e) => e.msg === 'manifest URL recovered').map((e) => e.failures)).toEqual([5, 1]);
    });

    it('waits at least what a 429 or 5xx\'s Retry-After asks for, up to maxBackoffMs; a 4xx\'s is not taken (D8)', async () => {
      const server = await serve([
        ok(A),
        reply(503, '', { 'retry-after': '120' }), // over the 20 s backoff: 120 s
        reply(429, '', { 'retry-after': '5' }), //    under the 40 s backoff: 40 s
        reply(503, '', { 'retry-after': '3600' }), // capped: 300 s
        reply(403, '', { 'retry-after': '200' }), //  not a "come back later": the 160 s backoff
        ok(B),
      ]);
      const { source, clock } = makeSource(`${server.origin}/pods`);
      await first(source, 2);
      expect(clock.sleeps).toEqual([20_000, 120_000, 40_000, 300_000, 160_000]);
      expect(source.status().lastError).toMatchObject({ code: 'PODCONFIG_HTTP_STATUS', message: expect.stringContaining('HTTP 403') });
    });

    it('spreads backoff delays by up to half with the jitter source', async () => {
      const server = await serve([ok(A), reply(500), reply(500), ok(B)]);
      const { source, clock } = makeSource(`${server.origin}/pods`, { random: () => 0.5, periodMs: 1000, maxBackoffMs: 1500 });
      await first(source, 2);
      expect(clock.sleeps).toEqual([1000, 1250, 1500]);
    });

    it('never backs off below periodMs, even with a smaller maxBackoffMs', async () => {
      const server = await serve([ok(A), reply(500), reply(500), ok(B)]);
      const { source, clock } = makeSource(`${server.origin}/pods`, { periodMs: 30_000, maxBackoffMs: 1_000 });
      await first(source, 2);
      expect(clock.sleeps).toEqual([30_000, 30_000, 30_000]);
    });

    describe("readiness 'definitive' (D9)", () => {
      it('yields one empty SET with a warning when no definitive answer came within 2 × periodMs', async () => {
        const server = await serve([reply(500), reply(500), reply(500), ok(A)]);
        const { source, clock, logs } = makeSource(`${server.origin}/pods`);
        const updates = await first(source, 2);
        expect(updates.map(names)).toEqual([[], ['a-node-a']]);
        // Failure 1 at t=0: backoff 20 s. Failure 2 at t=20 s: backoff 40 s, split at the grace
        // deadline t=40 s, where the empty SET goes out. Failure 3 at t=60 s: backoff 80 s.
        expect(clock.sleeps).toEqual([20_000, 20_000, 20_000, 80_000]);
        const warning = logs.entries().filter((e) => e.msg.startsWith('no definitive answer'));
        expect(warning).toHaveLength(1);
        expect(warning[0]).toMatchObject({ level: 40, graceMs: 40_000 });
      });

      it('takes a 204 as no answer, like a 500: a first answer of 204 waits for the grace period, not a definitive empty SET', async () => {
        const server = await serve([reply(204), reply(204), reply(204), ok(A)]);
        const { source, clock } = makeSource(`${server.origin}/pods`);
        const updates = await first(source, 2);
        expect(updates.map(names)).toEqual([[], ['a-node-a']]);
        expect(clock.sleeps).toEqual([20_000, 20_000, 20_000, 80_000]); // the empty SET at the 40 s grace deadline
        expect(source.status().lastError).toMatchObject({ code: 'PODCONFIG_HTTP_STATUS', message: expect.stringContaining('HTTP 204') });
      });

      it('measures the grace period on the monotonic clock: wall-clock steps neither hurry nor delay the empty SET', async () => {
        const server = await serve([reply(500), reply(500), reply(500), ok(A)]);
        const clock = new InstantClock();
        // NTP gone wild: every wall-clock reading is an hour later than the one before; no time passes.
        const stepping: Clock = {
          now: () => (clock.stepWall(3_600_000), clock.now()),
          monotonic: () => clock.monotonic(),
          sleep: (ms, signal) => clock.sleep(ms, signal),
        };
        const { source } = makeSource(`${server.origin}/pods`, { clock: stepping });
        const updates = await first(source, 2);
        expect(updates.map(names)).toEqual([[], ['a-node-a']]);
        expect(clock.sleeps).toEqual([20_000, 20_000, 20_000, 80_000]); // as without the steps
      });

      it('reports the grace state in status()', async () => {
        const server = await serve([reply(500), reply(502)]);
        const { source } = makeSource(`${server.origin}/pods`);
        await first(source, 1);
        expect(source.status()).toMatchObject({
          seen: true,
          provisional: true,
          healthy: false,
          pods: 0,
          counters: { polls_success: 0, polls_not_modified: 0, polls_error: 2 },
          details: { lastStatusCode: 502, consecutiveFailures: 2, nextPollInMs: 20_000 }, // 40 s after the 2nd poll, 20 s of it waited for the grace SET
        });
      });

      /** Each SET's pod names with `status().provisional` read when the SET arrives; ends the run after `n`. */
      async function provisionalPerSet(source: HttpPodSource, n: number): Promise<[string[], boolean | undefined][]> {
        const out: [string[], boolean | undefined][] = [];
        for await (const update of source.updates(new AbortController().signal)) {
          out.push([names(update), source.status().provisional]);
          if (out.length >= n) break;
        }
        return out;
      }

      it('reports provisional after the grace SET until a definitive 404, which yields a SET again', async () => {
        const server = await serve([reply(500), reply(500), reply(404)]);
        const { source, clock } = makeSource(`${server.origin}/pods`);
        expect(source.status().provisional).toBe(false);
        expect(await provisionalPerSet(source, 2)).toEqual([
          [[], true],
          [[], false],
        ]);
        expect(clock.sleeps).toEqual([20_000, 20_000, 20_000]);
        expect(source.status()).toMatchObject({ seen: true, provisional: false, healthy: true });
      });

      it('reports provisional after the grace SET until a 200 with pods', async () => {
        const server = await serve([reply(500), reply(500), ok(A)]);
        const { source } = makeSource(`${server.origin}/pods`);
        expect(await provisionalPerSet(source, 2)).toEqual([
          [[], true],
          [['a-node-a'], false],
        ]);
      });

      it('is never provisional when the first answer is definitive', async () => {
        const server = await serve([reply(404), ok(A)]);
        const { source } = makeSource(`${server.origin}/pods`);
        expect(await provisionalPerSet(source, 2)).toEqual([
          [[], false],
          [['a-node-a'], false],
        ]);
      });

      it('yields the grace SET while a refused URL stays down', async () => {
        const port = await closedPort();
        const { source, clock } = makeSource(`http://127.0.0.1:${port}/pods`);
        const [update] = await first(source, 1);
        expect(update!.pods.size).toBe(0);
        expect(clock.sleeps).toEqual([20_000, 20_000]);
        expect(source.status().lastError?.code).toBe('PODCONFIG_SOURCE_UNAVAILABLE');
      });

      describe('while a poll is in flight (a server that accepts the request and holds its answer)', () => {
        // periodMs 5: the grace deadline (10 ms on the clock) falls well inside the poll's 10 s timeout. The clock
        // is the InstantClock: the test moves it while the server holds the request, as time passes for real.
        const PERIOD_MS = 5;

        /** A server whose first request gets no answer until the test gives one; `held` resolves when it is in. */
        async function holdingServer(): Promise<{ served: Served; held: Promise<{ req: IncomingMessage; res: ServerResponse }> }> {
          let hold: (value: { req: IncomingMessage; res: ServerResponse }) => void = () => undefined;
          const held = new Promise<{ req: IncomingMessage; res: ServerResponse }>((resolve) => {
            hold = resolve;
          });
          return { served: await serve([(req, res) => hold({ req, res })]), held };
        }

        it('yields the grace SET at 2 × periodMs, not after the poll, then the answer that poll gets as a definitive SET', async () => {
          const { served, held } = await holdingServer();
          const { source, clock } = makeSource(`${served.origin}/pods`, { periodMs: PERIOD_MS });
          const controller = new AbortController();
          const updates = source.updates(controller.signal);
          try {
            const grace = updates.next();
            const { req, res } = await held;
            clock.advance(2 * PERIOD_MS);
            expect(names((await grace).value as PodSetUpdate)).toEqual([]);
            // The order of events: the grace SET came while the server still held the request, before any
            // poll ended (no sleep, no error), at the deadline on the clock.
            expect(res.headersSent).toBe(false);
            expect(clock.sleeps).toEqual([]);
            expect(clock.monotonic()).toBe(2 * PERIOD_MS);
            expect(source.status()).toMatchObject({ seen: true, provisional: true, pods: 0, counters: { polls_success: 0, polls_error: 0 } });
            expect(source.status().lastError).toBeUndefined();

            const answer = updates.next();
            ok(A)(req, res);
            expect(names((await answer).value as PodSetUpdate)).toEqual(['a-node-a']);
            expect(source.status()).toMatchObject({ seen: true, provisional: false, healthy: true, pods: 1, counters: { polls_success: 1 } });
            expect(served.requests).toHaveLength(1);
          } finally {
            controller.abort();
            await updates.return(undefined);
          }
        });

        it('settles with a 404 after the grace SET: an empty SET again, no longer provisional', async () => {
          const { served, held } = await holdingServer();
          const { source, clock } = makeSource(`${served.origin}/pods`, { periodMs: PERIOD_MS });
          const controller = new AbortController();
          const updates = source.updates(controller.signal);
          try {
            const grace = updates.next();
            const { req, res } = await held;
            clock.advance(2 * PERIOD_MS);
            expect(names((await grace).value as PodSetUpdate)).toEqual([]);
            expect(source.status().provisional).toBe(true);
            const answer = updates.next();
            reply(404)(req, res);
            expect(names((await answer).value as PodSetUpdate)).toEqual([]);
            expect(source.status()).toMatchObject({ provisional: false, healthy: true });
          } finally {
            controller.abort();
            await updates.return(undefined);
          }
        });

        it('ends the run on abort while the held poll goes on after the grace SET, and closes the connection', async () => {
          const { served, held } = await holdingServer();
          const { source, clock, logs } = makeSource(`${served.origin}/pods`, { periodMs: PERIOD_MS });
          const controller = new AbortController();
          const updates = source.updates(controller.signal);
          const grace = updates.next();
          const { req, res } = await held;
          const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
          clock.advance(2 * PERIOD_MS);
          expect(names((await grace).value as PodSetUpdate)).toEqual([]);
          const next = updates.next(); // the generator now awaits the held poll
          controller.abort();
          await expect(next).resolves.toEqual({ done: true, value: undefined });
          await closed;
          expect(res.headersSent).toBe(false);
          expect(source.status().counters).toEqual({ polls_success: 0, polls_not_modified: 0, polls_error: 0 });
          expect(logs.entries().filter((e) => e.msg === 'manifest poll failed')).toEqual([]);
        });

        it('ends the run on abort before the grace deadline, without a grace SET, and closes the connection', async () => {
          const { served, held } = await holdingServer();
          const { source } = makeSource(`${served.origin}/pods`, { periodMs: PERIOD_MS });
          const controller = new AbortController();
          const next = source.updates(controller.signal).next();
          const { req } = await held;
          const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
          controller.abort(); // the clock never reached the deadline: the wait for it ends with the poll
          await expect(next).resolves.toEqual({ done: true, value: undefined });
          await closed;
          expect(source.status()).toMatchObject({ seen: false, provisional: false });
        });

        it('ends the held poll and closes the connection when the consumer stops at the grace SET without aborting', async () => {
          const { served, held } = await holdingServer();
          const { source, clock } = makeSource(`${served.origin}/pods`, { periodMs: PERIOD_MS });
          const taken = first(source, 1);
          const { req } = await held;
          const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
          clock.advance(2 * PERIOD_MS);
          expect((await taken).map(names)).toEqual([[]]);
          await closed; // the run's own signal ended the poll: nothing of it goes on after take() returned
          expect(source.status()).toMatchObject({ provisional: true, counters: { polls_success: 0, polls_error: 0 } });
        });
      });
    });

    describe("readiness 'first-success'", () => {
      it('waits for a 200 without a grace SET, and a 404 is an error', async () => {
        const server = await serve([reply(404), reply(500), reply(500), ok(A), reply(404), ok(B)]);
        const { source, clock } = makeSource(`${server.origin}/pods`, { readiness: 'first-success' });
        const updates = await first(source, 2);
        expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
        expect(clock.sleeps).toEqual([20_000, 40_000, 80_000, 20_000, 20_000]);
        expect(source.status().lastError?.message).toMatch(/HTTP 404$/);
      });

      it('takes a 204 as a failure, not a first success: the first SET is the next 200\'s (checklist 44)', async () => {
        const server = await serve([reply(204), ok(A)]);
        const { source } = makeSource(`${server.origin}/pods`, { readiness: 'first-success' });
        const [update] = await first(source, 1);
        expect(names(update!)).toEqual(['a-node-a']);
        expect(source.status().counters.polls_error).toBe(1);
      });

      it('counts an empty 200 as the first success', async () => {
        const server = await serve([reply(503), ok('')]);
        const { source } = makeSource(`${server.origin}/pods`, { readiness: 'first-success' });
        const [update] = await first(source, 1);
        expect(update!.pods.size).toBe(0);
      });
    });

    describe('over https', () => {
      it('trusts the configured CA', async () => {
        const server = await serve([ok(A)], { cert: pki.server.cert, key: pki.server.key });
        const { source } = makeSource(`${server.origin}/pods`, { ca: pki.ca.cert });
        const [update] = await first(source, 1);
        expect(names(update!)).toEqual(['a-node-a']);
      });

      it('fails with PODCONFIG_TLS when the server certificate is not trusted', async () => {
        const server = await serve([ok(A), ok(A)], { cert: pki.server.cert, key: pki.server.key });
        const other = await createTestPki();
        const { source } = makeSource(`${server.origin}/pods`, { ca: other.ca.cert, caSource: '/etc/podconfig/ca.pem' });
        const [update] = await first(source, 1); // the grace SET
        expect(update!.pods.size).toBe(0);
        expect(server.requests).toHaveLength(0);
        expect(source.status().lastError).toMatchObject({
          code: 'PODCONFIG_TLS',
          // With every CA an anchor (allowPartialTrustChain), OpenSSL says it found no issuer among them.
          message: expect.stringMatching(/: TLS failure: UNABLE_TO_GET_ISSUER_CERT_LOCALLY: .* \(trusted: the CA of \/etc\/podconfig\/ca\.pem\)$/),
        });
        // Without a CA, Node.js's roots are what was trusted.
        const defaults = makeSource(`${server.origin}/pods`).source;
        await first(defaults, 1);
        expect(defaults.status().lastError?.message).toMatch(/\(trusted: Node\.js's bundled roots, not the system's store \(NODE_EXTRA_CA_CERTS adds to them; NODE_OPTIONS=--use-openssl-ca reads the system's, and SSL_CERT_FILE\)\)$/);
      });

      it('names every name the certificate holds when the URL\'s host is not one of them', async () => {
        // A loopback address the certificate does not name (Linux routes all of 127.0.0.0/8 to the loopback).
        const server = createHttpsServer({ cert: pki.server.cert, key: pki.server.key }, (_req, res) => res.end(A));
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
        cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
        const { source } = makeSource(`https://127.0.0.2:${(server.address() as AddressInfo).port}/pods`, { ca: pki.ca.cert, periodMs: 10 });
        await first(source, 1); // the grace SET
        expect(source.status().lastError?.message).toMatch(/: TLS failure: ERR_TLS_CERT_ALTNAME_INVALID: certificate is valid for 127\.0\.0\.1, .*localhost.*, not 127\.0\.0\.2$/);
        expect(source.status().lastError?.message).not.toContain('trusted:');
      });

      it('refuses a server certificate that names its host only in the Common Name, as Go does', async () => {
        const commonNameOnly = await issueTestCertificate(pki.ca, { commonName: 'localhost' });
        const server = await serve([ok(A), ok(A)], { cert: commonNameOnly.cert, key: commonNameOnly.key });
        const { source } = makeSource(`https://localhost:${server.port}/pods`, { ca: pki.ca.cert });
        const [grace] = await first(source, 1);
        expect(grace!.pods.size).toBe(0);
        expect(server.requests).toHaveLength(0);
        expect(source.status().lastError).toMatchObject({
          code: 'PODCONFIG_TLS',
          message: expect.stringMatching(
            /: TLS failure: ERR_TLS_CERT_ALTNAME_INVALID: certificate relies on legacy Common Name field \(CN localhost\), use SANs instead: it has no subjectAltName to match localhost$/,
          ),
        });
      });

      it('trusts a --manifest-url-ca that is an intermediate CA, as Go does; an unrelated CA still fails', async () => {
        const intermediate = await issueTestCertificate(pki.ca, { commonName: 'podconfig test intermediate CA', role: 'ca' });
        const leaf = await issueTestCertificate(intermediate, { commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] });
        const server = await serve([ok(A), ok(A), ok(A)], { cert: leaf.cert + intermediate.cert, key: leaf.key });
        const { source } = makeSource(`${server.origin}/pods`, { ca: intermediate.cert });
        expect(names((await first(source, 1))[0]!)).toEqual(['a-node-a']);
        const other = await createTestPki({ caName: 'unrelated CA' });
        const untrusting = makeSource(`${server.origin}/pods`, { ca: other.ca.cert, caSource: '/etc/other-ca.pem' }).source;
        await first(untrusting, 1); // the grace SET
        expect(untrusting.status().lastError).toMatchObject({ code: 'PODCONFIG_TLS', message: expect.stringContaining('(trusted: the CA of /etc/other-ca.pem)') });
      });

      it('presents the client certificate when the server requires one', async () => {
        const tls = { cert: pki.server.cert, key: pki.server.key, ca: pki.ca.cert, requestCert: true, rejectUnauthorized: true };
        const server = await serve([ok(A)], tls);
        const { source } = makeSource(`${server.origin}/pods`, { ca: pki.ca.cert, cert: pki.client.cert, key: pki.client.key });
        const [update] = await first(source, 1);
        expect(names(update!)).toEqual(['a-node-a']);

        const anonymous = makeSource(`${server.origin}/pods`, { ca: pki.ca.cert }).source;
        await first(anonymous, 1); // the grace SET
        expect(server.requests).toHaveLength(1);
        expect(anonymous.status().healthy).toBe(false);
      });
    });

    it('keeps secrets out of logs, status and error messages', async () => {
      const secrets = ['pa55word', 't0ken-secret', 'hdr-secret', 'key-secret', Buffer.from('user:pa55word').toString('base64')];
      const invalid = podListJson(podObject('c'), { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: { containers: [] } });
      const server = await serve([
        reply(500, 'hdr-secret'),
        ok('garbage: [t0ken-secret'),
        ok(invalid),
        redirect('/elsewhere?token=t0ken-secret'),
        reply(401),
        drop,
        ok(A, { etag: '"e"' }),
        reply(304),
      ]);
      const url = `http://user:pa55word@127.0.0.1:${server.port}/pods?token=t0ken-secret`;
      const { source, logs } = makeSource(url, {
        headers: [
          ['authorization', 'Bearer hdr-secret'],
          ['x-api-key', 'key-secret'],
        ],
        readiness: 'first-success',
      });
      const [update] = await first(source, 1);
      expect(names(update!)).toEqual(['a-node-a']);
      expect(server.requests[0]!.headers).toContainEqual(['authorization', 'Bearer hdr-secret']);
      const errors = logs.entries().filter((e) => e.err !== undefined);
      expect(errors.length).toBeGreaterThanOrEqual(5);
      const seen = [logs.text(), JSON.stringify(source.status())].join('\n');
      for (const secret of secrets) expect(seen).not.toContain(secret);
      expect(seen).toContain(`http://127.0.0.1:${server.port}/pods?…`);
    });

    it('returns without error when the signal aborts during a request', async () => {
      let requested: () => void = () => undefined;
      const arrived = new Promise<void>((resolve) => {
        requested = resolve;
      });
      const server = await serve([
        (req, res) => {
          requested();
          hang(req, res);
        },
      ]);
      const { source, logs } = makeSource(`${server.origin}/pods`);
      const controller = new AbortController();
      const next = source.updates(controller.signal).next();
      await arrived;
      controller.abort();
      await expect(next).resolves.toEqual({ done: true, value: undefined });
      expect(source.status().counters.polls_error).toBe(0);
      expect(logs.entries().filter((e) => e.level >= 40)).toEqual([]);
    });

    it('sends requests through an injected dispatcher', async () => {
      const agent = new MockAgent();
      agent.disableNetConnect();
      agent.get('http://manifests.test').intercept({ path: '/pods' }).reply(200, A);
      cleanups.push(() => agent.close());
      const { source } = makeSource('http://manifests.test/pods', { dispatcher: agent });
      const [update] = await first(source, 1);
      expect(names(update!)).toEqual(['a-node-a']);
    });
  });

  describe('proxies from the environment', () => {
    interface Proxied {
      readonly url: string;
      /** Each request line the proxy got (absolute form, or CONNECT host:port) and its Proxy-Authorization. */
      readonly seen: { readonly line: string; readonly auth: string | undefined }[];
    }

    /**
     * An HTTP proxy on 127.0.0.1 that sends every request, whatever host it names, to `port` on 127.0.0.1:
     * absolute-form GETs forwarded, CONNECT tunnelled. The names it is asked for resolve nowhere else.
     */
    async function proxyTo(port: number, userinfo = '', tls?: HttpsServerOptions): Promise<Proxied> {
      const seen: Proxied['seen'] = [];
      const forward = (req: IncomingMessage, res: ServerResponse): void => {
        seen.push({ line: `${req.method} ${req.url}`, auth: req.headers['proxy-authorization'] });
        const target = new URL(req.url ?? '/');
        // The raw header list, so that a repeated name reaches the server as the client sent it.
        const upstream = httpRequest({ host: '127.0.0.1', port, path: target.pathname + target.search, headers: req.rawHeaders }, (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        });
        upstream.on('error', () => res.destroy());
        req.pipe(upstream);
      };
      const proxy = tls === undefined ? createHttpServer(forward) : createHttpsServer(tls, forward);
      proxy.on('connect', (req: IncomingMessage, downstream: Socket, head: Buffer) => {
        seen.push({ line: `CONNECT ${req.url}`, auth: req.headers['proxy-authorization'] });
        const upstream = netConnect(port, '127.0.0.1', () => {
          downstream.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          upstream.write(head);
          upstream.pipe(downstream).pipe(upstream);
        });
        upstream.on('error', () => downstream.destroy());
        downstream.on('error', () => upstream.destroy());
      });
      const proxyPort = await listen(proxy);
      cleanups.push(async () => {
        proxy.closeAllConnections();
        await new Promise((resolve) => proxy.close(resolve));
      });
      return { url: `${tls === undefined ? 'http' : 'https'}://${userinfo}127.0.0.1:${proxyPort}`, seen };
    }

    it('sends an http manifest URL through HTTP_PROXY in absolute form, with the proxy\'s credentials', async () => {
      const server = await serve([ok(A)]);
      const proxy = await proxyTo(server.port, 'proxy-user:proxy%20pw@');
      const { source } = makeSource('http://manifests.test/pods?v=1', { env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: 'http://127.0.0.1:1' } });
      const [update] = await first(source, 1);
      expect(names(update!)).toEqual(['a-node-a']);
      expect(proxy.seen).toEqual([
        { line: 'GET http://manifests.test/pods?v=1', auth: `Basic ${Buffer.from('proxy-user:proxy pw').toString('base64')}` },
      ]);
      expect(server.requests.map((r) => r.url)).toEqual(['/pods?v=1']);
    });

    it('tunnels an https manifest URL through HTTPS_PROXY and still verifies the server', async () => {
      const named = await createTestPki({ hosts: ['manifests.test'] });
      const server = await serve([ok(A), ok(A)], { cert: named.server.cert, key: named.server.key });
      const proxy = await proxyTo(server.port);
      const { source } = makeSource('https://manifests.test/pods', { ca: named.ca.cert, env: { https_proxy: proxy.url } });
      const [update] = await first(source, 1);
      expect(names(update!)).toEqual(['a-node-a']);
      expect(proxy.seen).toEqual([{ line: 'CONNECT manifests.test:443', auth: undefined }]);

      // The proxy reaches the same server; a CA that did not sign it fails the handshake through the tunnel.
      const untrusting = makeSource('https://manifests.test/pods', { ca: pki.ca.cert, env: { https_proxy: proxy.url } }).source;
      const [grace] = await first(untrusting, 1); // D9's grace SET after two failed polls
      expect(grace!.pods.size).toBe(0);
      expect(untrusting.status().lastError).toMatchObject({ code: 'PODCONFIG_TLS', message: expect.stringContaining('https://manifests.test/pods') });
      expect(proxy.seen).toHaveLength(3);
    });

    it('fails with PODCONFIG_TLS when the certificate does not name the host (through the tunnel)', async () => {
      const server = await serve([ok(A), ok(A)], { cert: pki.server.cert, key: pki.server.key }); // 127.0.0.1 and localhost only
      const proxy = await proxyTo(server.port);
      const { source } = makeSource('https://manifests.test/pods', { ca: pki.ca.cert, env: { HTTPS_PROXY: proxy.url } });
      const [grace] = await first(source, 1);
      expect(grace!.pods.size).toBe(0);
      expect(server.requests).toHaveLength(0);
      expect(source.status().lastError).toMatchObject({ code: 'PODCONFIG_TLS', message: expect.stringContaining('https://manifests.test/pods: TLS failure') });
    });

    it('refuses a Common-Name-only server certificate through the tunnel (HTTPS_PROXY), as Go does', async () => {
      const commonNameOnly = await issueTestCertificate(pki.ca, { commonName: 'manifests.test' });
      const server = await serve([ok(A), ok(A)], { cert: commonNameOnly.cert, key: commonNameOnly.key });
      const proxy = await proxyTo(server.port);
      const { source } = makeSource('https://manifests.test/pods', { ca: pki.ca.cert, env: { HTTPS_PROXY: proxy.url } });
      const [grace] = await first(source, 1);
      expect(grace!.pods.size).toBe(0);
      expect(server.requests).toHaveLength(0);
      expect(proxy.seen[0]).toEqual({ line: 'CONNECT manifests.test:443', auth: undefined });
      expect(source.status().lastError).toMatchObject({
        code: 'PODCONFIG_TLS',
        message: expect.stringContaining('certificate relies on legacy Common Name field (CN manifests.test), use SANs instead: it has no subjectAltName to match manifests.test'),
      });
    });

    it('keeps every value of a repeated header through the proxy, in absolute form and through the tunnel', async () => {
      const headers: [string, string][] = [['X-Tag', 'one'], ['X-Tag', 'two']];
      const plain = await serve([ok(A)]);
      const viaPlain = await proxyTo(plain.port);
      await first(makeSource('http://manifests.test/pods', { headers, env: { HTTP_PROXY: viaPlain.url } }).source, 1);
      const named = await createTestPki({ hosts: ['manifests.test'] });
      const secure = await serve([ok(A)], { cert: named.server.cert, key: named.server.key });
      const viaTunnel = await proxyTo(secure.port);
      await first(makeSource('https://manifests.test/pods', { headers, ca: named.ca.cert, env: { HTTPS_PROXY: viaTunnel.url } }).source, 1);
      for (const server of [plain, secure]) {
        expect(server.requests[0]!.headers.filter(([name]) => name === 'x-tag')).toEqual([['x-tag', 'one'], ['x-tag', 'two']]);
      }
    });

    it('sends an http URL to an https proxy in absolute form over TLS (no CONNECT), verifying the proxy with the CA', async () => {
      const server = await serve([ok(A)]);
      const proxy = await proxyTo(server.port, '', { cert: pki.server.cert, key: pki.server.key });
      const { source } = makeSource('http://manifests.test/pods', { ca: pki.ca.cert, env: { HTTP_PROXY: proxy.url } });
      expect(names((await first(source, 1))[0]!)).toEqual(['a-node-a']);
      expect(proxy.seen).toEqual([{ line: 'GET http://manifests.test/pods', auth: undefined }]);
    });

    it('ignores a path in the proxy URL, and lets a configured Proxy-Authorization header go to the proxy', async () => {
      const server = await serve([ok(A)]);
      const proxy = await proxyTo(server.port);
      const { source } = makeSource('http://manifests.test/pods', {
        headers: [['Proxy-Authorization', 'Bearer configured']], env: { HTTP_PROXY: `${proxy.url}/corp-proxy?x=1` },
      });
      expect(names((await first(source, 1))[0]!)).toEqual(['a-node-a']);
      expect(proxy.seen).toEqual([{ line: 'GET http://manifests.test/pods', auth: 'Bearer configured' }]);
    });

    it('ends a connect to a proxy that never answers when the run ends', async () => {
      const blackhole = await BlackholeServer.listen();
      cleanups.push(() => blackhole.close());
      const proxyUrl = blackhole.url.replace('https:', 'http:');
      for (const url of ['http://manifests.test/pods', 'https://manifests.test/pods']) {
        const { source } = makeSource(url, { timeoutMs: 3_600_000, env: { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl } });
        const controller = new AbortController();
        const accepted = blackhole.nextConnection();
        const run = source.updates(controller.signal);
        const next = run.next();
        await accepted;
        controller.abort();
        await expect(next).resolves.toEqual({ done: true, value: undefined });
        await blackhole.allClosed();
      }
    });

    it('goes direct to loopback addresses whatever HTTP_PROXY says (NO_PROXY: see core\'s EnvironmentProxy)', async () => {
      const server = await serve([ok(A)]);
      const { source } = makeSource(`${server.origin}/pods`, { env: { HTTP_PROXY: `http://127.0.0.1:${await closedPort()}` } });
      expect(names((await first(source, 1))[0]!)).toEqual(['a-node-a']);
    });

    it('sends an http manifest URL through a socks5 HTTP_PROXY as on a direct connection, with the proxy\'s credentials', async () => {
      const server = await serve([ok(A)]);
      const proxy = await Socks5Proxy.listen({ auth: 'proxy-user:proxy pw', forwardTo: server.port });
      cleanups.push(() => proxy.close());
      const { source } = makeSource('http://manifests.test/pods?v=1', { env: { HTTP_PROXY: proxy.url('proxy-user:proxy%20pw').href } });
      expect(names((await first(source, 1))[0]!)).toEqual(['a-node-a']);
      expect(proxy.tunnels).toEqual([{ auth: 'proxy-user:proxy pw', target: 'manifests.test:80' }]); // the proxy resolves the name
      expect(server.requests.map((r) => r.url)).toEqual(['/pods?v=1']); // origin form: the tunnel is the connection
      expect(server.requests[0]!.headers).toContainEqual(['host', 'manifests.test']);
      expect(source.status().details.proxy).toBe(`socks5://127.0.0.1:${proxy.port}`);
    });

    it('tunnels an https manifest URL through a socks5 HTTPS_PROXY and still verifies the server', async () => {
      const named = await createTestPki({ hosts: ['manifests.test'] });
      const server = await serve([ok(A), ok(A)], { cert: named.server.cert, key: named.server.key });
      const proxy = await Socks5Proxy.listen({ forwardTo: server.port });
      cleanups.push(() => proxy.close());
      const { source } = makeSource('https://manifests.test/pods', { ca: named.ca.cert, env: { HTTPS_PROXY: proxy.url().href } });
      expect(names((await first(source, 1))[0]!)).toEqual(['a-node-a']);
      expect(proxy.tunnels).toEqual([{ auth: undefined, target: 'manifests.test:443' }]);

      // The same server through the tunnel; a CA that did not sign it fails the handshake.
      const untrusting = makeSource('https://manifests.test/pods', { ca: pki.ca.cert, env: { HTTPS_PROXY: proxy.url().href } }).source;
      const [grace] = await first(untrusting, 1); // D9's grace SET after two failed polls
      expect(grace!.pods.size).toBe(0);
      expect(untrusting.status().lastError).toMatchObject({ code: 'PODCONFIG_TLS', message: expect.stringContaining('https://manifests.test/pods') });
      expect(server.requests).toHaveLength(1);
    });

    it('fails a poll whose socks5 proxy refuses the credentials, naming the URL and the proxy, never the password', async () => {
      const server = await serve([ok(A)]);
      const proxy = await Socks5Proxy.listen({ auth: 'user:right', forwardTo: server.port });
      cleanups.push(() => proxy.close());
      const { source } = makeSource('http://manifests.test/pods', { env: { HTTP_PROXY: proxy.url('user:wrong-secret').href } });
      const [grace] = await first(source, 1);
      expect(grace!.pods.size).toBe(0);
      const error = source.status().lastError;
      expect(error).toMatchObject({
        code: 'PODCONFIG_SOURCE_UNAVAILABLE',
        message: `http://manifests.test/pods: request failed: SOCKS5 proxy 127.0.0.1:${proxy.port}: user name or password refused`,
      });
      expect(JSON.stringify(source.status())).not.toContain('wrong-secret');
      expect(server.requests).toHaveLength(0);
    });

    it('ends a socks5 handshake still pending when the run ends, the proxy never answering', async () => {
      const blackhole = await BlackholeServer.listen();
      cleanups.push(() => blackhole.close());
      const { source } = makeSource('https://manifests.test/pods', {
        timeoutMs: 3_600_000, env: { HTTPS_PROXY: `socks5://127.0.0.1:${new URL(blackhole.url).port}` },
      });
      const controller = new AbortController();
      const accepted = blackhole.nextConnection();
      const next = source.updates(controller.signal).next();
      await accepted;
      controller.abort();
      await expect(next).resolves.toEqual({ done: true, value: undefined });
      await blackhole.allClosed(); // our socket to the proxy, not left to the 10 s handshake deadline
    });

    it('refuses a malformed proxy for the manifest URL at construction, naming the variable', () => {
      expect(() => makeSource('http://manifests.test/pods', { env: { http_proxy: 'ftp://u:secret@proxy' } })).toThrow(
        new ConfigInvalidError('http_proxy: not a proxy URL (http://host:port, https://host:port, socks5://host:port or socks5h://host:port, or host:port)'),
      );
    });

    it('reads only the proxy variable the URL would use, as Go does: a malformed one it would not use stops nothing', async () => {
      const bad = 'ftp://u:secret@proxy';
      const server = await serve([ok(A)]);
      // HTTPS_PROXY is not read for an http URL, HTTP_PROXY not for a loopback one.
      const { source } = makeSource(`${server.origin}/pods`, { env: { HTTPS_PROXY: bad, HTTP_PROXY: bad } });
      expect(names((await first(source, 1))[0]!)).toEqual(['a-node-a']);
      expect(() => makeSource('https://manifests.test/pods', { env: { HTTP_PROXY: bad } })).not.toThrow();
      expect(() => makeSource('http://manifests.test/pods', { env: { HTTP_PROXY: bad, NO_PROXY: '*' } })).not.toThrow();
      expect(() => makeSource('http://manifests.test/pods', { env: { HTTP_PROXY: bad, no_proxy: '.test' } })).not.toThrow();
    });

    it('tunnels through a socks5h proxy as through a socks5 one, the proxy resolving the name', async () => {
      const server = await serve([ok(A)]);
      const proxy = await Socks5Proxy.listen({ forwardTo: server.port });
      cleanups.push(() => proxy.close());
      const url = proxy.url().href.replace('socks5:', 'socks5h:');
      const { source } = makeSource('http://manifests.test/pods', { env: { HTTP_PROXY: url } });
      expect(names((await first(source, 1))[0]!)).toEqual(['a-node-a']);
      expect(proxy.tunnels).toEqual([{ auth: undefined, target: 'manifests.test:80' }]);
      expect(source.status().details.proxy).toBe(`socks5h://127.0.0.1:${proxy.port}`);
    });
  });

  describe('status()', () => {
    it('shows the proxy the URL goes through, without its credentials', () => {
      const { source } = makeSource('http://manifests.test/pods', { env: { HTTP_PROXY: 'http://user:secret@proxy.corp:3128' } });
      expect(source.status().details.proxy).toBe('http://proxy.corp:3128/');
    });

    it('reports nothing seen before the first poll', () => {
      const { source } = makeSource('http://u:p@127.0.0.1:1/pods?token=x');
      expect(source.status()).toEqual({
        seen: false,
        provisional: false,
        healthy: false,
        pods: 0,
        counters: { polls_success: 0, polls_not_modified: 0, polls_error: 0 },
        details: {
          url: 'http://127.0.0.1:1/pods?…',
          proxy: null,
          lastStatusCode: null,
          etag: null,
          lastModified: null,
          nextPollInMs: null,
          consecutiveFailures: 0,
        },
      });
    });

    it('reports no lastStatusCode after a poll that got no response', async () => {
      const server = await serve([ok(A, { etag: '"a1"' }), drop, ok(B)]);
      const seen: unknown[] = [];
      const clock = new HookedClock(async () => {
        seen.push(source.status().details.lastStatusCode);
      });
      const { source } = makeSource(`${server.origin}/pods`, { clock });
      const updates = await first(source, 2);
      expect(updates.map(names)).toEqual([['a-node-a'], ['b-node-a']]);
      // Ahead of the sleep after poll 1 (a 200), then after poll 2 (the dropped connection).
      expect(seen).toEqual([200, null]);
      expect(source.status().details.lastStatusCode).toBe(200);
    });

    it('reports the applied response', async () => {
      const when = 'Wed, 21 Oct 2026 07:28:00 GMT';
      const server = await serve([ok(podListJson(podObject('a'), podObject('b')), { etag: '"v1"', 'last-modified': when })]);
      const { source, clock } = makeSource(`${server.origin}/pods`);
      await first(source, 1);
      expect(source.status()).toEqual({
        seen: true,
        provisional: false,
        healthy: true,
        pods: 2,
        lastSuccessTime: new Date(clock.now()),
        counters: { polls_success: 1, polls_not_modified: 0, polls_error: 0 },
        details: {
          url: `${server.origin}/pods`,
          proxy: null,
          lastStatusCode: 200,
          etag: '"v1"',
          lastModified: when,
          nextPollInMs: 20_000,
          consecutiveFailures: 0,
        },
      });
    });
  });
});

/** A server that will listen on `port` once `start()` is called. */
async function serveLater(port: number, steps: Step[]): Promise<{ start(): Promise<void> }> {
  let n = 0;
  const server = createHttpServer((req, res) => steps[n++]?.(req, res));
  cleanups.push(async () => {
    server.closeAllConnections();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  });
  return {
    start: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
  };
}
