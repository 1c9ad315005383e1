import {
  LatestByKey, PodConfigError, PodSnapshot, SourceUnavailableError, coalescePodSets,
  type PodSetUpdate, type PodSource, type SourceName,
} from '@podconfig/core';
import { makePod } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { mergeSources, mergeSourcesInto } from './merge-sources.js';

/** Resolves when `signal` aborts (never rejects). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A PodSource running `script`, recording whether its `finally` ran and why it was stopped. */
class ScriptedSource implements PodSource {
  finished = false;
  stopReason: unknown;

  constructor(
    readonly name: SourceName,
    private readonly script: (signal: AbortSignal, self: ScriptedSource) => AsyncGenerator<PodSetUpdate>,
  ) {}

  async *updates(signal: AbortSignal): AsyncGenerator<PodSetUpdate> {
    try {
      yield* this.script(signal, this);
    } finally {
      this.stopReason = signal.reason;
      this.finished = true;
    }
  }
}

const setOf = (source: SourceName, names: string[]): PodSetUpdate => ({
  source, op: 'SET', pods: PodSnapshot.from(names.map((n) => makePod(n))).snapshot,
});
// A snapshot's order is its trie's, not insertion order: names are compared sorted.
const names = (update: PodSetUpdate | undefined): string[] => update?.pods.toArray().map((p) => p.metadata?.name ?? '').sort() ?? [];

/** A mailbox that remembers the most values it ever held at once. */
class MeasuredBox extends LatestByKey<SourceName, PodSetUpdate> {
  maxSize = 0;
  puts = 0;

  override put(key: SourceName, value: PodSetUpdate): void {
    super.put(key, value);
    this.puts++;
    this.maxSize = Math.max(this.maxSize, this.size);
  }
}

