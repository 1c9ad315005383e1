import { PodSnapshot, SourceUnavailableError, type PodSetUpdate, type PodSource, type PodUpdate, type SourceName } from '@podconfig/core';
import { InstantClock, makePod } from '@podconfig/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { podConfig } from './pod-config.js';
import { PodMerger } from './pod-merger.js';

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Yields each SET once the consumer has seen everything before it, then waits for the abort. */
function scripted(name: SourceName, sets: string[][], fail?: Error): PodSource & { started: boolean; finished: boolean } {
  const source = {
    name,
    started: false,
    finished: false,
    async *updates(signal: AbortSignal): AsyncGenerator<PodSetUpdate> {
      source.started = true;
      try {
        for (const names of sets) yield { source: name, op: 'SET', pods: PodSnapshot.from(names.map((n) => makePod(n))).snapshot };
        if (fail !== undefined) throw fail;
        await aborted(signal);
      } finally {
        source.finished = true;
      }
    },
  };
  return source;
}

const describeUpdate = (u: PodUpdate): string => `${u.source} ${u.op} ${u.pods.map((p) => p.metadata?.name).join(',')}`;

describe('podConfig()', () => {
  it('yields the merger operations of every source, the empty ADD marker included', async () => {
    const controller = new AbortController();
    const merger = new PodMerger({ logger: pino({ level: 'silent' }), clock: new InstantClock() });
    const file = scripted('file', [['a', 'b']]);
    const http = scripted('http', [[]]);
    const seen: string[] = [];
    for await (const update of podConfig([file, http], { logger: pino({ level: 'silent' }), clock: new InstantClock(), merger }, controller.signal)) {
      seen.push(describeUpdate(update));
      if (seen.length === 2) controller.abort();
    }
    expect(seen.sort()).toEqual(['file ADD a,b', 'http ADD ']);
    expect([...merger.seenSources()].sort()).toEqual(['file', 'http']);
    expect(merger.pods().map((p) => p.metadata?.name).sort()).toEqual(['a', 'b']);
    expect(file.finished && http.finished).toBe(true);
  });

  it('yields each SET\'s operations as one run, never interleaved with another source\'s, when SETs arrive together (checklist 86)', async () => {
    const controller = new AbortController();
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const gated = (name: SourceName): PodSource => ({
      name,
      async *updates(signal: AbortSignal): AsyncGenerator<PodSetUpdate> {
        yield { source: name, op: 'SET', pods: PodSnapshot.from([makePod(`${name}-p1`), makePod(`${name}-p2`)]).snapshot };
        await gate;
        // Removes p1, updates p2, adds p4: a REMOVE, an ADD and an UPDATE from one merge.
        yield { source: name, op: 'SET', pods: PodSnapshot.from([makePod(`${name}-p2`, { image: 'nginx:2' }), makePod(`${name}-p4`)]).snapshot };
        await aborted(signal);
      },
    });
    const seen: PodUpdate[] = [];
    for await (const update of podConfig([gated('file'), gated('http')], { logger: pino({ level: 'silent' }), clock: new InstantClock() }, controller.signal)) {
      seen.push(update);
      if (seen.length === 2) release(); // both first ADDs are in: both sources send their next SET in one tick
      if (seen.length === 8) controller.abort();
    }
    const later = seen.slice(2).map((u) => `${u.source} ${u.op}`);
    const runs = [later.slice(0, 3), later.slice(3)].map((run) => run.join(', '));
    expect(runs.sort()).toEqual(['file REMOVE, file ADD, file UPDATE', 'http REMOVE, http ADD, http UPDATE']);
  });

  it('rethrows the failure of a source', async () => {
    const failure = new SourceUnavailableError('gone');
    const consume = async (): Promise<void> => {
      const options = { logger: pino({ level: 'silent' }), clock: new InstantClock() };
      for await (const update of podConfig([scripted('api', [['x']], failure)], options, new AbortController().signal)) {
        expect(update.source).toBe('api');
      }
    };
    await expect(consume()).rejects.toBe(failure);
  });

  it('stops and awaits its sources when the merger throws, and rethrows as PODCONFIG_INTERNAL with the cause', async () => {
    const controller = new AbortController();
    const merger = new PodMerger({ logger: pino({ level: 'silent' }), clock: new InstantClock() });
    const bug = new TypeError('merger bug');
    merger.merge = (): never => {
      throw bug;
    };
    const file = scripted('file', [['a']]);
    const consume = async (): Promise<void> => {
      for await (const update of podConfig([file], { logger: pino({ level: 'silent' }), clock: new InstantClock(), merger }, controller.signal)) {
        expect(update).toBeUndefined();
      }
    };
    const err = await consume().then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'PODCONFIG_INTERNAL', message: 'merging a SET of pod source "file" failed', cause: bug });
    expect(file.finished).toBe(true);
    expect(controller.signal.aborted).toBe(false);
  });

  it('starts its sources on the first next(), and a return() ends a next() still waiting, after the sources stopped', async () => {
    const controller = new AbortController();
    const merger = new PodMerger({ logger: pino({ level: 'silent' }), clock: new InstantClock() });
    const file = scripted('file', [['a']]);
    const updates = podConfig([file], { logger: pino({ level: 'silent' }), clock: new InstantClock(), merger }, controller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    expect(file.started).toBe(false);
    const first = await updates.next();
    expect(first.done === true ? 'done' : describeUpdate(first.value)).toBe('file ADD a');
    const waiting = updates.next(); // the source has nothing more: this waits
    await new Promise((resolve) => setImmediate(resolve));
    await updates.return();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(file.finished).toBe(true);
    expect(controller.signal.aborted).toBe(false);
  });
});
