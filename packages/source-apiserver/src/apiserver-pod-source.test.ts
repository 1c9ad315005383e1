import { setImmediate as tick } from 'node:timers/promises';
import type { BufferedIterator, ListerWatcher, ResourceClient, WatchEvent } from '@podconfig/cache';
import { ConfigInvalidError, PodConfigError, type Pod, type PodSetUpdate, type PullIterator } from '@podconfig/core';
import { KubeClient, type ClusterConfig } from '@podconfig/kube-client';
import { FakeApiServer, InstantClock, makePod, type FakeRequest } from '@podconfig/testing';
import { pino, type Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiserverPodSource, type ApiserverPodSourceOptions } from './apiserver-pod-source.js';
import { ErrorCountingListerWatcher } from './error-counting-lister-watcher.js';
import { NodeSyncSink } from './node-sync-sink.js';

const NODE = 'node-a';
const NODE_NOT_FOUND = 'node not found in the API server: no pod may be bound to it; is the node name right?';
const silent = pino({ level: 'silent' });
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function clusterConfig(url: string): ClusterConfig {
  return { server: new URL(url), tls: { insecureSkipVerify: false }, auth: { type: 'none' }, source: 'test', identity: 'test user', warnings: [] };
}

async function fakeServer(options: ConstructorParameters<typeof FakeApiServer>[0] = {}): Promise<FakeApiServer> {
  const fake = await new FakeApiServer(options).start();
  cleanups.push(() => fake.close());
  return fake;
}

function kubeClient(fake: FakeApiServer): KubeClient {
  const client = new KubeClient({ config: clusterConfig(fake.url), logger: silent, clock: new InstantClock(), qps: Infinity });
  cleanups.push(() => client.close());
  return client;
}

/** A logger that keeps its JSON lines. */
function capture(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

interface Running {
  readonly source: ApiserverPodSource;
  readonly updates: PullIterator<PodSetUpdate>;
  readonly controller: AbortController;
  next(): Promise<PodSetUpdate>;
}

/** Starts `updates()`; ended (and awaited) after the test. */
function start(client: ResourceClient, options: Partial<ApiserverPodSourceOptions> = {}): Running {
  const source = new ApiserverPodSource({ client, nodeName: NODE, logger: silent, clock: new InstantClock(), ...options });
  const controller = new AbortController();
  const updates = source.updates(controller.signal);
  cleanups.push(async () => {
    controller.abort();
    await updates.return();
  });
  return {
    source,
    updates,
    controller,
    async next() {
      const result = await updates.next();
      if (result.done === true) throw new Error('updates() ended');
      return result.value;
    },
  };
}

async function* noEvents(): AsyncGenerator<unknown> {
  // A watch stream that ends at once.
}

const keys = (update: PodSetUpdate): string[] => [...update.pods.keys()].sort();

/** Waits until `predicate` holds, re-checking after each turn of the event loop (an observable condition, not a sleep). */
async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await tick();
}

/** A node-sync progress period no backoff delay can equal (D12 stays below 60 s). */
const POLL_MS = 3_600_000;

/**
 * An InstantClock for tests that count the reflectors' sleeps: a sleep of {@link POLL_MS} (the
 * node-sync progress loop) waits for its signal like a real hour-long timer and is not recorded.
 */
