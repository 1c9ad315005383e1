/**
 * The apiserver source end to end against the fake API server: the real KubeClient, the real
 * ApiserverPodSource (node gate, Reflector, UndeltaStore, mailbox) and the real PodMerger.
 * Every fault scenario asserts (a) the merger's `api` pods end up equal to the server's pods for the
 * node (namespace/name and uid) and (b) zero spurious REMOVEs (D18): no REMOVE for a pod that is still
 * on the server. Relists and watch restarts per scenario come from `status()` and are asserted as D11
 * expects (a transient fault re-watches, only 410 / undecodable streams relist).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Pod, type PodUpdate } from '@podconfig/core';
import { KubeClient, Secret, type ClusterConfig } from '@podconfig/kube-client';
import { PodMerger } from '@podconfig/merge';
import { ApiserverPodSource, type ApiserverPodSourceOptions } from '@podconfig/source-apiserver';
import {
  FakeApiServer,
  InstantClock,
  createTestPki,
  makePod,
  tempDir,
  type FakeApiServerOptions,
  type FakeRequest,
  type TestPki,
} from '@podconfig/testing';
import { pino, type Logger } from 'pino';
import { afterEach, beforeAll, describe, expect, it, type TestContext } from 'vitest';

const NODE = 'node-a';
const OTHER = 'node-b';
const CONVERGE_TIMEOUT_MS = 15_000;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  // In reverse order, and every one even when one fails (the servers' ports and sockets must not outlive the test).
  const errors: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((err: unknown) => void errors.push(err));
  if (errors.length > 0) throw errors[0];
});

/** `promise`, or a rejection naming `what` after `ms`. */
async function withTimeout(promise: Promise<void>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} (${ms} ms)`)), ms)));
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

let pki: TestPki;
let otherPki: TestPki;
beforeAll(async () => {
  [pki, otherPki] = await Promise.all([createTestPki(), createTestPki({ caName: 'some other CA' })]);
});

/** The pods watch after the initial sync (not a streaming list, not the node watch). */
const podWatch = (r: FakeRequest): boolean => r.path === '/api/v1/pods' && r.watch && r.query.get('sendInitialEvents') !== 'true';
const podList = (r: FakeRequest): boolean => r.path === '/api/v1/pods' && !r.watch;
const key = (p: Pod): string => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''} ${p.metadata?.uid ?? ''}`;

interface HarnessOptions {
  readonly fake?: FakeApiServerOptions;
  readonly source?: Partial<ApiserverPodSourceOptions>;
  /** The client's cluster config (default: plain HTTP to the fake, no auth). */
  readonly config?: (fake: FakeApiServer) => ClusterConfig;
  readonly logger?: Logger;
  readonly clock?: InstantClock;
}

