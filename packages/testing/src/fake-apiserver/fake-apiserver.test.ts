import { setImmediate as tick } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePod } from '../pods.js';
import { createTestPki } from '../test-pki.js';
import { FakeApiServer } from './fake-apiserver.js';

let server: FakeApiServer;
let agent: Agent;

beforeEach(async () => {
  server = await new FakeApiServer().start();
  agent = new Agent();
});

afterEach(async () => {
  await server.close();
  await agent.close();
});

async function get(path: string, query: Record<string, string> = {}, dispatcher: Dispatcher = agent) {
  const qs = new URLSearchParams(query).toString();
  const res = await request(`${server.url}${path}${qs === '' ? '' : `?${qs}`}`, { dispatcher });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(text) };
}

const names = (list: { items: { metadata: { namespace: string; name: string } }[] }): string[] =>
  list.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);

/** A parsed watch line (loosely typed JSON), or undefined at the end of the stream. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Line = any;

interface OpenWatch {
  readonly status: number;
  /** The next parsed line (rejects with the parse error for a garbage line); undefined at the end of the stream. */
  next(): Promise<Line>;
  close(): void;
}

async function watch(path: string, query: Record<string, string>): Promise<OpenWatch> {
  const controller = new AbortController();
  const qs = new URLSearchParams({ watch: 'true', ...query }).toString();
  const res = await request(`${server.url}${path}?${qs}`, { dispatcher: agent, signal: controller.signal });
  const chunks = res.body[Symbol.asyncIterator]();
  let buffer = '';
  return {
    status: res.statusCode,
    async next() {
      for (;;) {
        const nl = buffer.indexOf('\n');
        if (nl >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          return JSON.parse(line);
        }
        const chunk = await chunks.next();
        if (chunk.done === true) return undefined;
        buffer += (chunk.value as Buffer).toString('utf8');
      }
    },
    close() {
      controller.abort();
      res.body.destroy();
    },
  };
}