class ReflectorClock extends InstantClock {
  override sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (ms !== POLL_MS) return super.sleep(ms, signal);
    return new Promise((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
}

/**
 * An InstantClock whose backoff sleeps (anything but {@link POLL_MS}, which waits like {@link ReflectorClock}'s) never
 * end before their signal: a reflector that failed stays failed, for a test to look at.
 */
class BackoffHoldingClock extends InstantClock {
  /** The sleeps held so far (backoff delays). */
  readonly held: number[] = [];

  override sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (ms !== POLL_MS) this.held.push(ms);
    return new Promise((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
}

const MANAGED_FIELDS = [
  { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': {} } } },
];

/** A pod as a real API server keeps it: with server-side-apply bookkeeping. */
function withManagedFields(pod: Pod): Pod {
  return { ...pod, metadata: { ...pod.metadata, managedFields: MANAGED_FIELDS } };
}

const isPods = (r: FakeRequest): boolean => r.path === '/api/v1/pods';
const isNodes = (r: FakeRequest): boolean => r.path === '/api/v1/nodes';
const isPodsPath = (path: string): boolean => path === '/api/v1/pods';

describe(ApiserverPodSource.name, () => {
  describe('constructor', () => {
    it('rejects an empty node name and a non-positive poll period', () => {
      const client: ResourceClient = { getJSON: () => Promise.resolve({}), watchJSON: () => Promise.resolve(noEvents()) };
      const base = { client, logger: silent, clock: new InstantClock() };
      expect(() => new ApiserverPodSource({ ...base, nodeName: '' })).toThrow(ConfigInvalidError);
      expect(() => new ApiserverPodSource({ ...base, nodeName: 'a b' })).toThrow('apiserver source: nodeName: "a b" is not a valid node name (a DNS-1123 subdomain)');
      expect(() => new ApiserverPodSource({ ...base, nodeName: NODE, nodeSyncPollMs: 0 })).toThrow(ConfigInvalidError);
    });

    it('does no I/O', () => {
      const calls: string[] = [];
      const client: ResourceClient = {
        getJSON: (path) => (calls.push(path), Promise.resolve({})),
        watchJSON: (path) => (calls.push(path), Promise.resolve(noEvents())),
      };
      const source = new ApiserverPodSource({ client, nodeName: NODE, logger: silent, clock: new InstantClock() });
      expect(source.name).toBe('api');
      expect(calls).toEqual([]);
      expect(source.status()).toMatchObject({ seen: false, healthy: false, pods: 0, counters: { relists: 0, watch_restarts: 0, errors: 0 } });
    });
  });

  describe('updates()', () => {
    it('makes no pod request before the node list has completed, then opens the gate although the Node does not exist (checklist 52)', async () => {
      const fake = await fakeServer();
      fake.createPod(makePod('p1', { nodeName: NODE }));
      const inner = kubeClient(fake);
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      // A real KubeClient behind a recorder that holds the node request's answer until the test releases it.
      const client: ResourceClient = {
        getJSON: async (path, query, signal) => {
          order.push(`list ${path}`);
          const body = await inner.getJSON(path, query, signal);
          if (path === '/api/v1/nodes') await held;
          order.push(`listed ${path}`);
          return body;
        },
        watchJSON: async (path, query, signal) => {
          order.push(`watch ${path}`);
          return inner.watchJSON(path, query, signal);
        },
      };
      const { logger, lines } = capture();
      const run = start(client, { watchList: false, logger });
      const first = run.next();
      await until(() => lines.some((l) => l.msg === 'waiting for node sync before watching apiserver pods') && order.includes('list /api/v1/nodes'));
      expect(run.source.status().details).toMatchObject({ nodeSynced: false });
      expect(order.filter((o) => o.includes('/api/v1/pods'))).toEqual([]);
      release();
      expect(keys(await first)).toEqual(['default/p1']);
      expect(order.indexOf('listed /api/v1/nodes')).toBeLessThan(order.indexOf('list /api/v1/pods'));
      expect(run.source.status().details).toMatchObject({ nodeSynced: true, nodeExists: false });
      expect(lines.find((l) => l.msg === 'node sync complete, watching apiserver pods')).toMatchObject({ component: 'source.api', nodeExists: false });
      expect(lines.filter((l) => l.msg === NODE_NOT_FOUND)).toMatchObject([{ level: 40, nodeName: NODE }]);
    });

    it('follows "node not found" with "node found" when the Node registers later, and warns when it is deleted', async () => {
      const fake = await fakeServer();
      const { logger, lines } = capture();
      const run = start(kubeClient(fake), { logger });
      expect(keys(await run.next())).toEqual([]);
      expect(lines.filter((l) => l.msg === NODE_NOT_FOUND)).toHaveLength(1);
      fake.createNode({ metadata: { name: NODE } });
      await until(() => lines.some((l) => l.msg === 'node found in the API server'));
      expect(run.source.status().details).toMatchObject({ nodeExists: true });
      fake.deleteNode(NODE);
      await until(() => lines.some((l) => l.msg === 'node deleted from the API server: no pod may be bound to it'));
      const said = lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('node ') && l.level !== 20);
      expect(said.map((l) => [l.level, l.msg, l.nodeName])).toEqual([
        [30, 'node sync complete, watching apiserver pods', NODE],
        [40, NODE_NOT_FOUND, NODE],
        [30, 'node found in the API server', NODE],
        [40, 'node deleted from the API server: no pod may be bound to it', NODE],
      ]);
    });

    it('logs "node sync has not completed yet" every nodeSyncPollMs on its clock, until the gate opens', async () => {
      const fake = await fakeServer();
      const inner = kubeClient(fake);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const client: ResourceClient = {
        getJSON: async (path, query, signal) => {
          const body = await inner.getJSON(path, query, signal);
          if (path === '/api/v1/nodes') await held;
          return body;
        },
        watchJSON: (path, query, signal) => inner.watchJSON(path, query, signal),
      };
      const clock = new InstantClock();
      const { logger, lines } = capture();
      const run = start(client, { watchList: false, logger, clock, nodeSyncPollMs: 7_000 });
      const progress = (): Record<string, unknown>[] => lines.filter((l) => l.msg === 'node sync has not completed yet');
      const polls = (): number => clock.sleeps.filter((ms) => ms === 7_000).length;
      const first = run.next();
      await until(() => progress().length >= 3);
      expect(progress()[0]).toMatchObject({ level: 20, component: 'source.api', nodeName: NODE });
      expect(polls()).toBeGreaterThanOrEqual(progress().length);
      release();
      expect(keys(await first)).toEqual([]);
      // The loop ended with the gate: a pod event later (a network round trip) adds no progress sleep or line.
      const [sleepsAtSync, linesAtSync] = [polls(), progress().length];
      fake.createPod(makePod('p1', { nodeName: NODE }));
      expect(keys(await run.next())).toEqual(['default/p1']);
      expect([polls(), progress().length]).toEqual([sleepsAtSync, linesAtSync]);
    });

    it('retries a failing node list and asks for pods only after it succeeded', async () => {
      const fake = await fakeServer();
      fake.createNode({ metadata: { name: NODE } });
      fake.failNext('list', 500, { times: 2, when: isNodes });
      fake.failNext('watch', 503, { times: 2, when: isNodes });
      const { logger, lines } = capture();
      const run = start(kubeClient(fake), { logger });
      expect(keys(await run.next())).toEqual([]);
      expect(lines.filter((l) => l.msg === NODE_NOT_FOUND)).toEqual([]); // the Node exists: no warning
      const firstPods = fake.requests.findIndex(isPods);
      const lastNodeFailure = fake.requests.reduce((at, r, i) => (isNodes(r) && r.status >= 500 ? i : at), -1);
      expect(lastNodeFailure).toBeGreaterThanOrEqual(0);
      expect(firstPods).toBeGreaterThan(lastNodeFailure);
      expect(run.source.status().details).toMatchObject({ nodeSynced: true, nodeExists: true });
      expect(run.source.status().counters.errors).toBeGreaterThanOrEqual(2);
    });

    it('asks for this node only: field selectors on nodes and pods, watch-list parameters by default (checklist 54, 72)', async () => {
      const fake = await fakeServer();
      const run = start(kubeClient(fake));
      await run.next();
      const node = fake.requests.find(isNodes)!;
      const pods = fake.requests.find(isPods)!;
      expect(node.query.get('fieldSelector')).toBe(`metadata.name=${NODE}`);
      expect(pods.watch).toBe(true);
      expect(Object.fromEntries(pods.query)).toMatchObject({
        fieldSelector: `spec.nodeName=${NODE}`,
        sendInitialEvents: 'true',
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: 'true',
      });
      expect(pods.query.has('resourceVersion')).toBe(false);
    });

    it('lists with resourceVersion=0 and limit=500 when watch-list is off (checklist 54)', async () => {
      const fake = await fakeServer();
      const run = start(kubeClient(fake), { watchList: false });
      await run.next();
      const pods = fake.requests.find(isPods)!;
      expect(pods.watch).toBe(false);
      expect(Object.fromEntries(pods.query)).toMatchObject({ fieldSelector: `spec.nodeName=${NODE}`, resourceVersion: '0', limit: '500' });
      expect(run.source.status().details).toMatchObject({ watchList: false });
    });

    it.each([true, false])('yields the node\'s pods first, then one SET per change with its change key (watchList %s)', async (watchList) => {
      const fake = await fakeServer();
      fake.createPod(makePod('p1', { nodeName: NODE }));
      fake.createPod(makePod('other', { nodeName: 'node-b' }));
      fake.createPod(makePod('unscheduled'));
      const run = start(kubeClient(fake), { watchList });
      const first = await run.next();
      expect(first).toMatchObject({ source: 'api', op: 'SET' });
      expect(keys(first)).toEqual(['default/p1']);

      fake.createPod(makePod('p2', { nodeName: NODE, namespace: 'kube-system' }));
      const added = await run.next();
      expect(keys(added)).toEqual(['default/p1', 'kube-system/p2']);
      expect(added.changes?.base).toBe(first.pods);
      expect([...added.changes!.keys]).toEqual(['kube-system/p2']);

      fake.updatePod({ ...fake.getPod('default', 'p1')!, metadata: { ...fake.getPod('default', 'p1')!.metadata, labels: { app: 'x' } } });
      const updated = await run.next();
      expect(updated.pods.get('default/p1')?.metadata?.labels).toEqual({ app: 'x' });
      expect([...updated.changes!.keys]).toEqual(['default/p1']);

      fake.updatePodStatus('default', 'p1', { phase: 'Running' });
      expect((await run.next()).pods.get('default/p1')?.status?.phase).toBe('Running');

      fake.deletePod('default', 'p1', { gracePeriodSeconds: 30 });
      const terminating = await run.next();
      expect(terminating.pods.get('default/p1')?.metadata?.deletionTimestamp).toBeDefined();

      fake.deletePod('default', 'p1');
      const deleted = await run.next();
      expect(keys(deleted)).toEqual(['kube-system/p2']);
      expect([...deleted.changes!.keys]).toEqual(['default/p1']);
      // With and without changes or a removed pod, every SET has one object shape (podSetUpdate).
      for (const set of [first, added, updated, deleted]) expect(Object.keys(set)).toEqual(['source', 'op', 'pods', 'changes', 'removed']);
      expect(deleted.removed?.size).toBe(1);

      // A pod bound to this node later (pods/binding) arrives as a MODIFIED that now matches the selector.
      fake.updatePod({ ...fake.getPod('default', 'unscheduled')!, spec: { ...fake.getPod('default', 'unscheduled')!.spec!, nodeName: NODE } });
      expect(keys(await run.next())).toEqual(['default/unscheduled', 'kube-system/p2']);
      expect(run.source.status()).toMatchObject({ seen: true, provisional: false, healthy: true, pods: 2, details: { connected: true, podsSynced: true } });
    });

    it.each([true, false])('drops metadata.managedFields by default, from the initial sync and from watch events (watchList %s)', async (watchList) => {
      const fake = await fakeServer();
      fake.createPod(withManagedFields(makePod('p1', { nodeName: NODE })));
      const run = start(kubeClient(fake), { watchList });
      const first = await run.next();
      expect(keys(first)).toEqual(['default/p1']);
      expect(first.pods.get('default/p1')?.metadata).not.toHaveProperty('managedFields');
      expect(first.pods.get('default/p1')?.metadata).toMatchObject({ name: 'p1', uid: fake.getPod('default', 'p1')?.metadata?.uid });

      fake.createPod(withManagedFields(makePod('p2', { nodeName: NODE })));
      const added = await run.next();
      expect(added.pods.get('default/p2')?.metadata).not.toHaveProperty('managedFields');
      const p1 = fake.getPod('default', 'p1')!;
      fake.updatePod({ ...p1, metadata: { ...p1.metadata, labels: { app: 'x' } } });
      const updated = await run.next();
      expect(updated.pods.get('default/p1')?.metadata?.labels).toEqual({ app: 'x' });
      expect(updated.pods.get('default/p1')?.metadata).not.toHaveProperty('managedFields');
      // The server still has them: the source dropped them.
      expect(fake.getPod('default', 'p1')?.metadata?.managedFields).toEqual(MANAGED_FIELDS);
    });

    it.each([true, false])('hands on the same spec object after a status change, and a new one after a spec change (watchList %s)', async (watchList) => {
      const fake = await fakeServer();
      fake.createPod(withManagedFields(makePod('p1', { nodeName: NODE })));
      const run = start(kubeClient(fake), { watchList });
      await run.next();
      fake.updatePodStatus('default', 'p1', { phase: 'Running' });
      const before = (await run.next()).pods.get('default/p1')!;
      fake.updatePodStatus('default', 'p1', { phase: 'Failed' });
      const statusChanged = (await run.next()).pods.get('default/p1')!;
      expect(statusChanged.status?.phase).toBe('Failed');
      expect(statusChanged.spec).toBe(before.spec);
      const p1 = fake.getPod('default', 'p1')!;
      fake.updatePod({ ...p1, spec: { ...p1.spec!, activeDeadlineSeconds: 30 } });
      const specChanged = (await run.next()).pods.get('default/p1')!;
      expect(specChanged.spec).not.toBe(before.spec);
      expect(specChanged.spec?.activeDeadlineSeconds).toBe(30);
      expect(specChanged.metadata).not.toHaveProperty('managedFields');
    });

    it('keeps metadata.managedFields with keepManagedFields: true', async () => {
      const fake = await fakeServer();
      fake.createPod(withManagedFields(makePod('p1', { nodeName: NODE })));
      const run = start(kubeClient(fake), { keepManagedFields: true });
      expect((await run.next()).pods.get('default/p1')?.metadata?.managedFields).toEqual(MANAGED_FIELDS);
      fake.createPod(withManagedFields(makePod('p2', { nodeName: NODE })));
      expect((await run.next()).pods.get('default/p2')?.metadata?.managedFields).toEqual(MANAGED_FIELDS);
    });

    it.each([false, true])('pushes the initial set deep-frozen and later pods as decoded (keepManagedFields %s)', async (keepManagedFields) => {
      const fake = await fakeServer();
      fake.createPod(withManagedFields(makePod('p1', { nodeName: NODE })));
      const run = start(kubeClient(fake), { keepManagedFields });
      const first = (await run.next()).pods.get('default/p1')!;
      expect(Object.isFrozen(first) && Object.isFrozen(first.metadata) && Object.isFrozen(first.spec!.containers[0])).toBe(true);
      expect(() => { first.metadata!.name = 'changed'; }).toThrow(TypeError);
      fake.createPod(makePod('p2', { nodeName: NODE }));
      const added = (await run.next()).pods.get('default/p2')!;
      expect(Object.isFrozen(added)).toBe(false); // the merger freezes what it keeps of it
    });

    it('never blocks the reflector on a slow consumer: pending SETs coalesce and keep the union of change keys (D16, D17)', async () => {
      const fake = await fakeServer();
      // Pods before the first SET: the union (50 keys) stays within both snapshots' pods, so it is kept
      // (core's coalescePodSets drops a union that outgrows them: a full diff costs no more).
      for (let i = 0; i < 10; i++) fake.createPod(makePod(`base-${i}`, { nodeName: NODE }));
      const run = start(kubeClient(fake));
      const first = await run.next();
      expect(first.pods.size).toBe(10);
      const events = Number(run.source.status().details.events);
      for (let i = 0; i < 50; i++) fake.createPod(makePod(`p${i}`, { nodeName: NODE }));
      fake.deletePod('default', 'p0');
      // The reflector applies all 51 events while nobody asks for a SET.
      await until(() => run.source.status().details.events === events + 51);
      const next = await run.next();
      expect(next.pods.size).toBe(59);
      expect(next.changes?.base).toBe(first.pods);
      expect(next.changes?.keys.size).toBe(50);
      expect(run.source.status().pods).toBe(59);
    });

    it('yields nothing while the pod list fails, and counts the errors (checklist 74)', async () => {
      const fake = await fakeServer();
      fake.createPod(makePod('p1', { nodeName: NODE }));
      fake.failNext('list', 403, { times: 3, when: isPods });
      const clock = new ReflectorClock();
      const run = start(kubeClient(fake), { watchList: false, clock, nodeSyncPollMs: POLL_MS });
      const first = await run.next();
      expect(keys(first)).toEqual(['default/p1']);
      expect(fake.requests.filter((r) => isPods(r) && r.status === 403)).toHaveLength(3);
      const status = run.source.status();
      expect(status.counters.errors).toBe(3);
      expect(status.lastError).toMatchObject({ code: 'PODCONFIG_API_STATUS' });
      // One backoff step per failure (D12: [0.8, 1.6) s, then [1.6, 3.2) s, ...).
      expect(clock.sleeps).toHaveLength(3);
      expect(clock.sleeps[0]).toBeGreaterThanOrEqual(800);
      expect(clock.sleeps[0]).toBeLessThan(1600);
    });

    it('reports relists and watch restarts after a 410 and a dropped connection', async () => {
      const fake = await fakeServer();
      fake.createPod(makePod('p1', { nodeName: NODE }));
      const run = start(kubeClient(fake));
      await run.next();
      await fake.until(() => fake.openWatches === 2);
      fake.sendWatchError(410);
      fake.createPod(makePod('p2', { nodeName: NODE }));
      await until(() => (run.source.status().counters.relists ?? 0) >= 1);
      let update = await run.next();
      while (update.pods.size < 2) update = await run.next();
      expect(keys(update)).toEqual(['default/p1', 'default/p2']);
      await fake.until(() => fake.openWatches === 2);
      const before = run.source.status().counters.watch_restarts ?? 0;
      fake.resetWatches();
      fake.createPod(makePod('p3', { nodeName: NODE }));
      update = await run.next();
      while (update.pods.size < 3) update = await run.next();
      const status = run.source.status();
      expect(status.counters.watch_restarts).toBeGreaterThan(before);
      expect(status.counters.relists).toBe(1);
      expect(status.details.lastResourceVersion).toBe(fake.resourceVersion);
    });

    it('is healthy again once both watches are re-established after a fault, with no event or bookmark since', async () => {
      const fake = await fakeServer();
      fake.createPod(makePod('p1', { nodeName: NODE }));
      const client = kubeClient(fake);
      /** Watch streams the client handed out, by path (the reflector holds one once it is counted here). */
      const opened: string[] = [];
      const counting: ResourceClient = {
        getJSON: (path, query, signal) => client.getJSON(path, query, signal),
        watchJSON: async (path, query, signal, options) => {
          const stream = await client.watchJSON(path, query, signal, options);
          opened.push(path);
          return stream;
        },
      };
      const run = start(counting);
      await run.next();
      await until(() => opened.length === 2);
      expect(run.source.status().healthy).toBe(true);
      fake.resetWatches();
      // Both reflectors failed (the reset) and each has a new watch stream: the fault is over.
      await until(() => opened.filter(isPodsPath).length === 2 && opened.filter((p) => !isPodsPath(p)).length === 2);
      await tick(); // the reflectors take the stream they asked for
      const status = run.source.status();
      expect(status.counters.errors).toBe(2);
      expect(status.lastError).toMatchObject({ code: 'PODCONFIG_SOURCE_UNAVAILABLE' });
      expect(status.details.events).toBe(0);
      expect(status).toMatchObject({ healthy: true, details: { connected: true } });
    });

    it('is not healthy while the node watch fails, though the pods are synced and watched', async () => {
      const fake = await fakeServer();
      fake.createPod(makePod('p1', { nodeName: NODE }));
      fake.failNext('watch', 500, { when: isNodes });
      const clock = new BackoffHoldingClock();
      // LIST then WATCH: the node list opens the gate, the node watch after it fails.
      const run = start(kubeClient(fake), { watchList: false, clock, nodeSyncPollMs: POLL_MS });
      expect(keys(await run.next())).toEqual(['default/p1']);
      // The node reflector listed (the gate opened), then its watch failed: it waits out its backoff.
      await until(() => clock.held.length === 1);
      await until(() => run.source.status().details.connected === true); // the pods' watch is open and taken
      const status = run.source.status();
      expect(status.lastError).toMatchObject({ code: 'PODCONFIG_API_STATUS' });
      expect(status).toMatchObject({ healthy: false, details: { podsSynced: true, connected: true, nodeSynced: true } });
    });

    it('stops both reflectors and closes their watches when the signal aborts', async () => {
      const fake = await fakeServer();
      const run = start(kubeClient(fake));
      await run.next();
      await fake.until(() => fake.openWatches === 2);
      run.controller.abort();
      expect(await run.updates.next()).toEqual({ done: true, value: undefined });
      await fake.until(() => fake.openWatches === 0);
      expect(run.source.status().details).toMatchObject({ connected: false });
    });

    it('stops when the consumer stops iterating', async () => {
      const fake = await fakeServer();
      const run = start(kubeClient(fake));
      await run.next();
      await fake.until(() => fake.openWatches === 2);
      await run.updates.return();
      await fake.until(() => fake.openWatches === 0);
    });

    it('keeps its counters monotonic across updates() runs', async () => {
      const fake = await fakeServer();
      fake.failNext('list', 500, { when: isPods });
      const client = kubeClient(fake);
      const source = new ApiserverPodSource({ client, nodeName: NODE, logger: silent, clock: new InstantClock(), watchList: false });
      for (let i = 0; i < 2; i++) {
        const controller = new AbortController();
        const updates = source.updates(controller.signal);
        await updates.next();
        controller.abort();
        await updates.return();
      }
      expect(source.status().counters.errors).toBe(1);
    });

    it('keeps the relists of an earlier updates() run in its counter', async () => {
      const fake = await fakeServer();
      const source = new ApiserverPodSource({ client: kubeClient(fake), nodeName: NODE, logger: silent, clock: new InstantClock() });
      const first = new AbortController();
      const updates = source.updates(first.signal);
      await updates.next();
      await fake.until(() => fake.openWatches === 2);
      fake.sendWatchError(410);
      await until(() => (source.status().counters.relists ?? 0) >= 1);
      const relists = source.status().counters.relists ?? 0;
      first.abort();
      await updates.return();

      const second = new AbortController();
      const again = source.updates(second.signal);
      cleanups.push(async () => {
        second.abort();
        await again.return();
      });
      await again.next();
      expect(source.status().counters.relists).toBeGreaterThanOrEqual(relists);
    });

    it('rethrows a reflector that fails outside its retry loop as PODCONFIG_INTERNAL, after stopping both', async () => {
      const fake = await fakeServer();
      fake.failNext('watch', 500, { times: 10, when: isPods });
      // An InstantClock that refuses a third sleep makes the pod reflector's backoff throw: a bug, not a fault.
      const run = start(kubeClient(fake), { clock: new ReflectorClock({ maxSleeps: 2 }), nodeSyncPollMs: POLL_MS });
      const err: unknown = await run.next().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(PodConfigError.is(err, 'PODCONFIG_INTERNAL')).toBe(true);
      expect((err as Error).message).toMatch(/^apiserver pod source failed: InstantClock/);
      await fake.until(() => fake.openWatches === 0);
    });

    it('shows the server and the proxy without userinfo or query, from the options or the client', async () => {
      const fake = await fakeServer();
      const client = kubeClient(fake);
      const withOption = new ApiserverPodSource({ client, nodeName: NODE, logger: silent, clock: new InstantClock(), server: 'https://u:pw@api.example:6443/x?token=t' });
      expect(withOption.status().details.server).toBe('https://api.example:6443/x?…');
      expect(withOption.status().details).not.toHaveProperty('proxy');
      const proxied = new ApiserverPodSource({ client, nodeName: NODE, logger: silent, clock: new InstantClock(), proxy: new URL('http://user:pw@proxy.corp:3128') });
      expect(proxied.status().details.proxy).toBe('http://proxy.corp:3128/');
      const fromClient = Object.assign(Object.create(client) as KubeClient, { server: new URL('https://api.example:6443') });
      const viaClient = new ApiserverPodSource({ client: fromClient, nodeName: NODE, logger: silent, clock: new InstantClock() });
      expect(viaClient.status().details.server).toBe('https://api.example:6443/');
    });
  });
});

describe(NodeSyncSink.name, () => {
  describe('whenSynced()', () => {
    it('resolves true on the first replace, even an empty one, and false on abort', async () => {
      const sink = new NodeSyncSink();
      const controller = new AbortController();
      const aborted = sink.whenSynced(controller.signal);
      controller.abort();
      expect(await aborted).toBe(false);
      const synced = sink.whenSynced(new AbortController().signal);
      sink.replace([], '5');
      expect(await synced).toBe(true);
      expect(sink.exists).toBe(false);
      sink.apply({ type: 'ADDED', object: { metadata: { name: NODE } } });
      expect(sink.exists).toBe(true);
      sink.apply({ type: 'DELETED', object: { metadata: { name: NODE } } });
      expect(sink.exists).toBe(false);
    });
  });

  it('tells of the Node appearing or going after the initial list only, once per change', () => {
    const changes: boolean[] = [];
    const sink = new NodeSyncSink({ onExistenceChange: (exists) => changes.push(exists) });
    sink.apply({ type: 'ADDED', object: { metadata: { name: NODE } } }); // before the list: not synced yet
    sink.replace([], '5');
    expect(changes).toEqual([]);
    sink.apply({ type: 'ADDED', object: { metadata: { name: NODE } } });
    sink.apply({ type: 'MODIFIED', object: { metadata: { name: NODE } } });
    sink.replace([{ metadata: { name: NODE } }], '9'); // a relist that finds it still there
    sink.apply({ type: 'DELETED', object: { metadata: { name: NODE } } });
    sink.replace([], '12');
    expect(changes).toEqual([true, false]);
  });
});

describe(ErrorCountingListerWatcher.name, () => {
  describe('watch()', () => {
    it('counts failed lists, failed opens, ERROR events and broken streams, but nothing after the stop signal', async () => {
      const stop = new AbortController();
      let mode: 'ok' | 'fail' = 'fail';
      const inner: ListerWatcher<{ metadata: { name: string } }> = {
        list: () => (mode === 'fail' ? Promise.reject(new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', 'down')) : Promise.resolve({ items: [], resourceVersion: '1' })),
        watch: () => {
          if (mode === 'fail') return Promise.reject(new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', 'down'));
          return Promise.resolve(
            (async function* () {
              yield { type: 'ERROR' as const, object: { kind: 'Status', code: 410 } };
              yield { type: 'ADDED' as const, object: { metadata: { name: 'x' } } };
              throw new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', 'reset');
            })(),
          );
        },
      };
      const lw = new ErrorCountingListerWatcher(inner, stop.signal);
      const signal = new AbortController().signal;
      const opts = { allowWatchBookmarks: true, timeoutSeconds: 300 };
      await expect(lw.list({}, signal)).rejects.toThrow('down');
      await expect(lw.watch(opts, signal)).rejects.toThrow('down');
      expect(lw.errors).toBe(2);
      mode = 'ok';
      const types: string[] = [];
      await expect(
        (async () => {
          for await (const e of await lw.watch(opts, signal)) types.push(e.type);
        })(),
      ).rejects.toThrow('reset');
      expect(types).toEqual(['ERROR', 'ADDED']);
      expect(lw.errors).toBe(4);
      // A stream its caller cuts (the reflector's stall timeout aborts the stream's signal) counts too.
      const cut = new AbortController();
      const stalled: ListerWatcher<{ metadata: { name: string } }> = {
        list: () => Promise.resolve({ items: [], resourceVersion: '1' }),
        watch: (_o, s) => Promise.resolve({
          [Symbol.asyncIterator]: () => ({
            next: () => new Promise((resolve) => s.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true })),
          }),
        }),
      };
      const cutLw = new ErrorCountingListerWatcher(stalled, stop.signal);
      const pending = (await cutLw.watch(opts, cut.signal))[Symbol.asyncIterator]().next();
      cut.abort();
      expect(await pending).toEqual({ done: true, value: undefined });
      expect(cutLw.errors).toBe(1);
      // Cut because an object did not decode when applied: the reflector counts that one (undecodableEvents).
      const undecodable = new AbortController();
      const pendingDecode = (await cutLw.watch(opts, undecodable.signal))[Symbol.asyncIterator]().next();
      undecodable.abort(new PodConfigError('PODCONFIG_WATCH_DECODE', 'watch GET /api/v1/pods: line 3 is not valid JSON'));
      expect(await pendingDecode).toEqual({ done: true, value: undefined });
      expect(cutLw.errors).toBe(1);
      stop.abort();
      mode = 'fail';
      await expect(lw.list({}, signal)).rejects.toThrow('down');
      expect(lw.errors).toBe(4);
    });

    it('passes nextBuffered() on, counting the ERROR events it hands out and the errors it throws', async () => {
      const events = [
        { type: 'ADDED' as const, object: { metadata: { name: 'x' } } },
        { type: 'ERROR' as const, object: { kind: 'Status', code: 410 } },
      ];
      let at = 0;
      const inner: ListerWatcher<{ metadata: { name: string } }> = {
        list: () => Promise.resolve({ items: [], resourceVersion: '1' }),
        watch: () => {
          const iterator: BufferedIterator<WatchEvent<{ metadata: { name: string } }>> = {
            nextBuffered: () => {
              if (at === events.length) throw new PodConfigError('PODCONFIG_WATCH_DECODE', 'line 3 is not valid JSON');
              return { done: false, value: events[at++]! };
            },
            next: () => Promise.resolve({ done: true, value: undefined }),
          };
          return Promise.resolve({ [Symbol.asyncIterator]: () => iterator });
        },
      };
      const lw = new ErrorCountingListerWatcher(inner, new AbortController().signal);
      const stream: BufferedIterator<WatchEvent<{ metadata: { name: string } }>> = (
        await lw.watch({ allowWatchBookmarks: true, timeoutSeconds: 300 }, new AbortController().signal)
      )[Symbol.asyncIterator]();
      expect(stream.nextBuffered?.()).toEqual({ done: false, value: events[0] });
      expect(lw.errors).toBe(0);
      expect(stream.nextBuffered?.()).toEqual({ done: false, value: events[1] });
      expect(lw.errors).toBe(1);
      expect(() => stream.nextBuffered?.()).toThrow('line 3 is not valid JSON');
      expect(lw.errors).toBe(2);
    });
  });
});
