/**
 * Issue 4 through the built agent: `--manifest-url` against a real HTTP server on 127.0.0.1 whose
 * behaviour the test switches. It starts with a good PodList (2 pods); then each failure in turn,
 * each followed by the good list again. After a failure, GET /sources shows the `http` source
 * unhealthy with an error naming the URL (never its query) and the reason, and GET /pods keeps the
 * good pods; after recovery the pods are the same (same UIDs) and nothing was killed or REMOVEd (D18).
 * A 404 and an empty 200 are definitive "no pods" answers (D9): they remove the pods, on purpose.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentProcess, eventually, type LogLine } from '../support/agent-process.js';

const NODE = 'http-node';
const QUERY_SECRET = 'query-secret-5c1e';
/** The agent's request deadline (HttpPodSource `timeoutMs`, D8); not configurable by flag. */
const REQUEST_TIMEOUT_MS = 10_000;
/** How long a failure may take to show in /sources: a poll every 200 ms (plus backoff), or the deadline. */
const SHOWS_WITHIN_MS = 15_000;
const OVERSIZED_BYTES = 11 * 1024 * 1024;

type Behaviour =
  | { readonly kind: 'answer'; readonly status: number; readonly body: string; readonly headers?: Readonly<Record<string, string>> }
  /** Accepts the request and never answers. */
  | { readonly kind: 'hang' }
  /** 200 with a body over 10 MiB, streamed without Content-Length. */
  | { readonly kind: 'oversized' }
  /** 200 with headers at once, then the good body one byte every 250 ms (far beyond the deadline). */
  | { readonly kind: 'drip' }
  /** 302 to itself, forever. */
  | { readonly kind: 'redirect-loop' };

function podList(items: readonly unknown[]): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items });
}

function pod(name: string, image = 'registry.k8s.io/pause:3.10'): unknown {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'main', image }] } };
}

const GOOD_BODY = podList([pod('alpha'), pod('beta')]);
/** The same two pods as YAML: the same decoded pods, so the same UIDs (D6). */
const GOOD_YAML = [
  'apiVersion: v1', 'kind: PodList', 'items:',
  '- apiVersion: v1', '  kind: Pod', '  metadata: {name: alpha, namespace: default}',
  '  spec:', '    containers:', '    - {name: main, image: "registry.k8s.io/pause:3.10"}',
  '- apiVersion: v1', '  kind: Pod', '  metadata: {name: beta, namespace: default}',
  '  spec:', '    containers:', '    - {name: main, image: "registry.k8s.io/pause:3.10"}', '',
].join('\n');
const GOOD: Behaviour = { kind: 'answer', status: 200, body: GOOD_BODY, headers: { 'content-type': 'application/json' } };

/** A manifest server on 127.0.0.1 whose behaviour the test switches; it can also stop listening (refused). */
class ManifestServer {
  behaviour: Behaviour = GOOD;
  /** When set, a good answer carries this ETag and an `If-None-Match` equal to it gets a 304. */
  etag: string | undefined;
  /** When set, a good answer carries this Last-Modified and an equal `If-Modified-Since` gets a 304. */
  lastModified: string | undefined;
  readonly requests: { readonly rawHeaders: readonly string[] }[] = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #server: Server = createServer((req, res) => this.#handle(req, res));
  #port = 0;

  async listen(port = 0): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  /** The URL the agent polls: with a query that must never show up in /sources or the logs. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}/pods?token=${QUERY_SECRET}`;
  }

  /** The URL as errors and /sources must name it (`safeUrl()`: the query stands as `?…`). */
  get safeUrl(): string {
    return `http://127.0.0.1:${this.#port}/pods?…`;
  }

  /** Stops listening and drops every connection: the agent's next request is refused. */
  async close(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.clear();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }

