import { PodConfigError, type Pod } from '@podconfig/core';
import { InstantClock, makePod } from '@podconfig/testing';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ListerWatcher } from './lister-watcher.js';
import { ListWatch } from './list-watch.js';
import { PendingChanges } from './pending-changes.js';
import type { ReflectorSink } from './reflector-sink.js';
import { Reflector, type ReflectorOptions } from './reflector.js';
import type { ObjectHead, ResourceClient, ScannedEvent } from './resource-client.js';
import { INITIAL_EVENTS_END_ANNOTATION, type ChangeEvent } from './watch-event.js';

const pod = (name: string, rv: string, note = ''): Pod => {
  const base = makePod(name, { nodeName: 'n1' });
  return { ...base, kind: 'Pod', apiVersion: 'v1', metadata: { ...base.metadata, resourceVersion: rv, annotations: { note } } };
};

/**
 * What kube-client's ScannedWatchEvent is to the cache, counting decodes and discards; `broken` lines do not
 * decode, and hold a second event (a lost newline): discarding them throws too.
 */
function scanned(type: ObjectHead['type'], object: Pod, decodes: string[], broken = false, discards: string[] = []): ScannedEvent {
  const meta = object.metadata ?? {};
  const head: ObjectHead = { type, kind: 'Pod', namespace: meta.namespace ?? '', name: meta.name ?? '', resourceVersion: meta.resourceVersion ?? '' };
  return {
    type,
    head,
    decodeObject: () => {
      decodes.push(`${head.name}@${head.resourceVersion}`);
      if (broken) throw new PodConfigError('PODCONFIG_WATCH_DECODE', `watch GET /api/v1/pods: line ${head.resourceVersion} is not valid JSON`);
      return object as unknown as Record<string, unknown>;
    },
    discard: () => {
      discards.push(`${head.name}@${head.resourceVersion}`);
      if (broken) throw new PodConfigError('PODCONFIG_WATCH_DECODE', `watch GET /api/v1/pods: line ${head.resourceVersion} holds more than one event`);
    },
  };
}

const bookmark = (rv: string): unknown => ({
  type: 'BOOKMARK',
  object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: rv, annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } },
});

/**
 * A ResourceClient whose every watch (a streaming list) yields `streams[i]` at once, as one network read
 * would, then waits for `more` items or the abort; lists answer empty.
 */
interface Opened {
  watches: number;
  lists: number;
  /** Whether each watch asked for scanHeads. */
  scanHeads?: boolean[];
}

function client(streams: readonly (readonly unknown[])[], opened: Opened, more?: AsyncIterable<unknown>, listItems: readonly Pod[] = []): ResourceClient {
  return {
    getJSON: () => {
      opened.lists++;
      return Promise.resolve({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '100' }, items: listItems });
    },
    watchJSON: (_path, _query, signal, options) => {
      (opened.scanHeads ??= []).push(options?.scanHeads === true);
      const items = streams[opened.watches] ?? [];
      opened.watches++;
      return Promise.resolve((async function* stream() {
        yield* items;
        if (more !== undefined && opened.watches === 1) yield* more;
        if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      })());
    },
  };
}

interface Applied {
  readonly type: string;
  readonly name: string | undefined;
  readonly rv: string | undefined;
}

function run(
  resourceClient: ResourceClient,
  until: (applied: readonly Applied[], replaced: readonly number[]) => boolean,
  sinkThrows = false,
  sinkOf?: (inner: ReflectorSink<Pod>) => ReflectorSink<Pod>,
  options: Partial<ReflectorOptions<Pod>> = {},
) {
  const applied: Applied[] = [];
  const replaced: number[] = [];
  const stop = new AbortController();
  const recording: ReflectorSink<Pod> = {
    replace: (items) => {
      replaced.push(items.length);
      if (until(applied, replaced)) stop.abort();
    },
    apply: (event: ChangeEvent<Pod>) => {
      if (sinkThrows) throw new Error('sink bug');
      applied.push({ type: event.type, name: event.object.metadata?.name, rv: event.object.metadata?.resourceVersion });
      if (until(applied, replaced)) stop.abort();
    },
  };
  const sink = sinkOf === undefined ? recording : sinkOf(recording);
  const listerWatcher: ListerWatcher<Pod> = new ListWatch<Pod>({ client: resourceClient, path: '/api/v1/pods', kind: 'Pod' });
  const reflector = new Reflector<Pod>({ listerWatcher, sink, logger: pino({ level: 'silent' }), clock: new InstantClock(), expectedKind: 'Pod', ...options });
  return { reflector, applied, replaced, stop, done: reflector.run(stop.signal) };
}

