import type { Readable } from 'node:stream';
import { PodConfigError, SourceUnavailableError, StatusError, type Clock, type Pod, type PodSetChanges, type PodSnapshot } from '@podconfig/core';
import { FakeApiServer, InstantClock, makePod, type FakeRequest } from '@podconfig/testing';
import { pino } from 'pino';
import { Agent, request, type Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BufferedIterator, ListerWatcher } from './lister-watcher.js';
import { ListWatch } from './list-watch.js';
import type { ReflectorSink } from './reflector-sink.js';
import { INITIAL_EVENTS_END_ANNOTATION, type WatchEvent } from './watch-event.js';
import { Reflector, type ReflectorOptions } from './reflector.js';
import type { GetJSONOptions, ResourceClient } from './resource-client.js';
import { UndeltaStore } from './undelta-store.js';

/** A minimal ResourceClient over undici (kube-client is written elsewhere): Status → StatusError, transport → SourceUnavailableError. */
class UndiciResourceClient implements ResourceClient {
  constructor(
    private readonly base: string,
    private readonly dispatcher: Dispatcher,
  ) {}

  /** kube-client's `maxResponseBytes`, to which it holds each body, and the pages of one list (`listBytes`) together. */
  maxResponseBytes = Number.POSITIVE_INFINITY;
  /** The bytes of each 2xx body, as received. */
  readonly bodyBytes: number[] = [];

  async getJSON(path: string, query: URLSearchParams, signal: AbortSignal, options: GetJSONOptions = {}): Promise<unknown> {
    const res = await this.#request(path, query, signal);
    const bytes = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode >= 300) throw statusError(res.statusCode, res.headers, bytes.toString('utf8'));
    this.bodyBytes.push(bytes.length);
    const listBytes = options.listBytes;
    if ((listBytes?.bytes ?? 0) + bytes.length > this.maxResponseBytes) {
      throw new PodConfigError('PODCONFIG_BODY_TOO_LARGE', `GET ${path}: the list's pages together are larger than the limit of ${this.maxResponseBytes} bytes`);
    }
    if (listBytes !== undefined) {
      listBytes.bytes += bytes.length;
      listBytes.pages++;
    }
    return JSON.parse(bytes.toString('utf8'));
  }

  async watchJSON(path: string, query: URLSearchParams, signal: AbortSignal): Promise<AsyncIterable<unknown>> {
    const res = await this.#request(path, query, signal);
    if (res.statusCode >= 300) throw statusError(res.statusCode, res.headers, await res.body.text());
    return lines(res.body);
  }

  async #request(path: string, query: URLSearchParams, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    try {
      return await request(`${this.base}${path}?${query.toString()}`, { dispatcher: this.dispatcher, signal });
    } catch (err: unknown) {
      if (signal.aborted) throw err;
      throw new SourceUnavailableError('request failed', { cause: err });
    }
  }
}

function statusError(code: number, headers: Record<string, string | string[] | undefined>, text: string): StatusError {
  const status = JSON.parse(text);
  const retryAfter = headers['retry-after'];
  return new StatusError(code, status.reason ?? '', status.message ?? '', {
    causes: status.details?.causes ?? [],
    ...(typeof retryAfter === 'string' ? { retryAfterSeconds: Number(retryAfter) } : {}),
  });
}

async function* lines(body: Readable): AsyncGenerator<unknown> {
  let buffer = '';
  try {
    for await (const chunk of body) {
      buffer += (chunk as Buffer).toString('utf8');
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim() === '') continue;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch (err: unknown) {
          throw new PodConfigError('PODCONFIG_WATCH_DECODE', 'undecodable watch line', { cause: err });
        }
        yield value;
      }
    }
  } catch (err: unknown) {
    if (PodConfigError.is(err)) throw err;
    throw new SourceUnavailableError('watch stream failed', { cause: err });
  } finally {
    body.destroy();
  }
}

interface Push {
  readonly snapshot: PodSnapshot;
  readonly changes: PodSetChanges | undefined;
}

let server: FakeApiServer;
let agent: Agent;
let controller: AbortController;
let running: Promise<void> | undefined;

beforeEach(async () => {
  server = await new FakeApiServer().start();
  agent = new Agent();
  controller = new AbortController();
  running = undefined;
});

afterEach(async () => {
  controller.abort();
  await running;
  await server.close();
  await agent.close();
});

/** Starts a reflector for pods on node n1 (classic LIST/WATCH unless `watchList: true`). */
function start(options: Partial<ReflectorOptions<Pod>> = {}) {
  const pushes: Push[] = [];
  const waiters = new Set<{ predicate: () => boolean; resolve: () => void }>();
  const store = new UndeltaStore({
    push: (snapshot, changes) => {
      pushes.push({ snapshot, changes });
      for (const w of [...waiters]) {
        if (w.predicate()) {
          waiters.delete(w);
          w.resolve();
        }
      }
    },
  });
  const clock = new InstantClock();
  const client = new UndiciResourceClient(server.url, agent);
  const listerWatcher = new ListWatch<Pod>({ client, path: '/api/v1/pods', fieldSelector: 'spec.nodeName=n1', kind: 'Pod' });
  const reflector = new Reflector<Pod>({
    listerWatcher,
    sink: store,
    logger: pino({ level: process.env.TEST_LOG ?? 'silent' }),
    clock,
    random: () => 0,
    expectedKind: 'Pod',
    watchList: false,
    ...options,
  });
  running = reflector.run(controller.signal);
  return {
    reflector,
    store,
    pushes,
    clock,
    client,
    /** Resolves once a push makes `predicate` true. */
    pushed(predicate: () => boolean): Promise<void> {
      if (predicate()) return Promise.resolve();
      return new Promise((resolve) => waiters.add({ predicate, resolve }));
    },
  };
}

const names = (snapshot: PodSnapshot | undefined): string[] => [...(snapshot?.keys() ?? [])].sort();
const lists = (): FakeRequest[] => server.requests.filter((r) => !r.watch);
const watches = (): FakeRequest[] => server.requests.filter((r) => r.watch);
const q = (r: FakeRequest | undefined): Record<string, string> => Object.fromEntries(r?.query ?? []);
/** Resolves once the reflector has an open watch and `n` watch requests have been made. */
const watching = (n: number): Promise<void> => server.until(() => watches().length >= n && server.openWatches === 1);