  /** Listens again on the same port (after {@link close}); does nothing while listening. */
  async reopen(): Promise<void> {
    if (!this.#server.listening) await this.listen(this.#port);
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    this.requests.push({ rawHeaders: req.rawHeaders });
    res.on('error', () => undefined); // the agent hangs up on oversized and timed-out answers
    const b = this.behaviour;
    switch (b.kind) {
      case 'answer': {
        const headers: Record<string, string> = { ...b.headers };
        if (b === GOOD || b.body === GOOD_YAML) {
          if (this.etag !== undefined) headers['etag'] = this.etag;
          if (this.lastModified !== undefined) headers['last-modified'] = this.lastModified;
          const notModified = (this.etag !== undefined && req.headers['if-none-match'] === this.etag) ||
            (this.lastModified !== undefined && req.headers['if-modified-since'] === this.lastModified);
          if (notModified) {
            res.writeHead(304, headers).end();
            return;
          }
        }
        res.writeHead(b.status, headers).end(b.status === 204 || b.status === 304 ? undefined : b.body);
        return;
      }
      case 'hang':
        return; // closeAllConnections() ends it
      case 'oversized': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const write = (): void => {
          while (sent < OVERSIZED_BYTES && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', write);
              return;
            }
          }
          if (!res.destroyed) res.end();
        };
        write();
        return;
      }
      case 'drip': {
        res.writeHead(200, { 'content-type': 'application/json' });
        let i = 0;
        const timer = setInterval(() => {
          if (res.destroyed || i >= GOOD_BODY.length) {
            clearInterval(timer);
            this.#timers.delete(timer);
            if (!res.destroyed) res.end();
            return;
          }
          res.write(GOOD_BODY[i++]);
        }, 250);
        this.#timers.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          this.#timers.delete(timer);
        });
        return;
      }
      case 'redirect-loop':
        res.writeHead(302, { location: req.url ?? '/' }).end();
        return;
    }
  }
}

interface HttpSourceStatus {
  readonly ready: boolean;
  readonly seen: boolean;
  readonly healthy: boolean;
  readonly pods: number;
  readonly lastError?: { readonly message: string; readonly code?: string };
  readonly counters: { readonly polls_success: number; readonly polls_not_modified: number; readonly polls_error: number };
  readonly details: { readonly url: string; readonly lastStatusCode: number | null; readonly etag: string | null; readonly lastModified: string | null };
}

interface PodRef {
  readonly name: string;
  readonly uid: string;
}

async function httpStatus(agent: AgentProcess): Promise<HttpSourceStatus> {
  const body = await agent.getJSON<{ sources: ({ name: string } & HttpSourceStatus)[] }>('/sources');
  const http = body.sources.find((s) => s.name === 'http');
  if (http === undefined) throw new Error(`no http source in /sources: ${JSON.stringify(body)}`);
  return http;
}

/** The http pods in GET /pods, sorted by name. */
async function httpPods(agent: AgentProcess): Promise<PodRef[]> {
  const list = await agent.getJSON<{ items: { metadata: { name: string; uid: string; annotations: Record<string, string> } }[] }>('/pods');
  return list.items
    .filter((p) => p.metadata.annotations['kubernetes.io/config.source'] === 'http')
    .map((p) => ({ name: p.metadata.name, uid: p.metadata.uid }))
    .sort((x, y) => x.name.localeCompare(y.name));
}

