import {
  ANNOTATIONS, ConfigInvalidError, PodConfigError,
  type ActualPod, type Clock, type KillPodRequest, type Pod, type PodLister, type PodUpdate, type SourceName,
  type RuntimeHealthReporter, type SyncHandler, type SyncPodRequest,
} from '@podconfig/core';
import { InstantClock, makePod } from '@podconfig/testing';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { HandlerStartError, Reconciler, type HandlerCallEvent, type ReconcilerOptions } from './index.js';

// ---- test parts ------------------------------------------------------------------------------

/** A list that tests can wait on: `waitFor` resolves with the first matching item, now or later. */
class Log<T> {
  readonly items: T[] = [];
  readonly #waiters = new Set<{ pred: (items: readonly T[]) => boolean; resolve: () => void }>();

  push(item: T): void {
    this.items.push(item);
    for (const waiter of [...this.#waiters]) {
      if (waiter.pred(this.items)) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  /** Resolves once `pred` holds for the recorded items. */
  async until(pred: (items: readonly T[]) => boolean): Promise<void> {
    if (pred(this.items)) return;
    await new Promise<void>((resolve) => this.#waiters.add({ pred, resolve }));
  }

  /** Resolves with the first item matching `pred`, recorded or future. */
  async waitFor(pred: (item: T) => boolean): Promise<T> {
    await this.until((items) => items.some(pred));
    return this.items.find(pred)!;
  }

  /** Resolves once `n` items match `pred`. */
  async count(n: number, pred: (item: T) => boolean = () => true): Promise<T[]> {
    await this.until((items) => items.filter(pred).length >= n);
    return this.items.filter(pred);
  }
}

/** Sleeps end only when the test moves time forward (or their signal aborts). */
class ManualClock implements Clock {
  #now = Date.UTC(2026, 0, 1);
  /** Monotonic time: sleeps end by it, not by the wall clock (`stepWall` moves only that). */
  #monotonic = 0;
  readonly #sleeps = new Set<{ at: number; ms: number; wake: () => void }>();
  readonly requested = new Log<number>();

  now(): number {
    return this.#now;
  }

  monotonic(): number {
    return this.#monotonic;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const sleep = {
        at: this.#monotonic + ms,
        ms,
        wake: (): void => {
          this.#sleeps.delete(sleep);
          signal.removeEventListener('abort', sleep.wake);
          resolve();
        },
      };
      signal.addEventListener('abort', sleep.wake, { once: true });
      this.#sleeps.add(sleep);
      this.requested.push(ms);
    });
  }

  /** Delays of the sleeps still pending. */
  pending(): number[] {
    return [...this.#sleeps].map((s) => s.ms);
  }

  /** Resolves once a sleep of exactly `ms` is pending. */
  async sleeping(ms: number): Promise<void> {
    await this.requested.until(() => this.pending().includes(ms));
  }

  /** Moves time forward by `ms` (both readings), waking every sleep due by then, earliest first. */
  advance(ms: number): void {
    const target = this.#monotonic + ms;
    for (const sleep of [...this.#sleeps].filter((s) => s.at <= target).sort((a, b) => a.at - b.at)) {
      this.#now += sleep.at - this.#monotonic;
      this.#monotonic = sleep.at;
      sleep.wake();
    }
    this.#now += target - this.#monotonic;
    this.#monotonic = target;
  }

  /** Steps the wall clock by `ms` (negative: backwards) while no time passes, as NTP does. */
  stepWall(ms: number): void {
    this.#now += ms;
  }
}

interface Call {
  readonly handler: string;
  readonly op: 'sync' | 'kill';
  /** The sync type or the kill reason. */
  readonly type: string;
  readonly uid: string;
  readonly name: string;
  readonly attempt: number;
  readonly pod: Pod;
  readonly gracePeriodSeconds?: number;
  readonly signal: AbortSignal;
  /** For held calls. */
  finish(): void;
  fail(err: unknown): void;
}

/** `auto`: resolve at once; `hold`: until the test finishes the call (rejects on abort); `hang`: never, ignoring the signal. */
type Behaviour = 'auto' | 'hold' | 'hang' | ((call: Call) => Promise<void> | void);

/** A real SyncHandler that records its calls and checks the per-pod serial guarantee. */
class TestHandler implements SyncHandler {
  readonly calls = new Log<Call>();
  readonly ended = new Log<Call>();
  inFlight = 0;
  maxInFlight = 0;
  overlaps = 0;
  readonly #active = new Set<string>();

  constructor(readonly name: string, readonly behaviour: Behaviour = 'auto', readonly order?: string[]) {}

  syncPod(request: SyncPodRequest, signal: AbortSignal): Promise<void> {
    return this.#call({ op: 'sync', type: request.type, pod: request.pod, attempt: request.attempt }, signal);
  }

  killPod(request: KillPodRequest, signal: AbortSignal): Promise<void> {
    return this.#call({ op: 'kill', type: request.reason, pod: request.pod, attempt: request.attempt, gracePeriodSeconds: request.gracePeriodSeconds }, signal);
  }

  /** Calls of `op` (and `type`) in order, as `uid:type`. */
  seen(op?: 'sync' | 'kill'): string[] {
    return this.calls.items.filter((c) => op === undefined || c.op === op).map((c) => `${c.uid}:${c.type}`);
  }

  async #call(
    req: { op: 'sync' | 'kill'; type: string; pod: Pod; attempt: number; gracePeriodSeconds?: number },
    signal: AbortSignal,
  ): Promise<void> {
    const uid = req.pod.metadata?.uid ?? '';
    if (this.#active.has(uid)) this.overlaps += 1;
    this.#active.add(uid);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    let finish = (): void => undefined;
    let fail = (_err: unknown): void => undefined;
    const held = new Promise<void>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
    const call: Call = {
      handler: this.name, op: req.op, type: req.type, uid, name: req.pod.metadata?.name ?? '', attempt: req.attempt, pod: req.pod,
      signal, finish, fail, ...(req.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: req.gracePeriodSeconds }),
    };
    this.order?.push(`${this.name} ${req.op} ${uid}:${req.type}`);
    this.calls.push(call);
    const settle = (): void => {
      this.#active.delete(uid);
      this.inFlight -= 1;
      this.ended.push(call);
    };
    try {
      if (this.behaviour === 'auto') return;
      if (this.behaviour === 'hang') {
        await new Promise<never>(() => undefined);
      } else if (this.behaviour === 'hold') {
        const onAbort = (): void => fail(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        try {
          await held;
        } finally {
          signal.removeEventListener('abort', onAbort);
        }
      } else {
        await this.behaviour(call);
      }
    } finally {
      settle();
    }
  }
}

/** A handler that can also report what it runs (orphan clean-up). */
class ListingHandler extends TestHandler implements PodLister {
  readonly lists = new Log<number>();
  constructor(name: string, readonly report: () => readonly ActualPod[] | Promise<readonly ActualPod[]>) {
    super(name);
  }

  async listPods(signal: AbortSignal): Promise<readonly ActualPod[]> {
    this.lists.push(this.lists.items.length + 1);
    if (signal.aborted) return [];
    return this.report();
  }
}

/** A handler with start() and close() hooks that records the order of everything. */
class LifecycleHandler extends TestHandler {
  constructor(name: string, order: string[], readonly startError?: Error) {
    super(name, 'auto', order);
  }

  async start(signal: AbortSignal): Promise<void> {
    this.order?.push(`${this.name} start aborted=${String(signal.aborted)}`);
    if (this.startError !== undefined) throw this.startError;
  }

  async close(signal: AbortSignal): Promise<void> {
    this.order?.push(`${this.name} close aborted=${String(signal.aborted)}`);
  }
}

/** The merger's output, fed by the test. `push()` resolves once the reconciler has applied the update. */
class Feed implements AsyncIterable<PodUpdate> {
  returned = false;
  readonly #queue: { update: PodUpdate; applied: () => void }[] = [];
  #applied: (() => void) | undefined;
  #wake: (() => void) | undefined;
  #ended = false;
  #error: Error | undefined;

  push(source: SourceName, op: PodUpdate['op'], pods: readonly Pod[]): Promise<void> {
    return new Promise<void>((applied) => {
      this.#queue.push({ update: { source, op, pods }, applied });
      this.#wake?.();
    });
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  fail(err: Error): void {
    this.#error = err;
    this.#wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<PodUpdate> {
    return {
      next: () => this.#next(),
      return: () => {
        this.returned = true;
        this.#wake?.();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  async #next(): Promise<IteratorResult<PodUpdate>> {
    // The consumer asks for the next update only after it applied the previous one.
    this.#applied?.();
    this.#applied = undefined;
    for (;;) {
      if (this.returned) return { done: true, value: undefined };
      const item = this.#queue.shift();
      if (item !== undefined) {
        this.#applied = item.applied;
        return { done: false, value: item.update };
      }
      if (this.#error !== undefined) throw this.#error;
      if (this.#ended) return { done: true, value: undefined };
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}

const logger = pino({ level: 'silent' });
const running = new Set<AbortController>();
afterEach(() => {
  for (const controller of running) controller.abort(); // a failed test must not leave a loop behind
  running.clear();
});

interface Harness {
  readonly reconciler: Reconciler;
  readonly feed: Feed;
  readonly events: Log<HandlerCallEvent>;
  readonly updates: Log<PodUpdate>;
  readonly controller: AbortController;
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

function start(options: Partial<ReconcilerOptions> & { readonly handlers: readonly SyncHandler[]; readonly clock: Clock }): Harness {
  const feed = new Feed();
  const events = new Log<HandlerCallEvent>();
  const updates = new Log<PodUpdate>();
  const controller = new AbortController();
  running.add(controller);
  const reconciler = new Reconciler({
    sources: ['file'],
    logger,
    random: () => 0.5,
    observer: { handlerCall: (e) => events.push(e), operation: (u) => updates.push(u) },
    ...options,
  });
  const done = reconciler.run(feed, controller.signal);
  return {
    reconciler, feed, events, updates, controller, done,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

/** A pod with `config.source` set as the merger does; `v` marks its version. */
function pod(name: string, o: { uid?: string; source?: SourceName; v?: number; extra?: (p: Pod) => Pod } = {}): Pod {
  const p = makePod(name, {
    uid: o.uid ?? `uid-${name}`,
    annotations: { [ANNOTATIONS.configSource]: o.source ?? 'file', [ANNOTATIONS.configSeen]: '2026-01-01T00:00:00.000000000Z' },
    labels: { v: String(o.v ?? 1) },
  });
  return o.extra === undefined ? p : o.extra(p);
}

const version = (call: Call): string | undefined => call.pod.metadata?.labels?.v;
/** Not the sleep of a call deadline: `timeoutMs` rounded up to its resolution (10 ms for timeouts of 1–10 s). */
const notCallDeadline = (timeoutMs: number) => (ms: number): boolean => ms < timeoutMs || ms >= timeoutMs + 10;
const iso = (t: number): string => new Date(t).toISOString();

// ---- tests -----------------------------------------------------------------------------------

describe(Reconciler.name, () => {
  describe('constructor', () => {
    it('rejects duplicate handler names and a concurrency below 1', () => {
      const clock = new ManualClock();
      expect(() => new Reconciler({ handlers: [new TestHandler('a'), new TestHandler('a')], sources: [], logger, clock }))
        .toThrow('handlers: two sync handlers are named "a": names must be unique');
      expect(() => new Reconciler({ handlers: [new TestHandler('')], sources: [], logger, clock })).toThrow('handlers[0]: a handler needs a non-empty name, syncPod() and killPod(): its name is empty');
      expect(() => new Reconciler({ handlers: [new TestHandler('a')], sources: [], logger, clock, concurrency: 0 })).toThrow(ConfigInvalidError);
      expect(() => new Reconciler({ handlers: [], sources: [], logger, clock, retry: { initialMs: 10, maxMs: 5 } })).toThrow(ConfigInvalidError);
    });

    it('rejects a concurrency below the number of handlers (a hung one would hold back the others), and gives each a slot by default', () => {
      const clock = new ManualClock();
      const handlers = (n: number): TestHandler[] => Array.from({ length: n }, (_, i) => new TestHandler(`h${i}`));
      expect(() => new Reconciler({ handlers: handlers(2), sources: [], logger, clock, concurrency: 1 }))
        .toThrow('concurrency 1 is below the number of handlers (2): each handler needs a slot of its own, or a hung one holds back the others');
      expect(() => new Reconciler({ handlers: handlers(2), sources: [], logger, clock, concurrency: 2 })).not.toThrow();
      expect(() => new Reconciler({ handlers: handlers(10), sources: [], logger, clock })).not.toThrow();
    });

    it('rejects an unknown source name and a handler without syncPod or killPod, naming the option', () => {
      const clock = new ManualClock();
      // What a JavaScript caller can pass: the types rule these out.
      const loose = (o: { handlers: unknown[]; sources: unknown[] }): ReconcilerOptions =>
        ({ ...o, logger, clock }) as unknown as ReconcilerOptions;
      const cases: [{ handlers: unknown[]; sources: unknown[] }, string][] = [
        [{ handlers: [new TestHandler('a')], sources: ['file', 'filez'] }, 'filez'],
        [{ handlers: [], sources: [''] }, 'sources'],
        [{ handlers: [{ name: 'a' }], sources: ['file'] }, 'handlers'],
        [{ handlers: [{ name: 'a', syncPod: async () => {} }], sources: ['file'] }, 'killPod'],
        [{ handlers: [{ syncPod: async () => {}, killPod: async () => {} }], sources: ['file'] }, 'name'],
        [{ handlers: [null], sources: ['file'] }, 'handlers'],
        [{ handlers: [new TestHandler('a'), { name: 'b', syncPod: async () => {} }], sources: ['file'] }, 'handlers[1]: a handler needs a non-empty name, syncPod() and killPod(): it has no killPod()'],
      ];
      for (const [o, mention] of cases) {
        expect(() => new Reconciler(loose(o)), mention).toThrow(ConfigInvalidError);
        expect(() => new Reconciler(loose(o)), mention).toThrow(mention);
      }
      expect(() => new Reconciler(loose({ handlers: [new TestHandler('a')], sources: ['file', 'http', 'api'] }))).not.toThrow();
    });

    it('warns of a handler method no handler has that is close to one (never called, as capabilities are found by name), not of its other helpers', () => {
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      const handler = Object.assign(new TestHandler('typo'), { listPod: async () => [], Close: async () => {}, writeState: () => {} });
      new Reconciler({ handlers: [handler, new TestHandler('fine')], sources: ['file'], logger, clock: new ManualClock() });
      expect(lines.map(({ level, handler: h, method, meant, msg }) => ({ level, h, method, meant, msg }))).toEqual([
        { level: 40, h: 'typo', method: 'listPod', meant: 'listPods', msg: 'handler method is never called: a misspelt capability?' },
        { level: 40, h: 'typo', method: 'Close', meant: 'close', msg: 'handler method is never called: a misspelt capability?' },
      ]);
    });
  });

  describe('run()', () => {
    it('calls syncPod for ADD, UPDATE, DELETE, RECONCILE and killPod for REMOVE, in order', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock() });
      const web = (v: number, extra?: (p: Pod) => Pod): Pod => pod('web', { v, ...(extra === undefined ? {} : { extra }) });
      await h.feed.push('file', 'ADD', [web(1)]);
      await h.feed.push('file', 'UPDATE', [web(2)]);
      const deleting = (p: Pod): Pod => ({
        ...p, metadata: { ...p.metadata, deletionTimestamp: '2026-01-01T00:01:00Z', deletionGracePeriodSeconds: 5 },
      });
      await h.feed.push('file', 'DELETE', [web(3, deleting)]);
      await h.feed.push('file', 'RECONCILE', [web(3, (p) => ({ ...deleting(p), status: { phase: 'Running' } }))]);
      await h.feed.push('file', 'REMOVE', [web(3, deleting)]);
      await handler.ended.count(5);
      expect(handler.calls.items.map((c) => [c.op, c.type, version(c), c.attempt])).toEqual([
        ['sync', 'create', '1', 1],
        ['sync', 'update', '2', 1],
        ['sync', 'delete', '3', 1],
        ['sync', 'reconcile', '3', 1],
        ['kill', 'removed', '3', 1],
      ]);
      expect(handler.calls.items[4]!.gracePeriodSeconds).toBe(5);
      expect(handler.overlaps).toBe(0);
      await h.events.count(5);
      expect(h.reconciler.pods()).toEqual([]); // killed and forgotten
      await h.stop();
    });

    it('hands every handler the same deep-frozen pod, whoever produced the update', async () => {
      const a = new TestHandler('a');
      const b = new TestHandler('b');
      const h = start({ handlers: [a, b], clock: new ManualClock() });
      const given = pod('web'); // not frozen: a producer other than the merger
      await h.feed.push('file', 'ADD', [given]);
      const [callA] = await a.ended.count(1);
      const [callB] = await b.ended.count(1);
      expect(callA!.pod).toBe(given);
      expect(callB!.pod).toBe(given);
      expect(Object.isFrozen(given.spec!.containers[0])).toBe(true);
      expect(() => { callA!.pod.metadata!.labels!.v = 'changed by a'; }).toThrow(TypeError);
      expect(version(callB!)).toBe('1');
      await h.stop();
    });

    it('kills with the grace period of the pod: deletion grace, then spec grace, then 30 seconds', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock() });
      const specGrace = (seconds: number) => (p: Pod): Pod => ({ ...p, spec: { ...p.spec!, terminationGracePeriodSeconds: seconds } });
      const pods = [pod('a', { extra: specGrace(12) }), pod('b'), pod('c', { extra: specGrace(30) })];
      await h.feed.push('file', 'ADD', pods);
      // c's REMOVE carries its last state: a force delete, grace 0, which wins over the spec's 30.
      const forced = pod('c', { extra: (p) => ({ ...specGrace(30)(p), metadata: { ...p.metadata, deletionGracePeriodSeconds: 0 } }) });
      await h.feed.push('file', 'REMOVE', [pods[0]!, pods[1]!, forced]);
      const kills = await handler.ended.count(3, (c) => c.op === 'kill');
      expect(kills.map((c) => [c.name, c.gracePeriodSeconds])).toEqual([['a', 12], ['b', 30], ['c', 0]]);
      await h.stop();
    });

    it('never overlaps calls for one pod and coalesces intermediate updates to the latest', async () => {
      const handler = new TestHandler('h', 'hold');
      const h = start({ handlers: [handler], clock: new ManualClock() });
      await h.feed.push('file', 'ADD', [pod('web', { v: 1 })]);
      const create = await handler.calls.waitFor(() => true);
      await h.feed.push('file', 'UPDATE', [pod('web', { v: 2 })]);
      await h.feed.push('file', 'RECONCILE', [pod('web', { v: 2, extra: (p) => ({ ...p, status: { phase: 'Running' } }) })]);
      await h.feed.push('file', 'UPDATE', [pod('web', { v: 4 })]);
      expect(handler.calls.items).toHaveLength(1);
      expect(h.reconciler.pods()[0]!.handlers.h).toMatchObject({ state: 'running', pending: 'update' });
      create.finish();
      const next = await handler.calls.waitFor((c) => c !== create);
      expect([next.type, version(next)]).toEqual(['update', '4']);
      next.finish();
      await h.events.count(2);
      expect(handler.calls.items).toHaveLength(2);
      expect(handler.overlaps).toBe(0);
      expect(h.reconciler.pods()[0]!.handlers.h).toMatchObject({ state: 'idle', lastCall: 'update', lastResult: 'success' });
      await h.stop();
    });

    it('runs calls for different pods concurrently, at most `concurrency` at a time', async () => {
      const handler = new TestHandler('h', 'hold');
      const h = start({ handlers: [handler], clock: new ManualClock(), concurrency: 2 });
      await h.feed.push('file', 'ADD', ['a', 'b', 'c', 'd', 'e'].map((n) => pod(n)));
      expect(handler.seen()).toEqual(['uid-a:create', 'uid-b:create']);
      expect(h.reconciler.pods().map((p) => p.handlers.h!.state)).toEqual(['running', 'running', 'queued', 'queued', 'queued']);
      expect(h.reconciler.workStates()).toEqual({ h: { idle: 0, queued: 3, running: 2, backoff: 0, 'waiting-for-name': 0, 'kill-deferred': 0 } });
      for (let i = 0; i < 5; i += 1) {
        await handler.calls.count(i + 1);
        handler.calls.items[i]!.finish();
      }
      await handler.ended.count(5);
      expect(handler.seen()).toEqual(['a', 'b', 'c', 'd', 'e'].map((n) => `uid-${n}:create`));
      expect(handler.maxInFlight).toBe(2);
      await h.stop();
    });

    it('retries a failed call as resync with exponential backoff and jitter; a success resets the backoff', async () => {
      const clock = new InstantClock();
      const failOn = new Set([0, 1, 3]);
      let n = 0;
      const handler = new TestHandler('h', () => {
        if (failOn.has(n++)) throw new Error('runtime not ready');
      });
      const h = start({ handlers: [handler], clock, callTimeoutMs: 7_777, syncFrequencyMs: 60_000, retry: { initialMs: 1_000, maxMs: 300_000 } });
      await h.feed.push('file', 'ADD', [pod('web')]);
      await handler.ended.count(5);
      await h.stop();
      expect(handler.calls.items.slice(0, 5).map((c) => [c.type, c.attempt])).toEqual([
        ['create', 1], ['resync', 2], ['resync', 3], // two failures, then success
        ['resync', 1], ['resync', 2], //             periodic resync fails, retried
      ]);
      // Call deadlines aside: delays d·(1 + 0.5·random) with random 0.5; the resync is 1.25 × 60 s.
      expect(clock.sleeps.filter(notCallDeadline(7_777)).slice(0, 4)).toEqual([1_250, 2_500, 75_000, 1_250]);
      expect(h.events.items.slice(0, 5).map((e) => e.outcome)).toEqual(['error', 'error', 'success', 'error', 'success']);
    });

    it('logs a failure at warn 3 times in a row, then at debug, but at warn again when its cause changes', async () => {
      const clock = new InstantClock();
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      const causes = ['refused', 'refused', 'refused', 'refused', 'disk full', 'disk full'];
      let n = 0;
      const handler = new TestHandler('h', () => {
        if (n < causes.length) throw new Error(causes[n++]);
      });
      const h = start({ handlers: [handler], clock, logger, retry: { initialMs: 1_000 } });
      await h.feed.push('file', 'ADD', [pod('web')]);
      await handler.ended.count(7);
      await h.stop();
      const failed = lines.filter((l) => l['msg'] === 'handler call failed')
        .map((l) => [l['level'], (l['err'] as { message: string }).message, l['failures'], l['causeChanged']]);
      expect(failed).toEqual([
        [40, 'refused', 1, undefined], [40, 'refused', 2, undefined], [40, 'refused', 3, undefined], [20, 'refused', 4, undefined],
        [40, 'disk full', 5, true], [20, 'disk full', 6, undefined],
      ]);
    });

    it('warns again at most every 5 minutes while a pod keeps failing, with its failures and attempt, and starts over after a success', async () => {
      const clock = new ManualClock();
      const lines = new Log<Record<string, unknown>>();
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      let down = true;
      const handler = new TestHandler('h', () => {
        if (down) throw new Error('refused');
      });
      const h = start({ handlers: [handler], clock, logger, retry: { initialMs: 60_000, maxMs: 60_000 } });
      const failed = (l: Record<string, unknown>): boolean => l['msg'] === 'handler call failed';
      let seen = 0;
      /** Lets the next `n` calls fail, each retry due when its line said, and returns their lines. */
      const fail = async (n: number): Promise<Record<string, unknown>[]> => {
        const from = seen;
        seen += n;
        for (let i = from + 1; i < seen; i++) {
          const last = (await lines.count(i, failed)).at(-1)!;
          clock.advance(last['retryInMs'] as number);
        }
        return (await lines.count(seen, failed)).slice(from);
      };
      await h.feed.push('file', 'ADD', [pod('web')]);
      // Retries 75 s apart (60 s × 1.25): the third failure warns at 150 s, the seventh 300 s later, the eleventh 300 s after that.
      const streak = await fail(12);
      // Failures 4 to 12 would all be at debug without the reminders.
      expect(streak.map((l) => [l['level'], l['failures'], l['attempt']])).toEqual([
        [40, 1, 1], [40, 2, 2], [40, 3, 3], [20, 4, 4], [20, 5, 5], [20, 6, 6],
        [40, 7, 7], [20, 8, 8], [20, 9, 9], [20, 10, 10], [40, 11, 11], [20, 12, 12],
      ]);
      expect(streak[6]).toMatchObject({ pod: 'default/web', uid: 'uid-web', call: 'resync', retryInMs: 75_000, err: { message: 'refused' } });
      // A success ends the streak: the next one warns for its first 3 failures again, then waits 5 minutes anew.
      down = false;
      clock.advance(streak.at(-1)!['retryInMs'] as number);
      await lines.waitFor((l) => l['msg'] === 'handler call recovered');
      down = true;
      await h.feed.push('file', 'UPDATE', [pod('web', { v: 2 })]);
      expect((await fail(4)).map((l) => [l['level'], l['failures'], l['attempt']])).toEqual([[40, 1, 1], [40, 2, 2], [40, 3, 3], [20, 4, 4]]);
      await h.stop();
    });

    it('logs at most 20 failure warnings and 20 recoveries a minute per handler (a handler-wide outage and its end), the rest at debug, and says how many were demoted', async () => {
      const clock = new ManualClock();
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      let outage = true;
      const down = new TestHandler('webhook', () => {
        if (outage) throw new Error('connect ECONNREFUSED 127.0.0.1:8080');
      });
      const h = start({ handlers: [down], clock, logger, concurrency: 8, retry: { initialMs: 120_000 } });
      await h.feed.push('file', 'ADD', Array.from({ length: 30 }, (_, i) => pod(`p${i}`)));
      await down.ended.count(30);
      const failed = (): Record<string, unknown>[] => lines.filter((l) => l['msg'] === 'handler call failed');
      expect(failed().map((l) => l['level'])).toEqual([...Array<number>(20).fill(40), ...Array<number>(10).fill(20)]);
      clock.advance(180_000); // a new minute, and every pod's retry is due
      await down.ended.count(60);
      const later = failed().slice(30);
      expect(later.filter((l) => l['level'] === 40)).toHaveLength(20);
      expect(later.find((l) => l['level'] === 40)).toMatchObject({ warningsDemoted: 10 });
      // The outage ends: every pod recovers at once, and 20 of them say so at info.
      outage = false;
      clock.advance(480_000); // past every pod's doubled retry
      await down.ended.count(90);
      const recovered = lines.filter((l) => l['msg'] === 'handler call recovered');
      expect(recovered.map((l) => l['level'])).toEqual([...Array<number>(20).fill(30), ...Array<number>(10).fill(20)]);
      await h.stop();
    });

    it('caps the backoff at retry.maxMs', async () => {
      const clock = new InstantClock();
      const handler = new TestHandler('h', () => {
        throw new Error('down');
      });
      const h = start({ handlers: [handler], clock, callTimeoutMs: 7_777, retry: { initialMs: 1_000, maxMs: 4_000 } });
      await h.feed.push('file', 'ADD', [pod('web')]);
      await handler.ended.count(5);
      await h.stop();
      expect(clock.sleeps.filter(notCallDeadline(7_777)).slice(0, 4)).toEqual([1_250, 2_500, 5_000, 5_000]);
    });

    it('starts at retry.maxMs when only a cap below the 10 s default is given (quicker retries, not an error)', async () => {
      const clock = new InstantClock();
      const handler = new TestHandler('h', () => {
        throw new Error('down');
      });
      const h = start({ handlers: [handler], clock, callTimeoutMs: 7_777, retry: { maxMs: 4_000 } });
      await h.feed.push('file', 'ADD', [pod('web')]);
      await handler.ended.count(3);
      await h.stop();
      expect(clock.sleeps.filter(notCallDeadline(7_777)).slice(0, 2)).toEqual([5_000, 5_000]);
    });

    it('retries a failed call after 10 s jittered by 0.5 by default, flat (kubelet backOffPeriod, spec §8)', async () => {
      const clock = new ManualClock();
      let random = 0;
      const handler = new TestHandler('h', () => {
        throw new PodConfigError('PODCONFIG_HANDLER_FAILED', 'boom');
      });
      const h = start({ handlers: [handler], clock, random: () => random });
      const retryInMs = (): number => Date.parse(h.reconciler.pods()[0]!.handlers.h!.nextRetryTime!) - clock.now();
      await h.feed.push('file', 'ADD', [pod('web')]);
      await h.events.count(1);
      expect(retryInMs()).toBe(10_000); // random 0: the low end of [10 s, 15 s)
      random = 0.99;
      for (let attempt = 2; attempt <= 4; attempt++) {
        clock.advance(retryInMs());
        await h.events.count(attempt);
        expect(retryInMs()).toBe(14_950); // not doubling: each retry in [10 s, 15 s) again
      }
      expect(handler.calls.items.map((c) => [c.type, c.attempt])).toEqual([['create', 1], ['resync', 2], ['resync', 3], ['resync', 4]]);
      await h.stop();
    });

    it('times out a call that never settles: aborts its signal, counts it as failed, frees its slot and retries', async () => {
      const clock = new ManualClock();
      const handler = new TestHandler('h', (call) => (call.name === 'hung' ? new Promise<never>(() => undefined) : undefined));
      const h = start({ handlers: [handler], clock, concurrency: 1, callTimeoutMs: 5_000 });
      await h.feed.push('file', 'ADD', [pod('hung'), pod('ok')]);
      expect(handler.seen()).toEqual(['uid-hung:create']);
      const hung = handler.calls.items[0]!;
      await clock.sleeping(5_000);
      clock.advance(5_000);
      await handler.calls.waitFor((c) => c.name === 'ok');
      expect(hung.signal.aborted).toBe(true);
      expect(h.events.items[0]).toMatchObject({ handler: 'h', call: 'create', outcome: 'timeout', durationMs: 5_000 });
      const status = h.reconciler.pods().find((p) => p.name === 'hung')!.handlers.h!;
      expect(status).toMatchObject({ state: 'backoff', lastResult: 'timeout', failures: 1, lastError: { code: 'PODCONFIG_HANDLER_TIMEOUT' } });
      await clock.sleeping(12_500); // the default retry: 10 s × (1 + 0.5 × 0.5)
      clock.advance(12_500);
      const retry = await handler.calls.waitFor((c) => c.name === 'hung' && c.attempt === 2);
      expect(retry.type).toBe('resync');
      await clock.sleeping(5_000);
      clock.advance(5_000); // the retry times out too, so shutdown has nothing in flight
      await h.events.count(3);
      await h.stop();
      expect(clock.pending()).toEqual([]);
    });

    it('keeps a healthy handler at its pace next to a throwing and a hanging one', async () => {
      const healthy = new TestHandler('healthy');
      const throwing = new TestHandler('throwing', () => {
        throw new PodConfigError('PODCONFIG_HANDLER_FAILED', 'boom');
      });
      const hanging = new TestHandler('hanging', 'hang');
      // The clock never moves: no call times out and no retry fires during the test.
      const clock = new ManualClock();
      const h = start({ handlers: [hanging, throwing, healthy], clock, concurrency: 4, shutdownTimeoutMs: 1_000 });
      const names = ['a', 'b', 'c', 'd', 'e', 'f'];
      await h.feed.push('file', 'ADD', names.map((n) => pod(n, { v: 1 })));
      await healthy.ended.count(6);
      await h.feed.push('file', 'UPDATE', names.map((n) => pod(n, { v: 2 })));
      await healthy.ended.count(12);
      expect(healthy.calls.items.map((c) => `${c.name}:${c.type}:${version(c)}`)).toEqual([
        ...names.map((n) => `${n}:create:1`),
        ...names.map((n) => `${n}:update:2`),
      ]);
      expect(hanging.calls.items).toHaveLength(2); // its share of the slots: concurrency − handlers + 1
      expect(throwing.calls.items.length).toBeGreaterThanOrEqual(6);
      expect(h.reconciler.pods().every((p) => p.handlers.healthy!.state === 'idle')).toBe(true);
      h.controller.abort();
      await clock.sleeping(1_000);
      clock.advance(1_000); // the hanging calls ignore their signal: abandoned after shutdownTimeoutMs
      await h.done;
      expect(hanging.calls.items.every((c) => c.signal.aborted)).toBe(true);
      expect(clock.pending()).toEqual([]);
    });

    it('names what overran the shutdown budget: a source still closing, an orphan sweep still listing, not handler calls', async () => {
      const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
      const clock = new ManualClock();
      const lister = new ListingHandler('lister', () => new Promise<never>(() => undefined)); // ignores its signal
      let sent = false;
      let closed: (() => void) | undefined;
      const updates: AsyncIterable<PodUpdate> = {
        [Symbol.asyncIterator]: () => ({
          next: () => {
            if (sent) return new Promise<never>(() => undefined);
            sent = true;
            return Promise.resolve({ done: false, value: { source: 'file', op: 'ADD', pods: [pod('a')] } });
          },
          // A source that takes its time to stop (a watch connection closing slowly).
          return: () => new Promise<IteratorResult<PodUpdate>>((resolve) => { closed = () => resolve({ done: true, value: undefined }); }),
        }),
      };
      const reconciler = new Reconciler({ handlers: [lister], sources: ['file'], logger, clock, shutdownTimeoutMs: 2_000, random: () => 0.5 });
      const controller = new AbortController();
      const done = reconciler.run(updates, controller.signal);
      await lister.ended.count(1);
      controller.abort();
      await clock.sleeping(2_000);
      clock.advance(2_000);
      await done;
      closed?.();
      const warnings = lines.filter((l) => l.level === 40).map(({ msg, calls, handlers }) => ({ msg, calls, handlers }));
      expect(warnings).toEqual([
        { msg: 'update stream still closing at shutdown (a source did not stop); abandoned', calls: undefined, handlers: undefined },
        { msg: 'orphan clean-up (listPods) still running at shutdown; abandoned', calls: undefined, handlers: ['lister'] },
      ]);
      expect(lines.find((l) => l.msg === 'reconciler stopped')).toMatchObject({ interruptedCalls: 0 });
    });

    it('creates a pod again instead of killing it when it comes back before its kill ran', async () => {
      const handler = new TestHandler('h', 'hold');
      const h = start({ handlers: [handler], clock: new ManualClock() });
      await h.feed.push('file', 'ADD', [pod('a', { v: 1 })]);
      const create = await handler.calls.waitFor(() => true);
      await h.feed.push('file', 'REMOVE', [pod('a', { v: 1 })]);
      expect(h.reconciler.pods()[0]).toMatchObject({ desired: false, handlers: { h: { state: 'running', pending: 'kill' } } });
      await h.feed.push('file', 'ADD', [pod('a', { v: 2 })]);
      create.finish();
      const next = await handler.calls.waitFor((c) => c !== create);
      expect([next.op, next.type, version(next)]).toEqual(['sync', 'create', '2']);
      next.finish();
      await h.events.count(2);
      expect(handler.seen('kill')).toEqual([]);
      await h.stop();
    });

    it('sends create, not update, for a pod the handler was never told about', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock() });
      await h.feed.push('file', 'UPDATE', [pod('a')]);
      await handler.ended.count(1);
      expect(handler.seen()).toEqual(['uid-a:create']);
      await h.stop();
    });

    it('forgets a removed pod the handler never started, without a kill', async () => {
      const handler = new TestHandler('h', 'hold');
      const h = start({ handlers: [handler], clock: new ManualClock(), concurrency: 1 });
      await h.feed.push('file', 'ADD', [pod('a'), pod('b')]);
      await h.feed.push('file', 'REMOVE', [pod('b')]);
      handler.calls.items[0]!.finish();
      await h.events.count(1);
      expect(handler.seen()).toEqual(['uid-a:create']);
      expect(h.reconciler.pods().map((p) => p.name)).toEqual(['a']);
      await h.stop();
    });

    it('executes a REMOVE as soon as the pod\'s own source is ready, while the api source is not (D10, checklist 101)', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'api'] });
      await h.feed.push('file', 'ADD', [pod('web', { uid: 'old' })]);
      // A static pod edit: REMOVE the old UID and ADD the new one with the same full name (§6.6).
      await h.feed.push('file', 'REMOVE', [pod('web', { uid: 'old' })]);
      await h.feed.push('file', 'ADD', [pod('web', { uid: 'new', v: 2 })]);
      await handler.ended.count(3);
      expect(handler.seen()).toEqual(['old:create', 'old:removed', 'new:create']);
      expect(h.reconciler.readiness()).toEqual({ configured: ['file', 'api'], ready: ['file'], allReady: false });
      await h.stop();
    });

    it('with readiness all-sources, defers every kill until all sources are ready (checklist 90-92, 101)', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'api'], readiness: 'all-sources' });
      await h.feed.push('file', 'ADD', [pod('web', { uid: 'old' })]);
      await h.feed.push('file', 'REMOVE', [pod('web', { uid: 'old' })]);
      await h.feed.push('file', 'ADD', [pod('web', { uid: 'new', v: 2 })]);
      await handler.ended.count(1);
      // The old pod keeps running and the new one waits behind it: the kubelet's wedge.
      expect(handler.seen()).toEqual(['old:create']);
      expect(h.reconciler.readiness().allReady).toBe(false);
      expect(h.reconciler.pods().map((p) => [p.uid, p.desired, p.handlers.h!.state])).toEqual([
        ['new', true, 'waiting-for-name'],
        ['old', false, 'kill-deferred'],
      ]);
      expect(h.reconciler.pods()[0]?.handlers.h?.waitingFor).toEqual({ uid: 'old', namespace: 'default', name: 'web', orphan: false });
      await h.feed.push('api', 'ADD', []); // the api source's ready marker
      expect(h.reconciler.readiness()).toEqual({ configured: ['file', 'api'], ready: ['file', 'api'], allReady: true });
      await handler.ended.count(3);
      expect(handler.seen()).toEqual(['old:create', 'old:removed', 'new:create']);
      await h.stop();
    });

    it('executes a deferred REMOVE once ready, unless the pod came back meanwhile', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'api'], readiness: 'all-sources' });
      await h.feed.push('file', 'ADD', [pod('a'), pod('b')]);
      await handler.ended.count(2);
      await h.feed.push('file', 'REMOVE', [pod('a'), pod('b')]);
      await h.feed.push('file', 'ADD', [pod('b', { v: 2 })]);
      expect(handler.seen('kill')).toEqual([]);
      await h.feed.push('api', 'ADD', []);
      await handler.ended.count(4);
      expect(handler.seen()).toEqual(['uid-a:create', 'uid-b:create', 'uid-b:create', 'uid-a:removed']);
      expect(h.reconciler.pods().map((p) => [p.name, p.desired])).toEqual([['b', true]]);
      await h.stop();
    });

    it('with readiness all-sources, stops resyncing a removed pod while its kill waits (D10, checklist 92)', async () => {
      const clock = new ManualClock();
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock, sources: ['file', 'api'], readiness: 'all-sources', syncFrequencyMs: 60_000, random: () => 0.25 });
      await h.feed.push('file', 'ADD', [pod('p')]);
      await handler.ended.count(1);
      await clock.sleeping(67_500);
      await h.feed.push('file', 'REMOVE', [pod('p')]);
      expect(clock.pending()).not.toContain(67_500);
      clock.advance(200_000);
      expect(h.reconciler.pods().map((r) => [r.uid, r.handlers.h!.state])).toEqual([['uid-p', 'kill-deferred']]);
      await h.feed.push('api', 'ADD', []);
      await handler.ended.count(2);
      expect(handler.seen()).toEqual(['uid-p:create', 'uid-p:removed']);
      await h.stop();
    });

    it('with readiness all-sources, does not retry a failed sync of a pod removed while it ran; kills it once ready (D10)', async () => {
      const clock = new ManualClock();
      const handler = new TestHandler('h', 'hold');
      const h = start({ handlers: [handler], clock, sources: ['file', 'api'], readiness: 'all-sources' });
      await h.feed.push('file', 'ADD', [pod('p')]);
      const create = await handler.calls.waitFor((c) => c.op === 'sync');
      await h.feed.push('file', 'REMOVE', [pod('p')]);
      create.fail(new Error('image pull failed'));
      await handler.ended.count(1);
      clock.advance(60_000);
      expect(h.reconciler.pods().map((r) => [r.uid, r.handlers.h!.state])).toEqual([['uid-p', 'kill-deferred']]);
      await h.feed.push('api', 'ADD', []);
      const kill = await handler.calls.waitFor((c) => c.op === 'kill');
      kill.finish();
      await handler.ended.count(2);
      expect(handler.seen()).toEqual(['uid-p:create', 'uid-p:removed']);
      await h.stop();
    });

    it('never blocks creates and updates on readiness', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'http', 'api'], readiness: 'all-sources' });
      await h.feed.push('http', 'ADD', [pod('a', { source: 'http' })]);
      await h.feed.push('http', 'UPDATE', [pod('a', { source: 'http', v: 2 })]);
      await handler.ended.count(2);
      expect(handler.seen()).toEqual(['uid-a:create', 'uid-a:update']);
      await h.stop();
    });

    it('logs an invalid operation at error, ignores it, and counts its source as consumed (checklist 95)', async () => {
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file'], logger });
      await h.feed.push('file', 'SET' as PodUpdate['op'], [pod('a')]);
      expect(handler.calls.items).toEqual([]);
      expect(h.reconciler.readiness().allReady).toBe(true);
      expect(h.updates.items).toHaveLength(1);
      expect(lines.filter((l) => l['level'] === 50)).toEqual([
        expect.objectContaining({ msg: 'invalid operation; ignored', source: 'file', op: 'SET' }),
      ]);
      await h.stop();
    });

    it('runs one static pod per full name on each handler: the next is created once the first is killed there (§6.6, checklist 100)', async () => {
      const fast = new TestHandler('fast');
      let holdKills = true;
      const slow = new TestHandler('slow', (call) => (call.op === 'kill' && holdKills ? new Promise<void>((resolve) => { call.finish = resolve; }) : undefined));
      const h = start({ handlers: [fast, slow], clock: new ManualClock(), sources: ['file', 'http', 'api'] });
      await h.feed.push('file', 'ADD', [pod('etcd', { uid: 'from-file' })]);
      await h.feed.push('http', 'ADD', [pod('etcd', { uid: 'from-http', source: 'http' })]);
      await h.feed.push('api', 'ADD', [pod('etcd', { uid: 'from-api', source: 'api' })]); // not static: not gated
      await fast.ended.count(2);
      await slow.ended.count(2);
      expect(fast.seen()).toEqual(['from-file:create', 'from-api:create']);
      expect(h.reconciler.pods().find((p) => p.uid === 'from-http')!.handlers).toMatchObject({
        fast: { state: 'waiting-for-name' }, slow: { state: 'waiting-for-name' },
      });
      await h.feed.push('file', 'REMOVE', [pod('etcd', { uid: 'from-file' })]);
      await fast.ended.count(4);
      expect(fast.seen()).toEqual(['from-file:create', 'from-api:create', 'from-file:removed', 'from-http:create']);
      // On the slow handler the kill is still running, so the http pod still waits there.
      expect(slow.seen()).toEqual(['from-file:create', 'from-api:create', 'from-file:removed']);
      holdKills = false;
      slow.calls.items[2]!.finish();
      await slow.ended.count(4);
      expect(slow.seen()).toEqual(['from-file:create', 'from-api:create', 'from-file:removed', 'from-http:create']);
      await h.stop();
    });

    it('kills a static pod renamed under its UID under its old full name, then creates it under the new one once that is free (§6.6, D14)', async () => {
      // One slot, held by a third pod's call: the REMOVE's kill is still queued when the ADD comes.
      const handler = new TestHandler('h', (call) => (call.uid === 'uid-blocker' ? new Promise<void>((resolve) => { call.finish = resolve; }) : undefined));
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'http', 'api'], concurrency: 1 });
      await h.feed.push('file', 'ADD', [pod('a', { uid: 'pinned' })]);
      await h.feed.push('http', 'ADD', [pod('b', { uid: 'other', source: 'http' })]);
      await handler.ended.count(2);
      await h.feed.push('api', 'ADD', [pod('blocker', { source: 'api' })]);
      await handler.calls.count(3);
      // The manifest renamed a → b with its UID pinned: the merger sends REMOVE (a) and ADD (b).
      await h.feed.push('file', 'REMOVE', [pod('a', { uid: 'pinned' })]);
      await h.feed.push('file', 'ADD', [pod('b', { uid: 'pinned' })]);
      handler.calls.items[2]!.finish();
      await handler.ended.count(4);
      expect(handler.calls.items.map((c) => `${c.uid}:${c.type}:${c.name}`)).toEqual([
        'pinned:create:a', 'other:create:b', 'uid-blocker:create:blocker', 'pinned:removed:a',
      ]);
      expect(h.reconciler.pods().find((p) => p.uid === 'pinned')!.handlers).toMatchObject({ h: { state: 'waiting-for-name' } });
      await h.feed.push('http', 'REMOVE', [pod('b', { uid: 'other', source: 'http' })]);
      await handler.ended.count(6);
      expect(handler.calls.items.slice(4).map((c) => `${c.uid}:${c.type}:${c.name}`)).toEqual(['other:removed:b', 'pinned:create:b']);
      expect(handler.overlaps).toBe(0);
      await h.stop();
    });

    it('lets the next static pod have a full name as soon as a pod renamed away from it was killed (§6.6)', async () => {
      let holdKills = true;
      const handler = new TestHandler('h', (call) => (call.op === 'kill' && holdKills ? new Promise<void>((resolve) => { call.finish = resolve; }) : undefined));
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'http'] });
      await h.feed.push('file', 'ADD', [pod('a', { uid: 'pinned' })]);
      await h.feed.push('http', 'ADD', [pod('a', { uid: 'next', source: 'http' })]); // waits for a
      await handler.ended.count(1);
      await h.feed.push('file', 'REMOVE', [pod('a', { uid: 'pinned' })]);
      await handler.calls.count(2);
      await h.feed.push('file', 'ADD', [pod('b', { uid: 'pinned' })]); // renamed while its kill runs
      holdKills = false;
      handler.calls.items[1]!.finish();
      await handler.ended.count(4);
      expect(handler.calls.items.map((c) => `${c.uid}:${c.type}:${c.name}`).sort()).toEqual(['next:create:a', 'pinned:create:a', 'pinned:create:b', 'pinned:removed:a']);
      expect(h.reconciler.pods().map((p) => `${p.uid}:${p.handlers['h']?.state}`).sort()).toEqual(['next:idle', 'pinned:idle']);
      await h.stop();
    });

    it('takes a UID that now comes from the apiserver out of the queue for the full name it waited for as a static pod', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'http', 'api'] });
      await h.feed.push('file', 'ADD', [pod('etcd', { uid: 'first' })]);
      await h.feed.push('http', 'ADD', [pod('etcd', { uid: 'moving', source: 'http' })]); // waits for etcd_default
      await h.feed.push('api', 'ADD', [pod('etcd', { uid: 'moving', source: 'api' })]); // API pods are not gated
      await h.feed.push('http', 'ADD', [pod('etcd', { uid: 'third', source: 'http' })]); // waits
      await handler.ended.count(2);
      expect(handler.seen()).toEqual(['first:create', 'moving:create']);
      await h.feed.push('file', 'REMOVE', [pod('etcd', { uid: 'first' })]);
      await handler.ended.count(4);
      expect(handler.seen()).toEqual(['first:create', 'moving:create', 'first:removed', 'third:create']);
      expect(h.reconciler.pods().map((p) => `${p.uid}:${p.handlers['h']?.state}`).sort()).toEqual(['moving:idle', 'third:idle']);
      await h.stop();
    });

    it('keeps a pod that another source still lists when the source that sent it last removes it', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'http'] });
      // The same pinned UID in a manifest file and behind the manifest URL, first under the same name.
      await h.feed.push('file', 'ADD', [pod('a', { uid: 'pinned', v: 1 })]);
      await h.feed.push('http', 'ADD', [pod('a', { uid: 'pinned', source: 'http', v: 2 })]);
      await h.feed.push('http', 'REMOVE', [pod('a', { uid: 'pinned', source: 'http', v: 2 })]);
      await handler.ended.count(3);
      expect(handler.calls.items.map((c) => `${c.type}:${c.name}:v${version(c)}`)).toEqual(['create:a:v1', 'create:a:v2', 'update:a:v1']);
      expect(h.reconciler.pods()).toMatchObject([{ uid: 'pinned', source: 'file', desired: true }]);
      // Then under two names: leaving the URL's name is a rename back to the file's (killed under the old name first).
      await h.feed.push('http', 'ADD', [pod('b', { uid: 'pinned', source: 'http', v: 3 })]);
      await handler.ended.count(5);
      await h.feed.push('http', 'REMOVE', [pod('b', { uid: 'pinned', source: 'http', v: 3 })]);
      await handler.ended.count(7);
      expect(handler.calls.items.slice(3).map((c) => `${c.type}:${c.name}`)).toEqual(['removed:a', 'create:b', 'removed:b', 'create:a']);
      // A REMOVE from a source that is not the latest sender drops only that source's claim.
      await h.feed.push('http', 'ADD', [pod('a', { uid: 'pinned', source: 'http', v: 4 })]);
      await h.feed.push('file', 'REMOVE', [pod('a', { uid: 'pinned', v: 1 })]);
      await h.feed.push('http', 'REMOVE', [pod('a', { uid: 'pinned', source: 'http', v: 4 })]);
      await handler.ended.count(9);
      expect(handler.calls.items.slice(7).map((c) => `${c.type}:${c.name}`)).toEqual(['create:a', 'removed:a']);
      expect(h.reconciler.pods()).toEqual([]);
      expect(handler.overlaps).toBe(0);
      await h.stop();
    });

    it('calls update, not reconcile, when a status-only change from another source makes its version the desired pod', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'http'] });
      await h.feed.push('file', 'ADD', [pod('a', { uid: 'pinned', v: 1 })]);
      await h.feed.push('http', 'ADD', [pod('a', { uid: 'pinned', source: 'http', v: 2 })]);
      // Only the status changed against the file's own v1; against the http v2 the handler runs, the spec did too.
      await h.feed.push('file', 'RECONCILE', [pod('a', { uid: 'pinned', v: 1, extra: (p) => ({ ...p, status: { phase: 'Running' } }) })]);
      await handler.ended.count(3);
      expect(handler.calls.items.map((c) => `${c.type}:v${version(c)}`)).toEqual(['create:v1', 'create:v2', 'update:v1']);
      // From the source whose version the handler has, a status change stays a reconcile.
      await h.feed.push('file', 'RECONCILE', [pod('a', { uid: 'pinned', v: 1, extra: (p) => ({ ...p, status: { phase: 'Succeeded' } }) })]);
      await handler.ended.count(4);
      expect(handler.calls.items[3]?.type).toBe('reconcile');
      await h.stop();
    });

    it('hands over to the source that sent a pinned UID last when its newest sender removes it', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'http', 'api'] });
      await h.feed.push('file', 'ADD', [pod('a', { uid: 'pinned', v: 1 })]);
      await h.feed.push('http', 'ADD', [pod('a', { uid: 'pinned', source: 'http', v: 2 })]);
      await h.feed.push('api', 'ADD', [pod('a', { uid: 'pinned', source: 'api', v: 3 })]);
      await h.feed.push('api', 'REMOVE', [pod('a', { uid: 'pinned', source: 'api', v: 3 })]);
      await handler.ended.count(4);
      expect(handler.calls.items.map((c) => `${c.type}:v${version(c)}`)).toEqual(['create:v1', 'create:v2', 'create:v3', 'update:v2']);
      expect(h.reconciler.pods()).toMatchObject([{ uid: 'pinned', source: 'http', desired: true }]);
      await h.stop();
    });

    it('kills a renamed static pod under the name it runs under even when the REMOVE comes while that kill is failing (§6.6)', async () => {
      const clock = new ManualClock();
      // Every first attempt of a kill under a fails: the handler still runs the pod as a.
      const handler = new TestHandler('h', (call) => {
        if (call.op === 'kill' && call.name === 'a' && call.attempt === 1) throw new Error('runtime hiccup');
      });
      const h = start({ handlers: [handler], clock, sources: ['file', 'http'], retry: { initialMs: 1_000, maxMs: 1_000 } });
      await h.feed.push('http', 'ADD', [pod('a', { uid: 'pinned', source: 'http' })]);
      await h.feed.push('http', 'REMOVE', [pod('a', { uid: 'pinned', source: 'http' })]);
      await h.feed.push('http', 'ADD', [pod('b', { uid: 'pinned', source: 'http' })]); // renamed a → b
      await h.feed.push('http', 'REMOVE', [pod('b', { uid: 'pinned', source: 'http' })]); // then dropped
      await h.feed.push('file', 'ADD', [pod('a', { uid: 'next' })]); // another static pod wants a
      await handler.ended.count(4);
      expect(h.reconciler.pods().find((p) => p.uid === 'next')!.handlers).toMatchObject({ h: { state: 'waiting-for-name' } });
      clock.advance(1_500);
      await handler.ended.count(6);
      // The rename's kill and the REMOVE's each start again at attempt 1; all are under a, where the pod runs.
      expect(handler.calls.items.map((c) => `${c.uid}:${c.type}:${c.name}:${c.attempt}`)).toEqual([
        'pinned:create:a:1', 'pinned:removed:a:1', 'pinned:removed:a:1', 'pinned:removed:a:1', 'pinned:removed:a:2', 'next:create:a:1',
      ]);
      await h.stop();
    });

    it('gives up a full name a queued static pod claimed when its UID comes from the apiserver under another name', async () => {
      // One slot, held by the first pod's sync: the second pod's sync is queued, its name claimed.
      const handler = new TestHandler('h', (call) => (call.uid === 'x' && call.op === 'sync' ? new Promise<void>((resolve) => { call.finish = resolve; }) : undefined));
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'http', 'api'], concurrency: 1 });
      await h.feed.push('file', 'ADD', [pod('b', { uid: 'x' }), pod('c', { uid: 'w' })]);
      await handler.calls.count(1);
      await h.feed.push('api', 'ADD', [pod('b', { uid: 'w', source: 'api' })]);
      await h.feed.push('file', 'REMOVE', [pod('b', { uid: 'x' }), pod('c', { uid: 'w' })]);
      await h.feed.push('http', 'ADD', [pod('c', { uid: 'v', source: 'http' })]);
      handler.calls.items[0]!.finish();
      await handler.ended.count(4);
      expect(handler.calls.items.map((c) => `${c.uid}:${c.type}:${c.name}`).sort()).toEqual(['v:create:c', 'w:create:b', 'x:create:b', 'x:removed:b']);
      expect(h.reconciler.pods().map((p) => `${p.uid}:${p.handlers['h']?.state}`).sort()).toEqual(['v:idle', 'w:idle']);
      await h.stop();
    });

    it('kills a pod the handler ran as an API pod before it runs as a static pod under another name or under one another pod owns', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'http', 'api'] });
      // A manifest with the UID of an API pod (copied from `kubectl get -o yaml`), under another name.
      await h.feed.push('api', 'ADD', [pod('a', { uid: 'u', source: 'api' })]);
      await h.feed.push('file', 'ADD', [pod('b', { uid: 'u' })]);
      await handler.ended.count(3);
      expect(handler.calls.items.map((c) => `${c.uid}:${c.type}:${c.name}`)).toEqual(['u:create:a', 'u:removed:a', 'u:create:b']);
      // Under the same name as a static pod that owns it: killed, then it waits for the name.
      await h.feed.push('http', 'ADD', [pod('c', { uid: 'owner', source: 'http' })]);
      await h.feed.push('api', 'ADD', [pod('c', { uid: 'w', source: 'api', v: 1 })]);
      await handler.ended.count(5);
      await h.feed.push('file', 'ADD', [pod('c', { uid: 'w', v: 2 })]);
      await handler.ended.count(6);
      expect(handler.calls.items.slice(3).map((c) => `${c.uid}:${c.type}:${c.name}:v${version(c)}`)).toEqual(['owner:create:c:v1', 'w:create:c:v1', 'w:removed:c:v1']);
      expect(h.reconciler.pods().find((p) => p.uid === 'w')!.handlers).toMatchObject({ h: { state: 'waiting-for-name' } });
      await h.feed.push('http', 'REMOVE', [pod('c', { uid: 'owner', source: 'http' })]);
      await handler.ended.count(8);
      expect(handler.calls.items.slice(6).map((c) => `${c.uid}:${c.type}:${c.name}:v${version(c)}`)).toEqual(['owner:removed:c:v1', 'w:create:c:v2']);
      expect(handler.overlaps).toBe(0);
      await h.stop();
    });

    /**
     * One file pod created at the clock's start (syncFrequency 60 s), with its resync timer armed for
     * `resyncMs`: 60 s × (1 + 0.5 × the jitter `random` gives in 1 % steps), 67.5 s by default (0.25).
     */
    async function syncedPod(random = 0.25, resyncMs = 67_500): Promise<{ clock: ManualClock; handler: TestHandler; h: Harness }> {
      const clock = new ManualClock();
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock, syncFrequencyMs: 60_000, random: () => random });
      await h.feed.push('file', 'ADD', [pod('web')]);
      await handler.ended.count(1);
      await clock.sleeping(resyncMs);
      return { clock, handler, h };
    }

    it('resyncs each pod every [1, 1.5) × syncFrequency after its last successful sync (checklist 98)', async () => {
      const { clock, handler, h } = await syncedPod();
      clock.advance(67_500);
      await handler.ended.count(2);
      await clock.sleeping(67_500);
      clock.advance(67_500);
      await handler.ended.count(3);
      expect(handler.calls.items.map((c) => [c.type, c.attempt])).toEqual([['create', 1], ['resync', 1], ['resync', 1]]);
      // An update in between replaces the scheduled resync instead of adding one.
      await h.feed.push('file', 'UPDATE', [pod('web', { v: 2 })]);
      await handler.ended.count(4);
      await clock.sleeping(67_500);
      expect(clock.pending().filter((ms) => ms === 67_500)).toHaveLength(1);
      await h.stop();
    });

    it('keeps one resync timer however often the pod is synced before it fires; the resync still comes after the last sync', async () => {
      const { clock, handler, h } = await syncedPod();
      for (let v = 2; v <= 4; v++) {
        clock.advance(10_000);
        await h.feed.push('file', 'UPDATE', [pod('web', { v })]);
        await handler.ended.count(v);
      }
      // Synced at 0, 10, 20 and 30 s: the timer armed at 0 s was neither cancelled nor set again.
      expect(clock.requested.items.filter((ms) => ms === 67_500)).toHaveLength(1);
      // It fires at 67.5 s, before the resync is due (97.5 s), and re-arms itself for the rest.
      clock.advance(37_500);
      await clock.sleeping(30_000);
      clock.advance(29_999);
      await new Promise((resolve) => setImmediate(resolve));
      expect(handler.calls.items).toHaveLength(4);
      clock.advance(1);
      await handler.ended.count(5);
      expect(handler.calls.items.map((c) => c.type)).toEqual(['create', 'update', 'update', 'update', 'resync']);
      await h.stop();
    });

    it('has the resyncs of all pods wait on one timer per distinct delay; a removed pod leaves none behind', async () => {
      const clock = new ManualClock();
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock, syncFrequencyMs: 60_000, random: () => 0.25 });
      await h.feed.push('file', 'ADD', [pod('a'), pod('b'), pod('c')]);
      await handler.ended.count(3);
      await clock.sleeping(67_500);
      expect(clock.pending().filter((ms) => ms === 67_500)).toHaveLength(1);
      await h.feed.push('file', 'REMOVE', [pod('a'), pod('b'), pod('c')]);
      await handler.ended.count(6);
      await new Promise((resolve) => setImmediate(resolve));
      expect(clock.pending().filter((ms) => ms === 67_500)).toHaveLength(0);
      clock.advance(67_500);
      await new Promise((resolve) => setImmediate(resolve));
      expect(handler.calls.items.map((c) => `${c.name}:${c.type}`)).toEqual(['a:create', 'b:create', 'c:create', 'a:removed', 'b:removed', 'c:removed']);
      await h.stop();
    });

    it('re-arms a resync timer in 1 % steps, but never past 1.5 × syncFrequency after the last sync', async () => {
      // Jitter 0.495: each resync is owed 89.7 s after its sync; the latest allowed is 89.999 s after it.
      const { clock, handler, h } = await syncedPod(0.999, 89_700);
      clock.advance(6_001);
      await h.feed.push('file', 'UPDATE', [pod('web', { v: 2 })]);
      await handler.ended.count(2);
      // The timer fires at 89.7 s; the resync is due at 95.701 s. 6,001 ms rounded up to 600 ms steps would be
      // 96.3 s, past 96.0 s (1.5 × 60 s − 1 ms after the sync at 6.001 s): it re-arms for 96.0 s.
      clock.advance(89_700 - 6_001);
      await clock.sleeping(6_300);
      clock.advance(6_300);
      await handler.ended.count(3);
      expect(handler.calls.items.map((c) => c.type)).toEqual(['create', 'update', 'resync']);
      await h.stop();
    });

    it('resyncs on time when the wall clock is stepped back: due times are on the monotonic clock', async () => {
      const { clock, handler, h } = await syncedPod();
      clock.stepWall(-3_600_000); // NTP steps the wall clock back an hour; no time passes
      const before = clock.requested.items.length;
      clock.advance(67_500);
      // The resync's call deadline is the next sleep, not a wait re-armed for the hour the wall clock lost.
      await clock.requested.until((items) => items.length > before);
      expect(clock.requested.items[before]).toBeLessThan(3_600_000);
      await handler.ended.count(2);
      expect(handler.calls.items.map((c) => [c.type, c.attempt])).toEqual([['create', 1], ['resync', 1]]);
      await h.stop();
    });

    it('does not resync early when the wall clock is stepped forward', async () => {
      const clock = new ManualClock();
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock, syncFrequencyMs: 60_000, random: () => 0.25 });
      await h.feed.push('file', 'ADD', [pod('a')]);
      await handler.ended.count(1);
      clock.advance(10_000);
      await h.feed.push('file', 'ADD', [pod('b')]);
      await handler.ended.count(2);
      // Both wait 67.5 s in one list: a's resync is due at 67.5 s, b's at 77.5 s.
      clock.stepWall(3_600_000);
      clock.advance(57_500);
      await handler.ended.count(3);
      await new Promise((resolve) => setImmediate(resolve));
      expect(handler.seen('sync')).toEqual(['uid-a:create', 'uid-b:create', 'uid-a:resync']);
      clock.advance(10_000);
      await handler.ended.count(4);
      expect(handler.seen('sync')).toEqual(['uid-a:create', 'uid-b:create', 'uid-a:resync', 'uid-b:resync']);
      await h.stop();
    });

    it('lists pods once all sources are ready and every housekeeping period (2 s) after: kills orphans, re-creates missing pods', async () => {
      const clock = new ManualClock();
      let report: () => readonly ActualPod[] = () => [
        { uid: 'uid-a', namespace: 'default', name: 'a' },
        { uid: 'uid-gone', namespace: 'default', name: 'gone' },
        { namespace: 'default', name: 'ghost' }, // no UID: matched by namespace/name
        { namespace: 'default', name: 'a' },
      ];
      const handler = new ListingHandler('h', () => report());
      // per-source readiness, yet orphan clean-up waits for every source (D10).
      const h = start({ handlers: [handler], clock, sources: ['file', 'api'], syncFrequencyMs: 60_000 });
      await h.feed.push('file', 'ADD', [pod('a'), pod('b')]);
      await handler.ended.count(2);
      expect(handler.lists.items).toEqual([]);
      await h.feed.push('api', 'ADD', []);
      await handler.lists.count(1);
      await handler.ended.count(5);
      expect(handler.seen().slice(2).sort()).toEqual([':orphaned', 'uid-b:create', 'uid-gone:orphaned']);
      const ghost = handler.calls.items.find((c) => c.uid === '')!;
      expect(ghost.pod.metadata).toEqual({ namespace: 'default', name: 'ghost' });
      expect(ghost.gracePeriodSeconds).toBe(30);

      // Next period: listPods fails; it is retried the period after.
      report = () => {
        throw new Error('runtime unavailable');
      };
      await clock.sleeping(2_000);
      clock.advance(2_000);
      await handler.lists.count(2);
      report = () => [{ uid: 'uid-a' }, { uid: 'uid-b' }];
      await clock.sleeping(2_000);
      clock.advance(2_000);
      await handler.lists.count(3);
      await h.stop();
      expect(handler.seen('kill')).toHaveLength(2);
    });

    it('does not create a pod again when its create succeeded while the orphan sweep was listing', async () => {
      const clock = new ManualClock();
      const lists = new Log<(pods: readonly ActualPod[]) => void>();
      const handler = new (class extends TestHandler implements PodLister {
        listPods(): Promise<readonly ActualPod[]> {
          return new Promise((resolve) => lists.push(resolve));
        }
      })('h', 'hold');
      const h = start({ handlers: [handler], clock, syncFrequencyMs: 60_000 });
      await h.feed.push('file', 'ADD', [pod('a')]);
      const create = await handler.calls.waitFor((c) => c.op === 'sync');
      const [answer] = await lists.count(1);
      create.finish();
      await handler.ended.count(1);
      answer!([]); // listed before the create ran: the pod is missing from it
      // The sweep is over once it sleeps until the next one (the housekeeping period); that one lists again.
      await clock.sleeping(2_000);
      clock.advance(2_000);
      const [, next] = await lists.count(2);
      expect(handler.seen()).toEqual(['uid-a:create']);
      next!([{ uid: 'uid-a', namespace: 'default', name: 'a' }]);
      await h.stop();
    });

    it('holds the create of a pod while an orphan listed under its name alone is being killed, and drops such a kill not yet running', async () => {
      // A handler that knows its pods by name (an exec hook's `list`): a kill of default/web running beside the
      // create of a new default/web would remove the new pod.
      const clock = new ManualClock();
      let report: readonly ActualPod[] = [{ namespace: 'default', name: 'web' }];
      const handler = new (class extends TestHandler implements PodLister {
        listPods(): Promise<readonly ActualPod[]> {
          return Promise.resolve(report);
        }
      })('h', 'hold');
      const h = start({ handlers: [handler], clock, syncFrequencyMs: 60_000 });
      await h.feed.push('file', 'ADD', []);
      const kill = await handler.calls.waitFor((c) => c.op === 'kill');
      expect(kill.pod.metadata).toEqual({ namespace: 'default', name: 'web' });
      report = [];
      await h.feed.push('file', 'ADD', [pod('web', { uid: 'W1' })]);
      expect(handler.seen()).toEqual([':orphaned']);
      expect(h.reconciler.pods().find((p) => p.uid === 'W1')?.handlers['h']?.state).toBe('waiting-for-name');
      kill.finish();
      const create = await handler.calls.waitFor((c) => c.op === 'sync');
      expect(handler.seen()).toEqual([':orphaned', 'W1:create']);
      create.finish();
      await handler.ended.count(2);

      // An orphan kill that failed and waits for its retry is dropped when a pod with that name is wanted.
      report = [{ uid: 'W1', namespace: 'default', name: 'web' }, { namespace: 'default', name: 'db' }];
      await clock.sleeping(2_000);
      clock.advance(2_000);
      const second = await handler.calls.waitFor((c) => c.op === 'kill' && c.name === 'db');
      second.fail(new Error('runtime busy'));
      await handler.ended.count(3);
      report = [{ uid: 'W1', namespace: 'default', name: 'web' }];
      await h.feed.push('file', 'ADD', [pod('db', { uid: 'D1' })]);
      const dbCreate = await handler.calls.waitFor((c) => c.op === 'sync' && c.uid === 'D1');
      dbCreate.finish();
      await handler.ended.count(4);
      report = [{ uid: 'W1', namespace: 'default', name: 'web' }, { uid: 'D1', namespace: 'default', name: 'db' }];
      clock.advance(10_000); // past the dropped kill's retry
      await clock.sleeping(2_000);
      expect(handler.seen()).toEqual([':orphaned', 'W1:create', ':orphaned', 'D1:create']);
      expect(handler.overlaps).toBe(0);
      await h.stop();
    });

    it('reports the orphan kills under way and the desired pod waiting for one, until the kills succeed (orphanKills())', async () => {
      const clock = new ManualClock();
      let report: readonly ActualPod[] = [{ namespace: 'default', name: 'web' }, { uid: 'uid-stale', namespace: 'default', name: 'stale' }];
      const handler = new (class extends TestHandler implements PodLister {
        listPods(): Promise<readonly ActualPod[]> {
          return Promise.resolve(report);
        }
      })('h', 'hold');
      const h = start({ handlers: [handler], clock, syncFrequencyMs: 60_000 });
      await h.feed.push('file', 'ADD', []);
      const webKill = await handler.calls.waitFor((c) => c.op === 'kill' && c.name === 'web');
      const staleKill = await handler.calls.waitFor((c) => c.op === 'kill' && c.name === 'stale');
      report = [{ uid: 'W1', namespace: 'default', name: 'web' }];
      staleKill.fail(new Error('runtime busy'));
      await h.events.count(1);
      await h.feed.push('file', 'ADD', [pod('web', { uid: 'W1' })]);
      const W1 = { uid: 'W1', namespace: 'default', name: 'web' };
      expect(h.reconciler.pods().find((p) => p.uid === 'W1')?.handlers['h']).toMatchObject({
        state: 'waiting-for-name', waitingFor: { uid: '', namespace: 'default', name: 'web', orphan: true },
      });
      const started = iso(clock.now());
      expect(h.reconciler.orphanKills()).toEqual({
        items: [
          { uid: '', namespace: 'default', name: 'web', handler: 'h', state: 'running', attempt: 1, failures: 0, lastCall: 'kill', lastCallTime: started, waitingPods: [W1] },
          {
            uid: 'uid-stale', namespace: 'default', name: 'stale', handler: 'h', state: 'backoff', attempt: 1, failures: 1, lastCall: 'kill', lastResult: 'error',
            lastCallTime: started, lastError: { message: 'runtime busy', code: 'PODCONFIG_HANDLER_FAILED', time: started },
            nextRetryTime: iso(clock.now() + 12_500), // 10 s jittered by 0.5 × random() = 0.5
          },
        ],
        omitted: 0,
      });

      webKill.finish();
      const create = await handler.calls.waitFor((c) => c.op === 'sync' && c.uid === 'W1');
      create.finish();
      clock.advance(12_500); // the stale orphan's retry (and a sweep, which reports W1 alone)
      const retry = await handler.calls.waitFor((c) => c.op === 'kill' && c.name === 'stale' && c.attempt === 2);
      retry.finish();
      await h.events.count(4);
      expect(h.reconciler.orphanKills()).toEqual({ items: [], omitted: 0 });
      expect(h.reconciler.pods().map((p) => p.handlers['h'])).toEqual([expect.not.objectContaining({ waitingFor: expect.anything() as unknown })]);
      expect(handler.overlaps).toBe(0);
      await h.stop();
    });

    it('lists at most 100 orphan kills, those under way before held ones, and says how many it left out', async () => {
      const clock = new ManualClock();
      const listed = (from: number, n: number): ActualPod[] => Array.from({ length: n }, (_, i) => ({ uid: `o${from + i}`, namespace: 'default', name: `o${from + i}` }));
      let report = listed(0, 103);
      let allowed = false;
      const handler = new (class extends TestHandler implements PodLister {
        listPods(): Promise<readonly ActualPod[]> {
          return Promise.resolve(report);
        }
      })('h', 'hold');
      const h = start({ handlers: [handler], clock, concurrency: 2, orphanKillsAllowed: () => allowed });
      await h.feed.push('file', 'ADD', []);
      await clock.sleeping(2_000);
      // Held (D18): no kill started; the first 100 as listed.
      const held = h.reconciler.orphanKills();
      expect(held.items.map((k) => `${k.uid}:${k.state}`)).toEqual(listed(0, 100).map((p) => `${p.uid}:held`));
      expect(held.items[0]).toEqual({ uid: 'o0', namespace: 'default', name: 'o0', handler: 'h', state: 'held' });
      expect(held.omitted).toBe(3);

      // Allowed: the next sweep kills those (two at a time), while one more appears and is held again after.
      allowed = true;
      clock.advance(2_000);
      await handler.calls.count(2);
      allowed = false;
      report = listed(0, 104);
      await clock.sleeping(2_000);
      clock.advance(2_000);
      await clock.sleeping(2_000);
      const kills = h.reconciler.orphanKills();
      expect(kills.items.map((k) => `${k.uid}:${k.state}`)).toEqual([
        'o0:running', 'o1:running', ...listed(2, 98).map((p) => `${p.uid}:queued`),
      ]);
      expect(kills.omitted).toBe(4); // 3 kills queued past the first 100, and o103 held
      await h.stop();
    });

    it('stops listing a held orphan once a source wants its UID, and every held one once kills are allowed', async () => {
      const clock = new ManualClock();
      let allowed = false;
      const handler = new (class extends TestHandler implements PodLister {
        listPods(): Promise<readonly ActualPod[]> {
          return Promise.resolve([{ uid: 'u1', namespace: 'default', name: 'web' }, { uid: 'u2', namespace: 'default', name: 'db' }]);
        }
      })('h', 'hold');
      const h = start({ handlers: [handler], clock, orphanKillsAllowed: () => allowed });
      await h.feed.push('file', 'ADD', []);
      await clock.sleeping(2_000);
      expect(h.reconciler.orphanKills().items.map((k) => `${k.uid}:${k.state}`)).toEqual(['u1:held', 'u2:held']);
      // A source wants u1 again before the next clean-up: no longer an orphan.
      await h.feed.push('file', 'ADD', [pod('web', { uid: 'u1' })]);
      expect(h.reconciler.orphanKills()).toEqual({ items: [{ uid: 'u2', namespace: 'default', name: 'db', handler: 'h', state: 'held' }], omitted: 0 });
      // Kills allowed (the source became definitive): nothing holds u2 now; the next clean-up kills it.
      allowed = true;
      expect(h.reconciler.orphanKills()).toEqual({ items: [], omitted: 0 });
      await h.stop();
    });

    it('does not kill again, as an orphan, a pod killed while the sweep was listing (the listing came first)', async () => {
      const clock = new ManualClock();
      const lists = new Log<(pods: readonly ActualPod[]) => void>();
      const handler = new (class extends TestHandler implements PodLister {
        listPods(): Promise<readonly ActualPod[]> {
          return new Promise((resolve) => lists.push(resolve));
        }
      })('h');
      const h = start({ handlers: [handler], clock, syncFrequencyMs: 60_000 });
      await h.feed.push('file', 'ADD', [pod('a'), pod('b')]);
      await handler.ended.count(2);
      const [answer] = await lists.count(1);
      await h.feed.push('file', 'REMOVE', [pod('a')]);
      await handler.ended.count(3);
      // Listed before a's kill: a is not killed again.
      answer!([{ uid: 'uid-a', namespace: 'default', name: 'a' }, { uid: 'uid-b', namespace: 'default', name: 'b' }]);
      await clock.sleeping(2_000);
      await h.feed.push('file', 'REMOVE', [pod('b')]);
      await handler.ended.count(4);
      clock.advance(2_000);
      const [, next] = await lists.count(2);
      // This listing began after b's kill: a b it reports still runs, an orphan to kill.
      next!([{ namespace: 'default', name: 'b' }]);
      await clock.sleeping(2_000);
      expect(handler.seen()).toEqual(['uid-a:create', 'uid-b:create', 'uid-a:removed', 'uid-b:removed', ':orphaned']);
      await h.stop();
    });

    it('keeps cleaning up after an answer that is no list or holds null entries (plain JavaScript handlers)', async () => {
      const clock = new ManualClock();
      const lines: Record<string, unknown>[] = [];
      const warnLogger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      let report: () => unknown = () => 'not an array';
      const handler = new ListingHandler('h', () => report() as readonly ActualPod[]);
      const h = start({ handlers: [handler], clock, sources: ['file'], syncFrequencyMs: 60_000, logger: warnLogger });
      await h.feed.push('file', 'ADD', [pod('a')]);
      await handler.lists.count(1);
      await handler.ended.count(1);
      report = () => [null, 'x', { foo: 1 }, { uid: '', name: '' }, { uid: 'uid-a' }, { uid: 'uid-orphan' }];
      await clock.sleeping(2_000);
      clock.advance(2_000);
      await handler.lists.count(2);
      await handler.ended.count(2);
      // The period after, the clean-up still runs: one bad answer did not end it.
      report = () => [{ uid: 'uid-a' }];
      await clock.sleeping(2_000);
      clock.advance(2_000);
      await handler.lists.count(3);
      await h.stop();
      // Not treated as "nothing runs": pod a was created once, never re-created for a missing list (resyncs aside).
      expect(handler.seen().filter((call) => !call.endsWith(':resync'))).toEqual(['uid-a:create', 'uid-orphan:orphaned']);
      expect(lines.map((l) => l['msg'])).toEqual([
        'listPods returned no array; retrying next period',
        'listPods returned entries that are not { uid, namespace, name } objects; ignored',
      ]);
      expect(lines[1]).toMatchObject({ handler: 'h', ignored: 4 });
    });

    it('logs an orphan the handler listed by UID alone by its UID, without an empty pod name', async () => {
      const lines: Record<string, unknown>[] = [];
      const infoLogger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      const handler = new ListingHandler('h', () => [{ uid: 'uid-orphan' }]);
      const failing = Object.assign(handler, { killPod: () => Promise.reject(new Error('runtime unavailable')) });
      const h = start({ handlers: [failing], clock: new ManualClock(), sources: ['file'], logger: infoLogger });
      await h.feed.push('file', 'ADD', []);
      await handler.lists.count(1);
      await h.stop();
      const failed = lines.find((l) => l['msg'] === 'handler call failed');
      expect(failed).toMatchObject({ uid: 'uid-orphan', call: 'kill' });
      expect(failed).not.toHaveProperty('pod');
      const killing = lines.find((l) => l['msg'] === 'killing orphaned pod');
      expect(killing).toMatchObject({ uid: 'uid-orphan' });
      expect(killing).not.toHaveProperty('pod');
    });

    it('holds orphan kills while orphanKillsAllowed() is false (D18)', async () => {
      const clock = new ManualClock();
      const handler = new ListingHandler('h', () => [{ uid: 'uid-a', namespace: 'default', name: 'a' }, { uid: 'uid-stale', namespace: 'default', name: 'stale' }]);
      let allowed = false;
      const h = start({ handlers: [handler], clock, sources: ['file'], syncFrequencyMs: 60_000, orphanKillsAllowed: () => allowed });
      await h.feed.push('file', 'ADD', [pod('a')]);
      await handler.ended.count(1);
      await handler.lists.count(1);
      await clock.sleeping(2_000);
      // The sweep ran and is asleep until the next period: the orphan was held, not killed.
      expect(handler.seen('kill')).toEqual([]);
      allowed = true;
      clock.advance(2_000);
      await handler.lists.count(2);
      await handler.ended.count(2);
      expect(handler.seen('kill')).toEqual(['uid-stale:orphaned']);
      await h.stop();
    });

    it('logs a sweep problem when it starts or changes, not on every 2 s sweep while it lasts', async () => {
      const clock = new ManualClock();
      const lines: Record<string, unknown>[] = [];
      const debugLogger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      const answers: (() => readonly ActualPod[])[] = [
        () => { throw new Error('crictl: connection refused'); },
        () => { throw new Error('crictl: connection refused'); },
        () => { throw new Error('crictl: timeout'); },
        () => [],
        () => { throw new Error('crictl: timeout'); },
      ];
      let sweeps = 0;
      const handler = new ListingHandler('h', () => answers[sweeps++]!());
      const h = start({ handlers: [handler], clock, sources: ['file'], logger: debugLogger });
      await h.feed.push('file', 'ADD', []);
      for (let sweep = 1; sweep < answers.length; sweep++) {
        await handler.lists.count(sweep);
        await clock.sleeping(2_000);
        clock.advance(2_000);
      }
      await handler.lists.count(answers.length);
      await clock.sleeping(2_000);
      await h.stop();
      const failures = lines.filter((l) => l['msg'] === 'listPods failed; retrying next period');
      expect(failures.map((l) => [l['level'], (l['err'] as { message: string }).message])).toEqual([
        [40, 'crictl: connection refused'], [20, 'crictl: connection refused'], [40, 'crictl: timeout'], [40, 'crictl: timeout'],
      ]);
    });

    it('skips orphan clean-up while a handler reports runtime errors, as the kubelet reads no housekeeping tick then', async () => {
      const clock = new ManualClock();
      const handler = new (class extends ListingHandler implements RuntimeHealthReporter {
        error: string | undefined;
        runtimeError(): string | undefined {
          return this.error;
        }
      })('h', () => [{ uid: 'uid-orphan' }]);
      const h = start({ handlers: [handler], clock, sources: ['file'] });
      await h.feed.push('file', 'ADD', []);
      await handler.lists.count(1);
      await handler.ended.count(1); // the orphan killed
      handler.error = 'containerd: connection refused';
      for (let i = 0; i < 3; i++) {
        await clock.sleeping(2_000);
        clock.advance(2_000);
      }
      await clock.sleeping(2_000);
      expect(handler.lists.items).toHaveLength(1);
      handler.error = undefined;
      clock.advance(2_000);
      await handler.lists.count(2);
      await h.stop();
    });

    it('sweeps housekeepingPeriodMs after the previous sweep ended, and logs a sweep that took over 1 s, as the kubelet logs housekeeping', async () => {
      const clock = new ManualClock();
      const lines: Record<string, unknown>[] = [];
      const warnLogger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      let listing = 0;
      const handler = new ListingHandler('h', () => {
        listing += 1;
        clock.advance(listing === 1 ? 1_500 : 1_000); // the first listing is slow, the second just in time
        return [];
      });
      const h = start({ handlers: [handler], clock, sources: ['file'], housekeepingPeriodMs: 5_000, logger: warnLogger });
      await h.feed.push('file', 'ADD', []);
      await handler.lists.count(1);
      await clock.sleeping(5_000);
      clock.advance(5_000);
      await handler.lists.count(2);
      await clock.sleeping(5_000);
      await h.stop();
      expect(lines.filter((l) => l['msg'] === 'housekeeping took longer than expected')).toEqual([
        expect.objectContaining({ handler: 'h', durationMs: 1_500, expectedMs: 1_000 }),
      ]);
    });

    it('does not hand mirror pods to handlers, yet counts their source as ready (spec §7)', async () => {
      const handler = new TestHandler('h');
      const h = start({ handlers: [handler], clock: new ManualClock(), sources: ['file', 'api'] });
      const mirror = pod('etcd', {
        uid: 'uid-mirror', source: 'api',
        extra: (p) => ({ ...p, metadata: { ...p.metadata, annotations: { ...p.metadata!.annotations, [ANNOTATIONS.configMirror]: 'uid-etcd' } } }),
      });
      await h.feed.push('api', 'ADD', [mirror, pod('web', { source: 'api' })]);
      await h.feed.push('file', 'ADD', [pod('etcd')]);
      await handler.ended.count(2);
      expect(handler.seen().sort()).toEqual(['uid-etcd:create', 'uid-web:create']);
      expect(h.reconciler.readiness().allReady).toBe(true);
      expect(h.reconciler.pods().map((p) => p.uid).sort()).toEqual(['uid-etcd', 'uid-web']);
      await h.stop();
    });

    it('calls start() before the first call and close() after the last', async () => {
      const order: string[] = [];
      const handler = new LifecycleHandler('h', order);
      const h = start({ handlers: [handler], clock: new ManualClock() });
      await h.feed.push('file', 'ADD', [pod('a')]);
      await handler.ended.count(1);
      await h.stop();
      expect(order).toEqual(['h start aborted=false', 'h sync uid-a:create', 'h close aborted=false']);
    });

    it('rejects run() when a start() fails, makes no calls and closes only the handlers that started', async () => {
      const order: string[] = [];
      const cause = new Error('cannot open state dir');
      const good = new LifecycleHandler('good', order);
      const bad = new LifecycleHandler('bad', order, cause);
      const h = start({ handlers: [good, bad], clock: new ManualClock() });
      void h.feed.push('file', 'ADD', [pod('a')]);
      const err: unknown = await h.done.then(() => undefined, (e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_FAILED')).toBe(true);
      expect((err as Error).cause).toBe(cause);
      // Its own type, naming the handler: the agent tells a start-up failure from a failing pipeline by it.
      expect(err).toBeInstanceOf(HandlerStartError);
      expect(err).toMatchObject({ handler: 'bad', message: 'sync handler "bad" failed to start: cannot open state dir' });
      expect(order.sort()).toEqual(['bad start aborted=false', 'good close aborted=false', 'good start aborted=false']);
    });

    it('rejects run() with a HandlerStartError coded PODCONFIG_HANDLER_TIMEOUT when a start() outlasts the call timeout', async () => {
      const clock = new ManualClock();
      const slow = new (class extends LifecycleHandler {
        override start(): Promise<void> {
          return new Promise<never>(() => undefined);
        }
      })('slow', []);
      const h = start({ handlers: [slow], clock, callTimeoutMs: 5_000 });
      await clock.sleeping(5_000);
      clock.advance(5_000);
      const err: unknown = await h.done.then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(HandlerStartError);
      expect(err).toMatchObject({ code: 'PODCONFIG_HANDLER_TIMEOUT', handler: 'slow', message: 'sync handler "slow" failed to start: slow start did not finish within 5000 ms' });
    });

    it('shut down while starting, closes only the handlers whose start() succeeded', async () => {
      const order: string[] = [];
      let started = (): void => undefined;
      const ready = new Promise<void>((resolve) => { started = resolve; });
      // Fails when shutdown aborts it (the usual pattern): it did not start.
      const aborted = new (class extends LifecycleHandler {
        override start(signal: AbortSignal): Promise<void> {
          order.push('aborted start');
          return new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
        }
      })('aborted', order);
      const bad = new LifecycleHandler('bad', order, new Error('cannot open state dir'));
      const good = new (class extends LifecycleHandler {
        override async start(signal: AbortSignal): Promise<void> {
          await super.start(signal);
          started();
        }
      })('good', order);
      const h = start({ handlers: [aborted, bad, good], clock: new ManualClock() });
      await ready;
      await h.stop();
      expect(order.filter((line) => line.includes('close'))).toEqual(['good close aborted=false']);
    });

    it('abandons a start() that ignores shutdown after shutdownTimeoutMs, and does not close that handler', async () => {
      const clock = new ManualClock();
      const order: string[] = [];
      const stuck = new (class extends LifecycleHandler {
        override start(): Promise<void> {
          order.push('stuck start');
          return new Promise<never>(() => undefined);
        }
      })('stuck', order);
      const h = start({ handlers: [stuck], clock, shutdownTimeoutMs: 2_000 });
      void h.feed.push('file', 'ADD', [pod('a')]);
      h.controller.abort();
      await clock.sleeping(2_000);
      clock.advance(2_000);
      await h.done;
      expect(order).toEqual(['stuck start']);
      expect(clock.pending()).toEqual([]);
    });

    it('on shutdown aborts in-flight calls, waits for them, closes handlers, ends the updates and resolves', async () => {
      const clock = new ManualClock();
      const order: string[] = [];
      const handler = new TestHandler('h', 'hold', order);
      const closer = new LifecycleHandler('c', order);
      const h = start({ handlers: [handler, closer], clock });
      await h.feed.push('file', 'ADD', [pod('a')]);
      const call = await handler.calls.waitFor(() => true);
      await h.stop();
      expect(call.signal.aborted).toBe(true);
      expect(handler.ended.items).toEqual([call]);
      expect(order.at(-1)).toBe('c close aborted=false');
      expect(h.feed.returned).toBe(true);
      expect(h.events.items.map((e) => e.outcome)).toEqual(['success', 'error']); // c's create, h's aborted create
      expect(clock.pending()).toEqual([]); // no timer left behind
    });

    it('calls close() once it has abandoned the calls still running at shutdownTimeoutMs: such a call may still run then', async () => {
      const clock = new ManualClock();
      const closes: string[] = [];
      const hanging = new (class extends TestHandler {
        async close(): Promise<void> {
          closes.push(`close, ${this.inFlight} call still running`);
        }
      })('h', 'hang'); // its calls ignore their signal
      const h = start({ handlers: [hanging], clock, shutdownTimeoutMs: 1_000 });
      await h.feed.push('file', 'ADD', [pod('a')]);
      const call = await hanging.calls.waitFor(() => true);
      h.controller.abort();
      await clock.sleeping(1_000);
      expect(closes).toEqual([]); // not before the shutdown budget is over
      clock.advance(1_000);
      await h.done;
      expect(call.signal.aborted).toBe(true);
      expect(closes).toEqual(['close, 1 call still running']);
    });

    it('starts no queued call once shutdown began, though the calls in flight return at its abort', async () => {
      // Handlers return when their signal aborts (the contract): each return frees a slot before shutdown's own
      // steps run, and the next queued pod must not get it.
      let stopping = false;
      const late: string[] = [];
      const handler = new TestHandler('h', (call) => {
        if (stopping) late.push(call.uid);
        return new Promise<void>((resolve) => {
          if (call.signal.aborted) resolve();
          else call.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      });
      const h = start({ handlers: [handler], clock: new ManualClock(), concurrency: 1 });
      await h.feed.push('file', 'ADD', ['a', 'b', 'c', 'd'].map((n) => pod(n)));
      await handler.calls.waitFor(() => true);
      stopping = true;
      await h.stop();
      expect(late).toEqual([]);
      expect(handler.seen()).toEqual(['uid-a:create']);
    });

    it('does not count a call that returned because shutdown aborted it as a success', async () => {
      // Handlers return normally on abort (the contract); the work was cut short all the same.
      const handler = new TestHandler('h', (call) => new Promise<void>((resolve) => call.signal.addEventListener('abort', () => resolve(), { once: true })));
      const h = start({ handlers: [handler], clock: new ManualClock() });
      await h.feed.push('file', 'ADD', [pod('a')]);
      await handler.calls.waitFor(() => true);
      await h.stop();
      expect(h.events.items.map((e) => e.outcome)).toEqual(['error']);
      const status = h.reconciler.pods()[0]?.handlers['h'];
      expect(status?.lastResult).toBe('error');
      expect(status?.lastError?.message).toBe('h create was cut short by shutdown');
    });

    it('logs each call cut short by shutdown as one info line without a stack; another error stays a failure warning', async () => {
      const lines: Record<string, unknown>[] = [];
      const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      const whenAborted = (call: Call): Promise<void> => new Promise<void>((resolve) => {
        if (call.signal.aborted) resolve();
        else call.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      // The ways the contract allows: return on the abort, throw its reason (signal.throwIfAborted(), undici), or
      // an AbortError (fs, with the reason as its cause).
      const returns = new TestHandler('returns', whenAborted);
      const rethrows = new TestHandler('rethrows', async (call) => {
        await whenAborted(call);
        call.signal.throwIfAborted();
      });
      const abortError = new TestHandler('abort-error', async (call) => {
        await whenAborted(call);
        throw new DOMException('The operation was aborted', 'AbortError');
      });
      const failsOwnWay = new TestHandler('fails', async (call) => {
        await whenAborted(call);
        throw new Error('disk full');
      });
      const h = start({ handlers: [returns, rethrows, abortError, failsOwnWay], clock: new ManualClock(), logger });
      await h.feed.push('file', 'ADD', [pod('a'), pod('b')]);
      await Promise.all([returns, rethrows, abortError, failsOwnWay].map((handler) => handler.calls.count(2)));
      h.controller.abort(new Error('received SIGTERM'));
      await h.done;
      const cut = lines.filter((l) => l['msg'] === 'handler call cut short by shutdown');
      const byHandler = (x: Record<string, unknown>, y: Record<string, unknown>): number => `${String(x['handler'])}/${String(x['uid'])}`.localeCompare(`${String(y['handler'])}/${String(y['uid'])}`);
      expect(cut.map(({ level, handler, pod: ref, uid, call }) => ({ level, handler, pod: ref, uid, call })).sort(byHandler)).toEqual(
        ['abort-error', 'rethrows', 'returns'].flatMap((handler) => ['a', 'b'].map((n) => ({ level: 30, handler, pod: `default/${n}`, uid: `uid-${n}`, call: 'create' }))),
      );
      expect(cut.every((l) => l['err'] === undefined && !JSON.stringify(l).includes('    at '))).toBe(true); // no stack
      const failed = lines.filter((l) => l['msg'] === 'handler call failed');
      expect(failed.map((l) => [l['level'], l['handler'], (l['err'] as { message?: string }).message]).sort()).toEqual([[40, 'fails', 'disk full'], [40, 'fails', 'disk full']]);
      expect(lines.find((l) => l['msg'] === 'reconciler stopped')).toMatchObject({ interruptedCalls: 8 });
      // None is a success: /pods and the metrics say the work was cut short.
      expect(new Set(h.events.items.map((e) => e.outcome))).toEqual(new Set(['error']));
    });

    it.each<[string, unknown, (reason: unknown) => void]>([
      ['a string (the OS signal\'s name)', 'SIGTERM', (reason) => expect(reason).toMatchObject({ name: 'AbortError', message: 'the reconciler was stopped: SIGTERM', cause: 'SIGTERM' })],
      ['an Error', new Error('received SIGINT'), (reason) => expect(reason).toMatchObject({ message: 'received SIGINT' })],
      ['no reason', undefined, (reason) => expect(reason).toMatchObject({ name: 'AbortError' })],
      ['an object', { why: 'bye' }, (reason) => expect(reason).toMatchObject({ name: 'AbortError', message: 'the reconciler was stopped with a object, not an Error' })],
    ])('gives calls an Error as their signal\'s reason at shutdown when the run signal aborts with %s', async (_what, given, check) => {
      const handler = new TestHandler('h', (call) => new Promise<void>((resolve) => call.signal.addEventListener('abort', () => resolve(), { once: true })));
      const h = start({ handlers: [handler], clock: new ManualClock() });
      await h.feed.push('file', 'ADD', [pod('a')]);
      const call = await handler.calls.waitFor(() => true);
      h.controller.abort(given);
      await h.done;
      const reason: unknown = call.signal.reason;
      expect(reason).toBeInstanceOf(Error);
      if (given instanceof Error) expect(reason).toBe(given);
      check(reason);
      expect(() => call.signal.throwIfAborted()).toThrow(Error);
    });

    it('returns when the update stream ends, and rethrows when it fails', async () => {
      const ended = start({ handlers: [new TestHandler('h')], clock: new ManualClock() });
      ended.feed.end();
      await ended.done;

      const failed = start({ handlers: [new TestHandler('h')], clock: new ManualClock() });
      const cause = new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', 'source died');
      failed.feed.fail(cause);
      await expect(failed.done).rejects.toBe(cause);

      const odd = start({ handlers: [new TestHandler('h')], clock: new ManualClock() });
      odd.feed.fail(new Error('bug'));
      const err: unknown = await odd.done.then(() => undefined, (e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_INTERNAL')).toBe(true);
    });

    it('keeps working when an observer hook throws', async () => {
      const handler = new TestHandler('h');
      const h = start({
        handlers: [handler], clock: new ManualClock(),
        observer: { operation: () => { throw new Error('metrics broke'); }, handlerCall: () => { throw new Error('metrics broke'); } },
      });
      await h.feed.push('file', 'ADD', [pod('a')]);
      await h.feed.push('file', 'UPDATE', [pod('a', { v: 2 })]);
      await handler.ended.count(2);
      expect(handler.seen()).toEqual(['uid-a:create', 'uid-a:update']);
      await h.stop();
    });
  });

  describe('the runtime gate and the syncloop health check (spec §7)', () => {
    /** A handler whose runtime is down while `error` is set. */
    class RuntimeHandler extends TestHandler implements RuntimeHealthReporter {
      error: string | undefined;
      runtimeError(): string | undefined {
        return this.error;
      }
    }

    it('takes no update while a handler reports runtime errors, checking again after 100 ms doubling to 5 s, and from 100 ms after a recovery', async () => {
      const clock = new ManualClock();
      const handler = new RuntimeHandler('runtime');
      handler.error = 'containerd: connection refused';
      const h = start({ handlers: [handler], clock });
      let applied = false;
      const add = h.feed.push('file', 'ADD', [pod('a')]).then(() => { applied = true; });
      const waits = [100, 200, 400, 800, 1600, 3200, 5000, 5000];
      for (const ms of waits) {
        await clock.sleeping(ms);
        expect(applied).toBe(false);
        expect(handler.calls.items).toEqual([]);
        clock.advance(ms);
      }
      await clock.sleeping(5000);
      handler.error = undefined; // recovered: the next check takes the update
      clock.advance(5000);
      await add;
      expect((await handler.calls.waitFor((c) => c.uid === 'uid-a')).type).toBe('create');
      // The gate's waits (the runtime watch's 1 s checks left out: 1 s is none of them).
      expect(clock.requested.items.filter((ms) => ms <= 5000 && ms !== 1000)).toEqual([...waits, 5000]);

      handler.error = 'containerd: connection refused';
      const update = h.feed.push('file', 'UPDATE', [pod('a', { v: 2 })]);
      await clock.sleeping(100); // the wait starts again at 100 ms
      handler.error = undefined;
      clock.advance(100);
      await update;
      await h.stop();
    });

    it('holds an update that arrives after the runtime went down while the loop was idle', async () => {
      const clock = new ManualClock();
      const handler = new RuntimeHandler('runtime');
      const h = start({ handlers: [handler], clock });
      await h.feed.push('file', 'ADD', []); // applied while the runtime is up; the loop then waits, idle
      handler.error = 'containerd: connection refused';
      let applied = false;
      const add = h.feed.push('file', 'ADD', [pod('a')]).then(() => { applied = true; });
      await clock.sleeping(100);
      expect(applied).toBe(false);
      expect(handler.calls.items).toEqual([]);
      handler.error = undefined;
      clock.advance(100);
      await add;
      expect(handler.seen()).toEqual(['uid-a:create']);
      await h.stop();
    });

    it('notices a runtime going down and coming back within a second, without an update, probe or scrape', async () => {
      const clock = new ManualClock();
      const handler = new RuntimeHandler('runtime');
      const lines: { msg: string; level: number; reason?: string }[] = [];
      const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string; level: number }) });
      const h = start({ handlers: [handler], clock, logger: log });
      await h.feed.push('file', 'ADD', []); // running, idle: no update comes after this
      handler.error = 'containerd: connection refused';
      await clock.sleeping(1000);
      clock.advance(1000);
      await clock.sleeping(1000); // the check ran and armed the next one
      expect(lines.filter((l) => l.msg.startsWith('runtime reports errors'))).toMatchObject([{ level: 40, reason: 'handler "runtime": containerd: connection refused' }]);
      clock.advance(1000);
      await clock.sleeping(1000);
      expect(h.reconciler.syncLoopHeldMs()).toBe(1000); // timed from the first check that saw it, not from this call
      handler.error = undefined;
      clock.advance(1000);
      await clock.sleeping(1000);
      expect(lines.filter((l) => l.msg.startsWith('runtime recovered'))).toHaveLength(1);
      await h.stop();
    });

    it('stops waiting for a runtime to recover when the run is stopped', async () => {
      const clock = new ManualClock();
      const handler = new RuntimeHandler('runtime');
      handler.error = 'down';
      const h = start({ handlers: [handler], clock });
      void h.feed.push('file', 'ADD', [pod('a')]);
      await clock.sleeping(100);
      await h.stop(); // resolves: the wait ends with the run
      expect(handler.calls.items).toEqual([]);
      expect(h.feed.returned).toBe(true);
    });

    it('fails syncloop once runtime errors went on without a break for max(2 × syncFrequency, 5 min), whether or not updates came', () => {
      const clock = new ManualClock();
      const handler = new RuntimeHandler('runtime');
      const reconciler = new Reconciler({ handlers: [new TestHandler('plain'), handler], sources: ['file'], logger, clock });
      expect(reconciler.syncLoopError()).toBeUndefined();
      expect(reconciler.syncLoopHeldMs()).toBe(0);
      handler.error = 'containerd: connection refused';
      expect(reconciler.syncLoopError()).toBeUndefined(); // errors from now on
      clock.advance(300_000);
      expect(reconciler.syncLoopError()).toBeUndefined();
      expect(reconciler.syncLoopHeldMs()).toBe(300_000); // the metric shows the hold long before the check fails
      clock.advance(1_000);
      expect(reconciler.syncLoopError()).toBe(
        'the sync loop has been held by runtime errors for 301 s (longer than 300 s): handler "runtime": containerd: connection refused');
      handler.error = undefined; // a break: the count starts again with the next error
      expect(reconciler.syncLoopHeldMs()).toBe(0);
      expect(reconciler.syncLoopError()).toBeUndefined();
      handler.error = 'again';
      clock.advance(299_000);
      expect(reconciler.syncLoopError()).toBeUndefined();

      const slow = new RuntimeHandler('slow');
      const tenMinutes = new Reconciler({ handlers: [slow], sources: ['file'], logger, clock, syncFrequencyMs: 600_000 });
      slow.error = 'down';
      expect(tenMinutes.syncLoopError()).toBeUndefined();
      clock.advance(1_200_000);
      expect(tenMinutes.syncLoopError()).toBeUndefined();
      clock.advance(1_000);
      expect(tenMinutes.syncLoopError()).toMatch(/^the sync loop has been held by runtime errors for 1201 s \(longer than 1200 s\)/);
    });

    it('counts a runtimeError() that throws as a runtime error, naming the handler', async () => {
      const clock = new ManualClock();
      const handler = new (class extends TestHandler {
        runtimeError(): string | undefined {
          throw new Error('status file unreadable');
        }
      })('broken');
      const reconciler = new Reconciler({ handlers: [handler], sources: ['file'], logger, clock });
      reconciler.syncLoopError();
      clock.advance(300_001);
      expect(reconciler.syncLoopError()).toMatch(/handler "broken": runtimeError\(\) threw: status file unreadable$/);
    });
  });

  describe('pods()', () => {
    it("reports a last error with its causes, and what a handler rejected with when it was not an Error", async () => {
      const clock = new ManualClock();
      const causes = new TestHandler('causes', () => {
        throw new PodConfigError('PODCONFIG_HANDLER_FAILED', 'state-dir: cannot write /s/default_a.json', {
          cause: Object.assign(new Error("EACCES: permission denied, open '/s/.1.tmp'"), { code: 'EACCES' }),
        });
      });
      const nothing = new TestHandler('nothing', () => Promise.reject(undefined)); // eslint-disable-line @typescript-eslint/prefer-promise-reject-errors
      const text = new TestHandler('text', () => Promise.reject('busy')); // eslint-disable-line @typescript-eslint/prefer-promise-reject-errors
      const h = start({ handlers: [causes, nothing, text], clock });
      await h.feed.push('file', 'ADD', [pod('a')]);
      await h.events.count(3);
      const errors = h.reconciler.pods()[0]!.handlers;
      expect(errors['causes']?.lastError?.message).toBe("state-dir: cannot write /s/default_a.json: EACCES: permission denied, open '/s/.1.tmp'");
      expect(errors['nothing']?.lastError).toMatchObject({ message: 'nothing syncPod failed without a reason (undefined)', code: 'PODCONFIG_HANDLER_FAILED' });
      expect(errors['text']?.lastError?.message).toBe('text syncPod failed with a string, not an Error: busy');
    });

    it('reports each desired pod with its annotations and, per handler, state, attempts, last error and last sync', async () => {
      const clock = new ManualClock();
      const t0 = clock.now();
      const ok = new TestHandler('ok');
      const bad = new TestHandler('bad', () => {
        throw new PodConfigError('PODCONFIG_HANDLER_FAILED', 'boom');
      });
      const h = start({ handlers: [ok, bad], clock, retry: { initialMs: 1_000, maxMs: 300_000 } });
      await h.feed.push('file', 'ADD', [pod('web')]);
      await h.events.count(2);
      const expected = {
        uid: 'uid-web', namespace: 'default', name: 'web', source: 'file', desired: true,
        annotations: { [ANNOTATIONS.configSource]: 'file', [ANNOTATIONS.configSeen]: '2026-01-01T00:00:00.000000000Z' },
        handlers: {
          ok: { state: 'idle', attempt: 1, failures: 0, lastCall: 'create', lastResult: 'success', lastCallTime: iso(t0), lastSyncTime: iso(t0) },
          bad: {
            state: 'backoff', attempt: 1, failures: 1, lastCall: 'create', lastResult: 'error', lastCallTime: iso(t0),
            lastError: { message: 'boom', code: 'PODCONFIG_HANDLER_FAILED', time: iso(t0) }, nextRetryTime: iso(t0 + 1_250),
          },
        },
      };
      expect(h.reconciler.pods()).toEqual([{ ...expected, pod: pod('web') }]);
      // The same states, counted per handler for metrics.
      expect(h.reconciler.workStates()).toMatchObject({ ok: { idle: 1, backoff: 0 }, bad: { idle: 0, backoff: 1 } });
      expect(JSON.parse(JSON.stringify(h.reconciler.pods()))).toEqual([{ ...expected, pod: pod('web') }]);

      await clock.sleeping(1_250);
      clock.advance(1_250);
      await h.events.count(3);
      expect(h.reconciler.pods()[0]!.handlers.bad).toMatchObject({
        lastCall: 'resync', attempt: 2, failures: 2, nextRetryTime: iso(t0 + 1_250 + 2_500),
      });
      await h.stop();
    });
  });
});