/** A logger that keeps its JSON lines (and the raw text, to look for secrets). */
function capture(): { logger: Logger; lines: Record<string, unknown>[]; raw: string[] } {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const logger = pino({ level: 'debug' }, {
    write: (line: string) => {
      raw.push(line);
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return { logger, lines, raw };
}

/** Fake server + KubeClient + ApiserverPodSource + PodMerger, with the merger's output recorded. */
class Harness {
  readonly ops: PodUpdate[] = [];
  /** REMOVEs of pods that were still on the server (same uid, bound to the node) when they were emitted, or at the end. */
  readonly spurious: string[] = [];
  readonly merger = new PodMerger({ logger: pino({ level: 'silent' }), clock: new InstantClock() });
  readonly #controller = new AbortController();
  readonly #waiters = new Set<() => void>();
  #failure: unknown;
  #done: Promise<void> = Promise.resolve();

  private constructor(
    readonly fake: FakeApiServer,
    readonly source: ApiserverPodSource,
    readonly clock: InstantClock,
  ) {}

  static async create(o: HarnessOptions = {}): Promise<Harness> {
    const fake = await new FakeApiServer(o.fake).start();
    cleanups.push(() => fake.close());
    const logger = o.logger ?? pino({ level: 'silent' });
    const clock = o.clock ?? new InstantClock({ maxSleeps: 10_000 });
    const config = o.config?.(fake) ?? {
      server: new URL(fake.url), tls: { insecureSkipVerify: false }, auth: { type: 'none' as const }, source: 'test', identity: 'test user', warnings: [],
    };
    const client = new KubeClient({ config, logger, clock, qps: Infinity });
    cleanups.push(() => client.close());
    const source = new ApiserverPodSource({ client, nodeName: NODE, logger, clock, server: config.server, ...o.source });
    const h = new Harness(fake, source, clock);
    cleanups.push(async () => {
      await h.stop();
      // Let the server see the client go first: FakeApiServer.close() cannot reset a TLS socket of an open watch.
      await withTimeout(fake.until(() => fake.openWatches === 0), CONVERGE_TIMEOUT_MS, 'the watches stay open after the source stopped');
    });
    return h;
  }

  /** Runs source → merger in the background. */
  start(): this {
    this.#done = (async () => {
      for await (const update of this.source.updates(this.#controller.signal)) {
        for (const op of this.merger.merge(update)) {
          this.ops.push(op);
          if (op.op === 'REMOVE') for (const pod of op.pods) if (this.#onServer(pod)) this.spurious.push(key(pod));
        }
        this.#notify();
      }
    })().catch((err: unknown) => {
      this.#failure = err;
      this.#notify();
    });
    return this;
  }

  async stop(): Promise<void> {
    this.#controller.abort();
    await this.#done;
  }

  /** `ns/name uid` of the server's pods bound to the node. */
  serverPods(): string[] {
    return this.fake.listPods().filter((p) => p.spec?.nodeName === NODE).map(key).sort();
  }

  /** `ns/name uid` of the merger's desired `api` pods. */
  desiredPods(): string[] {
    return this.merger.pods('api').map(key).sort();
  }

  /** Resolves once the merger's `api` pods equal the server's pods for the node (checked after every merged SET). */
  converged(): Promise<void> {
    const holds = (): boolean => this.merger.seenSources().has('api') && JSON.stringify(this.desiredPods()) === JSON.stringify(this.serverPods());
    return this.until(holds, 'the merged api pods equal the server\'s pods for the node');
  }

  /**
   * Resolves once `predicate` holds: checked after every merged SET and, for conditions on `status()`
   * (which change without a SET), every 10 ms. Waiting for an observable condition, not a sleep.
   */
  until(predicate: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        clearInterval(poll);
        this.#waiters.delete(waiter);
      };
      const check = (): boolean => {
        if (this.#failure !== undefined) {
          finish();
          reject(this.#failure instanceof Error ? this.#failure : new Error('the source failed', { cause: this.#failure }));
          return true;
        }
        if (!predicate()) return false;
        finish();
        resolve();
        return true;
      };
      const poll = setInterval(() => void check(), 10);
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`${what}: not within ${CONVERGE_TIMEOUT_MS} ms (desired ${JSON.stringify(this.desiredPods())}, server ${JSON.stringify(this.serverPods())}, status ${JSON.stringify(this.source.status())})`));
      }, CONVERGE_TIMEOUT_MS);
      const waiter = (): void => void check();
      this.#waiters.add(waiter);
      check();
    });
  }

  /** Spurious REMOVEs: those counted when emitted plus any REMOVEd pod still on the server now. */
  spuriousRemoves(): string[] {
    const now = this.ops.filter((u) => u.op === 'REMOVE').flatMap((u) => u.pods).filter((p) => this.#onServer(p)).map(key);
    return [...new Set([...this.spurious, ...now])];
  }

  counters(): { relists: number; watch_restarts: number; errors: number } {
    const c = this.source.status().counters;
    return { relists: c.relists ?? 0, watch_restarts: c.watch_restarts ?? 0, errors: c.errors ?? 0 };
  }

  /** Waits for the pod watch (and the node watch) to be open. */
  async watching(): Promise<void> {
    await this.until(() => this.source.status().details.connected === true, 'the pod watch is open');
    await this.fake.until(() => this.fake.openWatches >= 2);
  }

  #onServer(pod: Pod): boolean {
    const live = this.fake.getPod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '');
    return live !== undefined && live.metadata?.uid === pod.metadata?.uid && live.spec?.nodeName === NODE;
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** Pods on the node and elsewhere, before the source starts. */
function seed(fake: FakeApiServer): void {
  fake.createPod(makePod('web', { nodeName: NODE, uid: 'uid-web' }));
  fake.createPod(makePod('db', { nodeName: NODE, namespace: 'kube-system', uid: 'uid-db' }));
  fake.createPod(makePod('elsewhere', { nodeName: OTHER, uid: 'uid-elsewhere' }));
  fake.createPod(makePod('pending', { uid: 'uid-pending' }));
}