/** `podconfig_merger_operation_pods_total{op="REMOVE",source="http"}`: pods the merger REMOVEd. */
async function httpRemoves(agent: AgentProcess): Promise<number> {
  const { body } = await agent.get('/metrics');
  const line = body.split('\n').find((l) => l.startsWith('podconfig_merger_operation_pods_total{') && l.includes('op="REMOVE"') && l.includes('source="http"'));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const handlerCalls = (lines: readonly LogLine[], op: string): LogLine[] => lines.filter((l) => l.component === 'sync.log' && l['op'] === op);

interface FailureRow {
  readonly name: string;
  /** What the server does; `refused` stops listening. */
  readonly serve: Behaviour | 'refused';
  readonly code: string;
  /** The reason, as the message states it. */
  readonly reason: RegExp;
  readonly showsWithinMs?: number;
}

const FAILURES: readonly FailureRow[] = [
  { name: 'a 500', serve: { kind: 'answer', status: 500, body: 'boom' }, code: 'PODCONFIG_HTTP_STATUS', reason: /HTTP 500/ },
  { name: 'a 204', serve: { kind: 'answer', status: 204, body: '' }, code: 'PODCONFIG_HTTP_STATUS', reason: /HTTP 204/ },
  {
    name: 'no answer within the request timeout', serve: { kind: 'hang' }, code: 'PODCONFIG_TIMEOUT',
    reason: new RegExp(`no complete response within ${REQUEST_TIMEOUT_MS} ms`), showsWithinMs: REQUEST_TIMEOUT_MS + SHOWS_WITHIN_MS,
  },
  { name: 'connection refused', serve: 'refused', code: 'PODCONFIG_SOURCE_UNAVAILABLE', reason: /request failed: .*ECONNREFUSED/ },
  { name: 'an oversized body (> 10 MiB)', serve: { kind: 'oversized' }, code: 'PODCONFIG_BODY_TOO_LARGE', reason: /response body exceeds 10485760 bytes/ },
  {
    name: 'a slow-drip body', serve: { kind: 'drip' }, code: 'PODCONFIG_TIMEOUT',
    reason: new RegExp(`no complete response within ${REQUEST_TIMEOUT_MS} ms`), showsWithinMs: REQUEST_TIMEOUT_MS + SHOWS_WITHIN_MS,
  },
  { name: 'a redirect loop', serve: { kind: 'redirect-loop' }, code: 'PODCONFIG_REDIRECT', reason: /stopped after 10 requests \(9 redirects followed\)/ },
  { name: 'garbage', serve: { kind: 'answer', status: 200, body: '{ not yaml: [' }, code: 'PODCONFIG_MANIFEST_INVALID', reason: /invalid JSON at line 1, column 3/ },
  {
    name: 'a list with one invalid item',
    serve: { kind: 'answer', status: 200, body: podList([pod('alpha'), pod('beta'), pod('Not_A_Valid_Name')]) },
    code: 'PODCONFIG_MANIFEST_INVALID', reason: /items\[2\]: invalid pod: metadata\.name/,
  },
];

describe('podconfig-agent with --manifest-url against a failing HTTP server', () => {
  const server = new ManifestServer();
  let started: AgentProcess | undefined;
  /** The two good pods, as first served. */
  let good: PodRef[] = [];
  const agent = (): AgentProcess => {
    if (started === undefined) throw new Error('the agent did not start');
    return started;
  };

  beforeAll(async () => {
    await server.listen();
    // --sync-frequency 1h: no periodic resync calls, so every handler call below is one a change caused.
    started = await AgentProcess.start([
      '--node-name', NODE, '--manifest-url', server.url, '--http-check-frequency', '200ms', '--handler', 'log', '--sync-frequency', '1h',
      '--manifest-url-header', 'X-Order:1,X-Other:2', '--manifest-url-header', 'X-Order:3',
    ]);
    good = await eventually(async () => {
      const pods = await httpPods(agent());
      return pods.length === 2 ? pods : undefined;
    }, SHOWS_WITHIN_MS, 'the two good pods');
  });

  afterEach(async () => {
    // Whatever a test left behind (also when it failed half-way): the good list, no validators, listening.
    server.behaviour = GOOD;
    server.etag = undefined;
    server.lastModified = undefined;
    await server.reopen();
  });

  afterAll(async () => {
    const stopped = await started?.stopWithin();
    await server.close();
    expect(stopped ?? { code: 0, signal: null }).toEqual({ code: 0, signal: null });
  });

  it('runs the good list: two pods, created once each, the source healthy and ready', async () => {
    expect(good.map((p) => p.name)).toEqual([`alpha-${NODE}`, `beta-${NODE}`]);
    const s = await httpStatus(agent());
    expect(s).toMatchObject({ ready: true, seen: true, healthy: true, pods: 2, details: { url: server.safeUrl, lastStatusCode: 200 } });
    await eventually(async () => (handlerCalls(agent().logs, 'create').length >= 2 ? true : undefined), SHOWS_WITHIN_MS, 'two creates');
    expect(handlerCalls(agent().logs, 'create').map((l) => l['uid']).sort()).toEqual(good.map((p) => p.uid).sort());
  });

  it('sends the configured headers in order, repeated names as separate lines', () => {
    const first = server.requests[0]!.rawHeaders;
    const ours = [];
    for (let i = 0; i < first.length; i += 2) if (first[i]!.toLowerCase().startsWith('x-')) ours.push(`${first[i]!}:${first[i + 1]!}`);
    expect(ours).toEqual(['X-Order:1', 'X-Other:2', 'X-Order:3']);
  });

  for (const row of FAILURES) {
    it(`keeps the pods through ${row.name}, reports it in /sources, and recovers with the same pods and no kill`, { timeout: 60_000 }, async () => {
      const from = agent().logs.length;
      const removesBefore = await httpRemoves(agent());
      const errorsBefore = (await httpStatus(agent())).counters.polls_error;
      if (row.serve === 'refused') await server.close();
      else server.behaviour = row.serve;

      const failed = await eventually(async () => {
        const s = await httpStatus(agent());
        return !s.healthy && s.counters.polls_error > errorsBefore && s.lastError?.code === row.code ? s : undefined;
      }, row.showsWithinMs ?? SHOWS_WITHIN_MS, `${row.code} in /sources`);
      expect(failed.lastError!.message).toContain(server.safeUrl);
      expect(failed.lastError!.message).toMatch(row.reason);
      expect(failed.lastError!.message).not.toContain(QUERY_SECRET);
      expect(failed).toMatchObject({ seen: true, ready: true, pods: 2 });
      expect(await httpPods(agent())).toEqual(good);

      if (row.serve === 'refused') await server.reopen();
      server.behaviour = GOOD;
      const recovered = await eventually(async () => {
        const s = await httpStatus(agent());
        return s.healthy ? s : undefined;
      }, row.showsWithinMs ?? SHOWS_WITHIN_MS, 'recovery');
      expect(recovered).toMatchObject({ pods: 2, details: { lastStatusCode: 200 } });
      expect(await httpPods(agent())).toEqual(good);
      const lines = agent().logs.slice(from);
      expect(handlerCalls(lines, 'kill')).toEqual([]);
      expect(handlerCalls(lines, 'create')).toEqual([]);
      expect(await httpRemoves(agent())).toBe(removesBefore);
      const earlier = new Set(agent().logs.slice(0, from));
      await agent().waitForLog((l) => !earlier.has(l) && l.component === 'source.http' && l.msg === 'manifest URL recovered');
    });
  }

  for (const row of [
    { name: 'a 404', serve: { kind: 'answer', status: 404, body: 'not found' }, status: 404 },
    { name: 'an empty 200', serve: { kind: 'answer', status: 200, body: '' }, status: 200 },
  ] as const) {
    it(`removes the pods on ${row.name} (D9: a definitive "no pods", not a failure), and the good list brings the same pods back`, async () => {
      const from = agent().logs.length;
      const removesBefore = await httpRemoves(agent());
      server.behaviour = row.serve;
      await eventually(async () => ((await httpPods(agent())).length === 0 ? true : undefined), SHOWS_WITHIN_MS, 'the http pods removed');
      expect(await httpStatus(agent())).toMatchObject({ healthy: true, pods: 0, details: { lastStatusCode: row.status } });
      await eventually(async () => (handlerCalls(agent().logs.slice(from), 'kill').length === 2 ? true : undefined), SHOWS_WITHIN_MS, 'two kills');
      expect(handlerCalls(agent().logs.slice(from), 'kill').map((l) => l['uid']).sort()).toEqual(good.map((p) => p.uid).sort());
      expect(await httpRemoves(agent())).toBe(removesBefore + 2);

      const back = agent().logs.length;
      server.behaviour = GOOD;
      await eventually(async () => (JSON.stringify(await httpPods(agent())) === JSON.stringify(good) ? true : undefined), SHOWS_WITHIN_MS, 'the same pods back');
      await eventually(async () => (handlerCalls(agent().logs.slice(back), 'create').length === 2 ? true : undefined), SHOWS_WITHIN_MS, 'two creates');
      expect(handlerCalls(agent().logs.slice(back), 'kill')).toEqual([]);
      expect(await httpRemoves(agent())).toBe(removesBefore + 2);
    });
  }

  it('the same pods as YAML: same UIDs, no handler call', async () => {
    const from = agent().logs.length;
    const successBefore = (await httpStatus(agent())).counters.polls_success;
    server.behaviour = { kind: 'answer', status: 200, body: GOOD_YAML, headers: { 'content-type': 'application/yaml' } };
    // Two successful polls of the YAML body: the first one is the one that could have changed anything.
    await eventually(async () => ((await httpStatus(agent())).counters.polls_success >= successBefore + 2 ? true : undefined), SHOWS_WITHIN_MS, 'YAML polls');
    expect(await httpPods(agent())).toEqual(good);
    expect(agent().logs.slice(from).filter((l) => l.component === 'sync.log')).toEqual([]);
  });

  it('ETag: a 304 to If-None-Match changes nothing and counts as not modified', async () => {
    const from = agent().logs.length;
    server.etag = '"v1"';
    const before = (await httpStatus(agent())).counters;
    const fromRequest = server.requests.length;
    // The next full answer carries the ETag; the polls after it ask with If-None-Match and get 304s
    // (every 10th poll asks unconditionally, D7, so the check waits for a status read after a 304).
    const s = await eventually(async () => {
      const status = await httpStatus(agent());
      return status.counters.polls_not_modified >= before.polls_not_modified + 3 && status.details.lastStatusCode === 304 ? status : undefined;
    }, SHOWS_WITHIN_MS, 'three 304s');
    expect(s).toMatchObject({ healthy: true, pods: 2, details: { etag: '"v1"', lastStatusCode: 304 } });
    expect(server.requests.slice(fromRequest).some((r) => r.rawHeaders.includes('"v1"'))).toBe(true);
    expect(await httpPods(agent())).toEqual(good);
    expect(agent().logs.slice(from).filter((l) => l.component === 'sync.log')).toEqual([]);
  });

  it('Last-Modified: a 304 to If-Modified-Since changes nothing and counts as not modified', async () => {
    const from = agent().logs.length;
    server.lastModified = 'Wed, 21 Oct 2015 07:28:00 GMT';
    const before = (await httpStatus(agent())).counters;
    const s = await eventually(async () => {
      const status = await httpStatus(agent());
      return status.counters.polls_not_modified >= before.polls_not_modified + 3 && status.details.lastStatusCode === 304 ? status : undefined;
    }, SHOWS_WITHIN_MS, 'three 304s');
    expect(s).toMatchObject({ healthy: true, pods: 2, details: { lastModified: 'Wed, 21 Oct 2015 07:28:00 GMT', lastStatusCode: 304 } });
    expect(await httpPods(agent())).toEqual(good);
    expect(agent().logs.slice(from).filter((l) => l.component === 'sync.log')).toEqual([]);
  });

  it('never shows the query string of the URL in the logs or /sources', async () => {
    const everything = [JSON.stringify(agent().logs), agent().stderr.join('\n'), (await agent().get('/sources')).body, (await agent().get('/metrics')).body].join('\n');
    expect(everything).toContain(server.safeUrl);
    expect(everything).not.toContain(QUERY_SECRET);
  });
});
