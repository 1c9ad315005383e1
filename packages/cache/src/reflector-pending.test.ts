import { PodConfigError, type Pod } from '@podconfig/core';
import { InstantClock, makePod } from '@podconfig/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ListerWatcher } from './lister-watcher.js';
import { ListWatch } from './list-watch.js';
import { PendingChanges } from './pending-changes.js';
import type { ReflectorSink } from './reflector-sink.js';
import { Reflector } from './reflector.js';
import type { ObjectHead, ResourceClient, ScannedEvent } from './resource-client.js';
import { INITIAL_EVENTS_END_ANNOTATION, type ChangeEvent } from './watch-event.js';

const pod = (name: string, rv: string, note = ''): Pod => {
  const base = makePod(name, { nodeName: 'n1' });
  return { ...base, kind: 'Pod', apiVersion: 'v1', metadata: { ...base.metadata, resourceVersion: rv, annotations: { note } } };
};

/** What kube-client's ScannedWatchEvent is to the cache, counting decodes; `broken` lines do not decode. */
function scanned(type: ObjectHead['type'], object: Pod, decodes: string[], broken = false): ScannedEvent {
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
function client(streams: readonly (readonly unknown[])[], opened: { watches: number; lists: number }, more?: AsyncIterable<unknown>): ResourceClient {
  return {
    getJSON: () => {
      opened.lists++;
      return Promise.resolve({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '100' }, items: [] });
    },
    watchJSON: (_path, _query, signal, options) => {
      expect(options?.scanHeads).toBe(true);
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

function run(resourceClient: ResourceClient, until: (applied: readonly Applied[]) => boolean, sinkThrows = false) {
  const applied: Applied[] = [];
  const replaced: number[] = [];
  const stop = new AbortController();
  const sink: ReflectorSink<Pod> = {
    replace: (items) => {
      replaced.push(items.length);
    },
    apply: (event: ChangeEvent<Pod>) => {
      if (sinkThrows) throw new Error('sink bug');
      applied.push({ type: event.type, name: event.object.metadata?.name, rv: event.object.metadata?.resourceVersion });
      if (until(applied)) stop.abort();
    },
  };
  const listerWatcher: ListerWatcher<Pod> = new ListWatch<Pod>({ client: resourceClient, path: '/api/v1/pods', kind: 'Pod' });
  const reflector = new Reflector<Pod>({ listerWatcher, sink, logger: pino({ level: 'silent' }), clock: new InstantClock(), expectedKind: 'Pod' });
  return { reflector, applied, replaced, stop, done: reflector.run(stop.signal) };
}

describe('Reflector: pending watch changes', () => {
  it('applies the latest change of each pod once, and never decodes the changes it replaced', async () => {
    const decodes: string[] = [];
    const opened = { watches: 0, lists: 0 };
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
    expect(r.reflector.status()).toMatchObject({ events: 6, lastSyncResourceVersion: '16' });
  });

  it('applies a lone change on the next macrotask, without waiting for more of the stream', async () => {
    const decodes: string[] = [];
    const r = run(client([[bookmark('10'), scanned('MODIFIED', pod('a', '11'), decodes)]], { watches: 0, lists: 0 }), (applied) => applied.length === 1);
    await r.done;
    expect(r.applied).toEqual([{ type: 'MODIFIED', name: 'a', rv: '11' }]);
  });

  it('applies what a stream delivered before it ended, then watches again', async () => {
    const decodes: string[] = [];
    const opened = { watches: 0, lists: 0 };
    const ending: AsyncIterable<unknown> = (async function* ending() {
      yield scanned('MODIFIED', pod('a', '11'), decodes);
      throw new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', 'connection reset', { retryable: true });
    })();
    const r = run(client([[bookmark('10')], [scanned('MODIFIED', pod('a', '12'), decodes)]], opened, ending), (applied) => applied.length === 2);
    await r.done;
    expect(r.applied.map((a) => a.rv)).toEqual(['11', '12']);
    expect(opened).toEqual({ watches: 2, lists: 0 });
  });

  it('ends the stream and relists when a pending change does not decode, naming the line', async () => {
    const decodes: string[] = [];
    const opened = { watches: 0, lists: 0 };
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
    pending.add('c', change('ADDED', 'c2'));
    pending.add('c', change('MODIFIED', 'c3'));
    expect(pending.size).toBe(3);
    expect(drained(pending)).toEqual(['ADDED a2', 'DELETED b2', 'ADDED c3']);
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
});