describe(Reflector.name, () => {
  describe('run() with LIST/WATCH', () => {
    it('lists at RV "0" with limit 500, pushes one snapshot, then watches from the list RV', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.createPod(makePod('b', { nodeName: 'n1' }));
      server.createPod(makePod('other', { nodeName: 'n2' }));
      const listRV = server.resourceVersion;
      const r = start();
      await watching(1);
      expect(q(lists()[0])).toEqual({ fieldSelector: 'spec.nodeName=n1', resourceVersion: '0', limit: '500' });
      const watch = q(watches()[0]);
      expect(watch).toMatchObject({ fieldSelector: 'spec.nodeName=n1', watch: 'true', resourceVersion: listRV, allowWatchBookmarks: 'true' });
      expect(Number(watch.timeoutSeconds)).toBeGreaterThanOrEqual(300);
      expect(Number(watch.timeoutSeconds)).toBeLessThanOrEqual(599);
      expect(r.pushes).toHaveLength(1);
      expect(names(r.pushes[0]!.snapshot)).toEqual(['default/a', 'default/b']);

      server.createPod(makePod('c', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 2);
      expect(r.pushes[1]!.changes).toEqual({ base: r.pushes[0]!.snapshot, keys: new Set(['default/c']) });
      expect(r.reflector.status()).toMatchObject({ synced: true, connected: true, lastSyncResourceVersion: server.resourceVersion, events: 1 });
    });

    it('picks a fresh timeoutSeconds in [300, 599] for every watch', async () => {
      const values = [0, 0.5, 0.999];
      let i = 0;
      start({ random: () => values[i++ % values.length]! });
      await watching(1);
      server.closeWatches();
      await watching(2);
      server.closeWatches();
      await watching(3);
      expect(watches().map((w) => q(w).timeoutSeconds)).toEqual(['300', '450', '599']);
    });

    it('follows continue tokens with the RV cleared and pushes the whole list once', async () => {
      for (const n of ['a', 'b', 'c', 'd', 'e']) server.createPod(makePod(n, { nodeName: 'n1' }));
      const r = start({ pageSize: 2 });
      await watching(1);
      expect(lists().map((l) => [q(l).resourceVersion, q(l).limit, q(l).continue !== undefined])).toEqual([
        ['0', '2', false],
        [undefined, '2', true],
        [undefined, '2', true],
      ]);
      expect(r.pushes).toHaveLength(1);
      expect(names(r.pushes[0]!.snapshot)).toHaveLength(5);
    });

    it('keeps its set and retries after backoff when the pages of a list together pass the client\'s body limit, each page under it', async () => {
      for (const n of ['a', 'b', 'c', 'd', 'e']) server.createPod(makePod(n, { nodeName: 'n1' }));
      const r = start({ pageSize: 2 });
      await watching(1);
      expect(names(r.pushes[0]!.snapshot)).toHaveLength(5);
      const [first, second, third] = r.client.bodyBytes;
      // Two pages fit, with room to spare for an RV a digit longer; not the third as well.
      const limit = first! + second! + 10;
      expect(Math.max(first!, second!, third!)).toBeLessThan(limit);
      expect(first! + second! + third!).toBeGreaterThan(limit);
      r.client.maxResponseBytes = limit;
      server.sendWatchError(410); // relist (paginated: the RV "0" list was)
      await server.until(() => r.reflector.status().consecutiveFailures >= 3);
      const status = r.reflector.status();
      expect(status).toMatchObject({
        synced: true,
        relists: 0,
        lastError: { code: 'PODCONFIG_BODY_TOO_LARGE', message: `GET /api/v1/pods: the list's pages together are larger than the limit of ${limit} bytes` },
      });
      // Every attempt read its pages to the third (continuations without an RV), then backed off: 800 ms for the
      // 410, then 1.6 s, 3.2 s for the lists, as after one body too large.
      expect(lists().slice(3, 6).map((l) => [q(l).resourceVersion !== undefined, q(l).limit, q(l).continue !== undefined])).toEqual([
        [true, '2', false],
        [false, '2', true],
        [false, '2', true],
      ]);
      expect(r.clock.sleeps.slice(0, 3)).toEqual([800, 1600, 3200]);
      // Nothing reached the sink: it keeps the last good set.
      expect(r.pushes).toHaveLength(1);
      expect(names(r.store.snapshot())).toEqual(['default/a', 'default/b', 'default/c', 'default/d', 'default/e']);

      // Once the list fits, the retry syncs.
      r.client.maxResponseBytes = Number.POSITIVE_INFINITY;
      await r.pushed(() => r.pushes.length === 2);
      expect(names(r.pushes[1]!.snapshot)).toHaveLength(5);
      expect(r.reflector.status()).toMatchObject({ relists: 1, consecutiveFailures: 0 });
    });

    it('ends a list whose server returns the same continue token again, and retries it after backoff', async () => {
      const pod: Pod = { ...makePod('a'), metadata: { ...makePod('a').metadata, resourceVersion: '5' } };
      const calls: (string | undefined)[] = [];
      const stop = new AbortController();
      const clock = new InstantClock();
      const listerWatcher: ListerWatcher<Pod> = {
        list: (options) => {
          calls.push(options.continue);
          // The first list loops on one token; the second is whole.
          if (calls.length === 1) return Promise.resolve({ items: [pod], resourceVersion: '5', continue: 'same' });
          if (options.continue !== undefined) return Promise.resolve({ items: [], resourceVersion: '5', continue: 'same' });
          return Promise.resolve({ items: [pod], resourceVersion: '5' });
        },
        watch: () => Promise.reject(new Error('not reached')),
      };
      const replaced: string[] = [];
      const sink: ReflectorSink<Pod> = {
        replace: (_items, rv) => {
          replaced.push(rv);
          stop.abort();
        },
        apply: () => undefined,
      };
      const reflector = new Reflector<Pod>({ listerWatcher, sink, logger: pino({ level: 'silent' }), clock, random: () => 0, expectedKind: 'Pod', watchList: false });
      await reflector.run(stop.signal);
      expect(calls).toEqual([undefined, 'same', undefined]);
      expect(clock.sleeps).toEqual([800]);
      expect(replaced).toEqual(['5']);
      expect(reflector.status().lastError).toMatchObject({
        code: 'PODCONFIG_SOURCE_UNAVAILABLE',
        message: 'Pod list: page 2 came with continue token "same" a second time: the server\'s pagination loops',
      });
    });

    it('ends a list after 100 pages in a row without items, though each has a new continue token', async () => {
      const pod: Pod = { ...makePod('a'), metadata: { ...makePod('a').metadata, resourceVersion: '5' } };
      let firstPages = 0;
      let continuations = 0;
      const stop = new AbortController();
      const clock = new InstantClock();
      const listerWatcher: ListerWatcher<Pod> = {
        list: (options, signal) => {
          if (options.continue === undefined) {
            // The retry's first page is as far as the test goes.
            if (++firstPages === 2) stop.abort();
            if (signal.aborted) return Promise.reject(signal.reason as Error);
            return Promise.resolve({ items: [pod], resourceVersion: '5', continue: 't1' });
          }
          continuations++;
          const n = Number(options.continue.slice(1));
          return Promise.resolve({ items: [], resourceVersion: '5', continue: `t${n + 1}` });
        },
        watch: () => Promise.reject(new Error('not reached')),
      };
      const sink: ReflectorSink<Pod> = { replace: () => undefined, apply: () => undefined };
      const reflector = new Reflector<Pod>({ listerWatcher, sink, logger: pino({ level: 'silent' }), clock, random: () => 0, expectedKind: 'Pod', watchList: false });
      await reflector.run(stop.signal);
      expect(firstPages).toBe(2);
      // Page 1 had an item; pages 2 to 101 had none: the 100th of them ends the list, and the retry starts afresh.
      expect(continuations).toBe(100);
      expect(clock.sleeps).toEqual([800]);
      expect(reflector.status()).toMatchObject({
        synced: false,
        lastError: {
          code: 'PODCONFIG_SOURCE_UNAVAILABLE',
          message: 'Pod list: 100 pages in a row (to page 101) came with no items and a continue token (the last: "t101"): the server\'s pagination does not advance',
        },
      });
    });

    it('lists once unpaginated at the original RV when a continuation page returns 410 (checklist 70)', async () => {
      for (const n of ['a', 'b', 'c']) server.createPod(makePod(n, { nodeName: 'n1' }));
      server.failNext('list', 410, { when: (req) => req.query.has('continue') });
      const r = start({ pageSize: 2 });
      await watching(1);
      expect(lists().map((l) => [l.status, q(l).resourceVersion, q(l).limit, q(l).continue !== undefined])).toEqual([
        [200, '0', '2', false],
        [410, undefined, '2', true],
        [200, '0', undefined, false],
      ]);
      expect(r.clock.sleeps).toEqual([]);
      expect(names(r.pushes[0]!.snapshot)).toEqual(['default/a', 'default/b', 'default/c']);
    });

    it('retries a 410 list at once at RV "" with limit 500, without backoff', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.failNext('list', 410);
      const r = start();
      await watching(1);
      expect(lists().map((l) => [l.status, q(l).resourceVersion, q(l).limit])).toEqual([
        [410, '0', '500'],
        [200, undefined, '500'],
      ]);
      expect(r.clock.sleeps).toEqual([]);
      expect(r.pushes).toHaveLength(1);
    });

    it('retries a "too large resource version" list at once at RV "" with limit 500, without backoff (checklist 65)', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.failNext('list', {
        kind: 'status', code: 504, reason: 'Timeout', message: 'Timeout: Too large resource version: 10, current: 5',
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      });
      const r = start();
      await watching(1);
      expect(lists().map((l) => [l.status, q(l).resourceVersion, q(l).limit])).toEqual([
        [504, '0', '500'],
        [200, undefined, '500'],
      ]);
      expect(r.clock.sleeps).toEqual([]);
      expect(r.pushes).toHaveLength(1);
    });

    it('lists at its last RV again once a list at RV "" has synced (the RV is available again)', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.failNext('list', 410);
      start();
      await watching(1);
      server.sendWatchError(410);
      await watching(2);
      expect(lists().map((l) => [l.status, q(l).resourceVersion, q(l).limit])).toEqual([
        [410, '0', '500'],
        [200, undefined, '500'],
        [200, server.resourceVersion, undefined],
      ]);
    });

    it('pushes nothing while the list fails, and backs off 0.8 s doubling to 30 s (checklists 69, 74)', async () => {
      server.failNext('list', 403, { times: 8 });
      const r = start();
      await watching(1);
      expect(r.clock.sleeps).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
      expect(lists().slice(0, 8).every((l) => l.status === 403)).toBe(true);
      expect(r.pushes).toHaveLength(1); // only after the 9th list succeeded
    });

    it('keeps the jitter in [d, 2d)', async () => {
      server.failNext('list', 500, { times: 3 });
      const r = start({ random: () => 0.999 });
      await watching(1);
      expect(r.clock.sleeps).toEqual([800 * 1.999, 1600 * 1.999, 3200 * 1.999]);
    });

    it('waits at least Retry-After on a 429 list', async () => {
      server.failNext('list', { kind: 'status', code: 429, retryAfterSeconds: 7 });
      const r = start();
      await watching(1);
      expect(r.clock.sleeps).toEqual([7000]);
      expect(r.reflector.status().lastError).toMatchObject({ code: 'PODCONFIG_API_STATUS' });
    });

    it('waits no longer than the longest backoff step (60 s) for a huge Retry-After', async () => {
      server.failNext('list', { kind: 'status', code: 429, retryAfterSeconds: 3600 });
      const r = start();
      await watching(1);
      expect(r.clock.sleeps).toEqual([60_000]);
    });
  });

  describe('run() watching', () => {
    it('re-watches at once from the last RV when a stream ends normally (checklist 62)', async () => {
      const r = start();
      await watching(1);
      server.createPod(makePod('a', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 2);
      r.clock.advance(7 * 60_000); // it lived 7 minutes, as watches do
      server.closeWatches(); // bookmark first, as at a timeout
      await watching(2);
      expect(q(watches()[1]).resourceVersion).toBe(server.resourceVersion);
      expect(lists()).toHaveLength(1);
      expect(r.clock.sleeps).toEqual([]);
      expect(r.reflector.status()).toMatchObject({ relists: 0, watchRestarts: 1 });
    });

    it('advances the RV on a bookmark without pushing, and the next watch starts there without a list (checklist 64)', async () => {
      const r = start();
      await watching(1);
      const listed = server.resourceVersion;
      server.createPod(makePod('elsewhere', { nodeName: 'n2' })); // invisible to this selector
      server.sendBookmarks();
      const bookmarked = server.resourceVersion;
      expect(bookmarked).not.toBe(listed);
      // A bookmark changes nothing observable but the RV: poll the status for it.
      await vi.waitFor(() => expect(r.reflector.status().lastSyncResourceVersion).toBe(bookmarked), { interval: 5 });
      expect(r.pushes).toHaveLength(1);
      r.clock.advance(7 * 60_000);
      server.closeWatches({ bookmark: false }); // no bookmark at the end: only the earlier one moved the RV
      await watching(2);
      expect(q(watches()[1]).resourceVersion).toBe(bookmarked);
      expect(lists()).toHaveLength(1);
      expect(r.pushes).toHaveLength(1);
    });

    it('counts a bookmark as a received event for lastSyncTime', async () => {
      const r = start();
      await watching(1);
      const synced = r.reflector.status().lastSyncTime;
      r.clock.advance(60_000);
      server.createPod(makePod('elsewhere', { nodeName: 'n2' })); // invisible to this selector: the bookmark moves the RV
      server.sendBookmarks();
      await vi.waitFor(() => expect(r.reflector.status().lastSyncResourceVersion).toBe(server.resourceVersion), { interval: 5 });
      expect(synced).toBeDefined();
      expect(r.reflector.status().lastSyncTime).toEqual(new Date(synced!.getTime() + 60_000));
      expect(r.pushes).toHaveLength(1);
    });

    it('counts a re-watch the server answered as a success for lastSyncTime, though no event came on it', async () => {
      const r = start();
      await watching(1);
      const synced = r.reflector.status().lastSyncTime;
      r.clock.advance(60_000);
      server.closeWatches({ bookmark: false }); // a quiet node: no event, no bookmark, the watch times out
      await watching(2);
      await vi.waitFor(() => expect(r.reflector.status().lastSyncTime).toEqual(new Date(synced!.getTime() + 60_000)), { interval: 5 });
      expect(r.reflector.status()).toMatchObject({ relists: 0, watchRestarts: 1, consecutiveFailures: 0 });
    });

    it('logs an event of an unknown type (warns once per type and stream), takes its RV and goes on, without a relist (spec §5.3)', async () => {
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      const r = start({ logger });
      await watching(1);
      server.injectWatchEvent('FUTURE', { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '9000' } });
      server.injectWatchEvent('FUTURE', { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '9001' } });
      server.injectWatchEvent('OTHER', 'no metadata');
      await vi.waitFor(() => expect(r.reflector.status().lastSyncResourceVersion).toBe('9001'), { interval: 5 });
      server.createPod(makePod('a', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 2);
      expect(names(r.store.snapshot())).toEqual(['default/a']);
      expect(r.reflector.status()).toMatchObject({ relists: 0, events: 1, undecodableEvents: 0, consecutiveFailures: 0 });
      expect(r.reflector.status().lastError).toBeUndefined();
      expect(lists()).toHaveLength(1);
      expect(watches()).toHaveLength(1);
      const unknown = lines.filter((l) => l.msg === 'unknown watch event type, ignored').map((l) => [l.level, l.type, l.resourceVersion]);
      expect(unknown).toEqual([
        [40, 'FUTURE', '9000'],
        [20, 'FUTURE', '9001'],
        [40, 'OTHER', undefined],
      ]);
    });

    it('skips objects of the wrong kind without advancing the RV (checklist 61)', async () => {
      const r = start();
      await watching(1);
      server.injectWatchEvent('ADDED', { kind: 'Node', apiVersion: 'v1', metadata: { name: 'n1', resourceVersion: '999' } });
      server.createPod(makePod('a', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 2);
      expect(names(r.store.snapshot())).toEqual(['default/a']);
      expect(r.reflector.status().lastSyncResourceVersion).toBe(server.resourceVersion);
      expect(r.reflector.status().events).toBe(1);
    });

    it('relists at the last RV without a limit after an ERROR 410 event, and at RV "" with limit 500 if that list 410s (checklist 65)', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      const r = start();
      await watching(1);
      server.createPod(makePod('b', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 2);
      const lastRV = server.resourceVersion;
      server.failNext('list', 410);
      server.sendWatchError(410);
      await watching(2);
      expect(lists().slice(1).map((l) => [l.status, q(l).resourceVersion, q(l).limit])).toEqual([
        [410, lastRV, undefined],
        [200, undefined, '500'],
      ]);
      expect(r.clock.sleeps).toEqual([800]);
      expect(r.pushes).toHaveLength(3);
      expect(r.pushes[2]!.changes?.keys).toEqual(new Set());
      expect(r.reflector.status()).toMatchObject({ relists: 1, lastError: { code: 'PODCONFIG_WATCH_EXPIRED' } });
    });

    it('keeps paginating relists at a specific RV once the RV "0" list came back paginated (checklist 71)', async () => {
      for (const n of ['a', 'b', 'c']) server.createPod(makePod(n, { nodeName: 'n1' }));
      start({ pageSize: 2 });
      await watching(1);
      server.sendWatchError(410);
      await watching(2);
      const relist = lists()[2];
      expect(q(relist)).toMatchObject({ resourceVersion: server.resourceVersion, limit: '2' });
    });

    it('relists after backoff when a watch open answers 410', async () => {
      const r = start();
      await watching(1);
      server.failNext('watch', 410);
      r.clock.advance(60_000); // the first watch lived a minute: it ended normally
      server.closeWatches();
      await watching(3);
      expect(watches()[1]!.status).toBe(410);
      expect(lists()).toHaveLength(2);
      expect(r.clock.sleeps).toEqual([800]);
    });

    it('relists when a watch open answers "too large resource version" (D11)', async () => {
      const r = start();
      await watching(1);
      // A 504 whose cause says the RV is ahead of the server (an apiserver that lost its cache): the too-large
      // rule wins over the ≥ 500 re-watch rule, or the reflector would re-watch at an RV the server cannot serve.
      server.failNext('watch', {
        kind: 'status', code: 504, reason: 'Timeout', message: 'Timeout: Too large resource version: 10, current: 5',
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      });
      r.clock.advance(60_000); // the first watch lived a minute: it ended normally
      server.closeWatches();
      await watching(3);
      expect(watches()[1]!.status).toBe(504);
      expect(lists()).toHaveLength(2);
      expect(server.requests.map((req) => [req.watch, req.status])).toEqual([
        [false, 200], [true, 200], [true, 504], [false, 200], [true, 200],
      ]);
      expect(r.clock.sleeps).toEqual([800]);
      expect(r.reflector.status()).toMatchObject({ relists: 1, lastError: { code: 'PODCONFIG_API_STATUS' } });
    });

    it('re-watches at the same RV without relisting when a watch open fails its TLS handshake (D11)', async () => {
      const stop = new AbortController();
      const clock = new InstantClock();
      const pod: Pod = { ...makePod('a'), metadata: { ...makePod('a').metadata, resourceVersion: '5' } };
      let listCalls = 0;
      const watchRVs: (string | undefined)[] = [];
      const listerWatcher: ListerWatcher<Pod> = {
        list: () => {
          listCalls++;
          return Promise.resolve({ items: [pod], resourceVersion: '5' });
        },
        watch: (options, signal) => {
          watchRVs.push(options.resourceVersion);
          if (watchRVs.length === 1) {
            // Lives a minute, moves the RV to 7 with a bookmark, then ends normally (a server timeout).
            return Promise.resolve((async function* (): AsyncGenerator<WatchEvent<Pod>> {
              yield { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '7' } } };
              clock.advance(60_000);
            })());
          }
          if (watchRVs.length === 2) {
            // What kube-client throws for a handshake that failed (core's tls-failure mapping): retryable.
            return Promise.reject(new PodConfigError('PODCONFIG_TLS', 'TLS handshake with 10.0.0.1:6443 failed: ECONNRESET', { retryable: true }));
          }
          stop.abort();
          return Promise.resolve({
            [Symbol.asyncIterator]: () => ({
              next: () => new Promise<IteratorResult<WatchEvent<Pod>>>((resolve) => {
                if (signal.aborted) resolve({ done: true, value: undefined });
                else signal.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true });
              }),
            }),
          });
        },
      };
      const replaced: string[] = [];
      const sink: ReflectorSink<Pod> = { replace: (_items, rv) => void replaced.push(rv), apply: () => undefined };
      const reflector = new Reflector<Pod>({
        listerWatcher, sink, logger: pino({ level: 'silent' }), clock, random: () => 0, expectedKind: 'Pod', watchList: false,
      });
      await reflector.run(stop.signal);
      expect(watchRVs).toEqual(['5', '7', '7']);
      expect(listCalls).toBe(1);
      expect(replaced).toEqual(['5']);
      expect(clock.sleeps).toEqual([800]);
      expect(reflector.status()).toMatchObject({ relists: 0, watchRestarts: 2, lastSyncResourceVersion: '7', lastError: { code: 'PODCONFIG_TLS' } });
    });

    it('warns of the move to a relist whatever the failure streak, where repeated re-watch failures went to debug after three', async () => {
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      start({ logger });
      await watching(1);
      server.failNext('watch', 500, { times: 4 });
      server.failNext('watch', 410);
      server.closeWatches();
      await watching(7);
      expect(lists()).toHaveLength(2);
      const failures = lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('watch failed')).map((l) => [l.level, l.msg]);
      expect(failures).toEqual([
        [40, 'watch failed, re-watching at the last resourceVersion'],
        [40, 'watch failed, re-watching at the last resourceVersion'],
        [40, 'watch failed, re-watching at the last resourceVersion'],
        [20, 'watch failed, re-watching at the last resourceVersion'],
        [40, 'watch failed, relisting'],
      ]);
    });

    it('tells "reflector recovered" at info once the re-watch delivers an event, not when it merely opens', async () => {
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      const r = start({ logger });
      await watching(1);
      server.failNext('watch', 500, { times: 2 });
      server.closeWatches();
      await watching(4);
      const told = () => lines.filter((l) => l.msg === 'reflector recovered' || l.msg === 'watch re-established').map((l) => [l.level, l.msg, l.failures]);
      await expect.poll(told).toEqual([[20, 'watch re-established', 2]]);
      server.createPod(makePod('a', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 2);
      expect(told()).toEqual([[20, 'watch re-established', 2], [30, 'reflector recovered', 2]]);
    });

    it('warns again every 5 minutes of a long failure streak, where its failures after the third went to debug', async () => {
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      const r = start({ logger });
      await watching(1);
      server.failNext('watch', 500, { times: 1000 });
      server.failNext('list', 500, { times: 1000 });
      server.closeWatches();
      const slept = (): number => r.clock.sleeps.reduce((a, b) => a + b, 0);
      await server.until(() => slept() > 11 * 60_000);
      const failures = lines.filter((l) => l.failures !== undefined && String(l.msg).includes('failed') && !String(l.msg).includes('relisting'));
      const late = failures.filter((l) => Number(l.failures) > 3);
      expect(late.filter((l) => l.level === 20).length).toBeGreaterThan(5);
      // 11 minutes of 30 s steps: two reminders, each after 5 minutes of debug lines.
      expect(late.filter((l) => l.level === 40).length).toBeGreaterThanOrEqual(2);
    });

    it('re-watches at the same RV without relisting after 429 (honouring Retry-After), 500 and a reset on open (checklists 66, 67, D11)', async () => {
      const r = start();
      await watching(1);
      const rv = r.reflector.status().lastSyncResourceVersion;
      server.failNext('watch', { kind: 'status', code: 429, retryAfterSeconds: 5 });
      server.failNext('watch', 503);
      server.failNext('watch', { kind: 'reset' });
      r.clock.advance(60_000); // the first watch lived a minute: it ended normally
      server.closeWatches();
      await watching(5);
      expect(watches().map((w) => [w.status, q(w).resourceVersion])).toEqual([
        [200, rv],
        [429, rv],
        [503, rv],
        [0, rv],
        [200, rv],
      ]);
      expect(lists()).toHaveLength(1);
      expect(r.clock.sleeps).toEqual([5000, 1600, 3200]);
    });

    it('re-watches at the same RV without relisting after a 403 ERROR event and a 401, 403, 404 or 400 on open (D11)', async () => {
      const r = start();
      await watching(1);
      server.createPod(makePod('a', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 2);
      const rv = server.resourceVersion;
      server.sendWatchError(403); // RBAC being updated: the stream ends with a Forbidden Status
      await watching(2);
      for (const code of [401, 403, 404, 400]) server.failNext('watch', code);
      server.closeWatches();
      await watching(7);
      expect(watches().slice(1).map((w) => [w.status, q(w).resourceVersion])).toEqual([
        [200, rv], [401, rv], [403, rv], [404, rv], [400, rv], [200, rv],
      ]);
      expect(lists()).toHaveLength(1);
      expect(r.reflector.status()).toMatchObject({ relists: 0, lastError: { code: 'PODCONFIG_API_STATUS' } });
    });

    it('relists after 5 consecutive watch opens refused with 403 (D11)', async () => {
      const r = start();
      await watching(1);
      server.failNext('watch', 403, { times: 5 });
      server.closeWatches();
      await watching(7);
      expect(watches().slice(1, 6).every((w) => w.status === 403)).toBe(true);
      expect(lists()).toHaveLength(2);
      expect(r.reflector.status()).toMatchObject({ relists: 1 });
    });

    it('relists after 5 consecutive failed watch opens (D11)', async () => {
      const r = start();
      await watching(1);
      server.failNext('watch', 500, { times: 5 });
      r.clock.advance(60_000); // the first watch lived a minute: it ended normally
      server.closeWatches();
      await watching(7);
      expect(watches().slice(1, 6).every((w) => w.status === 500)).toBe(true);
      expect(lists()).toHaveLength(2);
      expect(server.requests.findIndex((req) => !req.watch && req !== lists()[0])).toBe(7);
      expect(r.clock.sleeps).toEqual([800, 1600, 3200, 6400, 12800]);
      expect(r.reflector.status()).toMatchObject({ relists: 1 });
    });

    it('counts failed watch opens afresh after the relist they caused (D11)', async () => {
      start();
      await watching(1);
      server.failNext('watch', 500, { times: 5 });
      server.closeWatches();
      await watching(7);
      expect(lists()).toHaveLength(2);
      // The watch after the relist ends at once without an event: one failed attempt, so a re-watch.
      server.closeWatches({ bookmark: false });
      await watching(8);
      expect(lists()).toHaveLength(2);
    });

    it('ends a run of failed watch opens with a quiet stream that lived and ended: four more do not relist (D11, checklist 62)', async () => {
      const r = start();
      await watching(1);
      server.failNext('watch', 500, { times: 4 });
      server.closeWatches();
      await watching(6);
      r.clock.advance(2_000); // the sixth watch lives past the very short window, without an event
      server.failNext('watch', 500, { times: 4 });
      server.closeWatches({ bookmark: false });
      await watching(11);
      expect(watches().slice(6, 10).every((w) => w.status === 500)).toBe(true);
      expect(lists()).toHaveLength(1);
    });

    it('ends a run of failed watch opens with a stream that lived and then broke: four more do not relist (D11)', async () => {
      const r = start();
      await watching(1);
      server.failNext('watch', 500, { times: 4 });
      server.closeWatches();
      await watching(6);
      r.clock.advance(2_000);
      server.failNext('watch', 500, { times: 4 });
      server.resetWatches();
      await watching(11);
      expect(watches().slice(6, 10).every((w) => w.status === 500)).toBe(true);
      expect(lists()).toHaveLength(1);
    });

    it('re-watches at the last RV after a reset mid-stream, without relisting (D11, checklist 68)', async () => {
      const r = start();
      await watching(1);
      server.createPod(makePod('a', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 2);
      const rv = server.resourceVersion;
      server.resetWatches();
      await watching(2);
      expect(q(watches()[1]).resourceVersion).toBe(rv);
      expect(lists()).toHaveLength(1);
      expect(r.clock.sleeps).toEqual([800]);
      expect(r.reflector.status().lastError?.code).toBe('PODCONFIG_SOURCE_UNAVAILABLE');
      server.createPod(makePod('b', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 3);
      expect(names(r.store.snapshot())).toEqual(['default/a', 'default/b']);
    });

    it('ends the failure streak when the server answers the re-watch, before any event or bookmark arrives', async () => {
      const r = start();
      await watching(1);
      server.resetWatches();
      // The fault ran its course once a second watch is open on the reflector's side.
      await vi.waitFor(() => expect(watches().length >= 2 && r.reflector.status().connected).toBe(true), { interval: 5 });
      expect(r.reflector.status()).toMatchObject({
        consecutiveFailures: 0,
        events: 0,
        relists: 0,
        lastError: { code: 'PODCONFIG_SOURCE_UNAVAILABLE' },
      });
      expect(r.clock.sleeps).toEqual([800]);
    });

    it('still relists after 5 very short watches in a row, although each one opened', async () => {
      const r = start();
      await watching(1);
      server.failNext('watch', { kind: 'close' }, { times: 5 });
      r.clock.advance(60_000); // the first watch lived a minute: it ended normally
      server.closeWatches();
      await watching(7);
      expect(watches().slice(1, 6).every((w) => w.status === 200)).toBe(true);
      expect(lists()).toHaveLength(2);
      expect(r.clock.sleeps).toEqual([800, 1600, 3200, 6400, 12800]);
      expect(r.reflector.status()).toMatchObject({ relists: 1, consecutiveFailures: 0 });
    });

    it('re-watches (not relists) after a very short watch, which counts as a failed attempt', async () => {
      const r = start();
      await watching(1);
      server.failNext('watch', { kind: 'close' });
      r.clock.advance(60_000); // the first watch lived a minute: it ended normally
      server.closeWatches();
      await watching(3);
      expect(lists()).toHaveLength(1);
      expect(r.clock.sleeps).toEqual([800]);
      expect(r.reflector.status().lastError?.code).toBe('PODCONFIG_WATCH_SHORT');
    });

    it('times a watch on the monotonic clock: one that ends at once is very short even when the wall clock steps', async () => {
      const clock = new InstantClock();
      // NTP gone wild: every wall-clock reading is a minute later than the one before; no time passes.
      const stepping: Clock = {
        now: () => (clock.stepWall(60_000), clock.now()),
        monotonic: () => clock.monotonic(),
        sleep: (ms, signal) => clock.sleep(ms, signal),
      };
      start({ clock: stepping });
      await watching(1);
      server.failNext('watch', { kind: 'close' });
      clock.advance(60_000); // the first watch lived a minute: it ended normally
      server.closeWatches();
      await watching(3);
      expect(clock.sleeps).toEqual([800]);
    });

    it('relists after a garbage line (an undecodable stream)', async () => {
      const r = start();
      await watching(1);
      server.injectWatchLine('{"type":"ADDED","object":');
      await watching(2);
      expect(lists()).toHaveLength(2);
      expect(r.clock.sleeps).toEqual([800]);
      expect(r.reflector.status().lastError?.code).toBe('PODCONFIG_WATCH_DECODE');
    });

    it('reads a stream written in slow fragments', async () => {
      const r = start();
      await watching(1);
      server.slowWritesMs = 2;
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.createPod(makePod('b', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 3);
      expect(names(r.store.snapshot())).toEqual(['default/a', 'default/b']);
    });

    it('cuts a stalled stream after timeoutSeconds + stallTimeoutMs and re-watches without relisting', async () => {
      server.failNext('watch', { kind: 'stall' });
      const r = start({ minWatchTimeoutSeconds: 1, stallTimeoutMs: 50 });
      await server.until(() => watches().length === 2 && server.openWatches === 1);
      expect(lists()).toHaveLength(1);
      expect(q(watches()[1]).resourceVersion).toBe(q(watches()[0]).resourceVersion);
      expect(r.reflector.status().lastError?.code).toBe('PODCONFIG_TIMEOUT');
    });

    it('cuts a stream gone silent bookmarkSilenceMs after a bookmark (its server sends them: a dead connection), and re-watches without relisting', async () => {
      const r = start({ bookmarkSilenceMs: 100 }); // watches last 300 s or more: only the bookmark rule can cut this one
      await watching(1);
      server.sendBookmarks(); // then nothing: the connection stays open, silent
      await server.until(() => watches().length === 2 && server.openWatches === 1);
      expect(lists()).toHaveLength(1);
      expect(q(watches()[1]).resourceVersion).toBe(q(watches()[0]).resourceVersion);
      expect(r.reflector.status().lastError).toMatchObject({
        code: 'PODCONFIG_TIMEOUT', message: expect.stringContaining('silent for 100 ms, though its server sends bookmarks') as unknown,
      });
    });

    it('cuts a later watch gone silent before its first bookmark, once the server has sent bookmarks (a connection dead from the start)', async () => {
      const r = start({ bookmarkSilenceMs: 100 });
      await watching(1);
      server.sendBookmarks(); // the server sends them; then the connection goes silent
      await server.until(() => watches().length === 2 && server.openWatches === 1);
      // The second watch gets no bookmark at all: only the silence cut armed at its start can end it (it lasts 300 s or more).
      await server.until(() => watches().length === 3 && server.openWatches === 1);
      expect(lists()).toHaveLength(1);
      expect(r.reflector.status()).toMatchObject({ relists: 0, lastError: { code: 'PODCONFIG_TIMEOUT' } });
    });

    it('keeps a stream without bookmarks open however long it is silent, up to timeoutSeconds + stallTimeoutMs', async () => {
      const r = start({ bookmarkSilenceMs: 50 });
      await watching(1);
      server.createPod(makePod('a', { nodeName: 'n1' })); // an event, not a bookmark: no sign the server sends them
      await r.pushed(() => r.pushes.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(watches()).toHaveLength(1);
      expect(server.openWatches).toBe(1);
    });

    it('re-watches a watch that delivered and ended within 1 s after the rest of that second, not as a failure (a server or proxy that ends each watch at once)', async () => {
      const r = start();
      await watching(1);
      server.sendBookmarks(); // an event: not a very short watch
      server.closeWatches();
      await watching(2);
      expect(r.clock.sleeps).toEqual([1000]); // the clock did not move: the whole second
      expect(lists()).toHaveLength(1);
      expect(r.reflector.status()).toMatchObject({ consecutiveFailures: 0, relists: 0 });
      expect(r.reflector.status().lastError).toBeUndefined();
    });

    it('resets the backoff only after 2 minutes without a failure (D12)', async () => {
      const r = start();
      await watching(1);
      server.failNext('watch', 500, { times: 2 });
      r.clock.advance(60_000); // the first watch lived a minute: it ended normally
      server.closeWatches();
      await watching(4);
      server.resetWatches();
      await watching(5);
      expect(r.clock.sleeps).toEqual([800, 1600, 3200]);
      r.clock.advance(90_000); // not yet: the steps go on doubling
      server.resetWatches();
      await watching(6);
      expect(r.clock.sleeps).toEqual([800, 1600, 3200, 6400]);
      r.clock.advance(120_000);
      server.resetWatches();
      await watching(7);
      expect(r.clock.sleeps).toEqual([800, 1600, 3200, 6400, 800]);
    });

    it('returns on abort, closing the stream', async () => {
      const r = start();
      await watching(1);
      controller.abort();
      await running;
      await server.until(() => server.openWatches === 0);
      expect(r.reflector.status().connected).toBe(false);
    });
  });

  describe('run() with watch-list (D13)', () => {
    it('lets macrotasks run between the initial set and the events behind it, even when they are already buffered', async () => {
      // An in-memory stream: every event is available at once, as in one network read.
      const meta = (name: string, rv: string): Pod => ({ ...makePod(name), metadata: { ...makePod(name).metadata, resourceVersion: rv } });
      const events: WatchEvent<Pod>[] = [
        { type: 'ADDED', object: meta('p1', '1') },
        { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '1', annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } } },
        { type: 'MODIFIED', object: meta('p1', '2') },
      ];
      const stop = new AbortController();
      const listerWatcher: ListerWatcher<Pod> = {
        list: () => Promise.reject(new Error('not used')),
        watch: (_options, signal) => Promise.resolve((async function* stream() {
          yield* events;
          if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        })()),
      };
      const order: string[] = [];
      const sink: ReflectorSink<Pod> = {
        replace: () => {
          order.push('replace');
          setImmediate(() => order.push('macrotask')); // where LatestByKey wakes the merger
        },
        apply: (event) => {
          order.push(`apply ${event.object.metadata?.resourceVersion}`);
          stop.abort();
        },
      };
      const reflector = new Reflector<Pod>({ listerWatcher, sink, logger: pino({ level: 'silent' }), clock: new InstantClock(), expectedKind: 'Pod' });
      await reflector.run(stop.signal);
      expect(order).toEqual(['replace', 'macrotask', 'apply 2']);
    });

    it('takes events a stream already holds through nextBuffered(), without next(), and still lets macrotasks run after the initial set', async () => {
      const meta = (name: string, rv: string): Pod => ({ ...makePod(name), metadata: { ...makePod(name).metadata, resourceVersion: rv } });
      const events: WatchEvent<Pod>[] = [
        { type: 'ADDED', object: meta('p1', '1') },
        { type: 'ADDED', object: meta('p2', '1') },
        { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '1', annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } } },
        { type: 'MODIFIED', object: meta('p1', '2') },
      ];
      const stop = new AbortController();
      let nextCalls = 0;
      const listerWatcher: ListerWatcher<Pod> = {
        list: () => Promise.reject(new Error('not used')),
        watch: (_options, signal) => {
          let at = 0;
          const iterator: BufferedIterator<WatchEvent<Pod>> = {
            nextBuffered: () => (at < events.length ? { done: false, value: events[at++]! } : undefined),
            next: () => {
              nextCalls++;
              return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true }));
            },
          };
          return Promise.resolve({ [Symbol.asyncIterator]: () => iterator });
        },
      };
      const order: string[] = [];
      const sink: ReflectorSink<Pod> = {
        replace: (objects) => {
          order.push(`replace ${objects.length}`);
          setImmediate(() => order.push('macrotask'));
        },
        apply: (event) => {
          order.push(`apply ${event.object.metadata?.resourceVersion} after ${nextCalls} next()`);
          stop.abort();
        },
      };
      const reflector = new Reflector<Pod>({ listerWatcher, sink, logger: pino({ level: 'silent' }), clock: new InstantClock(), expectedKind: 'Pod' });
      await reflector.run(stop.signal);
      // The one next() is the wait once the buffered events ran out (this stream's next() never yields an event).
      expect(order).toEqual(['replace 2', 'macrotask', 'apply 2 after 1 next()']);
    });

    it('ends a stream whose nextBuffered() throws as one whose next() rejects: it watches again', async () => {
      const meta = (name: string): Pod => ({ ...makePod(name), metadata: { ...makePod(name).metadata, resourceVersion: '1' } });
      const stop = new AbortController();
      let watches = 0;
      const listerWatcher: ListerWatcher<Pod> = {
        list: () => Promise.reject(new Error('not used')),
        watch: (_options, signal) => {
          watches++;
          const broken = watches === 1;
          const events: WatchEvent<Pod>[] = [
            { type: 'ADDED', object: meta('p1') },
            { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '1', annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } } },
          ];
          let at = 0;
          const iterator: BufferedIterator<WatchEvent<Pod>> = {
            nextBuffered: () => {
              if (broken && at === 1) throw new SourceUnavailableError('connection reset');
              return at < events.length ? { done: false, value: events[at++]! } : undefined;
            },
            next: () => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true })),
          };
          return Promise.resolve({ [Symbol.asyncIterator]: () => iterator });
        },
      };
      const replaced: string[][] = [];
      const sink: ReflectorSink<Pod> = {
        replace: (objects) => {
          replaced.push(objects.map((o) => o.metadata!.name!));
          stop.abort();
        },
        apply: () => undefined,
      };
      const reflector = new Reflector<Pod>({ listerWatcher, sink, logger: pino({ level: 'silent' }), clock: new InstantClock(), expectedKind: 'Pod' });
      await reflector.run(stop.signal);
      expect(watches).toBe(2);
      expect(replaced).toEqual([['p1']]);
      expect(reflector.status().consecutiveFailures).toBe(0);
    });

    it('keeps a streaming list open after its initial-events-end while no periodic bookmark has come (a server without a watch cache sends none)', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      // The initial events' stall bound (stallTimeoutMs) ends with them too: the watch's own bound is 300 s or more.
      const r = start({ watchList: true, bookmarkSilenceMs: 50, stallTimeoutMs: 100 });
      await r.pushed(() => r.pushes.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(watches()).toHaveLength(1);
      expect(server.openWatches).toBe(1);
      expect(r.reflector.status()).toMatchObject({ relists: 0, consecutiveFailures: 0 });
      expect(r.reflector.status().lastError).toBeUndefined();
    });

    it('cuts a relist\'s streaming list gone silent after its initial-events-end once a periodic bookmark has come', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      const r = start({ watchList: true, bookmarkSilenceMs: 100 });
      await r.pushed(() => r.pushes.length === 1);
      server.sendBookmarks(); // a periodic bookmark: the server sends them
      server.sendWatchError(410); // then a relist by streaming list, silent after its end bookmark
      await r.pushed(() => r.pushes.length === 2);
      expect(q(watches()[1]).sendInitialEvents).toBe('true');
      // Only the silence cut armed at the relist's end bookmark can end it (it lasts 300 s or more).
      await server.until(() => watches().length === 3 && server.openWatches === 1);
      expect(q(watches()[2]).sendInitialEvents).toBeUndefined();
      expect(q(watches()[2]).resourceVersion).toBe(r.reflector.status().lastSyncResourceVersion);
      expect(r.reflector.status()).toMatchObject({ relists: 1, lastError: { code: 'PODCONFIG_TIMEOUT' } });
    });

    it('streams the initial state, pushes exactly once on the initial-events-end bookmark, and keeps the stream (checklist 72)', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.createPod(makePod('b', { nodeName: 'n1' }));
      const r = start({ watchList: true });
      await watching(1);
      await r.pushed(() => r.pushes.length === 1);
      expect(q(watches()[0])).toEqual({
        fieldSelector: 'spec.nodeName=n1',
        watch: 'true',
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: 'true',
        sendInitialEvents: 'true',
        timeoutSeconds: '300',
      });
      expect(lists()).toHaveLength(0);
      expect(names(r.pushes[0]!.snapshot)).toEqual(['default/a', 'default/b']);
      expect(r.reflector.status()).toMatchObject({ synced: true, watchList: true, lastSyncResourceVersion: server.resourceVersion });

      server.deletePod('default', 'a');
      await r.pushed(() => r.pushes.length === 2);
      expect(names(r.pushes[1]!.snapshot)).toEqual(['default/b']);
      expect(watches()).toHaveLength(1);

      server.closeWatches();
      await watching(2);
      expect(q(watches()[1])).toMatchObject({ resourceVersion: server.resourceVersion, allowWatchBookmarks: 'true' });
      expect(q(watches()[1]).sendInitialEvents).toBeUndefined();
      expect(r.reflector.status()).toMatchObject({ relists: 0, watchRestarts: 1 });
    });

    it('skips an object of the wrong kind among the initial events of a streaming list (checklists 61, 72)', async () => {
      const pod: Pod = { ...makePod('a', { nodeName: 'n1' }), kind: 'Pod', apiVersion: 'v1' };
      pod.metadata = { ...pod.metadata, resourceVersion: '10' };
      const node = { kind: 'Node', apiVersion: 'v1', metadata: { name: 'n1', resourceVersion: '11' } } as unknown as Pod;
      const events: WatchEvent<Pod>[] = [
        { type: 'ADDED', object: pod },
        { type: 'ADDED', object: node },
        { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '12', annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } } },
      ];
      const stop = new AbortController();
      const listerWatcher: ListerWatcher<Pod> = {
        list: () => Promise.reject(new Error('not used')),
        watch: (_options, signal) => Promise.resolve({
          async *[Symbol.asyncIterator]() {
            yield* events;
            await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          },
        }),
      };
      const replaced: string[][] = [];
      const sink: ReflectorSink<Pod> = {
        replace: (objects) => {
          replaced.push(objects.map((o) => `${o.kind}/${o.metadata!.name!}`));
          stop.abort();
        },
        apply: () => undefined,
      };
      const reflector = new Reflector<Pod>({ listerWatcher, sink, logger: pino({ level: 'silent' }), clock: new InstantClock(), expectedKind: 'Pod', watchList: true });
      await reflector.run(stop.signal);
      expect(replaced).toEqual([['Pod/a']]);
      expect(reflector.status().lastSyncResourceVersion).toBe('12');
    });

    it('lets timers run while a stream delivers only skipped events (another kind), even from a lister-watcher without I/O', async () => {
      const node = { kind: 'Node', apiVersion: 'v1', metadata: { name: 'n1', resourceVersion: '11' } } as unknown as Pod;
      const STREAM = 300_000; // events, each resolved in a microtask: many slices' worth
      let delivered = 0;
      const listerWatcher: ListerWatcher<Pod> = {
        list: () => Promise.resolve({ items: [], resourceVersion: '10' }),
        watch: () => Promise.resolve({
          async *[Symbol.asyncIterator]() {
            while (delivered < STREAM) {
              delivered++;
              yield { type: 'ADDED' as const, object: node };
            }
          },
        }),
      };
      const stop = new AbortController();
      const sink: ReflectorSink<Pod> = { replace: () => undefined, apply: () => undefined };
      const reflector = new Reflector<Pod>({ listerWatcher, sink, logger: pino({ level: 'silent' }), clock: new InstantClock(), expectedKind: 'Pod', watchList: false });
      const running = reflector.run(stop.signal);
      // A timer fires only when the reflector's loop yields to the event loop.
      const deliveredWhenTimerRan = await new Promise<number>((resolve) => setTimeout(() => resolve(delivered), 1));
      stop.abort();
      await running;
      expect(deliveredWhenTimerRan).toBeLessThan(STREAM);
    });

    it('re-streams from the last RV after a relist-worthy error', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      const r = start({ watchList: true });
      await r.pushed(() => r.pushes.length === 1);
      server.createPod(makePod('b', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 2);
      server.injectWatchLine('garbage');
      await r.pushed(() => r.pushes.length === 3);
      expect(q(watches()[1])).toMatchObject({ sendInitialEvents: 'true', resourceVersion: server.resourceVersion });
      expect(names(r.pushes[2]!.snapshot)).toEqual(['default/a', 'default/b']);
      expect(r.reflector.status().relists).toBe(1);
    });

    it('falls back to a paginated list in the same cycle when the server rejects the parameters (checklist 73)', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.watchList = 'reject';
      const r = start({ watchList: true });
      await watching(2);
      expect(watches()[0]!.status).toBe(422);
      expect(q(lists()[0])).toMatchObject({ resourceVersion: '0', limit: '500' });
      expect(q(watches()[1]).sendInitialEvents).toBeUndefined();
      expect(r.clock.sleeps).toEqual([]);
      expect(r.pushes).toHaveLength(1);
      expect(r.reflector.status().watchList).toBe(false);
    });

    it('falls back to a list for this sync only on another non-retriable error (403)', async () => {
      server.failNext('watch', 403);
      const r = start({ watchList: true });
      await watching(2);
      expect(watches()[0]!.status).toBe(403);
      expect(lists()).toHaveLength(1);
      expect(r.pushes).toHaveLength(1);
      expect(r.reflector.status()).toMatchObject({ watchList: true, lastError: { code: 'PODCONFIG_API_STATUS' } });
      server.injectWatchLine('garbage'); // relist: streams again
      await r.pushed(() => r.pushes.length === 2);
      expect(q(watches()[2]).sendInitialEvents).toBe('true');
    });

    it('throttles the warning of a fallback that recurs at every sync, as it throttles failures', async () => {
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      server.failNext('watch', 403, { times: 1000, when: (req) => req.query.get('sendInitialEvents') === 'true' });
      server.failNext('list', 403, { times: 1000 });
      const r = start({ watchList: true, logger });
      await server.until(() => r.clock.sleeps.length >= 6);
      const levels = lines.filter((l) => l.msg === 'watch-list failed, falling back to LIST/WATCH for this sync').map((l) => l.level);
      expect(levels.slice(0, 5)).toEqual([40, 40, 40, 20, 20]);
    });

    it('falls back to a list when the server ignores sendInitialEvents and sends a plain bookmark', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.watchList = 'ignore';
      const r = start({ watchList: true });
      await watching(1);
      server.sendBookmarks();
      await watching(2);
      expect(lists()).toHaveLength(1);
      expect(r.pushes).toHaveLength(1);
      expect(names(r.pushes[0]!.snapshot)).toEqual(['default/a']);
      expect(r.reflector.status().watchList).toBe(false);
    });

    it('falls back to a list for good when the server sends a change before the end bookmark (it ignores sendInitialEvents), however busy the pods', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.watchList = 'ignore';
      const r = start({ watchList: true }); // stallTimeoutMs 30 s: only the MODIFIED can end the wait
      await watching(1);
      server.updatePodStatus('default', 'a', { phase: 'Running' });
      await watching(2);
      expect(lists()).toHaveLength(1);
      expect(r.pushes).toHaveLength(1);
      expect(names(r.pushes[0]!.snapshot)).toEqual(['default/a']);
      expect(r.reflector.status().watchList).toBe(false);
    });

    it('falls back to a list for this sync when the server ignores sendInitialEvents and goes silent before the end bookmark', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.watchList = 'ignore';
      const r = start({ watchList: true, stallTimeoutMs: 50 });
      await watching(2);
      expect(lists()).toHaveLength(1);
      expect(r.pushes).toHaveLength(1);
      expect(r.reflector.status()).toMatchObject({
        watchList: true, lastError: { message: expect.stringContaining('no watch-list event for 50 ms before the initial-events-end bookmark') as unknown },
      });
    });

    it('streams again at the next sync after one stalled streaming list (a connection that died proves nothing about the server)', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      server.failNext('watch', { kind: 'stall' }, { when: (req) => req.query.get('sendInitialEvents') === 'true' });
      const r = start({ watchList: true, stallTimeoutMs: 50 });
      await r.pushed(() => r.pushes.length === 1);
      await watching(2); // the stalled streaming list, then the list's watch
      expect(lists()).toHaveLength(1);
      server.injectWatchLine('garbage'); // undecodable: relist
      await r.pushed(() => r.pushes.length === 2);
      expect(lists()).toHaveLength(1);
      expect(q(watches().at(-1)).sendInitialEvents).toBe('true');
      expect(r.reflector.status().watchList).toBe(true);
    });

    it('retries the streaming list at once at RV "" when its RV is too old', async () => {
      server.createPod(makePod('a', { nodeName: 'n1' }));
      const r = start({ watchList: true });
      await r.pushed(() => r.pushes.length === 1);
      const rv = server.resourceVersion;
      server.failNext('watch', 410, { when: (req) => req.query.get('resourceVersion') === rv });
      server.injectWatchLine('garbage'); // undecodable: relist, i.e. stream the state again from the last RV
      await r.pushed(() => r.pushes.length === 2);
      expect(watches().map((w) => [w.status, q(w).resourceVersion, q(w).sendInitialEvents])).toEqual([
        [200, undefined, 'true'],
        [410, rv, 'true'],
        [200, undefined, 'true'],
      ]);
      expect(r.clock.sleeps).toEqual([800]);
    });

    it('re-watches without a relist after a 5xx ERROR event', async () => {
      const r = start({ watchList: true });
      await r.pushed(() => r.pushes.length === 1);
      server.createPod(makePod('a', { nodeName: 'n1' }));
      await r.pushed(() => r.pushes.length === 2);
      const rv = server.resourceVersion;
      server.sendWatchError(500);
      await watching(2);
      expect(q(watches()[1])).toMatchObject({ resourceVersion: rv });
      expect(q(watches()[1]).sendInitialEvents).toBeUndefined();
      expect(r.clock.sleeps).toEqual([800]);
      expect(r.pushes).toHaveLength(2);
    });

    it('backs off and retries the streaming list on 5xx, and lists instead after 5 failures', async () => {
      server.failNext('watch', 503, { times: 5 });
      const r = start({ watchList: true });
      await watching(6);
      expect(r.clock.sleeps).toEqual([800, 1600, 3200, 6400, 12800]);
      expect(lists()).toHaveLength(1);
      expect(server.requests.findIndex((req) => !req.watch)).toBe(5);
      expect(r.pushes).toHaveLength(1);
      expect(r.reflector.status().watchList).toBe(true);
    });
  });
});