describe('Reflector: pending watch changes', () => {
  it('applies the latest change of each pod once, and never decodes the changes it replaced', async () => {
    const decodes: string[] = [];
    const opened: Opened = { watches: 0, lists: 0 };
    const stream = [
      bookmark('10'),
      scanned('MODIFIED', pod('a', '11'), decodes),
      scanned('ADDED', pod('b', '12'), decodes),
      scanned('MODIFIED', pod('a', '13'), decodes),
      scanned('MODIFIED', pod('b', '14'), decodes),
      scanned('MODIFIED', pod('a', '15'), decodes),
      scanned('DELETED', pod('c', '16'), decodes),
    ];
    const r = run(client([stream], opened), (applied) => applied.length === 3);
    await r.done;
    // Oldest key first; b stays ADDED (of its latest object); c's delete is applied though c was never seen.
    expect(r.applied).toEqual([
      { type: 'MODIFIED', name: 'a', rv: '15' },
      { type: 'ADDED', name: 'b', rv: '14' },
      { type: 'DELETED', name: 'c', rv: '16' },
    ]);
    expect(decodes.sort()).toEqual(['a@15', 'b@14', 'c@16']);
    expect(r.reflector.status()).toMatchObject({ events: 6, lastSyncResourceVersion: '16', undecodableEvents: 0 });
    expect(opened.scanHeads).toEqual([true]);
  });

  it('applies a pending DELETED before the object comes back, so a sink keyed by UID sees the delete', async () => {
    const decodes: string[] = [];
    const withUid = (p: Pod, uid: string): Pod => ({ ...p, metadata: { ...p.metadata, uid } });
    const stream = [
      bookmark('10'),
      scanned('MODIFIED', pod('x', '11'), decodes),
      scanned('DELETED', withUid(pod('a', '12'), 'uid-1'), decodes),
      scanned('ADDED', withUid(pod('a', '13'), 'uid-2'), decodes),
      scanned('MODIFIED', withUid(pod('a', '14'), 'uid-2'), decodes),
    ];
    const store = new Map<string, string>();
    const byUid = (inner: ReflectorSink<Pod>): ReflectorSink<Pod> => ({
      replace: (items, rv) => inner.replace(items, rv),
      apply: (event) => {
        const uid = event.object.metadata?.uid ?? '';
        if (event.type === 'DELETED') store.delete(uid);
        else store.set(uid, event.object.metadata?.resourceVersion ?? '');
        inner.apply(event);
      },
    });
    const r = run(client([stream], { watches: 0, lists: 0 }), (applied) => applied.length === 3, false, byUid);
    await r.done;
    expect(r.applied).toEqual([
      { type: 'MODIFIED', name: 'x', rv: '11' },
      { type: 'DELETED', name: 'a', rv: '12' },
      { type: 'ADDED', name: 'a', rv: '14' },
    ]);
    expect([...store].sort()).toEqual([['uid-2', '14'], ['uid-default-x', '11']]);
  });

  it('applies the pending changes before an ERROR event ends the stream, then relists', async () => {
    const decodes: string[] = [];
    const opened: Opened = { watches: 0, lists: 0 };
    const gone = { type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 } };
    const streams = [
      [bookmark('10'), scanned('MODIFIED', pod('a', '11'), decodes), scanned('MODIFIED', pod('b', '12'), decodes), gone],
      [bookmark('20')],
    ];
    const r = run(client(streams, opened), (_applied, replaced) => replaced.length === 2);
    await r.done;
    expect(r.applied.map((a) => a.rv)).toEqual(['11', '12']);
    expect(r.reflector.status()).toMatchObject({ relists: 1, lastError: { code: 'PODCONFIG_WATCH_EXPIRED' } });
  });

  it('falls back to a list when an initial event of the streaming list does not decode', async () => {
    const decodes: string[] = [];
    const opened: Opened = { watches: 0, lists: 0 };
    const streams = [
      [scanned('ADDED', pod('a', '1'), decodes), scanned('ADDED', pod('b', '2'), decodes, true), bookmark('2')],
      [scanned('MODIFIED', pod('a', '101'), decodes)],
    ];
    const r = run(client(streams, opened, undefined, [pod('a', '100')]), (applied) => applied.length === 1);
    await r.done;
    expect(r.replaced).toEqual([1]);
    expect(opened.lists).toBe(1);
    expect(r.reflector.status()).toMatchObject({ undecodableEvents: 1, lastError: { code: 'PODCONFIG_WATCH_DECODE' } });

    // Initial events are decoded as they arrive (a deferred one would hold its network chunk until the end bookmark).
    const kept: string[] = [];
    const replacedInitial = [
      [scanned('ADDED', pod('a', '1'), kept), scanned('ADDED', pod('a', '2'), kept), scanned('ADDED', pod('b', '3'), kept), bookmark('3')],
    ];
    const second = run(client(replacedInitial, { watches: 0, lists: 0 }), (_applied, replaced) => replaced.length === 1);
    await second.done;
    expect(second.replaced).toEqual([2]);
    expect(kept).toEqual(['a@1', 'a@2', 'b@3']);
  });

  it('decodes the first object of a plain watch at once: a stream counts as healthy only once it delivers', async () => {
    const decodes: string[] = [];
    const opened: Opened = { watches: 0, lists: 0 };
    // Without the eager decode, the bad first line would be replaced by the good one and never noticed.
    const streams = [[scanned('MODIFIED', pod('a', '101'), decodes, true), scanned('MODIFIED', pod('a', '102'), decodes)], [scanned('MODIFIED', pod('a', '103'), decodes)]];
    const r = run(client(streams, opened, undefined, [pod('a', '100')]), (applied) => applied.some((a) => a.rv === '103'), false, undefined, { watchList: false });
    await r.done;
    expect(opened).toMatchObject({ lists: 2, watches: 2 });
    expect(decodes).toEqual(['a@101', 'a@103']);
    expect(r.reflector.status()).toMatchObject({ undecodableEvents: 1, relists: 1, lastError: { code: 'PODCONFIG_WATCH_DECODE' } });
  });

  it('applies a lone change on the next macrotask, without waiting for more of the stream', async () => {
    const decodes: string[] = [];
    const r = run(client([[bookmark('10'), scanned('MODIFIED', pod('a', '11'), decodes)]], { watches: 0, lists: 0 }), (applied) => applied.length === 1);
    await r.done;
    expect(r.applied).toEqual([{ type: 'MODIFIED', name: 'a', rv: '11' }]);
  });

  it('applies what a stream delivered before it ended, then watches again', async () => {
    const decodes: string[] = [];
    const opened: Opened = { watches: 0, lists: 0 };
    const ending: AsyncIterable<unknown> = (async function* ending() {
      yield scanned('MODIFIED', pod('a', '11'), decodes);
      throw new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', 'connection reset', { retryable: true });
    })();
    const r = run(client([[bookmark('10')], [scanned('MODIFIED', pod('a', '12'), decodes)]], opened, ending), (applied) => applied.length === 2);
    await r.done;
    expect(r.applied.map((a) => a.rv)).toEqual(['11', '12']);
    expect(opened).toMatchObject({ watches: 2, lists: 0 });
  });

  it('ends the stream and relists when a pending change does not decode, naming the line', async () => {
    const decodes: string[] = [];
    const opened: Opened = { watches: 0, lists: 0 };
    const streams = [
      [bookmark('10'), scanned('MODIFIED', pod('a', '11'), decodes), scanned('MODIFIED', pod('b', '12'), decodes, true)],
      [bookmark('20'), scanned('MODIFIED', pod('a', '21'), decodes)],
    ];
    const r = run(client(streams, opened), (applied) => applied.some((a) => a.rv === '21'));
    await r.done;
    expect(r.applied.map((a) => a.rv)).toEqual(['11', '21']);
    expect(r.replaced).toHaveLength(2);
    expect(r.reflector.status()).toMatchObject({ relists: 1, lastError: { code: 'PODCONFIG_WATCH_DECODE', message: expect.stringContaining('line 12') } });
  });

  it('discards the changes it replaced, and ends the stream and relists when one of their lines holds two events', async () => {
    const decodes: string[] = [];
    const discards: string[] = [];
    const opened: Opened = { watches: 0, lists: 0 };
    const streams = [
      [
        bookmark('10'),
        scanned('MODIFIED', pod('a', '11'), decodes, false, discards),
        scanned('MODIFIED', pod('a', '12'), decodes, false, discards),
        scanned('MODIFIED', pod('b', '13'), decodes, true, discards),
        scanned('MODIFIED', pod('b', '14'), decodes, false, discards),
      ],
      [bookmark('20'), scanned('MODIFIED', pod('b', '21'), decodes)],
    ];
    const r = run(client(streams, opened), (applied) => applied.some((a) => a.rv === '21'));
    await r.done;
    // b@13 was replaced before it was applied: its second event is not lost unseen, the reflector relists.
    expect(discards).toEqual(['a@11', 'b@13']);
    expect(decodes).not.toContain('b@13');
    expect(r.applied.map((a) => a.rv)).toEqual(['21']);
    expect(r.reflector.status()).toMatchObject({ relists: 1, lastError: { code: 'PODCONFIG_WATCH_DECODE', message: expect.stringContaining('line 13 holds more than one event') } });
  });

  it('lets an error the sink throws while applying pending changes out of run() (a bug)', async () => {
    const r = run(client([[bookmark('10'), scanned('MODIFIED', pod('a', '11'), [])]], { watches: 0, lists: 0 }), () => false, true);
    await expect(r.done).rejects.toThrow('sink bug');
  });
});