describe('mergeSources()', () => {
  it('yields the SETs of every source, in order within each source, when the consumer keeps up', async () => {
    const gates = { file: deferred(), http: deferred() };
    const script = (name: 'file' | 'http') => async function* (signal: AbortSignal): AsyncGenerator<PodSetUpdate> {
      yield setOf(name, [`${name}-1`]);
      await gates[name].promise;
      yield setOf(name, [`${name}-1`, `${name}-2`]);
      await aborted(signal);
    };
    const controller = new AbortController();
    const merged = mergeSources([new ScriptedSource('file', script('file')), new ScriptedSource('http', script('http'))], controller.signal);
    const seen: string[] = [];
    for await (const update of merged) {
      seen.push(`${update.source}:${names(update).join(',')}`);
      if (seen.length === 2) {
        gates.file.resolve();
        gates.http.resolve();
      }
      if (seen.length === 4) controller.abort();
    }
    const order = (source: string): string[] => seen.filter((s) => s.startsWith(source));
    expect(order('file')).toEqual(['file:file-1', 'file:file-1,file-2']);
    expect(order('http')).toEqual(['http:http-1', 'http:http-1,http-2']);
  });

  it('hands a SET to a waiting consumer before the next macrotask (a reflector\'s next decoding slice)', async () => {
    const gate = deferred();
    const order: string[] = [];
    const source = new ScriptedSource('api', async function* (signal) {
      await gate.promise;
      // What a reflector does at its initial sync: push the set, then let macrotasks run before decoding on.
      setImmediate(() => order.push('next macrotask'));
      yield setOf('api', ['web']);
      await aborted(signal);
    });
    const controller = new AbortController();
    const merged = mergeSources([source], controller.signal);
    const first = merged.next().then((r) => order.push(`merged ${names(r.value ?? undefined).join(',')}`));
    await new Promise((resolve) => setImmediate(resolve)); // the consumer waits
    gate.resolve();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['merged web', 'next macrotask']);
    controller.abort();
    await merged.return();
  });

  it('keeps one pending SET per source while the consumer is blocked, then yields the latest with the union of change keys (D16)', async () => {
    const done = deferred();
    const taken = deferred();
    const busy = new ScriptedSource('api', async function* (signal) {
      let pods = PodSnapshot.empty;
      for (let i = 0; i < 10_000; i++) {
        const base = pods;
        const key = `default/p${i % 100}`;
        pods = pods.with(key, makePod(`p${i % 100}`, { image: `image:${i}` }));
        yield { source: 'api', op: 'SET', pods, changes: { base, keys: new Set([key]) } };
        // The mailbox wakes its consumer once per macrotask: let it take the first SET alone.
        if (i === 0) await taken.promise;
      }
      done.resolve();
      await aborted(signal);
    });
    const quiet = new ScriptedSource('file', async function* (signal) {
      await done.promise;
      yield setOf('file', ['static']);
      await aborted(signal);
    });
    const box = new MeasuredBox(coalescePodSets);
    const controller = new AbortController();
    const merged = mergeSourcesInto(box, [busy, quiet], controller.signal);
    try {
      const first = (await merged.next()).value as PodSetUpdate;
      taken.resolve();
      await done.promise; // the consumer stays blocked while the producer runs through all 10,000 SETs
      expect(box.puts).toBe(10_000);
      expect(box.maxSize).toBe(1);
      const rest: PodSetUpdate[] = [];
      while (!rest.some((u) => u.source === 'file')) rest.push((await merged.next()).value as PodSetUpdate);
      expect(box.maxSize).toBeLessThanOrEqual(2);
      expect(rest.map((u) => u.source)).toEqual(['api', 'file']);
      const latest = rest[0]!;
      expect(first.source).toBe('api');
      expect(latest.pods.size).toBe(100);
      expect(latest.pods.get('default/p99')?.spec?.containers[0]?.image).toBe('image:9999');
      // The coalesced SET still says what changed since the one the consumer saw (D17).
      expect(latest.changes?.base).toBe(first.pods);
      expect(latest.changes?.keys.size).toBe(100);
    } finally {
      controller.abort();
      await merged.return();
    }
    expect(busy.finished && quiet.finished).toBe(true);
  });

  it('rethrows a source failure after aborting and awaiting the other sources', async () => {
    const failure = new SourceUnavailableError('cannot reach the manifest URL');
    const healthy = new ScriptedSource('file', async function* (signal) {
      yield setOf('file', ['a']);
      await aborted(signal);
    });
    const failing = new ScriptedSource('http', async function* () {
      yield setOf('http', ['b']);
      throw failure;
    });
    const consume = async (): Promise<void> => {
      for await (const update of mergeSources([healthy, failing], new AbortController().signal)) {
        expect(['file', 'http']).toContain(update.source);
      }
    };
    await expect(consume()).rejects.toBe(failure);
    expect(healthy.finished).toBe(true);
    expect(healthy.stopReason).toBe(failure);
  });

  it('wraps a failure that is not a PodConfigError as PODCONFIG_INTERNAL with the cause', async () => {
    const bug = new TypeError('undefined is not a function');
    const failing = new ScriptedSource('api', async function* () {
      yield* [];
      throw bug;
    });
    const merged = mergeSources([failing], new AbortController().signal);
    const err: unknown = await merged.next().then(() => undefined, (e: unknown) => e);
    expect(PodConfigError.is(err, 'PODCONFIG_INTERNAL')).toBe(true);
    expect((err as PodConfigError).cause).toBe(bug);
    expect((err as PodConfigError).message).toBe('pod source "api" failed');
  });

  it('returns without error when the signal aborts, after every source has ended', async () => {
    const sources = (['file', 'http', 'api'] as const).map((name) => new ScriptedSource(name, async function* (signal) {
      yield setOf(name, [name]);
      await aborted(signal);
    }));
    const controller = new AbortController();
    const seen = new Set<string>();
    for await (const update of mergeSources(sources, controller.signal)) {
      seen.add(update.source);
      if (seen.size === 3) controller.abort();
    }
    expect(sources.every((s) => s.finished)).toBe(true);
    expect(sources.every((s) => s.stopReason === controller.signal.reason)).toBe(true);
  });

  it('stops every source when the consumer breaks out of the loop', async () => {
    const source = new ScriptedSource('file', async function* (signal) {
      yield setOf('file', ['a']);
      await aborted(signal);
    });
    for await (const update of mergeSources([source], new AbortController().signal)) {
      expect(names(update)).toEqual(['a']);
      break;
    }
    expect(source.finished).toBe(true);
  });

  it('returns without rethrowing a source failure when the consumer stops first: only an iteration that ends throws it', async () => {
    const failure = new SourceUnavailableError('cannot reach the manifest URL');
    const gate = deferred();
    const failing = new ScriptedSource('http', async function* () {
      yield setOf('http', ['a']);
      await gate.promise;
      throw failure;
    });
    const merged = mergeSources([failing], new AbortController().signal);
    const first = await merged.next();
    expect(names(first.done === true ? undefined : first.value)).toEqual(['a']);
    gate.resolve();
    while (!failing.finished) await new Promise((resolve) => setImmediate(resolve));
    await expect(merged.return()).resolves.toEqual({ done: true, value: undefined });
  });

  it('does not count an error thrown while stopping as a failure', async () => {
    const source = new ScriptedSource('file', async function* (signal) {
      yield setOf('file', ['a']);
      await aborted(signal);
      throw new Error('aborted');
    });
    const controller = new AbortController();
    const received: string[][] = [];
    for await (const update of mergeSources([source], controller.signal)) {
      received.push(names(update));
      controller.abort();
    }
    expect(received).toEqual([['a']]);
    expect(source.finished).toBe(true);
  });

  it('yields nothing and ends its sources when the signal is already aborted', async () => {
    const source = new ScriptedSource('file', async function* () {
      yield setOf('file', ['a']);
    });
    const received: PodSetUpdate[] = [];
    for await (const update of mergeSources([source], AbortSignal.abort())) received.push(update);
    expect(received).toEqual([]);
    expect(source.finished).toBe(true);
  });
});
