import { constants as bufferConstants } from 'node:buffer';
import { once } from 'node:events';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { TLSSocket } from 'node:tls';
import { PodConfigError, StatusError } from '@podconfig/core';
import { BlackholeServer, createTestPki, FakeApiServer, InstantClock, issueTestCertificate, makePod, Socks5Proxy, tempDir, type TestPki } from '@podconfig/testing';
import { pino, type Logger } from 'pino';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Agent, type Dispatcher } from 'undici';
import { stringify } from 'yaml';
import type { ClusterConfig } from './cluster-config.js';
import { KubeClient, MAX_REDIRECTS, MAX_RESPONSE_BYTES, MAX_RETRY_AFTER_RETRIES, MAX_RETRY_AFTER_SECONDS, type KubeClientOptions, type ListBytes } from './kube-client.js';
import { loadClusterConfig } from './load-cluster-config.js';
import { BODY_PAUSE_BYTES, BODY_RESUME_BYTES, CHUNK_OVERHEAD_BYTES } from './response-body.js';
import { ScannedWatchEvent } from './scanned-watch-event.js';
import { Secret } from './secret.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

interface TestServer {
  readonly url: string;
  readonly server: Server;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An HTTP(S) server on 127.0.0.1 that runs `handler` for each request; closed after the test. */
async function serve(handler: Handler, tls?: ServerOptions): Promise<TestServer> {
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    Promise.resolve(handler(req, res)).catch((err: unknown) => {
      res.destroy(err as Error);
    });
  };
  const server: Server = tls === undefined ? createHttpServer(listener) : createHttpsServer(tls, listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`, server };
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const status = (code: number, reason: string, message: string, details?: unknown): Record<string, unknown> => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code,
  reason,
  message,
  ...(details === undefined ? {} : { details }),
});

function clusterConfig(url: string, patch: Partial<ClusterConfig> = {}): ClusterConfig {
  return {
    server: new URL(url),
    tls: { insecureSkipVerify: false },
    auth: { type: 'none' },
    source: 'test',
    identity: 'user "tester" in kubeconfig /test/config',
    warnings: [],
    ...patch,
  };
}

const silent = pino({ level: 'silent' });

function client(config: ClusterConfig, options: Partial<KubeClientOptions> = {}): KubeClient {
  const c = new KubeClient({ config, logger: silent, clock: new InstantClock(), ...options });
  cleanups.push(() => c.close());
  return c;
}

/** A logger that keeps its JSON lines. */
function capture(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

async function failure(promise: Promise<unknown>): Promise<PodConfigError> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!PodConfigError.is(err)) throw new Error(`expected a PodConfigError, got ${String(err)}`, { cause: err });
  return err;
}

const signal = new AbortController().signal;
const q = (init: Record<string, string> = {}): URLSearchParams => new URLSearchParams(init);

let pki: TestPki;
let otherPki: TestPki;
beforeAll(async () => {
  [pki, otherPki] = await Promise.all([createTestPki({ hosts: ['kube.internal'] }), createTestPki({ caName: 'other CA' })]);
});

describe(KubeClient.name, () => {
  describe('constructor', () => {
    it('refuses a negative or non-finite timeoutMs with PODCONFIG_CONFIG_INVALID, as it refuses bad qps and burst', () => {
      for (const timeoutMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        expect(() => new KubeClient({ config: clusterConfig('http://127.0.0.1:1'), logger: silent, timeoutMs }), String(timeoutMs)).toThrow(
          expect.objectContaining({ code: 'PODCONFIG_CONFIG_INVALID', message: expect.stringContaining(`timeoutMs must be a finite number`) }),
        );
      }
    });

    it('takes timeoutMs 0 as no timeout (client-go rest.Config.Timeout), not as an argument undici refuses', async () => {
      const s = await serve((_req, res) => void res.end('{"ok":true}'));
      expect(await client(clusterConfig(s.url), { timeoutMs: 0 }).getJSON('/api', q(), signal)).toEqual({ ok: true });
    });
  });

  describe('getJSON()', () => {
    it('rejects with the abort reason while the TLS connect to a blackholed server is pending, and close() closes the socket', async () => {
      const blackhole = await BlackholeServer.listen();
      cleanups.push(() => blackhole.close());
      const c = client(clusterConfig(blackhole.url));
      const controller = new AbortController();
      const accepted = blackhole.nextConnection();
      const pending = c.getJSON('/api/v1/pods', q(), controller.signal);
      await accepted; // the TCP connection is up; the TLS handshake never answers
      const reason = new Error('shutdown');
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      await c.close();
      await blackhole.allClosed(); // the pending connect's socket is closed, not left to undici's connect timeout
    });

    it('skips an informational 103 Early Hints and parses the final response', async () => {
      const s = await serve((_req, res) => {
        res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
        json(res, 200, { kind: 'PodList', items: [] });
      });
      expect(await client(clusterConfig(s.url)).getJSON('/api/v1/pods', q(), signal)).toEqual({ kind: 'PodList', items: [] });
    });

    it('GETs the path under the server prefix with the query, JSON accept and user agent, and parses the body', async () => {
      let seen: IncomingMessage | undefined;
      const s = await serve((req, res) => {
        seen = req;
        json(res, 200, { kind: 'PodList', items: [] });
      });
      const c = client(clusterConfig(`${s.url}/prefix/`), { userAgent: 'test-agent/1' });
      const body = await c.getJSON('/api/v1/pods', q({ fieldSelector: 'spec.nodeName=n1', limit: '500' }), signal);
      expect(body).toEqual({ kind: 'PodList', items: [] });
      expect(seen?.url).toBe('/prefix/api/v1/pods?fieldSelector=spec.nodeName%3Dn1&limit=500');
      expect(seen?.headers.accept).toBe('application/json');
      expect(seen?.headers['user-agent']).toBe('test-agent/1');
      expect(seen?.headers.authorization).toBeUndefined();
    });

    it('cleans the server path as client-go does (path.Join): repeated slashes collapse, the trailing one goes', async () => {
      const seen: (string | undefined)[] = [];
      const s = await serve((req, res) => {
        seen.push(req.url);
        json(res, 200, {});
      });
      for (const prefix of ['//a//b/', '/a/./b//', '/a%20b/', '//', '']) await client(clusterConfig(`${s.url}${prefix}`)).getJSON('/version', q(), signal);
      expect(seen).toEqual(['/a/b/version', '/a/b/version', '/a%20b/version', '/version', '/version']);
    });

    it('keeps connections alive across requests', async () => {
      const sockets = new Set<Socket>();
      const s = await serve((req, res) => {
        sockets.add(req.socket);
        json(res, 200, {});
      });
      const c = client(clusterConfig(s.url));
      for (let i = 0; i < 10; i++) await c.getJSON('/api', q(), signal);
      // undici may open a second connection when a request follows the previous body within the same tick.
      expect(sockets.size).toBeLessThanOrEqual(2);
    });

    it('decodes a Status answer into StatusError with code, reason, message and causes', async () => {
      const answers: Record<string, [number, Record<string, unknown>]> = {
        '/missing': [404, status(404, 'NotFound', 'pods "x" not found')],
        '/conflict': [409, status(409, 'AlreadyExists', 'pods "x" already exists')],
        '/invalid': [
          422,
          status(422, 'Invalid', 'Pod "x" is invalid', {
            causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }, { reason: 'FieldValueInvalid' }],
          }),
        ],
      };
      const s = await serve((req, res) => {
        const [code, body] = answers[req.url ?? '']!;
        json(res, code, body);
      });
      const c = client(clusterConfig(s.url));
      const notFound = await failure(c.getJSON('/missing', q(), signal));
      expect(notFound).toBeInstanceOf(StatusError);
      expect(notFound).toMatchObject({ code: 'PODCONFIG_API_STATUS', statusCode: 404, reason: 'NotFound', retryable: false });
      expect(notFound.message).toBe('GET /missing: pods "x" not found (404 NotFound)');
      expect(await failure(c.getJSON('/conflict', q(), signal))).toMatchObject({ statusCode: 409, reason: 'AlreadyExists' });
      const invalid = (await failure(c.getJSON('/invalid', q(), signal))) as StatusError;
      expect(invalid.statusCode).toBe(422);
      expect(invalid.causes).toEqual([
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' },
        { reason: 'FieldValueInvalid' },
      ]);
    });

    it('gives 410 Gone the code PODCONFIG_WATCH_EXPIRED', async () => {
      const s = await serve((_req, res) => json(res, 410, status(410, 'Expired', 'too old resource version: 1 (2)')));
      const err = await failure(client(clusterConfig(s.url)).getJSON('/api/v1/pods', q(), signal));
      expect(err).toMatchObject({ code: 'PODCONFIG_WATCH_EXPIRED', statusCode: 410, reason: 'Expired' });
    });

    it('makes a StatusError from the status code when the body is not a Status', async () => {
      const s = await serve((_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html>bad gateway</html>');
      });
      const err = await failure(client(clusterConfig(s.url)).getJSON('/api', q(), signal));
      expect(err).toMatchObject({ code: 'PODCONFIG_API_STATUS', statusCode: 502, reason: 'Unknown', retryable: true });
      expect(err.message).toBe('GET /api: the server answered 502 without a Status: "<html>bad gateway</html>" (502 Unknown)');
    });

    it('quotes a bounded, cleaned excerpt of a 5xx text body, and nothing of other bodies', async () => {
      const answers: Record<string, [number, string, string]> = {
        '/proxy': [503, 'text/plain; charset=utf-8', '  upstream connect error\r\nreset\u001b[31m \u202eevil\n'],
        '/long': [500, 'text/html', `${'x'.repeat(251)}\u00e9\u00e9\u00e9${'y'.repeat(1000)}`],
        '/json': [500, 'application/json', '{"error":"not a Status"}'],
        '/client': [400, 'text/plain', 'bad input'],
        '/blank': [500, 'text/plain', ' \n '],
      };
      const s = await serve((req, res) => {
        const [code, type, body] = answers[req.url ?? ''] ?? [404, 'text/plain', ''];
        res.writeHead(code, { 'content-type': type });
        res.end(body);
      });
      const c = client(clusterConfig(s.url));
      const message = async (path: string): Promise<string> => (await failure(c.getJSON(path, q(), signal))).message;
      expect(await message('/proxy')).toBe('GET /proxy: the server answered 503 without a Status: "upstream connect error reset [31m evil" (503 ServiceUnavailable)');
      // 256 bytes: 251 x, then é (2 bytes) twice; the third é is cut in half and dropped.
      expect(await message('/long')).toBe(`GET /long: the server answered 500 without a Status: "${'x'.repeat(251)}\u00e9\u00e9…" (500 InternalError)`);
      expect(await message('/json')).toBe('GET /json: the server answered 500 without a Status (500 InternalError)');
      expect(await message('/client')).toBe('GET /client: the server answered 400 without a Status (400 BadRequest)');
      expect(await message('/blank')).toBe('GET /blank: the server answered 500 without a Status (500 InternalError)');
    });

    it('reads at most 1 MiB of an error body and drops the connection instead of reading the rest', async () => {
      const total = 64 * 1024 * 1024;
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let ended!: Promise<{ sent: number; finished: boolean }>;
      const s = await serve(async (_req, res) => {
        let sent = 0;
        ended = new Promise((resolve) => res.on('close', () => resolve({ sent, finished: res.writableFinished })));
        res.writeHead(500, { 'content-type': 'text/plain', 'content-length': String(total) });
        while (sent < total && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) await Promise.race([once(res, 'drain'), ended]);
        }
        if (!res.destroyed) res.end();
      });
      const err = await failure(client(clusterConfig(s.url)).getJSON('/api', q(), signal));
      expect(err).toBeInstanceOf(StatusError);
      expect(err).toMatchObject({ statusCode: 500, reason: 'InternalError' });
      // The server's last writes may sit in socket buffers, but it never gets to write the whole body.
      const { sent, finished } = await ended;
      expect(finished).toBe(false);
      expect(sent).toBeLessThan(total);
    });

    it('reads a list body up to maxResponseBytes and fails past it, an endless one included, without reading on', async () => {
      const list = JSON.stringify({ kind: 'PodList', items: [] });
      let ended!: Promise<number>;
      const s = await serve(async (req, res) => {
        if (req.url?.startsWith('/fits') === true) return json(res, 200, JSON.parse(list));
        if (req.url?.startsWith('/declared') === true) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(list.length + 1) });
          return void res.write('{');
        }
        // Chunked, never ending: 64 KiB at a time for as long as the client reads.
        let sent = 0;
        ended = new Promise((resolve) => res.on('close', () => resolve(sent)));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"kind":"PodList","items":[{"metadata":{"name":"a","annotations":{"a":"');
        const chunk = Buffer.alloc(64 * 1024, 'A');
        while (!res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) await Promise.race([once(res, 'drain'), ended]);
        }
      });
      const c = client(clusterConfig(s.url), { maxResponseBytes: list.length });
      expect(await c.getJSON('/fits', q(), signal)).toEqual({ kind: 'PodList', items: [] });
      const declared = await failure(c.getJSON('/declared', q(), signal));
      expect(declared).toMatchObject({ code: 'PODCONFIG_BODY_TOO_LARGE', message: `GET /declared: the response is larger than the limit of ${list.length} bytes` });
      const big = client(clusterConfig(s.url), { maxResponseBytes: 1024 * 1024 });
      const endless = await failure(big.getJSON('/endless', q(), signal));
      expect(endless).toMatchObject({ code: 'PODCONFIG_BODY_TOO_LARGE', message: 'GET /endless: the response is larger than the limit of 1048576 bytes' });
      // The connection is dropped: the server stops writing soon after the cap (socket buffers hold a few MiB at most).
      expect(await ended).toBeLessThan(32 * 1024 * 1024);
      expect(MAX_RESPONSE_BYTES).toBe(bufferConstants.MAX_STRING_LENGTH);
    });

    it('holds the pages of a paginated list (listBytes) to maxResponseBytes together, though each page is under it', async () => {
      const fake = await new FakeApiServer().start();
      cleanups.push(() => fake.close());
      for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) fake.createPod(makePod(name, { nodeName: 'n1' }));
      /** Pages through the pods 2 at a time, one ListBytes for the list; the bytes of each page as the tally saw them. */
      const pages = async (c: KubeClient): Promise<number[]> => {
        const listBytes: ListBytes = { bytes: 0, pages: 0 };
        const sizes: number[] = [];
        let token: string | undefined;
        do {
          const before = listBytes.bytes;
          const body = (await c.getJSON('/api/v1/pods', q({ limit: '2', ...(token === undefined ? {} : { continue: token }) }), signal, { listBytes })) as {
            metadata: { continue?: string };
          };
          sizes.push(listBytes.bytes - before);
          token = body.metadata.continue;
        } while (token !== undefined);
        expect(listBytes.pages).toBe(sizes.length);
        return sizes;
      };
      const sizes = await pages(client(clusterConfig(fake.url)));
      expect(sizes).toHaveLength(3);
      // Each page alone fits; the first two together do, the third takes the list past the limit.
      const limit = sizes[0]! + sizes[1]! + 1;
      expect(Math.max(...sizes)).toBeLessThan(limit);
      const c = client(clusterConfig(fake.url), { maxResponseBytes: limit });
      const err = await failure(pages(c));
      expect(err).toMatchObject({
        code: 'PODCONFIG_BODY_TOO_LARGE',
        retryable: false,
        message: `GET /api/v1/pods: the list's pages together are larger than the limit of ${limit} bytes: page 3 took it past (${limit - 1} bytes before it)`,
      });
      // Without listBytes each page is a body of its own, held to the limit alone.
      let token: string | undefined;
      for (let page = 0; page < 3; page++) {
        const body = (await c.getJSON('/api/v1/pods', q({ limit: '2', ...(token === undefined ? {} : { continue: token }) }), signal)) as { metadata: { continue?: string } };
        token = body.metadata.continue;
      }
      expect(token).toBeUndefined();
    });

    it('counts a list\'s pages in bytes as received, and stops reading a chunked page at what the earlier pages left', async () => {
      // Multi-byte characters: bytes, not UTF-16 units, count.
      const first = `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5","continue":"t1"},"items":[{"metadata":{"name":"é-ü"}}]}`;
      let ended!: Promise<number>;
      const s = await serve(async (req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }); // no Content-Length: chunked
        if (req.url?.includes('continue=') !== true) {
          res.write(first.slice(0, 40));
          return void res.end(first.slice(40));
        }
        // The continuation never ends: 64 KiB at a time for as long as the client reads.
        let sent = 0;
        ended = new Promise((resolve) => res.on('close', () => resolve(sent)));
        res.write('{"kind":"PodList","items":[{"metadata":{"name":"a","annotations":{"a":"');
        const chunk = Buffer.alloc(64 * 1024, 'A');
        while (!res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) await Promise.race([once(res, 'drain'), ended]);
        }
      });
      const c = client(clusterConfig(s.url), { maxResponseBytes: 1024 * 1024 });
      const listBytes: ListBytes = { bytes: 0, pages: 0 };
      await c.getJSON('/api/v1/pods', q({ limit: '1' }), signal, { listBytes });
      expect(listBytes).toEqual({ bytes: Buffer.byteLength(first), pages: 1 });
      expect(listBytes.bytes).toBeGreaterThan(first.length);
      const err = await failure(c.getJSON('/api/v1/pods', q({ limit: '1', continue: 't1' }), signal, { listBytes }));
      expect(err).toMatchObject({
        code: 'PODCONFIG_BODY_TOO_LARGE',
        message: `GET /api/v1/pods: the list's pages together are larger than the limit of 1048576 bytes: page 2 took it past (${Buffer.byteLength(first)} bytes before it)`,
      });
      expect(await ended).toBeLessThan(32 * 1024 * 1024);
    });

    it('gives any response body timeoutMs after its headers to arrive, however steadily it trickles: a list, an error, one dropped before a retry', async () => {
      const s = await serve(async (req, res) => {
        if (req.url?.startsWith('/error') === true) res.writeHead(500, { 'content-type': 'application/json' });
        else if (req.url?.startsWith('/retry') === true) res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        else res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"kind":"PodList",');
        const closed = once(res, 'close');
        // A byte every 20 ms: never a gap as long as the timeout, never an end.
        while (!res.destroyed) {
          res.write(' ');
          await Promise.race([new Promise((resolve) => setTimeout(resolve, 20)), closed]);
        }
      });
      const c = client(clusterConfig(s.url), { timeoutMs: 300 });
      const err = await failure(c.getJSON('/slow', q(), signal));
      expect(err).toMatchObject({ code: 'PODCONFIG_TIMEOUT', retryable: true, message: "GET /slow: the response's body took longer than 300 ms" });
      expect(await failure(c.getJSON('/error', q(), signal)))
        .toMatchObject({ code: 'PODCONFIG_TIMEOUT', message: "GET /error: the response's body took longer than 300 ms" });
      // The 503's body is dropped for the retry within the deadline; the retries' answers trickle alike, so it ends as one.
      expect(await failure(c.getJSON('/retry', q(), signal))).toMatchObject({ code: 'PODCONFIG_TIMEOUT', message: "GET /retry: the response's body took longer than 300 ms" });
    });

    it('refuses a maxResponseBytes that is not a whole number from 1 to MAX_RESPONSE_BYTES', () => {
      for (const bad of [Number.NaN, -1, 0, 1.5, MAX_RESPONSE_BYTES + 1]) {
        expect(() => client(clusterConfig('http://127.0.0.1:1'), { maxResponseBytes: bad })).toThrow(/^maxResponseBytes must be a whole number of bytes from 1 to \d+, got /);
      }
    });

    it('honours Retry-After on 429 and 503, then returns the answer', async () => {
      const replies: [number, string | undefined][] = [[429, '1'], [503, '2'], [200, undefined]];
      let calls = 0;
      const s = await serve((_req, res) => {
        const [code, retryAfter] = replies[calls++]!;
        if (code === 200) json(res, 200, { ok: true });
        else json(res, code, status(code, 'TooManyRequests', 'slow down'), retryAfter === undefined ? {} : { 'retry-after': retryAfter });
      });
      const clock = new InstantClock();
      const c = client(clusterConfig(s.url), { clock });
      expect(await c.getJSON('/api', q(), signal)).toEqual({ ok: true });
      expect(clock.sleeps).toEqual([1000, 2000]);
      expect(calls).toBe(3);
    });

    it(`gives up after ${MAX_RETRY_AFTER_RETRIES} retries and throws the 429 with retryAfterSeconds`, async () => {
      let calls = 0;
      const s = await serve((_req, res) => {
        calls++;
        json(res, 429, status(429, 'TooManyRequests', 'storage is (re)initializing', { retryAfterSeconds: 1 }), { 'retry-after': '3' });
      });
      const clock = new InstantClock();
      const err = (await failure(client(clusterConfig(s.url), { clock }).getJSON('/api', q(), signal))) as StatusError;
      expect(err).toMatchObject({ statusCode: 429, reason: 'TooManyRequests', retryAfterSeconds: 3, retryable: true });
      expect(calls).toBe(MAX_RETRY_AFTER_RETRIES + 1);
      expect(clock.sleeps).toEqual(Array.from({ length: MAX_RETRY_AFTER_RETRIES }, () => 3000));
    });

    it(`waits at most ${MAX_RETRY_AFTER_SECONDS} s for one Retry-After, whatever the header says`, async () => {
      let calls = 0;
      const s = await serve((_req, res) => {
        if (calls++ < 2) json(res, 503, status(503, 'ServiceUnavailable', 'busy'), { 'retry-after': '3600' });
        else json(res, 200, { ok: true });
      });
      const clock = new InstantClock();
      expect(await client(clusterConfig(s.url), { clock }).getJSON('/api', q(), signal)).toEqual({ ok: true });
      expect(clock.sleeps).toEqual([MAX_RETRY_AFTER_SECONDS * 1000, MAX_RETRY_AFTER_SECONDS * 1000]);
    });

    it('does not retry a 5xx without Retry-After', async () => {
      let calls = 0;
      const s = await serve((_req, res) => {
        calls++;
        json(res, 500, status(500, 'InternalError', 'etcd is down'));
      });
      const err = await failure(client(clusterConfig(s.url)).getJSON('/api', q(), signal));
      expect(err).toMatchObject({ statusCode: 500, retryable: true });
      expect(calls).toBe(1);
    });

    it('rate-limits every request, retries and watch opens included, with the token bucket (qps, burst)', async () => {
      const s = await serve((req, res) => {
        if (req.url?.includes('watch=true')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end();
        } else json(res, 200, {});
      });
      const clock = new InstantClock();
      const c = client(clusterConfig(s.url), { clock, qps: 4, burst: 2 });
      await c.getJSON('/a', q(), signal);
      await c.getJSON('/b', q(), signal);
      await c.getJSON('/c', q(), signal);
      for await (const _ of await c.watchJSON('/d', q(), signal)) break;
      expect(clock.sleeps).toEqual([250, 250]);
    });

    it('uses 50 qps and a burst of 100 by default', async () => {
      const s = await serve((_req, res) => json(res, 200, {}));
      const clock = new InstantClock();
      const c = client(clusterConfig(s.url), { clock });
      for (let i = 0; i < 101; i++) await c.getJSON('/a', q(), signal);
      expect(clock.sleeps).toEqual([20]);
    });

    it('maps a refused connection to a retryable PODCONFIG_SOURCE_UNAVAILABLE', async () => {
      const s = await serve((_req, res) => json(res, 200, {}));
      const url = s.url;
      await new Promise((resolve) => s.server.close(resolve));
      const err = await failure(client(clusterConfig(url)).getJSON('/api', q(), signal));
      expect(err.code).toBe('PODCONFIG_SOURCE_UNAVAILABLE');
      expect(err.retryable).toBe(true);
      expect(err.message).toContain(`GET /api to ${url}/ failed: ECONNREFUSED`);
    });

    it('tells onRequest of every attempt (redirects followed within it) with the configured host and the caller\'s method, and onRequestLatency of each call\'s whole duration, watches aside', async () => {
      const clock = new InstantClock();
      let apiCalls = 0;
      const s = await serve((req, res) => {
        clock.advance(250); // each response takes 250 ms on the client's clock
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (path === '/moved') res.writeHead(307, { location: '/api' }).end();
        else if (path === '/posted') res.writeHead(303, { location: '/api' }).end(); // the POST goes on as a GET
        else if (path === '/api' && ++apiCalls === 1) json(res, 503, status(503, 'ServiceUnavailable', 'busy'), { 'retry-after': '1' });
        else json(res, path === '/api' ? 200 : 404, path === '/api' ? {} : status(404, 'NotFound', 'no'));
      });
      const events: unknown[] = [];
      const latencies: unknown[] = [];
      const c = client(clusterConfig(s.url), { clock, onRequest: (e) => events.push(e), onRequestLatency: (e) => latencies.push(e) });
      const host = new URL(s.url).host;
      await c.getJSON('/api', q(), signal); // a 503 with Retry-After (1 s), then the retry
      await c.getJSON('/moved', q(), signal); // one attempt: the redirect is followed within it
      await failure(c.getJSON('/absent', q(), signal));
      await c.requestJSON('POST', '/posted', {}, signal);
      const watching = new AbortController();
      await c.watchJSON('/api', q(), watching.signal); // counted, not timed
      watching.abort();
      expect(events).toEqual([
        { method: 'GET', host, statusCode: 503 },
        { method: 'GET', host, statusCode: 200 },
        { method: 'GET', host, statusCode: 200 },
        { method: 'GET', host, statusCode: 404 },
        { method: 'POST', host, statusCode: 200 },
        { method: 'GET', host, statusCode: 200 },
      ]);
      expect(latencies).toEqual([
        { method: 'GET', host, durationMs: 1500 }, // 250 + the 1,000 ms wait + 250
        { method: 'GET', host, durationMs: 500 },
        { method: 'GET', host, durationMs: 250 },
        { method: 'POST', host, durationMs: 500 },
      ]);
      await new Promise((resolve) => s.server.close(resolve));
      events.length = 0;
      latencies.length = 0;
      await failure(c.getJSON('/api', q(), signal));
      expect(events).toEqual([{ method: 'GET', host, statusCode: undefined }]);
      expect(latencies).toEqual([{ method: 'GET', host, durationMs: 0 }]);
      // A call its caller aborted is neither counted nor timed.
      await c.getJSON('/api', q(), AbortSignal.abort()).catch(() => undefined);
      expect(events).toHaveLength(1);
      expect(latencies).toHaveLength(1);
    });

    it('logs a throwing onRequest hook and goes on', async () => {
      const s = await serve((_req, res) => json(res, 200, { ok: true }));
      const { logger, lines } = capture();
      const c = client(clusterConfig(s.url), { logger, onRequest: () => { throw new Error('metrics broke'); } });
      expect(await c.getJSON('/api', q(), signal)).toEqual({ ok: true });
      expect(lines.filter((l) => l['msg'] === 'onRequest hook threw; ignored')).toMatchObject([{ level: 40, err: { message: 'metrics broke' } }]);
    });

    it('maps a reset connection and a headers timeout to PODCONFIG_SOURCE_UNAVAILABLE', async () => {
      const s = await serve((req) => {
        // '/reset' drops the connection; anything else is never answered.
        if (req.url === '/reset') req.socket.destroy();
      });
      const c = client(clusterConfig(s.url), { timeoutMs: 100 });
      expect(await failure(c.getJSON('/reset', q(), signal))).toMatchObject({ code: 'PODCONFIG_SOURCE_UNAVAILABLE', retryable: true });
      const timeout = await failure(c.getJSON('/hang', q(), signal));
      expect(timeout.code).toBe('PODCONFIG_SOURCE_UNAVAILABLE');
      expect(timeout.message).toContain('UND_ERR_HEADERS_TIMEOUT');
    });

    it('refuses a 2xx that is not JSON with PODCONFIG_SOURCE_UNAVAILABLE', async () => {
      const s = await serve((_req, res) => void res.end('<html>login</html>'));
      const err = await failure(client(clusterConfig(s.url)).getJSON('/api', q(), signal));
      expect(err).toMatchObject({ code: 'PODCONFIG_SOURCE_UNAVAILABLE', message: 'GET /api: the response (200) is not JSON' });
    });

    it('rejects with the abort reason, unmapped, when the signal aborts', async () => {
      let arrived!: () => void;
      const requested = new Promise<void>((resolve) => (arrived = resolve));
      const s = await serve(() => arrived());
      const controller = new AbortController();
      const pending = client(clusterConfig(s.url)).getJSON('/hang', q(), controller.signal);
      await requested;
      const reason = new Error('shutdown');
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
    });

    it('refuses paths that could leave the server', async () => {
      const c = client(clusterConfig('http://127.0.0.1:1'));
      expect(await failure(c.getJSON('api', q(), signal))).toMatchObject({ code: 'PODCONFIG_INTERNAL' });
      expect(await failure(c.getJSON('//evil.example/x', q(), signal))).toMatchObject({ code: 'PODCONFIG_INTERNAL' });
    });

    it('fails after close()', async () => {
      const c = client(clusterConfig('http://127.0.0.1:1'));
      await c.close();
      expect(await failure(c.getJSON('/api', q(), signal))).toMatchObject({ code: 'PODCONFIG_INTERNAL' });
    });
  });

  describe('requestJSON()', () => {
    it('sends JSON with a content type for the method and returns the answer, or undefined when empty', async () => {
      const seen: { method: string | undefined; type: string | undefined; body: string }[] = [];
      const s = await serve(async (req, res) => {
        let body = '';
        for await (const chunk of req) body += String(chunk);
        seen.push({ method: req.method, type: req.headers['content-type'], body });
        if (req.method === 'DELETE') {
          res.writeHead(204);
          res.end();
        } else json(res, 201, { kind: 'Pod' });
      });
      const c = client(clusterConfig(s.url));
      expect(await c.requestJSON('POST', '/api/v1/namespaces/default/pods', { kind: 'Pod' }, signal)).toEqual({ kind: 'Pod' });
      await c.requestJSON('patch', '/p', { metadata: { labels: { a: 'b' } } }, signal);
      await c.requestJSON('PATCH', '/p', [{ op: 'remove', path: '/metadata/labels/a' }], signal);
      expect(await c.requestJSON('DELETE', '/p', undefined, signal)).toBeUndefined();
      expect(seen).toEqual([
        { method: 'POST', type: 'application/json', body: '{"kind":"Pod"}' },
        { method: 'PATCH', type: 'application/merge-patch+json', body: '{"metadata":{"labels":{"a":"b"}}}' },
        { method: 'PATCH', type: 'application/json-patch+json', body: '[{"op":"remove","path":"/metadata/labels/a"}]' },
        { method: 'DELETE', type: undefined, body: '' },
      ]);
    });
  });

  describe('watchJSON()', () => {
    const events = Array.from({ length: 20 }, (_, i) => ({
      type: i % 2 === 0 ? 'ADDED' : 'MODIFIED',
      object: { metadata: { name: `pod-${i}`, resourceVersion: String(i), annotations: { text: 'ä'.repeat(i * 7) } } },
    }));
    const bytes = Buffer.from(events.map((e) => `${JSON.stringify(e)}\n`).join(''));

    it('sets watch=true and yields the events the server writes in arbitrary pieces, then ends when it closes', async () => {
      let url: string | undefined;
      const s = await serve(async (req, res) => {
        url = req.url;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        for (let at = 0; at < bytes.length; at += 37) {
          if (!res.write(bytes.subarray(at, at + 37))) await once(res, 'drain');
        }
        res.end();
      });
      const c = client(clusterConfig(s.url));
      const got: unknown[] = [];
      for await (const e of await c.watchJSON('/api/v1/pods', q({ resourceVersion: '5', watch: '1' }), signal)) got.push(e);
      expect(got).toEqual(events);
      expect(url).toBe('/api/v1/pods?resourceVersion=5&watch=true');
    });

    it('holds a watch-list\'s initial events to maxResponseBytes, as a list, and a plain watch to nothing of the kind', async () => {
      // A server that streams distinct ADDED pods and never the initial-events-end bookmark.
      const s = await serve(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        for (let i = 0; !res.destroyed && i < 200; i++) {
          res.write(`${JSON.stringify({ type: 'ADDED', object: { kind: 'Pod', metadata: { name: `p${i}`, resourceVersion: String(i + 1) } } })}\n`);
          await setImmediate();
        }
        res.end();
      });
      const c = client(clusterConfig(s.url), { maxResponseBytes: 4096 });
      const count = async (query: URLSearchParams): Promise<number> => {
        let n = 0;
        for await (const _event of await c.watchJSON('/api/v1/pods', query, signal)) n++;
        return n;
      };
      const err = await count(q({ sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' })).then(() => undefined, (e: unknown) => e);
      expect(err).toMatchObject({ code: 'PODCONFIG_BODY_TOO_LARGE', message: 'watch GET /api/v1/pods: the initial events are larger than the limit of 4096 bytes (a list\'s body limit) before the initial-events-end bookmark' });
      expect(await count(q({ allowWatchBookmarks: 'true' }))).toBe(200);
    });

    it('ends quietly, with an info line, when the server ends the chunked body mid-line (unexpected EOF, not a decode error)', async () => {
      const cut = '{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"pod-1","namespace":"ns","annotations":{"secret":"hunter2"';
      const s = await serve(async (req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`${JSON.stringify(events[0])}\n`);
        res.end(cut); // a complete chunked body (terminator sent) whose last line is cut off
      });
      const { logger, lines } = capture();
      const c = client(clusterConfig(s.url), { logger });
      for (const scanHeads of [false, true]) {
        const got: unknown[] = [];
        for await (const e of await c.watchJSON('/api/v1/pods', q({ resourceVersion: '5' }), signal, { scanHeads })) got.push(e);
        expect(got).toEqual([events[0]]);
      }
      const eofs = lines.filter((l) => l.msg === 'watch stream ended mid-line (unexpected EOF)');
      expect(eofs).toHaveLength(2);
      expect(eofs[0]).toMatchObject({ level: 30, path: '/api/v1/pods', line: 2, bytes: Buffer.byteLength(cut) });
      expect(JSON.stringify(lines)).not.toContain('hunter2');
    });

    it('with scanHeads, yields change events in the API server layout undecoded, and everything else decoded', async () => {
      const apiEvents = [
        ...events.slice(0, 6).map((e) => ({
          type: e.type,
          object: { kind: 'Pod', apiVersion: 'v1', metadata: { name: e.object.metadata.name, namespace: 'ns', resourceVersion: e.object.metadata.resourceVersion, annotations: e.object.metadata.annotations } },
        })),
        { type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '9' } } },
        events[7], // no kind, no namespace: decoded as it is read
      ];
      const body = Buffer.from(apiEvents.map((e) => `${JSON.stringify(e)}\n`).join(''));
      const s = await serve(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        for (let at = 0; at < body.length; at += 37) {
          if (!res.write(body.subarray(at, at + 37))) await once(res, 'drain');
        }
        res.end();
      });
      const got: unknown[] = [];
      for await (const e of await client(clusterConfig(s.url)).watchJSON('/api/v1/pods', q(), signal, { scanHeads: true })) got.push(e);
      expect(got.slice(0, 6).every((e) => e instanceof ScannedWatchEvent)).toBe(true);
      const first = got[0] as ScannedWatchEvent;
      expect(first.head).toEqual({ type: 'ADDED', kind: 'Pod', namespace: 'ns', name: 'pod-0', resourceVersion: '0' });
      expect(got.slice(0, 6).map((e) => ({ type: (e as ScannedWatchEvent).type, object: (e as ScannedWatchEvent).decodeObject() }))).toEqual(apiEvents.slice(0, 6));
      expect(got.slice(6)).toEqual(apiEvents.slice(6));
    });

    it('throws PODCONFIG_WATCH_DECODE for a garbage line after the good ones', async () => {
      const s = await serve((_req, res) => {
        res.writeHead(200);
        res.end(`${JSON.stringify(events[0])}\nnot json at all\n${JSON.stringify(events[1])}\n`);
      });
      const got: unknown[] = [];
      const err = await failure(
        (async () => {
          for await (const e of await client(clusterConfig(s.url)).watchJSON('/api/v1/pods', q(), signal)) got.push(e);
        })(),
      );
      expect(err.code).toBe('PODCONFIG_WATCH_DECODE');
      expect(got).toEqual([events[0]]);
    });

    it('releases the connection when the consumer stops early', async () => {
      let closed!: Promise<unknown>;
      const s = await serve((req, res) => {
        closed = once(req.socket, 'close');
        res.writeHead(200);
        res.write(bytes); // and keeps the stream open
      });
      const c = client(clusterConfig(s.url));
      let n = 0;
      for await (const _ of await c.watchJSON('/api/v1/pods', q(), signal)) if (++n === 2) break;
      await closed;
      expect(n).toBe(2);
    });

    it('holds back a server that writes each event as its own small HTTP chunk, resuming once per ~192 KiB read, not per event', async () => {
      // The API server flushes an HTTP chunk per watch event. Read through request()'s Readable one chunk at a time,
      // undici resumed its parser (re-reading the socket's whole backlog) after every chunk taken: quadratic.
      const lines = Array.from({ length: 40_000 }, (_, i) => `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"${i + 1}"}}}\n`);
      const total = lines.reduce((sum, line) => sum + line.length, 0);
      let written = 0;
      let blocked!: () => void;
      const serverBlocked = new Promise<void>((resolve) => (blocked = resolve));
      const s = await serve(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (const line of lines) {
          written += line.length;
          if (!res.write(line)) {
            blocked();
            await once(res, 'drain');
          }
        }
        blocked();
        res.end();
      });
      const counts = { pauses: 0, resumes: 0 };
      const counting: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) => {
        let wrapped: Dispatcher.DispatchController | undefined;
        const wrap = (c: Dispatcher.DispatchController): Dispatcher.DispatchController =>
          (wrapped ??= {
            get aborted() { return c.aborted; },
            get paused() { return c.paused; },
            get reason() { return c.reason; },
            abort: (reason: Error) => c.abort(reason),
            pause: () => { counts.pauses++; c.pause(); },
            resume: () => { counts.resumes++; c.resume(); },
          });
        return dispatch(options, {
          onRequestStart: (c, context: unknown) => handler.onRequestStart?.(wrap(c), context),
          onResponseStart: (c, statusCode, headers, message) => handler.onResponseStart?.(wrap(c), statusCode, headers, message),
          onResponseData: (c, chunk) => handler.onResponseData?.(wrap(c), chunk),
          onResponseEnd: (c, trailers) => handler.onResponseEnd?.(wrap(c), trailers),
          onResponseError: (c, err) => handler.onResponseError?.(wrap(c), err),
        });
      };
      const agent = new Agent();
      cleanups.push(() => agent.close());
      const c = client(clusterConfig(s.url), { dispatcher: agent.compose(counting) });
      const watch = await c.watchJSON('/api/v1/pods', q(), signal);
      await serverBlocked; // the client's queue is full by now: the connection was paused
      let n = 0;
      for await (const event of watch) {
        expect((event as { object: { metadata: { resourceVersion: string } } }).object.metadata.resourceVersion).toBe(String(++n));
        await setImmediate(); // a consumer that gives the event loop a turn per event, as the pipeline does
      }
      expect(n).toBe(lines.length);
      expect(written).toBe(total);
      expect(counts.pauses).toBeGreaterThan(0);
      const counted = total + lines.length * CHUNK_OVERHEAD_BYTES; // what the queue counts
      expect(counts.resumes).toBeLessThanOrEqual(Math.ceil(counted / (BODY_PAUSE_BYTES - BODY_RESUME_BYTES)));
    });

    it('ends the iterator and releases the connection when the signal aborts while it waits', async () => {
      let closed!: Promise<unknown>;
      const s = await serve((req, res) => {
        closed = once(req.socket, 'close');
        res.writeHead(200);
        res.write(`${JSON.stringify(events[0])}\n`);
      });
      const controller = new AbortController();
      const watch = await client(clusterConfig(s.url)).watchJSON('/api/v1/pods', q(), controller.signal);
      const iterator = watch[Symbol.asyncIterator]();
      expect((await iterator.next()).value).toEqual(events[0]);
      const waiting = iterator.next();
      controller.abort();
      expect(await waiting).toEqual({ done: true, value: undefined });
      await closed;
    });

    it("gives a quiet watch its timeoutSeconds (and a grace) between events, not the client's timeoutMs", async () => {
      const timers: NodeJS.Timeout[] = [];
      cleanups.push(async () => timers.forEach(clearTimeout));
      const s = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        // Silent for longer than timeoutMs, well within timeoutSeconds: a watch with nothing to say. 2 s, not just
        // over 200 ms: undici runs body timeouts on its fast timers (ticks of ~0.5 s), so a 200 ms one fires within ~1 s.
        timers.push(setTimeout(() => res.end(`${JSON.stringify(events[0])}\n`), 2000));
      });
      const got: unknown[] = [];
      for await (const e of await client(clusterConfig(s.url), { timeoutMs: 200 }).watchJSON('/api/v1/pods', q({ timeoutSeconds: '5' }), signal)) got.push(e);
      expect(got).toEqual([events[0]]);
    });

    it('throws a StatusError when the watch is refused, without retrying', async () => {
      let calls = 0;
      const s = await serve((_req, res) => {
        calls++;
        json(res, 410, status(410, 'Expired', 'too old resource version'), { 'retry-after': '1' });
      });
      const err = await failure(client(clusterConfig(s.url)).watchJSON('/api/v1/pods', q({ resourceVersion: '1' }), signal));
      expect(err.code).toBe('PODCONFIG_WATCH_EXPIRED');
      expect(calls).toBe(1);
    });

    it('throws PODCONFIG_SOURCE_UNAVAILABLE when the connection breaks mid-stream', async () => {
      const s = await serve((req, res) => {
        res.writeHead(200);
        res.write(`${JSON.stringify(events[0])}\n{"type":"ADD`, () => req.socket.destroy());
      });
      const got: unknown[] = [];
      const err = await failure(
        (async () => {
          for await (const e of await client(clusterConfig(s.url)).watchJSON('/api/v1/pods', q(), signal)) got.push(e);
        })(),
      );
      expect(err).toMatchObject({ code: 'PODCONFIG_SOURCE_UNAVAILABLE', retryable: true });
      expect(got).toEqual([events[0]]);
    });
  });

  describe('redirects', () => {
    interface Seen { readonly url: string | undefined; readonly method: string | undefined; readonly auth: string | undefined; readonly body: string }
    /** Records every request; `route` answers with a redirect (status, Location) or undefined for a 200 echo of the path (an event for a watch). */
    async function redirecting(route: (req: IncomingMessage, self: string) => [number, string] | undefined, tls = true): Promise<{ url: string; seen: Seen[] }> {
      const seen: Seen[] = [];
      let self = '';
      const s = await serve(async (req, res) => {
        let body = '';
        for await (const chunk of req) body += String(chunk);
        seen.push({ url: req.url, method: req.method, auth: req.headers.authorization, body });
        const redirect = route(req, self);
        if (redirect === undefined && req.url?.includes('watch=true') === true) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(`${JSON.stringify({ type: 'ADDED', object: { path: req.url } })}\n`);
          return;
        }
        if (redirect === undefined) return json(res, 200, { path: req.url });
        res.writeHead(redirect[0], { location: redirect[1] });
        res.end('moved');
      }, tls ? { cert: pki.server.cert, key: pki.server.key } : undefined);
      self = s.url;
      return { url: s.url, seen };
    }
    const config = (url: string): ClusterConfig =>
      clusterConfig(url, { tls: { ca: pki.ca.cert, insecureSkipVerify: false }, auth: { type: 'token', token: new Secret('tok') } });

    it('follows a same-origin redirect with the bearer token, for requests and for watches', async () => {
      const s = await redirecting((req) => (req.url?.startsWith('/old/') === true ? [302, req.url.replace('/old/', '/new/')] : undefined));
      const c = client(config(`${s.url}/old/`));
      expect(await c.getJSON('/version', q(), signal)).toEqual({ path: '/new/version' });
      expect(s.seen.map((r) => [r.url, r.auth])).toEqual([['/old/version', 'Bearer tok'], ['/new/version', 'Bearer tok']]);

      const events: unknown[] = [];
      for await (const e of await c.watchJSON('/api/v1/pods', q(), signal)) events.push(e);
      expect(events).toEqual([{ type: 'ADDED', object: { path: '/new/api/v1/pods?watch=true' } }]);
      expect(s.seen.slice(2).map((r) => [r.url, r.auth])).toEqual([
        ['/old/api/v1/pods?watch=true', 'Bearer tok'],
        ['/new/api/v1/pods?watch=true', 'Bearer tok'],
      ]);
    });

    it('drops the Authorization header from the first hop to another origin on, even back to the first', async () => {
      const first = await redirecting((req) => (req.url === '/start' ? [307, `${other.url}/elsewhere`] : undefined));
      const other = await redirecting(() => [302, `${first.url}/back`]);
      const c = client(config(first.url));
      expect(await c.getJSON('/start', q(), signal)).toEqual({ path: '/back' });
      expect(first.seen.map((r) => [r.url, r.auth])).toEqual([['/start', 'Bearer tok'], ['/back', undefined]]);
      expect(other.seen.map((r) => [r.url, r.auth])).toEqual([['/elsewhere', undefined]]);
    });

    it('turns a POST into a GET without body on 303, keeps method and body on 307', async () => {
      const s = await redirecting((req) => (req.url === '/a' ? [303, '/b'] : req.url === '/c' ? [307, '/d'] : undefined));
      const c = client(config(s.url));
      await c.requestJSON('POST', '/a', { x: 1 }, signal);
      await c.requestJSON('POST', '/c', { x: 2 }, signal);
      expect(s.seen.map((r) => [r.url, r.method, r.body])).toEqual([
        ['/a', 'POST', '{"x":1}'], ['/b', 'GET', ''], ['/c', 'POST', '{"x":2}'], ['/d', 'POST', '{"x":2}'],
      ]);
    });

    it(`stops after ${MAX_REDIRECTS} redirects and refuses https to http, with PODCONFIG_REDIRECT`, async () => {
      const loop = await redirecting((req) => [302, `${req.url ?? '/'}x`]);
      const err = await failure(client(config(loop.url)).getJSON('/', q(), signal));
      expect(err).toMatchObject({ code: 'PODCONFIG_REDIRECT', message: 'GET /: stopped after 10 requests (9 redirects followed)' });
      expect(loop.seen).toHaveLength(10); // as Go's client: at most 10 requests

      const plain = await redirecting(() => undefined, false);
      const down = await redirecting(() => [301, `${plain.url}/x`]);
      const refused = await failure(client(config(down.url)).getJSON('/', q(), signal));
      expect(refused).toMatchObject({ code: 'PODCONFIG_REDIRECT', message: 'GET /: redirect from https: to http: refused (no downgrade)' });
      expect(plain.seen).toEqual([]);
    });

    it('names the server it was redirected to when that one fails TLS, not the configured one', async () => {
      const untrusted = await serve((_req, res) => json(res, 200, {}), { cert: otherPki.server.cert, key: otherPki.server.key });
      const s = await redirecting(() => [302, `${untrusted.url}/elsewhere?token=x`]);
      const err = await failure(client(config(s.url)).getJSON('/', q(), signal));
      expect(err.code).toBe('PODCONFIG_TLS');
      expect(err.message).toMatch(new RegExp(`^TLS with ${untrusted.url}/elsewhere\\?… failed \\(GET /\\)`));
    });
  });

  describe('TLS', () => {
    const hello: Handler = (req, res) =>
      json(res, 200, {
        servername: (req.socket as TLSSocket).servername,
        authorization: req.headers.authorization ?? null,
        peer: (req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? null,
        issuer: (req.socket as TLSSocket).getPeerCertificate().issuer?.CN ?? null,
      });

    it('verifies the server against the cluster CA', async () => {
      const s = await serve(hello, { cert: pki.server.cert, key: pki.server.key });
      const c = client(clusterConfig(s.url, { tls: { ca: pki.ca.cert, insecureSkipVerify: false } }));
      expect(await c.getJSON('/', q(), signal)).toMatchObject({ authorization: null });
    });

    it('refuses a server certificate from another CA with PODCONFIG_TLS naming the server and the reason', async () => {
      const s = await serve(hello, { cert: otherPki.server.cert, key: otherPki.server.key });
      const err = await failure(client(clusterConfig(s.url, { tls: { ca: pki.ca.cert, insecureSkipVerify: false } })).getJSON('/', q(), signal));
      expect(err.code).toBe('PODCONFIG_TLS');
      expect(err.message).toMatch(new RegExp(`^TLS with ${s.url}/ failed \\(GET /\\): [A-Z_]+: .+ \\(trusted: the certificate-authority of test\\)$`));
      // Without a CA of its own the client trusts Node's roots, and says so.
      const roots = await failure(client(clusterConfig(s.url)).getJSON('/', q(), signal));
      expect(roots.message).toMatch(/ \(trusted: Node\.js's bundled roots, not the system's store \(.*\), as test names no certificate-authority\)$/);
    });

    it('skips verification only with insecure-skip-tls-verify, and warns once (with the config warnings)', async () => {
      const s = await serve(hello, { cert: otherPki.server.cert, key: otherPki.server.key });
      const { logger, lines } = capture();
      const c = client(clusterConfig(s.url, { tls: { insecureSkipVerify: true }, warnings: ['in-cluster CA unreadable'] }), { logger });
      await c.getJSON('/', q(), signal);
      await c.getJSON('/', q(), signal);
      const warnings = lines.filter((l) => l.level === 40);
      expect(warnings.map((l) => l.msg)).toEqual([
        'cluster config warning',
        'TLS verification is disabled (insecure-skip-tls-verify): the server is not authenticated',
      ]);
      expect(warnings[0]).toMatchObject({ component: 'kube.client', server: `${s.url}/`, warning: 'in-cluster CA unreadable' });
    });

    it('sends tls-server-name as SNI and checks the certificate against it', async () => {
      const s = await serve(hello, { cert: pki.server.cert, key: pki.server.key });
      const good = client(clusterConfig(s.url, { tls: { ca: pki.ca.cert, insecureSkipVerify: false, serverName: 'kube.internal' } }));
      expect(await good.getJSON('/', q(), signal)).toMatchObject({ servername: 'kube.internal' });
      // 127.0.0.1 is in the certificate, but the check is against tls-server-name.
      const bad = client(clusterConfig(s.url, { tls: { ca: pki.ca.cert, insecureSkipVerify: false, serverName: 'wrong.example' } }));
      const err = await failure(bad.getJSON('/', q(), signal));
      expect(err.code).toBe('PODCONFIG_TLS');
      expect(err.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
      // Every name the certificate holds, as Go says it (Node.js names one).
      expect(err.message).toMatch(/: certificate is valid for 127\.0\.0\.1, [^,]+, localhost, kube\.internal, not wrong\.example$/);
      expect(err.message).not.toContain('trusted:'); // a name, not the CA, is wrong
    });

    it('sends tls-server-name, not the host name of the server URL, as SNI and checks the certificate against it', async () => {
      // undici sends the request's host name as SNI unless told otherwise; an IP address (above) has none to send.
      const s = await serve(hello, { cert: pki.server.cert, key: pki.server.key });
      const url = `https://localhost:${new URL(s.url).port}`;
      const good = client(clusterConfig(url, { tls: { ca: pki.ca.cert, insecureSkipVerify: false, serverName: 'kube.internal' } }));
      expect(await good.getJSON('/', q(), signal)).toMatchObject({ servername: 'kube.internal' });
      // localhost is in the certificate, but the check is against tls-server-name.
      const bad = client(clusterConfig(url, { tls: { ca: pki.ca.cert, insecureSkipVerify: false, serverName: 'wrong.example' } }));
      const err = await failure(bad.getJSON('/', q(), signal));
      expect(err.code).toBe('PODCONFIG_TLS');
      expect(err.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    });

    it('refuses a server certificate that names its host only in the Common Name, as Go does (no subjectAltName)', async () => {
      const commonNameOnly = await issueTestCertificate(pki.ca, { commonName: 'localhost' });
      const s = await serve(hello, { cert: commonNameOnly.cert, key: commonNameOnly.key });
      const port = new URL(s.url).port;
      const tls = { ca: pki.ca.cert, insecureSkipVerify: false };
      // By the URL's host name, and by tls-server-name: Node.js alone would take either on the Common Name.
      for (const config of [clusterConfig(`https://localhost:${port}`, { tls }), clusterConfig(s.url, { tls: { ...tls, serverName: 'localhost' } })]) {
        const err = await failure(client(config).getJSON('/', q(), signal));
        expect(err.code).toBe('PODCONFIG_TLS');
        expect(err.message).toMatch(
          /: ERR_TLS_CERT_ALTNAME_INVALID: certificate relies on legacy Common Name field \(CN localhost\), use SANs instead: it has no subjectAltName to match localhost$/,
        );
      }
      // The same CA's certificate with SANs is taken.
      const sans = await serve(hello, { cert: pki.server.cert, key: pki.server.key });
      expect(await client(clusterConfig(`https://localhost:${new URL(sans.url).port}`, { tls })).getJSON('/', q(), signal)).toMatchObject({ servername: 'localhost' });
    });

    it('trusts a certificate-authority that is an intermediate CA, as Go does; an unrelated CA still fails', async () => {
      const intermediate = await issueTestCertificate(pki.ca, { commonName: 'podconfig test intermediate CA', role: 'ca' });
      const leaf = await issueTestCertificate(intermediate, { commonName: 'kube.internal', hosts: ['127.0.0.1', 'kube.internal'] });
      const s = await serve(hello, { cert: leaf.cert + intermediate.cert, key: leaf.key });
      expect(await client(clusterConfig(s.url, { tls: { ca: intermediate.cert, insecureSkipVerify: false } })).getJSON('/', q(), signal))
        .toMatchObject({ authorization: null });
      const untrusted = await failure(client(clusterConfig(s.url, { tls: { ca: otherPki.ca.cert, insecureSkipVerify: false } })).getJSON('/', q(), signal));
      expect(untrusted.code).toBe('PODCONFIG_TLS');
      expect(untrusted.message).toContain('(trusted: the certificate-authority of test)');
    });

    /** An HTTP CONNECT proxy on 127.0.0.1 that logs each tunnel's target and Proxy-Authorization; `status` other than 200 refuses. */
    async function connectProxy(status = 200): Promise<{ port: number; connects: { target: string | undefined; auth: string | undefined }[] }> {
      const connects: { target: string | undefined; auth: string | undefined }[] = [];
      const sockets = new Set<Socket>();
      const proxy = createHttpServer();
      proxy.on('connect', (req: IncomingMessage, downstream: Socket, head: Buffer) => {
        connects.push({ target: req.url, auth: req.headers['proxy-authorization'] });
        sockets.add(downstream);
        downstream.on('error', () => undefined);
        if (status !== 200) {
          downstream.end(`HTTP/1.1 ${status} Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n`);
          return;
        }
        const [host, port] = (req.url ?? '').split(':');
        const upstream = connect(Number(port), host, () => {
          downstream.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          upstream.write(head);
          upstream.pipe(downstream).pipe(upstream);
        });
        sockets.add(upstream);
        upstream.on('error', () => undefined);
        for (const socket of [upstream, downstream]) {
          socket.on('close', () => {
            upstream.destroy();
            downstream.destroy();
          });
        }
      });
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      cleanups.push(async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => proxy.close(resolve));
      });
      return { port: (proxy.address() as AddressInfo).port, connects };
    }

    it('tunnels through proxy-url (HTTP CONNECT, with its credentials) and still verifies the server', async () => {
      const s = await serve(hello, { cert: pki.server.cert, key: pki.server.key });
      const proxy = await connectProxy();
      const proxyUrl = new URL(`http://proxy-user:proxy-pw@127.0.0.1:${proxy.port}`);
      const tls = { ca: pki.ca.cert, insecureSkipVerify: false, serverName: 'kube.internal' };
      const c = client(clusterConfig(s.url, { tls, proxyUrl }));
      expect(await c.getJSON('/', q(), signal)).toMatchObject({ servername: 'kube.internal' });
      expect(proxy.connects).toEqual([{ target: new URL(s.url).host, auth: `Basic ${Buffer.from('proxy-user:proxy-pw').toString('base64')}` }]);
      const untrusted = client(clusterConfig(s.url, { tls: { ca: otherPki.ca.cert, insecureSkipVerify: false }, proxyUrl }));
      expect((await failure(untrusted.getJSON('/', q(), signal))).code).toBe('PODCONFIG_TLS');
    });

    it('refuses a Common-Name-only server certificate through the proxy-url tunnel (http CONNECT and socks5h) too', async () => {
      const commonNameOnly = await issueTestCertificate(pki.ca, { commonName: 'kube.internal' });
      const s = await serve(hello, { cert: commonNameOnly.cert, key: commonNameOnly.key });
      const proxy = await connectProxy();
      const socks = await Socks5Proxy.listen({ forwardTo: Number(new URL(s.url).port) });
      cleanups.push(() => socks.close());
      const tls = { ca: pki.ca.cert, insecureSkipVerify: false, serverName: 'kube.internal' };
      for (const proxyUrl of [new URL(`http://127.0.0.1:${proxy.port}`), new URL(socks.url().href.replace('socks5:', 'socks5h:'))]) {
        const err = await failure(client(clusterConfig(s.url, { tls, proxyUrl })).getJSON('/', q(), signal));
        expect(err.code, proxyUrl.protocol).toBe('PODCONFIG_TLS');
        expect(err.message, proxyUrl.protocol).toContain('certificate relies on legacy Common Name field (CN kube.internal), use SANs instead');
      }
      expect(proxy.connects).toHaveLength(1);
      expect(socks.tunnels).toHaveLength(1);
    });

    it('sends a proxy user without a password as Go does, and ignores a path in the proxy URL', async () => {
      const s = await serve(hello, { cert: pki.server.cert, key: pki.server.key });
      const proxy = await connectProxy();
      const proxyUrl = new URL(`http://only-user@127.0.0.1:${proxy.port}/corp-proxy?x=1`);
      const c = client(clusterConfig(s.url, { tls: { ca: pki.ca.cert, insecureSkipVerify: false }, proxyUrl }));
      expect(await c.getJSON('/', q(), signal)).toMatchObject({ servername: false });
      expect(proxy.connects).toEqual([{ target: new URL(s.url).host, auth: `Basic ${Buffer.from('only-user:').toString('base64')}` }]);
    });

    it('sends requests for a plain-http server to the proxy in absolute form, as Go does (no CONNECT)', async () => {
      const s = await serve((req, res) => json(res, 200, { path: req.url, host: req.headers.host }));
      const seen: string[] = [];
      const proxy = await serve((req, res) => {
        seen.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers['proxy-authorization'] ?? ''}`);
        const target = new URL(req.url ?? '/');
        const upstream = httpRequest({ host: '127.0.0.1', port: new URL(s.url).port, path: target.pathname + target.search, headers: req.rawHeaders }, (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        });
        req.pipe(upstream);
      });
      const proxyUrl = new URL(proxy.url.replace('http://', 'http://user:pw@'));
      const c = client(clusterConfig('http://kube.example:8080', { proxyUrl }));
      expect(await c.getJSON('/api', q(), signal)).toEqual({ path: '/api', host: 'kube.example:8080' });
      expect(seen).toEqual([`GET http://kube.example:8080/api Basic ${Buffer.from('user:pw').toString('base64')}`]);
    });

    it('fails naming the proxy and its answer when it refuses the tunnel, never its credentials', async () => {
      const proxy = await connectProxy(407);
      const proxyUrl = new URL(`http://user:proxy-secret@127.0.0.1:${proxy.port}`);
      const err = await failure(client(clusterConfig('https://kube.example:6443', { proxyUrl })).getJSON('/api', q(), signal));
      expect(err.code).toBe('PODCONFIG_SOURCE_UNAVAILABLE');
      expect(err.message).toContain(`proxy 127.0.0.1:${proxy.port}: CONNECT kube.example:6443 answered 407 Proxy Authentication Required`);
      expect(err.message).not.toContain('proxy-secret');
    });

    /** A request through `proxyUrl` (a blackhole) aborted once connected, then close(): resolves when every socket to it is closed. */
    async function abortThenClose(blackhole: BlackholeServer, proxyUrl: URL): Promise<void> {
      const c = client(clusterConfig('https://kube.example:6443', { proxyUrl }));
      const controller = new AbortController();
      const accepted = blackhole.nextConnection();
      const pending = c.getJSON('/api', q(), controller.signal);
      await accepted;
      controller.abort(new Error('shutdown'));
      await expect(pending).rejects.toThrow('shutdown');
      await c.close();
      await blackhole.allClosed();
    }

    it('gives a proxy that never answers CONNECT 10 s, and close() ends a pending tunnel at once', async () => {
      const blackhole = await BlackholeServer.listen();
      cleanups.push(() => blackhole.close());
      const proxyUrl = new URL(blackhole.url.replace('https:', 'http:'));
      const err = await failure(client(clusterConfig('https://kube.example:6443', { proxyUrl })).getJSON('/api', q(), signal));
      expect(err.message).toContain('no tunnel to kube.example:6443 within 10000 ms');

      await abortThenClose(blackhole, proxyUrl); // the tunnel's socket is closed, not left to the 10 s deadline
    }, 20_000);

    it('ends a socks5 handshake still pending at close(), the proxy never answering', async () => {
      const blackhole = await BlackholeServer.listen();
      cleanups.push(() => blackhole.close());
      // Our socket to the proxy, ended by close(), not by the 10 s handshake deadline.
      await abortThenClose(blackhole, new URL(`socks5://127.0.0.1:${new URL(blackhole.url).port}`));
    });

    it('gives the TLS handshake over a socks5 tunnel its time on the monotonic clock, whatever the wall clock does', async () => {
      const s = await serve(hello, { cert: pki.server.cert, key: pki.server.key });
      const proxy = await Socks5Proxy.listen();
      cleanups.push(() => proxy.close());
      const proxyUrl = proxy.url();
      const wall = Date.now;
      let stepped = 0;
      // NTP gone wild: every wall-clock reading is an hour later than the one before.
      vi.spyOn(Date, 'now').mockImplementation(() => wall() + (stepped += 3_600_000));
      expect(await client(clusterConfig(s.url, { tls: { ca: pki.ca.cert, insecureSkipVerify: false }, proxyUrl })).getJSON('/', q(), signal))
        .toMatchObject({ servername: false });
    });

    it('tunnels through a socks5 proxy-url (with its credentials), sending SNI only for host names, and still verifies', async () => {
      const s = await serve(hello, { cert: pki.server.cert, key: pki.server.key });
      const proxy = await Socks5Proxy.listen({ auth: 'su:sp' });
      cleanups.push(() => proxy.close());
      const proxyUrl = proxy.url('su:sp');
      const tls = { ca: pki.ca.cert, insecureSkipVerify: false };
      const port = new URL(s.url).port;
      // An IP address is no server name (RFC 6066): no SNI, but the certificate is checked against the IP.
      expect(await client(clusterConfig(s.url, { tls, proxyUrl })).getJSON('/', q(), signal)).toMatchObject({ servername: false });
      expect(await client(clusterConfig(`https://localhost:${port}`, { tls, proxyUrl })).getJSON('/', q(), signal)).toMatchObject({
        servername: 'localhost',
      });
      const named = client(clusterConfig(s.url, { tls: { ...tls, serverName: 'kube.internal' }, proxyUrl }));
      expect(await named.getJSON('/', q(), signal)).toMatchObject({ servername: 'kube.internal' });
      expect(proxy.tunnels).toEqual([
        { auth: 'su:sp', target: `127.0.0.1:${port}` },
        { auth: 'su:sp', target: `localhost:${port}` },
        { auth: 'su:sp', target: `127.0.0.1:${port}` },
      ]);
      const untrusted = client(clusterConfig(s.url, { tls: { ca: otherPki.ca.cert, insecureSkipVerify: false }, proxyUrl }));
      expect((await failure(untrusted.getJSON('/', q(), signal))).code).toBe('PODCONFIG_TLS');
      const refused = client(clusterConfig(s.url, { tls, proxyUrl: proxy.url('su:wrong') }));
      const err = await failure(refused.getJSON('/', q(), signal));
      expect(err).toMatchObject({ code: 'PODCONFIG_SOURCE_UNAVAILABLE', message: expect.stringContaining('user name or password refused') });
      expect(err.message).not.toContain('wrong');
    });

    it('presents the client certificate to a server that requires one', async () => {
      const s = await serve(hello, { cert: pki.server.cert, key: pki.server.key, ca: pki.ca.cert, requestCert: true, rejectUnauthorized: true });
      const tls = { ca: pki.ca.cert, insecureSkipVerify: false };
      const withCert = client(clusterConfig(s.url, { tls: { ...tls, clientCertificate: { cert: pki.client.cert, key: new Secret(pki.client.key) } } }));
      expect(await withCert.getJSON('/', q(), signal)).toMatchObject({ peer: 'podconfig-test-client' });
      const without = client(clusterConfig(s.url, { tls }));
      const err = await failure(without.getJSON('/', q(), signal));
      expect(['PODCONFIG_TLS', 'PODCONFIG_SOURCE_UNAVAILABLE']).toContain(err.code);
    });
  });

  describe('credentials', () => {
    const echo: Handler = (req, res) => {
      json(res, 200, {
        authorization: req.headers.authorization ?? null,
        user: req.headers['impersonate-user'] ?? null,
        groups: req.headers['impersonate-group'] ?? null,
        extra: req.headers['impersonate-extra-team%2fname'] ?? null,
      });
    };
    const tls = (): ClusterConfig['tls'] => ({ ca: pki.ca.cert, insecureSkipVerify: false });

    it('sends a bearer token', async () => {
      const s = await serve(echo, { cert: pki.server.cert, key: pki.server.key });
      const c = client(clusterConfig(s.url, { tls: tls(), auth: { type: 'token', token: new Secret('abc') } }));
      expect(await c.getJSON('/', q(), signal)).toMatchObject({ authorization: 'Bearer abc' });
    });

    it('sends basic auth', async () => {
      const s = await serve(echo, { cert: pki.server.cert, key: pki.server.key });
      const c = client(clusterConfig(s.url, { tls: tls(), auth: { type: 'basic', username: 'admin', password: new Secret('pw') } }));
      expect(await c.getJSON('/', q(), signal)).toMatchObject({ authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` });
    });

    it('sends impersonation headers', async () => {
      const s = await serve(echo, { cert: pki.server.cert, key: pki.server.key });
      const impersonate = { user: 'jane', groups: ['a', 'b'], extra: { 'team/name': ['x'] } };
      const c = client(clusterConfig(s.url, { tls: tls(), impersonate }));
      expect(await c.getJSON('/', q(), signal)).toMatchObject({ user: 'jane', groups: 'a, b', extra: 'x' });
    });

    it("escapes extra keys with client-go's headerKeyEscape and sends values as UTF-8, as kubectl does", async () => {
      let seen: IncomingMessage['headers'] = {};
      const s = await serve((req, res) => {
        seen = req.headers;
        json(res, 200, {});
      }, { cert: pki.server.cert, key: pki.server.key });
      const impersonate = { user: 'jos\u00e9', groups: [], extra: { "scopes.example.com/a(b)'*!": ['v1'], 'k#$&+%': ['v2'], 'caf\u00e9': ['\u20ac'] } };
      const c = client(clusterConfig(s.url, { tls: tls(), auth: { type: 'token', token: new Secret('t\u00e9') }, impersonate }));
      await c.getJSON('/', q(), signal);
      // Node reads header bytes as latin1: UTF-8 `é` arrives as `Ã©`.
      const utf8 = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
      expect(seen['impersonate-user']).toBe(utf8('jos\u00e9'));
      expect(seen.authorization).toBe(utf8('Bearer t\u00e9'));
      expect(seen['impersonate-extra-scopes.example.com%2fa%28b%29\'*!']).toBe('v1');
      expect(seen['impersonate-extra-k#$&+%25']).toBe('v2');
      expect(seen['impersonate-extra-caf%c3%a9']).toBe(utf8('\u20ac'));
    });

    it('refuses impersonation values that cannot be header values with PODCONFIG_CONFIG_INVALID, at construction', () => {
      const impersonate = { user: 'jane', groups: ['ok', 'bad\nline'], extra: {} };
      expect(() => new KubeClient({ config: clusterConfig('https://127.0.0.1:1', { impersonate }), logger: silent })).toThrow(
        expect.objectContaining({ code: 'PODCONFIG_CONFIG_INVALID', message: expect.stringContaining('as-groups[1] holds a control character') }),
      );
    });

    it('refuses a static token that cannot be a header value with PODCONFIG_CONFIG_INVALID, at construction, never quoting it', () => {
      const auth = { type: 'token' as const, token: new Secret('SEKRET\nx') };
      let err: unknown;
      try {
        new KubeClient({ config: clusterConfig('https://127.0.0.1:1', { auth }), logger: silent });
      } catch (e: unknown) {
        err = e;
      }
      expect(err).toMatchObject({ code: 'PODCONFIG_CONFIG_INVALID', message: 'the token of user "tester" in kubeconfig /test/config holds a control character, which an HTTP header cannot carry' });
    });

    it('turns 401 into a StatusError naming the user and kubeconfig, never the token', async () => {
      const s = await serve((_req, res) => json(res, 401, status(401, 'Unauthorized', 'Unauthorized')), { cert: pki.server.cert, key: pki.server.key });
      const c = client(clusterConfig(s.url, { tls: tls(), auth: { type: 'token', token: new Secret('very-secret-token') } }));
      const err = await failure(c.getJSON('/api/v1/pods', q(), signal));
      expect(err).toMatchObject({ statusCode: 401, reason: 'Unauthorized' });
      expect(err.message).toBe(
        'unauthorized: check the token/credentials of user "tester" in kubeconfig /test/config (GET /api/v1/pods: Unauthorized)',
      );
      expect(JSON.stringify({ ...err, message: err.message })).not.toContain('very-secret');
    });

    it('says in a 401 that no credentials were sent, and why, instead of blaming them', async () => {
      const s = await serve((_req, res) => json(res, 401, status(401, 'Unauthorized', 'Unauthorized')));
      // A user with a token for a plain-http server: the kubeconfig loader drops the token, as client-go does.
      const dir = await tempDir();
      cleanups.push(dir.cleanup);
      const path = join(dir.path, 'config');
      await writeFile(path, stringify({
        apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
        clusters: [{ name: 'k', cluster: { server: s.url } }],
        users: [{ name: 'u', user: { token: 'very-secret-token' } }],
        contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
      }));
      const config = (await loadClusterConfig({ kubeconfig: path, env: {} }))!;
      const plain = await failure(client(config).getJSON('/api/v1/pods', q(), signal));
      expect(plain.message).toBe(
        `unauthorized: no credentials were sent for ${config.identity}: server ${s.url} is plain http, and credentials go only over TLS (GET /api/v1/pods: Unauthorized)`,
      );
      // The same server, no credentials configured: nothing was dropped.
      const none = await failure(client(clusterConfig(s.url)).getJSON('/api/v1/pods', q(), signal));
      expect(none.message).toBe('unauthorized: no credentials were sent for user "tester" in kubeconfig /test/config: the configuration names none (GET /api/v1/pods: Unauthorized)');
      const tlsServer = await serve((_req, res) => json(res, 401, status(401, 'Unauthorized', 'Unauthorized')), { cert: pki.server.cert, key: pki.server.key });
      const anonymous = await failure(client(clusterConfig(tlsServer.url, { tls: tls() })).getJSON('/api/v1/pods', q(), signal));
      expect(anonymous.message).toBe(
        'unauthorized: no credentials were sent for user "tester" in kubeconfig /test/config: the configuration names none (GET /api/v1/pods: Unauthorized)',
      );
    });

    describe('from a kubeconfig', () => {
      let dir: { path: string; cleanup: () => Promise<void> };

      /** Writes a kubeconfig for `url` with `user` (and `files` beside it) and loads it. */
      async function load(
        url: string,
        userOf: Record<string, unknown> | ((dir: string) => Record<string, unknown>),
        files: Record<string, string> = {},
      ): Promise<ClusterConfig> {
        dir = await tempDir('kube-client-');
        const user = typeof userOf === 'function' ? userOf(dir.path) : userOf;
        cleanups.push(() => dir.cleanup());
        for (const [name, content] of Object.entries(files)) await writeFile(join(dir.path, name), content);
        const kubeconfig = join(dir.path, 'config');
        await writeFile(
          kubeconfig,
          stringify({
            apiVersion: 'v1',
            kind: 'Config',
            'current-context': 'test',
            clusters: [{ name: 'c', cluster: { server: url, 'certificate-authority-data': Buffer.from(pki.ca.cert).toString('base64') } }],
            users: [{ name: 'u', user }],
            contexts: [{ name: 'test', context: { cluster: 'c', user: 'u' } }],
          }),
        );
        return (await loadClusterConfig({ kubeconfig, env: {} }))!;
      }

      it('re-reads a token file when it changes, at most once a minute, and at once after a 401', async () => {
        let accepted = 'tok-1';
        const s = await serve((req, res) => {
          if (req.headers.authorization === `Bearer ${accepted}`) json(res, 200, { authorization: req.headers.authorization });
          else json(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
        }, { cert: pki.server.cert, key: pki.server.key });
        const config = await load(s.url, { tokenFile: 'token' }, { token: 'tok-1\n' });
        const tokenFile = join(dir.path, 'token');
        const clock = new InstantClock();
        const c = client(config, { clock });
        expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-1' });

        await writeFile(tokenFile, 'tok-22');
        expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-1' });
        accepted = 'tok-22';
        clock.advance(60_000);
        expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-22' });

        await writeFile(tokenFile, 'tok-333');
        accepted = 'tok-333';
        expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-333' });
      });

      /** A token-file client whose server answers every request with the Authorization it got, past a first request with tok-1. */
      async function tokenFileClient(): Promise<{ c: KubeClient; clock: InstantClock; tokenFile: string; lines: Record<string, unknown>[] }> {
        const s = await serve((req, res) => json(res, 200, { authorization: req.headers.authorization ?? null }), { cert: pki.server.cert, key: pki.server.key });
        const config = await load(s.url, { tokenFile: 'token' }, { token: 'tok-1\n' });
        const clock = new InstantClock();
        const { logger, lines } = capture();
        const c = client(config, { clock, logger });
        expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-1' });
        return { c, clock, tokenFile: join(dir.path, 'token'), lines };
      }

      it.each([
        ['empty (a rotation half done)', (file: string) => writeFile(file, '\n'), 'token file is empty; keeping the previous token'],
        ['unreadable (deleted)', (file: string) => rm(file), 'token file cannot be read; keeping the previous token'],
        ['one no header can carry (two lines)', (file: string) => writeFile(file, 'tok-x\nsecond-line\n'), 'token file holds a token that cannot be sent; keeping the previous token'],
      ])('keeps the previous token while the token file is %s, and takes the next one', async (_what, spoil, warning) => {
        const { c, clock, tokenFile, lines } = await tokenFileClient();
        await spoil(tokenFile);
        clock.advance(60_000);
        expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-1' });
        expect(lines.filter((l) => l.msg === warning)).toHaveLength(1);
        await writeFile(tokenFile, 'tok-2\n');
        clock.advance(60_000);
        expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-2' });
      });

      async function writePlugin(): Promise<string> {
        const plugin = join(dir.path, 'bin', 'plugin');
        await mkdir(join(dir.path, 'bin'));
        // Prints token tok-<n> for its n-th run, with $EXPIRES as expirationTimestamp when set.
        await writeFile(
          plugin,
          [
            '#!/bin/sh',
            'n=$(( $(cat "$PLUGIN_DIR/count" 2>/dev/null || echo 0) + 1 ))',
            'echo "$n" > "$PLUGIN_DIR/count"',
            'exp=""; if [ -n "$EXPIRES" ]; then exp=",\\"expirationTimestamp\\":\\"$EXPIRES\\""; fi',
            'if [ -n "$CERT_JSON" ]; then printf \'{"apiVersion":"%s","kind":"ExecCredential","status":{"clientCertificateData":%s,"clientKeyData":%s}}\' "$APIV" "$CERT_JSON" "$KEY_JSON"; exit 0; fi',
            'printf \'{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"tok-%s"%s}}\' "$APIV" "$n" "$exp"',
            '',
          ].join('\n'),
        );
        await chmod(plugin, 0o755);
        return plugin;
      }

      for (const apiVersion of ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']) {
        it(`uses an exec plugin (${apiVersion}): cached until expirationTimestamp, re-run once on 401`, async () => {
          let accepted = 'tok-1';
          const s = await serve((req, res) => {
            if (req.headers.authorization === `Bearer ${accepted}`) json(res, 200, { authorization: req.headers.authorization });
            else json(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
          }, { cert: pki.server.cert, key: pki.server.key });
          const env = (path: string): { name: string; value: string }[] => [
            { name: 'PLUGIN_DIR', value: path },
            { name: 'APIV', value: apiVersion },
            { name: 'EXPIRES', value: '2026-01-01T00:10:00Z' },
          ];
          const execConfig = await load(s.url, (path) => ({ exec: { command: './bin/plugin', apiVersion, env: env(path), interactiveMode: 'Never' } }));
          await writePlugin();
          expect(execConfig.auth.type).toBe('exec');
          const clock = new InstantClock({ start: Date.parse('2026-01-01T00:00:00Z') });
          const c = client(execConfig, { clock });
          expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-1' });
          expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-1' });
          clock.advance(10 * 60_000 + 1);
          accepted = 'tok-2';
          expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-2' });
          accepted = 'tok-3';
          expect(await c.getJSON('/', q(), signal)).toEqual({ authorization: 'Bearer tok-3' });
          accepted = 'nobody';
          expect(await failure(c.getJSON('/', q(), signal))).toMatchObject({ statusCode: 401 });
        });
      }

      it('runs the exec plugin once for two requests refused with the same old token: the second retries with the new one', async () => {
        // Both requests are held until both arrived with tok-1; the first is refused, and the second only once the
        // first came back with tok-2, so its 401 finds the credentials already replaced.
        const held: ServerResponse[] = [];
        const s = await serve((req, res) => {
          if (req.headers.authorization === 'Bearer tok-1') {
            held.push(res);
            if (held.length === 2) json(held[0]!, 401, status(401, 'Unauthorized', 'Unauthorized'));
            return;
          }
          json(res, 200, { authorization: req.headers.authorization ?? null });
          if (req.headers.authorization === 'Bearer tok-2' && held[1]?.headersSent === false) json(held[1], 401, status(401, 'Unauthorized', 'Unauthorized'));
        }, { cert: pki.server.cert, key: pki.server.key });
        const apiVersion = 'client.authentication.k8s.io/v1';
        const env = (path: string): { name: string; value: string }[] => [{ name: 'PLUGIN_DIR', value: path }, { name: 'APIV', value: apiVersion }];
        const config = await load(s.url, (path) => ({ exec: { command: './bin/plugin', apiVersion, env: env(path), interactiveMode: 'Never' } }));
        await writePlugin();
        const c = client(config);
        const answers = await Promise.all([c.getJSON('/a', q(), signal), c.getJSON('/b', q(), signal)]);
        expect(answers).toEqual([{ authorization: 'Bearer tok-2' }, { authorization: 'Bearer tok-2' }]);
        expect((await readFile(join(dir.path, 'count'), 'utf8')).trim()).toBe('2'); // the first run, and one after the 401s
      });

      it('uses a client certificate from an exec plugin', async () => {
        const s = await serve(
          (req, res) => json(res, 200, { peer: (req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? null }),
          { cert: pki.server.cert, key: pki.server.key, ca: pki.ca.cert, requestCert: true, rejectUnauthorized: true },
        );
        const env = [
          { name: 'PLUGIN_DIR', value: '/nonexistent' },
          { name: 'APIV', value: 'client.authentication.k8s.io/v1' },
          { name: 'CERT_JSON', value: JSON.stringify(pki.client.cert) },
          { name: 'KEY_JSON', value: JSON.stringify(pki.client.key) },
        ];
        const config = await load(s.url, { exec: { command: './bin/plugin', apiVersion: 'client.authentication.k8s.io/v1', env, interactiveMode: 'IfAvailable' } });
        await writePlugin();
        expect(await client(config).getJSON('/', q(), signal)).toEqual({ peer: 'podconfig-test-client' });
      });

      it('re-reads client certificate files when they change, checking every 5 minutes, and only uses a matching pair', async () => {
        const s = await serve(
          (req, res) => json(res, 200, { issuer: (req.socket as TLSSocket).getPeerCertificate().issuer?.CN ?? null }),
          { cert: pki.server.cert, key: pki.server.key, ca: [pki.ca.cert, otherPki.ca.cert], requestCert: true, rejectUnauthorized: true },
        );
        const missing: unknown = await load(s.url, { 'client-certificate': 'client.crt', 'client-key': 'client.key' }).catch((e: unknown) => e);
        expect(String(missing)).toContain('client.crt'); // the files do not exist yet
        await writeFile(join(dir.path, 'client.crt'), pki.client.cert);
        await writeFile(join(dir.path, 'client.key'), pki.client.key);
        const loaded = (await loadClusterConfig({ kubeconfig: join(dir.path, 'config'), env: {} }))!;
        const clock = new InstantClock();
        const c = client(loaded, { clock });
        expect(await c.getJSON('/', q(), signal)).toEqual({ issuer: 'podconfig test CA' });
        // Rotation in two steps: a check between them sees a mismatched pair and keeps the old one.
        await writeFile(join(dir.path, 'client.crt'), otherPki.client.cert);
        clock.advance(4 * 60_000);
        expect(await c.getJSON('/', q(), signal)).toEqual({ issuer: 'podconfig test CA' });
        clock.advance(60_000);
        expect(await c.getJSON('/', q(), signal)).toEqual({ issuer: 'podconfig test CA' });
        await writeFile(join(dir.path, 'client.key'), otherPki.client.key);
        clock.advance(5 * 60_000);
        expect(await c.getJSON('/', q(), signal)).toEqual({ issuer: 'other CA' });
      });
    });
  });
});