describe(PendingChanges.name, () => {
  const change = (type: ChangeEvent<string>['type'], object: string): ChangeEvent<string> => ({ type, object });
  const drained = (pending: PendingChanges<string>): string[] => {
    const out: string[] = [];
    pending.drain((event) => out.push(`${event.type} ${event.object}`));
    return out;
  };

  it('keeps the latest change per key, an ADDED followed by MODIFIEDs as an ADDED, oldest key first', () => {
    const pending = new PendingChanges<string>();
    pending.add('a', change('ADDED', 'a1'));
    pending.add('b', change('MODIFIED', 'b1'));
    pending.add('a', change('MODIFIED', 'a2'));
    pending.add('b', change('DELETED', 'b2'));
    pending.add('c', change('DELETED', 'c1'));
    pending.add('c', change('DELETED', 'c2'));
    expect(pending.size).toBe(3);
    expect(drained(pending)).toEqual(['ADDED a2', 'DELETED b2', 'DELETED c2']);
    expect(pending.size).toBe(0);
  });

  it('discards each change it replaces, through an ADDED that MODIFIEDs coalesced into', () => {
    const pending = new PendingChanges<string>();
    const discarded: string[] = [];
    const discardable = (type: ChangeEvent<string>['type'], object: string): ChangeEvent<string> =>
      ({ type, object, discard: () => discarded.push(object) });
    pending.add('a', discardable('ADDED', 'a1'));
    pending.add('a', discardable('MODIFIED', 'a2'));
    pending.add('a', discardable('MODIFIED', 'a3'));
    pending.add('b', discardable('MODIFIED', 'b1'));
    expect(discarded).toEqual(['a1', 'a2']);
    expect(drained(pending)).toEqual(['ADDED a3', 'MODIFIED b1']);
    expect(discarded).toEqual(['a1', 'a2']);
  });

  it('refuses to let anything but a DELETED replace a pending DELETED (the object is back with a new UID)', () => {
    const pending = new PendingChanges<string>();
    expect(pending.add('c', change('DELETED', 'c1'))).toBe(true);
    expect(pending.add('c', change('ADDED', 'c2'))).toBe(false);
    expect(pending.add('c', change('MODIFIED', 'c3'))).toBe(false);
    expect(drained(pending)).toEqual(['DELETED c1']);
    expect(pending.size).toBe(0);
  });

  it('drops what is left when applying one throws', () => {
    const pending = new PendingChanges<string>();
    pending.add('a', change('ADDED', 'a1'));
    pending.add('b', change('ADDED', 'b1'));
    expect(() => pending.drain(() => {
      throw new Error('boom');
    })).toThrow('boom');
    expect(pending.size).toBe(0);
  });

  it('holds on to nothing it drained, even once it has lived long enough to be in the old generation', () => {
    // Map.prototype.clear() would leave the old table, entries and all: drained changes would then outlive
    // young-generation GCs and be promoted (at 2,000 events/s: 3 MB per scavenge). Forced GCs show it.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;
    const oldGenerationBytes = (): number =>
      getHeapSpaceStatistics().filter((s) => s.space_name !== 'new_space').reduce((sum, s) => sum + s.space_used_size, 0);
    const pending = new PendingChanges<number[]>();
    pending.add('warm', { type: 'ADDED', object: [] });
    gc();
    gc(); // the PendingChanges, its map and the map's table are in the old generation now
    pending.drain(() => undefined);
    gc();
    const before = oldGenerationBytes();
    const changes = 200;
    const objectBytes = 8 * 1024;
    for (let i = 0; i < changes; i++) {
      pending.add(`ns/pod-${i}`, { type: 'MODIFIED', object: new Array<number>(objectBytes / 8).fill(i) });
      pending.drain(() => undefined);
    }
    gc({ type: 'minor' });
    gc({ type: 'minor' }); // whatever survived two scavenges is promoted
    expect(oldGenerationBytes() - before).toBeLessThan((changes * objectBytes) / 4);
  });
});