describe(FakeApiServer.name, () => {
  describe('list', () => {
    it('returns a PodList with the current resourceVersion, items sorted by namespace/name', async () => {
      server.createPod(makePod('b', { nodeName: 'n1' }));
      server.createPod(makePod('a', { namespace: 'kube-system', nodeName: 'n1' }));
      const res = await get('/api/v1/pods');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body.kind).toBe('PodList');
      expect(res.body.metadata.resourceVersion).toBe(server.resourceVersion);
      expect(names(res.body)).toEqual(['default/b', 'kube-system/a']);
      expect(res.body.items[0].metadata.resourceVersion).toBe('2');
      expect(res.body.items[0].metadata.uid).toBe('uid-default-b');
      const created = server.createPod({ metadata: { name: 'c' }, spec: { containers: [] } });
      expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.metadata?.namespace).toBe('default');
      expect(created.metadata?.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    });

    it('stores a copy of what it is given and hands out frozen objects', async () => {
      const input = makePod('a', { labels: { v: '1' } });
      const created = server.createPod(input);
      input.metadata!.labels!.v = '2';
      expect(server.getPod('default', 'a')?.metadata?.labels?.v).toBe('1');
      expect(() => {
        created.metadata!.labels!.v = '3';
      }).toThrow(TypeError);
      expect((await get('/api/v1/namespaces/default/pods/a')).body.metadata.labels.v).toBe('1');
    });

    it('filters by field selector (=, ==, !=, comma-AND) and rejects unsupported fields', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.createPod(makePod('b', { nodeName: 'n2' }));
      server.createPod(makePod('c', { namespace: 'x', nodeName: 'n1' }));
      server.createPod(makePod('d'));
      expect(names((await get('/api/v1/pods', { fieldSelector: 'spec.nodeName=n1' })).body)).toEqual(['default/a', 'x/c']);
      expect(names((await get('/api/v1/pods', { fieldSelector: 'spec.nodeName==n1,metadata.namespace!=x' })).body)).toEqual(['default/a']);
      expect(names((await get('/api/v1/pods', { fieldSelector: 'spec.nodeName=' })).body)).toEqual(['default/d']);
      expect(names((await get('/api/v1/pods', { fieldSelector: 'metadata.name=b' })).body)).toEqual(['default/b']);
      const bad = await get('/api/v1/pods', { fieldSelector: 'spec.hostname=x' });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest', message: 'field label not supported: spec.hostname' });
    });

    it('filters by label selector (=, !=, in, notin, exists, !exists) and rejects bad syntax', async () => {
      server.createPod(makePod('a', { labels: { app: 'web', tier: 'front' } }));
      server.createPod(makePod('b', { labels: { app: 'db' } }));
      server.createPod(makePod('c'));
      const sel = async (labelSelector: string) => names((await get('/api/v1/pods', { labelSelector })).body);
      expect(await sel('app=web')).toEqual(['default/a']);
      expect(await sel('app!=web')).toEqual(['default/b', 'default/c']);
      expect(await sel('app in (web, db)')).toEqual(['default/a', 'default/b']);
      expect(await sel('app notin (web)')).toEqual(['default/b', 'default/c']);
      expect(await sel('tier')).toEqual(['default/a']);
      expect(await sel('!tier')).toEqual(['default/b', 'default/c']);
      expect(await sel('app==db,!tier')).toEqual(['default/b']);
      expect((await get('/api/v1/pods', { labelSelector: 'app=(x' })).status).toBe(400);
    });

    it('serves namespaced collections, single objects, nodes, and 404 Status for missing ones', async () => {
      server.createPod(makePod('a', { namespace: 'x' }));
      server.createPod(makePod('a'));
      server.createNode({ metadata: { name: 'n1' } });
      expect(names((await get('/api/v1/namespaces/x/pods')).body)).toEqual(['x/a']);
      expect((await get('/api/v1/namespaces/x/pods/a')).body.metadata.namespace).toBe('x');
      const missing = await get('/api/v1/namespaces/x/pods/zz');
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound' });
      const nodes = await get('/api/v1/nodes', { fieldSelector: 'metadata.name=n1' });
      expect(nodes.body.kind).toBe('NodeList');
      expect(nodes.body.items.map((n: Line) => n.metadata.name)).toEqual(['n1']);
      expect((await get('/api/v1/nodes/n1')).body.kind).toBe('Node');
      expect((await get('/api/v1/services')).status).toBe(404);
    });

    it('paginates with limit and opaque continue tokens at a constant resourceVersion', async () => {
      for (const n of ['a', 'b', 'c', 'd', 'e']) server.createPod(makePod(n));
      const first = await get('/api/v1/pods', { limit: '2' });
      const rv = first.body.metadata.resourceVersion;
      expect(names(first.body)).toEqual(['default/a', 'default/b']);
      expect(first.body.metadata.continue).toEqual(expect.any(String));
      server.deletePod('default', 'c'); // the continuation still sees the list at `rv`
      const second = await get('/api/v1/pods', { limit: '2', continue: first.body.metadata.continue });
      expect(second.body.metadata.resourceVersion).toBe(rv);
      expect(names(second.body)).toEqual(['default/c', 'default/d']);
      const third = await get('/api/v1/pods', { limit: '2', continue: second.body.metadata.continue });
      expect(names(third.body)).toEqual(['default/e']);
      expect(third.body.metadata.continue).toBeUndefined();
    });

    it('rejects a continue token with a resourceVersion (400) and answers 410 Expired once tokens expire or history is compacted', async () => {
      for (const n of ['a', 'b', 'c']) server.createPod(makePod(n));
      const first = await get('/api/v1/pods', { limit: '1' });
      const token = first.body.metadata.continue;
      expect((await get('/api/v1/pods', { limit: '1', continue: token, resourceVersion: '0' })).status).toBe(400);
      server.expireContinueTokens();
      const expired = await get('/api/v1/pods', { limit: '1', continue: token });
      expect(expired.status).toBe(410);
      expect(expired.body).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });

      const again = await get('/api/v1/pods', { limit: '1' });
      server.createPod(makePod('d'));
      server.compact();
      expect((await get('/api/v1/pods', { limit: '1', continue: again.body.metadata.continue })).status).toBe(410);
    });

    it('honours resourceVersion semantics: not-older-than, Exact (past state), compacted (410) and too large (504)', async () => {
      server.createPod(makePod('a'));
      const rvA = server.resourceVersion;
      server.createPod(makePod('b'));
      server.deletePod('default', 'a');
      const current = server.resourceVersion;

      const notOlder = await get('/api/v1/pods', { resourceVersion: rvA });
      expect(names(notOlder.body)).toEqual(['default/b']);
      expect(notOlder.body.metadata.resourceVersion).toBe(current);

      const exact = await get('/api/v1/pods', { resourceVersion: rvA, resourceVersionMatch: 'Exact' });
      expect(names(exact.body)).toEqual(['default/a']);
      expect(exact.body.metadata.resourceVersion).toBe(rvA);
      // Legacy: a specific RV with a limit and no match is exact.
      expect(names((await get('/api/v1/pods', { resourceVersion: rvA, limit: '10' })).body)).toEqual(['default/a']);

      const tooLarge = await get('/api/v1/pods', { resourceVersion: String(Number(current) + 5) });
      expect(tooLarge.status).toBe(504);
      expect(tooLarge.body.details.causes).toEqual([expect.objectContaining({ reason: 'ResourceVersionTooLarge' })]);

      server.compact();
      const gone = await get('/api/v1/pods', { resourceVersion: rvA, resourceVersionMatch: 'Exact' });
      expect(gone.status).toBe(410);
      expect(gone.body.message).toMatch(/too old resource version/);
      expect((await get('/api/v1/pods', { resourceVersionMatch: 'NotOlderThan' })).status).toBe(422);
    });

    it('paginates RV "0" lists unless watchCache is set, which serves them whole', async () => {
      for (const n of ['a', 'b', 'c']) server.createPod(makePod(n));
      expect((await get('/api/v1/pods', { resourceVersion: '0', limit: '2' })).body.metadata.continue).toEqual(expect.any(String));
      await using cached = await new FakeApiServer({ watchCache: true }).start();
      for (const n of ['a', 'b', 'c']) cached.createPod(makePod(n));
      const res = await request(`${cached.url}/api/v1/pods?resourceVersion=0&limit=2`, { dispatcher: agent });
      const whole = (await res.body.json()) as { items: unknown[]; metadata: { continue?: string } };
      expect(whole.items).toHaveLength(3);
      expect(whole.metadata.continue).toBeUndefined();
    });
  });

  describe('watch', () => {
    it('replays history after the given resourceVersion, then streams live events', async () => {
      server.createPod(makePod('a'));
      const rv = server.resourceVersion;
      server.createPod(makePod('b'));
      const w = await watch('/api/v1/pods', { resourceVersion: rv });
      try {
        expect(w.status).toBe(200);
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { kind: 'Pod', metadata: { name: 'b' } } });
        server.updatePodStatus('default', 'a', { phase: 'Running' });
        expect(await w.next()).toMatchObject({ type: 'MODIFIED', object: { status: { phase: 'Running' } } });
        server.deletePod('default', 'b');
        const deleted = await w.next();
        expect(deleted).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'b' } } });
        expect(deleted.object.metadata.resourceVersion).toBe(server.resourceVersion);
      } finally {
        w.close();
      }
    });

    it('starts with synthetic ADDED events when the resourceVersion is unset', async () => {
      server.createPod(makePod('a'));
      const w = await watch('/api/v1/pods', {});
      try {
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
        server.createPod(makePod('b'));
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'b' } } });
      } finally {
        w.close();
      }
    });

    it('turns selector transitions into ADDED and DELETED', async () => {
      server.createPod(makePod('a', { labels: { app: 'x' } }));
      const w = await watch('/api/v1/pods', { resourceVersion: server.resourceVersion, labelSelector: 'app=y' });
      try {
        server.updatePod(makePod('a', { labels: { app: 'y' } }));
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
        server.updatePod(makePod('a', { labels: { app: 'y', v: '2' } }));
        expect(await w.next()).toMatchObject({ type: 'MODIFIED' });
        server.updatePod(makePod('a', { labels: { app: 'z' } }));
        expect(await w.next()).toMatchObject({ type: 'DELETED', object: { metadata: { labels: { app: 'z' } } } });
      } finally {
        w.close();
      }
    });

    it('sends ERROR 410 and ends the stream for a compacted resourceVersion', async () => {
      server.createPod(makePod('a'));
      const old = server.resourceVersion;
      server.createPod(makePod('b'));
      server.compact();
      const w = await watch('/api/v1/pods', { resourceVersion: String(Number(old) - 1) });
      expect(w.status).toBe(200);
      expect(await w.next()).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } });
      expect(await w.next()).toBeUndefined();
      w.close();
    });

    it('streams a watch-list: ADDED for the current state, the initial-events-end bookmark, then live events', async () => {
      server.createPod(makePod('a'));
      server.createPod(makePod('b'));
      const w = await watch('/api/v1/pods', { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' });
      try {
        expect((await w.next()).object.metadata.name).toBe('a');
        expect((await w.next()).object.metadata.name).toBe('b');
        expect(await w.next()).toEqual({
          type: 'BOOKMARK',
          object: {
            kind: 'Pod',
            apiVersion: 'v1',
            metadata: { resourceVersion: server.resourceVersion, creationTimestamp: null, annotations: { 'k8s.io/initial-events-end': 'true' } },
          },
        });
        server.createPod(makePod('c'));
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'c' } } });
      } finally {
        w.close();
      }
    });

    it('rejects sendInitialEvents with 422 in reject mode, serves a plain watch in ignore mode, and validates the parameters', async () => {
      server.createPod(makePod('a'));
      const params = { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' };
      expect((await get('/api/v1/pods', { watch: 'true', sendInitialEvents: 'true', allowWatchBookmarks: 'true' })).status).toBe(422);
      expect((await get('/api/v1/pods', { watch: 'true', resourceVersionMatch: 'NotOlderThan' })).status).toBe(422);
      server.watchList = 'reject';
      const rejected = await get('/api/v1/pods', { watch: 'true', ...params });
      expect(rejected.status).toBe(422);
      expect(rejected.body).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { causes: [{ field: 'sendInitialEvents' }] } });
      server.watchList = 'ignore';
      const w = await watch('/api/v1/pods', params);
      try {
        expect(await w.next()).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
        server.sendBookmarks();
        const bookmark = await w.next();
        expect(bookmark.type).toBe('BOOKMARK');
        expect(bookmark.object.metadata.annotations).toBeUndefined();
      } finally {
        w.close();
      }
    });

    it('closes the stream after timeoutSeconds with a bookmark first', async () => {
      const w = await watch('/api/v1/pods', { resourceVersion: server.resourceVersion, allowWatchBookmarks: 'true', timeoutSeconds: '1' });
      expect(await w.next()).toMatchObject({ type: 'BOOKMARK', object: { metadata: { resourceVersion: server.resourceVersion } } });
      expect(await w.next()).toBeUndefined();
      w.close();
    });

    it('marks a graceful delete with deletionTimestamp (MODIFIED) before the DELETED event', async () => {
      server.createPod(makePod('a'));
      const w = await watch('/api/v1/pods', { resourceVersion: server.resourceVersion });
      try {
        server.deletePod('default', 'a', { gracePeriodSeconds: 30 });
        const modified = await w.next();
        expect(modified.type).toBe('MODIFIED');
        expect(modified.object.metadata.deletionTimestamp).toEqual(expect.any(String));
        expect(modified.object.metadata.deletionGracePeriodSeconds).toBe(30);
        server.deletePod('default', 'a', { gracePeriodSeconds: 30 });
        expect((await w.next()).type).toBe('DELETED');
        expect(server.getPod('default', 'a')).toBeUndefined();
      } finally {
        w.close();
      }
    });

    it('writes each event as its own HTTP chunk, as the API server does, also when events queue up', async () => {
      const pieces: Buffer[] = [];
      let done!: () => void;
      const ended = new Promise<void>((resolve) => (done = resolve));
      const start = server.resourceVersion;
      for (let i = 0; i < 200; i++) server.createPod(makePod(`p${i}`));
      agent.dispatch({ origin: server.url, path: `/api/v1/pods?watch=true&resourceVersion=${start}&timeoutSeconds=1`, method: 'GET' }, {
        onRequestStart: () => undefined,
        onResponseData: (_c, chunk) => void pieces.push(chunk),
        onResponseEnd: () => done(),
        onResponseError: () => done(),
      });
      await ended;
      const body = Buffer.concat(pieces);
      expect(body.toString().split('\n').filter((l) => l !== '')).toHaveLength(200);
      // llhttp hands each HTTP chunk over on its own (in pieces when it spans socket reads): never two lines in one.
      for (const piece of pieces) expect(piece.indexOf('\n')).toBeGreaterThanOrEqual(piece.length - 1);
    });

    it('honours back-pressure: drained() waits while the client does not read, and every event arrives in order', async () => {
      const w = await watch('/api/v1/pods', { resourceVersion: server.resourceVersion });
      try {
        const filler = 'x'.repeat(16 * 1024);
        const count = 1500; // ~24 MiB: more than socket and client buffers hold
        for (let i = 0; i < count; i++) server.createPod(makePod(`p${i}`, { annotations: { filler } }));
        let drained = false;
        const done = server.drained().then(() => {
          drained = true;
        });
        await tick();
        expect(drained).toBe(false);
        for (let i = 0; i < count; i++) expect((await w.next()).object.metadata.name).toBe(`p${i}`);
        await done;
      } finally {
        w.close();
      }
    });
  });

  describe('faults', () => {
    it('fails the next list with a Status and Retry-After, then serves normally', async () => {
      server.failNext('list', { kind: 'status', code: 429, retryAfterSeconds: 3 });
      const throttled = await get('/api/v1/pods');
      expect(throttled.status).toBe(429);
      expect(throttled.headers['retry-after']).toBe('3');
      expect(throttled.body).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', details: { retryAfterSeconds: 3 } });
      expect((await get('/api/v1/pods')).status).toBe(200);
      expect(server.requests.map((r) => [r.path, r.status])).toEqual([
        ['/api/v1/pods', 429],
        ['/api/v1/pods', 200],
      ]);
    });

    it('resets the connection of the next watch, or closes it at once', async () => {
      server.failNext('watch', { kind: 'reset' });
      await expect(watch('/api/v1/pods', {})).rejects.toThrow();
      server.failNext('watch', { kind: 'close' });
      const w = await watch('/api/v1/pods', {});
      expect(w.status).toBe(200);
      expect(await w.next()).toBeUndefined();
      w.close();
    });

    it('stalls the next watch after its headers until the client goes away', async () => {
      server.failNext('watch', { kind: 'stall' });
      const w = await watch('/api/v1/pods', {});
      expect(w.status).toBe(200);
      expect(server.openWatches).toBe(1);
      server.createPod(makePod('a')); // nothing reaches a stalled stream
      w.close();
      await server.until(() => server.openWatches === 0);
    });

    it('injects ERROR events, garbage lines, wrong-kind objects and resets into open watches', async () => {
      let w = await watch('/api/v1/pods', { resourceVersion: server.resourceVersion });
      server.injectWatchEvent('ADDED', { kind: 'Node', metadata: { name: 'n', resourceVersion: '99' } });
      expect(await w.next()).toMatchObject({ type: 'ADDED', object: { kind: 'Node' } });
      server.injectWatchLine('this is not json');
      await expect(w.next()).rejects.toThrow(SyntaxError);
      w.close();

      w = await watch('/api/v1/pods', { resourceVersion: server.resourceVersion });
      server.sendWatchError(500, 'boom');
      expect(await w.next()).toMatchObject({ type: 'ERROR', object: { code: 500, message: 'boom' } });
      expect(await w.next()).toBeUndefined();
      w.close();

      w = await watch('/api/v1/pods', { resourceVersion: server.resourceVersion });
      await server.until(() => server.openWatches === 1);
      server.resetWatches();
      await expect(w.next()).rejects.toThrow();
      w.close();
    });

    it('writes lines in slow halves without changing their content', async () => {
      server.slowWritesMs = 5;
      const w = await watch('/api/v1/pods', { resourceVersion: server.resourceVersion });
      try {
        server.createPod(makePod('a'));
        server.createPod(makePod('b'));
        expect((await w.next()).object.metadata.name).toBe('a');
        expect((await w.next()).object.metadata.name).toBe('b');
      } finally {
        w.close();
      }
    });
    it('splits slow writes by UTF-8 bytes, so a surrogate pair at the cut arrives intact', async () => {
      server.slowWritesMs = 1;
      const res = await request(`${server.url}/api/v1/pods?watch=true&resourceVersion=${server.resourceVersion}`, { dispatcher: agent });
      try {
        // The middle of each line falls inside the run of 𝄞 (two UTF-16 units, four UTF-8 bytes); one more
        // 'xx' shifts it by one unit, so some of these lines have their string middle between a pair's halves.
        const notes = [0, 2, 4, 6].map((k) => `${'x'.repeat(k)}${'𝄞'.repeat(2000)}`);
        notes.forEach((note, i) => {
          const pod = makePod(`p${i}`);
          server.createPod({ ...pod, metadata: { ...pod.metadata, annotations: { note } } });
        });
        const chunks: Buffer[] = [];
        let newlines = 0;
        for await (const chunk of res.body) {
          chunks.push(chunk as Buffer);
          newlines += (chunk as Buffer).filter((b) => b === 0x0a).length;
          if (newlines === notes.length) break;
        }
        const lines = Buffer.concat(chunks).toString('utf8').trimEnd().split('\n');
        const got = lines.map((line) => (JSON.parse(line) as { object: { metadata: { annotations: { note: string } } } }).object.metadata.annotations.note);
        expect(got).toEqual(notes);
      } finally {
        res.body.destroy();
      }
    });
  });

  describe('security', () => {
    it('answers 401 without the bearer token and serves TLS with a createTestPki() certificate', async () => {
      const pki = await createTestPki();
      await server.close();
      server = await new FakeApiServer({ tls: pki.server, token: 's3cret' }).start();
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const tlsAgent = new Agent({ connect: { ca: pki.ca.cert } });
      try {
        const denied = await get('/api/v1/pods', {}, tlsAgent);
        expect(denied.status).toBe(401);
        expect(denied.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
        const res = await request(`${server.url}/api/v1/pods`, { dispatcher: tlsAgent, headers: { authorization: 'Bearer s3cret' } });
        expect(res.statusCode).toBe(200);
        expect((await res.body.json()) as object).toMatchObject({ kind: 'PodList' });
      } finally {
        await tlsAgent.close();
      }
    });

    it('cuts open TLS watches with resetWatches() and closes cleanly', async () => {
      const pki = await createTestPki();
      await server.close();
      server = await new FakeApiServer({ tls: pki.server }).start();
      const tlsAgent = new Agent({ connect: { ca: pki.ca.cert } });
      try {
        const res = await request(`${server.url}/api/v1/pods?watch=true`, { dispatcher: tlsAgent });
        expect(res.statusCode).toBe(200);
        const ended = new Promise<string>((resolve) => {
          res.body.on('error', () => resolve('error'));
          res.body.on('end', () => resolve('end'));
          res.body.resume();
        });
        expect(() => server.resetWatches()).not.toThrow();
        // The chunked body never got its terminating chunk: the client sees an error, not a clean end.
        expect(await ended).toBe('error');
      } finally {
        await tlsAgent.close();
      }
      await server.close();
    });
  });
});