/** Changes made while (or right after) a fault is in effect: an add, a label update, a delete, a binding. */
function churn(fake: FakeApiServer, tag: string): void {
  fake.createPod(makePod(`new-${tag}`, { nodeName: NODE, uid: `uid-new-${tag}` }));
  const web = fake.getPod('default', 'web')!;
  fake.updatePod({ ...web, metadata: { ...web.metadata, labels: { ...web.metadata?.labels, [`seen-${tag}`]: 'yes' } } });
  if (fake.getPod('kube-system', 'db') !== undefined) fake.deletePod('kube-system', 'db');
  const pending = fake.getPod('default', 'pending');
  if (pending !== undefined && pending.spec?.nodeName === undefined) fake.updatePod({ ...pending, spec: { ...pending.spec!, nodeName: NODE } });
}

/** The D18 and convergence assertions every scenario ends with; the counters go into the test's annotations. */
async function settle(h: Harness, context: TestContext): Promise<{ relists: number; watch_restarts: number; errors: number }> {
  await h.converged();
  expect(h.spuriousRemoves()).toEqual([]);
  const counters = h.counters();
  await context.annotate(`relists=${counters.relists} watch_restarts=${counters.watch_restarts} errors=${counters.errors}`);
  return counters;
}

describe(`${ApiserverPodSource.name} with ${PodMerger.name} against ${FakeApiServer.name}`, () => {
  describe('lifecycle', () => {
    it.each([true, false])('emits ADD, UPDATE, RECONCILE, DELETE and REMOVE for pod changes on the node only (watchList %s)', async (watchList) => {
      const h = await Harness.create({ source: { watchList } });
      seed(h.fake);
      h.start();
      await h.converged();
      expect(h.ops).toEqual([{ source: 'api', op: 'ADD', pods: expect.any(Array) }]);
      expect(h.ops[0]!.pods.map((p) => p.metadata?.name).sort()).toEqual(['db', 'web']);

      const take = async (op: PodUpdate['op']): Promise<string[]> => {
        await h.until(() => h.ops.some((u) => u.op === op), `a ${op}`);
        const found = h.ops.splice(0).filter((u) => u.op === op).flatMap((u) => u.pods.map((p) => p.metadata?.name ?? ''));
        return found;
      };
      h.ops.splice(0);
      h.fake.createPod(makePod('added', { nodeName: NODE }));
      h.fake.createPod(makePod('not-mine', { nodeName: OTHER }));
      expect(await take('ADD')).toEqual(['added']);
      const web = h.fake.getPod('default', 'web')!;
      h.fake.updatePod({ ...web, metadata: { ...web.metadata, labels: { app: 'web' } } });
      expect(await take('UPDATE')).toEqual(['web']);
      h.fake.updatePodStatus('default', 'web', { phase: 'Running' });
      expect(await take('RECONCILE')).toEqual(['web']);
      h.fake.deletePod('default', 'web', { gracePeriodSeconds: 30 });
      expect(await take('DELETE')).toEqual(['web']);
      h.fake.deletePod('default', 'web');
      expect(await take('REMOVE')).toEqual(['web']);
      const pending = h.fake.getPod('default', 'pending')!;
      h.fake.updatePod({ ...pending, spec: { ...pending.spec!, nodeName: NODE } });
      expect(await take('ADD')).toEqual(['pending']);
      await h.converged();
      expect(h.spuriousRemoves()).toEqual([]);
      expect(h.counters()).toMatchObject({ relists: 0, errors: 0 });
    });

    it("carries a force delete's deletionGracePeriodSeconds 0 to the REMOVE, also when its MODIFIED and DELETED coalesce", async () => {
      const h = await Harness.create();
      for (let i = 0; i < 20; i++) h.fake.createPod(makePod(`f${i}`, { nodeName: NODE }));
      h.start();
      await h.converged();
      h.ops.splice(0);
      // Each pod's two events are written together, as a current API server writes them for --grace-period=0 --force;
      // among them a short-lived pod comes and goes, and f0 comes back under a new UID and is force-deleted again.
      const firstF0 = h.fake.getPod('default', 'f0')?.metadata?.uid;
      for (let i = 0; i < 20; i++) h.fake.deletePod('default', `f${i}`, { force: true });
      h.fake.createPod(makePod('short-lived', { nodeName: NODE }));
      h.fake.deletePod('default', 'short-lived');
      h.fake.createPod(makePod('f0', { nodeName: NODE, uid: 'f0-again' }));
      h.fake.deletePod('default', 'f0', { force: true });
      const removes = (): Pod[] => h.ops.filter((u) => u.op === 'REMOVE').flatMap((u) => u.pods).filter((p) => p.metadata?.uid !== 'f0-again');
      await h.until(() => removes().length === 20, '20 REMOVEs');
      expect(removes().map((p) => p.metadata?.deletionGracePeriodSeconds)).toEqual(Array.from({ length: 20 }, () => 0));
      expect(removes().map((p) => p.metadata?.uid)).toContain(firstF0);
    });

    it('lets the node gate pass when the Node does not exist, and keeps working when it is created later (checklist 52)', async () => {
      const h = await Harness.create();
      seed(h.fake);
      h.start();
      await h.converged();
      expect(h.source.status().details).toMatchObject({ nodeSynced: true, nodeExists: false });
      h.fake.createNode({ metadata: { name: NODE } });
      await h.until(() => h.source.status().details.nodeExists === true, 'the node is seen');
      churn(h.fake, 'x');
      await h.converged();
      expect(h.spuriousRemoves()).toEqual([]);
    });
  });

  describe('server quirks', () => {
    it('falls back to LIST/WATCH when the server rejects watch-list (422), in the same cycle (checklist 73)', async (context) => {
      const h = await Harness.create({ fake: { watchList: 'reject' } });
      seed(h.fake);
      h.start();
      await h.converged();
      expect(h.source.status().details).toMatchObject({ watchList: false });
      expect(h.fake.requests.some((r) => r.path === '/api/v1/pods' && r.status === 422)).toBe(true);
      expect(h.fake.requests.some((r) => podList(r) && r.status === 200)).toBe(true);
      await h.watching();
      churn(h.fake, 'q');
      const c = await settle(h, context);
      expect(c.relists).toBe(0);
    });

    it('skips a watch event whose object is not a Pod: no SET, resourceVersion not advanced (checklist 61)', async () => {
      const h = await Harness.create();
      seed(h.fake);
      h.start();
      await h.converged();
      await h.watching();
      const rv = h.source.status().details.lastResourceVersion;
      const merges = h.merger.stats().sources.api?.merges;
      h.fake.injectWatchEvent('ADDED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', resourceVersion: '999999' } });
      h.fake.createPod(makePod('after', { nodeName: NODE }));
      await h.converged();
      expect(h.merger.stats().sources.api?.merges).toBe((merges ?? 0) + 1);
      expect(h.source.status().details.lastResourceVersion).not.toBe('999999');
      expect(h.source.status().details.lastResourceVersion).not.toBe(rv);
      expect(h.spuriousRemoves()).toEqual([]);
    });
  });

  describe('faults (D11, D18)', () => {
    it('410 on list: the relist at the last RV gets 410 and falls back to a consistent list', async (context) => {
      const h = await Harness.create({ source: { watchList: false } });
      seed(h.fake);
      h.fake.failNext('list', { kind: 'status', code: 410, reason: 'Expired', message: 'too old resource version' }, { when: podList });
      h.start();
      await h.converged();
      await h.watching();
      // Force a relist (ERROR 410), whose list at the last RV is answered 410 again.
      h.fake.failNext('list', { kind: 'status', code: 410, reason: 'Expired', message: 'too old resource version' }, { when: podList });
      h.fake.sendWatchError(410);
      churn(h.fake, 'a');
      const c = await settle(h, context);
      expect(h.fake.requests.filter((r) => podList(r) && r.status === 410)).toHaveLength(2);
      // After each 410 the list is retried at once with resourceVersion "" (most recent).
      const lists = h.fake.requests.filter(podList);
      expect(lists.filter((r) => r.status === 200).every((r) => !r.query.has('resourceVersion') || r.query.get('resourceVersion') === '')).toBe(true);
      expect(c.relists).toBe(1);
    });

    it('410 on a watch open: relists once', async (context) => {
      const h = await Harness.create();
      seed(h.fake);
      h.start();
      await h.converged();
      await h.watching();
      h.fake.failNext('watch', { kind: 'status', code: 410, reason: 'Expired', message: 'too old resource version' }, { when: podWatch });
      h.fake.closeWatches();
      churn(h.fake, 'b');
      const c = await settle(h, context);
      expect(h.fake.requests.some((r) => podWatch(r) && r.status === 410)).toBe(true);
      expect(c.relists).toBe(1);
    });

    it('410 as a watch ERROR event: relists once', async (context) => {
      const h = await Harness.create();
      seed(h.fake);
      h.start();
      await h.converged();
      await h.watching();
      h.fake.compact();
      h.fake.sendWatchError(410);
      churn(h.fake, 'c');
      const c = await settle(h, context);
      expect(c.relists).toBe(1);
    });

    it('429 with Retry-After on list and watch: waits at least Retry-After and re-watches at the same RV without a relist', async (context) => {
      const h = await Harness.create({ source: { watchList: false } });
      seed(h.fake);
      h.fake.failNext('list', { kind: 'status', code: 429, reason: 'TooManyRequests', retryAfterSeconds: 3 }, { when: podList });
      h.start();
      await h.converged();
      await h.watching();
      h.fake.failNext('watch', { kind: 'status', code: 429, reason: 'TooManyRequests', retryAfterSeconds: 7 }, { when: podWatch });
      h.fake.closeWatches();
      churn(h.fake, 'd');
      const c = await settle(h, context);
      expect(h.fake.requests.filter((r) => r.path === '/api/v1/pods' && r.status === 429)).toHaveLength(2);
      expect(h.clock.sleeps).toContain(3000); // the client's Retry-After wait on the list
      expect(h.clock.sleeps.some((ms) => ms >= 7000)).toBe(true); // the reflector's wait before re-watching
      expect(c.relists).toBe(0);
      expect(c.watch_restarts).toBeGreaterThanOrEqual(2);
    });

    it('500 on the initial streaming list and on a watch open: retries, re-watches without a relist', async (context) => {
      const h = await Harness.create();
      seed(h.fake);
      h.fake.failNext('watch', 500, { when: (r) => r.path === '/api/v1/pods' && r.query.get('sendInitialEvents') === 'true' });
      h.start();
      await h.converged();
      await h.watching();
      h.fake.failNext('watch', 500, { when: podWatch, times: 2 });
      h.fake.closeWatches();
      churn(h.fake, 'e');
      const c = await settle(h, context);
      expect(h.fake.requests.filter((r) => r.path === '/api/v1/pods' && r.status === 500)).toHaveLength(3);
      expect(c.relists).toBe(0);
      expect(c.errors).toBeGreaterThanOrEqual(3);
    });

    it('a connection reset mid-stream: re-watches at the last RV without a relist', async (context) => {
      const h = await Harness.create();
      seed(h.fake);
      h.start();
      await h.converged();
      await h.watching();
      const watchesBefore = h.fake.requests.filter(podWatch).length;
      h.fake.resetWatches();
      churn(h.fake, 'f');
      const c = await settle(h, context);
      const resumed = h.fake.requests.filter(podWatch).slice(watchesBefore);
      expect(resumed.length).toBeGreaterThanOrEqual(1);
      expect(resumed[0]!.query.get('resourceVersion')).not.toBe('');
      expect(c.relists).toBe(0);
      expect(c.watch_restarts).toBeGreaterThanOrEqual(1);
    });

    it('a stalled stream: cut by the stall timeout and re-watched without a relist', async (context) => {
      // Real time bounds real I/O: watches ask for timeoutSeconds in [1, 2), a silent stream is cut 200 ms after that.
      const h = await Harness.create({ source: { reflector: { minWatchTimeoutSeconds: 1, stallTimeoutMs: 200 } } });
      seed(h.fake);
      h.start();
      await h.converged();
      await h.watching();
      const watchesBefore = h.fake.requests.filter(podWatch).length;
      h.fake.failNext('watch', { kind: 'stall' }, { when: podWatch });
      h.fake.closeWatches();
      // The re-watch is the stalled one: changes made now reach the client only after the stall is detected.
      await h.fake.until(() => h.fake.requests.filter(podWatch).length > watchesBefore);
      churn(h.fake, 'g');
      const c = await settle(h, context);
      expect(h.source.status().lastError).toMatchObject({ code: 'PODCONFIG_TIMEOUT' });
      expect(c.relists).toBe(0);
      // At least the injected stall. The detector runs on real time (200 ms past a 1–2 s watch timeout), so on a
      // loaded machine a healthy re-watch whose server-side end arrives late can be cut too: not an exact count.
      expect(c.errors).toBeGreaterThanOrEqual(1);
    });

    it('garbage lines in the stream: relists once', async (context) => {
      const h = await Harness.create();
      seed(h.fake);
      h.start();
      await h.converged();
      await h.watching();
      h.fake.injectWatchLine('this is not JSON');
      churn(h.fake, 'h');
      const c = await settle(h, context);
      expect(h.source.status().lastError).toMatchObject({ code: 'PODCONFIG_WATCH_DECODE' });
      expect(c.relists).toBe(1);
    });

    it('TLS with a test CA: syncs over HTTPS and resumes after the watch connections are reset', async (context) => {
      const h = await Harness.create({
        fake: { tls: pki.server },
        config: (fake) => ({
          server: new URL(fake.url), tls: { ca: pki.ca.cert, insecureSkipVerify: false }, auth: { type: 'none' }, source: 'test', identity: 'test user', warnings: [],
        }),
      });
      seed(h.fake);
      h.start();
      await h.converged();
      await h.watching();
      h.fake.resetWatches();
      churn(h.fake, 'i');
      const c = await settle(h, context);
      expect(h.source.status().details.server).toBe(`${h.fake.url}/`);
      expect(c.relists).toBe(0);
    });

    it('TLS with the wrong CA: refuses the server, yields nothing, reports a TLS error naming the server', async (context) => {
      const h = await Harness.create({
        fake: { tls: pki.server },
        config: (fake) => ({
          server: new URL(fake.url), tls: { ca: otherPki.ca.cert, insecureSkipVerify: false }, auth: { type: 'none' }, source: 'test', identity: 'test user', warnings: [],
        }),
      });
      seed(h.fake);
      h.start();
      await h.until(() => h.counters().errors >= 3, 'three failed attempts');
      const status = h.source.status();
      expect(status).toMatchObject({ seen: false, healthy: false, pods: 0, lastError: { code: 'PODCONFIG_TLS' } });
      expect(status.lastError?.message).toContain(h.fake.url);
      expect(h.ops).toEqual([]);
      expect(h.fake.requests).toEqual([]); // no request gets through a handshake that failed
      await context.annotate(`errors=${h.counters().errors} (no SET)`);
    });

    it('a bad token: clear 401 error without the secret, no SET; converges once the token file is fixed', async (context) => {
      const dir = await tempDir('podconfig-token-');
      cleanups.push(dir.cleanup);
      const tokenFile = join(dir.path, 'token');
      await writeFile(tokenFile, 'wrong-token-123\n');
      const { logger, raw } = capture();
      const h = await Harness.create({
        fake: { token: 'right-token-456' },
        logger,
        config: (fake) => ({
          server: new URL(fake.url), tls: { insecureSkipVerify: false },
          auth: { type: 'token', token: new Secret('wrong-token-123'), tokenFile }, source: 'test', identity: 'user "agent" in kubeconfig test', warnings: [],
        }),
      });
      seed(h.fake);
      h.start();
      await h.until(() => h.counters().errors >= 2, 'two failed attempts');
      const status = h.source.status();
      expect(status).toMatchObject({ seen: false, lastError: { code: 'PODCONFIG_API_STATUS' } });
      expect(status.lastError?.message).toMatch(/unauthorized/);
      expect(h.ops).toEqual([]);
      await writeFile(tokenFile, 'right-token-456\n');
      const c = await settle(h, context);
      const text = raw.join('') + JSON.stringify(h.source.status());
      expect(text).not.toContain('wrong-token-123');
      expect(text).not.toContain('right-token-456');
      expect(c.relists).toBe(0);
    });
  });
});
