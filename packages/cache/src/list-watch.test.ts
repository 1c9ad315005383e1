import { PodConfigError, stripManagedFields, type Pod } from '@podconfig/core';
import { makePod } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { ListWatch } from './list-watch.js';
import type { GetJSONOptions, ResourceClient, WatchJSONOptions } from './resource-client.js';

/** A ResourceClient that records the queries and answers from memory. */
class RecordingClient implements ResourceClient {
  readonly calls: { method: 'get' | 'watch'; path: string; query: Record<string, string> }[] = [];
  readonly watchOptions: (WatchJSONOptions | undefined)[] = [];
  readonly getOptions: (GetJSONOptions | undefined)[] = [];
  constructor(
    private readonly body: unknown,
    private readonly events: unknown[] = [],
  ) {}

  async getJSON(path: string, query: URLSearchParams, _signal: AbortSignal, options?: GetJSONOptions): Promise<unknown> {
    this.calls.push({ method: 'get', path, query: Object.fromEntries(query) });
    this.getOptions.push(options);
    return this.body;
  }

  async watchJSON(path: string, query: URLSearchParams, _signal: AbortSignal, options?: WatchJSONOptions): Promise<AsyncIterable<unknown>> {
    this.calls.push({ method: 'watch', path, query: Object.fromEntries(query) });
    this.watchOptions.push(options);
    const events = this.events;
    return (async function* () {
      yield* events;
    })();
  }
}

const signal = new AbortController().signal;
const podList = (items: unknown[], rv = '10', extra: Record<string, unknown> = {}) => ({
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: { resourceVersion: rv, ...extra },
  items,
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe(ListWatch.name, () => {
  describe('list()', () => {
    it('sends selectors, resourceVersion, limit and continue, and omits unset ones', async () => {
      const client = new RecordingClient(podList([]));
      const lw = new ListWatch<Pod>({ client, path: '/api/v1/pods', fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=x', kind: 'Pod' });
      await lw.list({ resourceVersion: '0', limit: 500 }, signal);
      await lw.list({ limit: 500, continue: 'tok' }, signal);
      await lw.list({ resourceVersion: '', limit: 0 }, signal);
      await lw.list({ resourceVersion: '42', resourceVersionMatch: 'Exact' }, signal);
      expect(client.calls.map((c) => c.query)).toEqual([
        { fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=x', resourceVersion: '0', limit: '500' },
        { fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=x', limit: '500', continue: 'tok' },
        { fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=x' },
        { fieldSelector: 'spec.nodeName=n1', labelSelector: 'app=x', resourceVersion: '42', resourceVersionMatch: 'Exact' },
      ]);
      expect(client.calls[0]!.path).toBe('/api/v1/pods');
    });

    it('hands the client one listBytes per list: new at a first page, the same with each continuation', async () => {
      const client = new RecordingClient(podList([]));
      const lw = new ListWatch<Pod>({ client, path: '/api/v1/pods', kind: 'Pod' });
      await lw.list({ resourceVersion: '0', limit: 2 }, signal);
      client.getOptions[0]!.listBytes!.bytes = 100; // what a client adds for the page it read
      await lw.list({ limit: 2, continue: 'p2' }, signal);
      await lw.list({ limit: 2, continue: 'p3' }, signal);
      await lw.list({ resourceVersion: '0' }, signal); // another list (a full one after a 410, say)
      const tallies = client.getOptions.map((o) => o?.listBytes);
      expect(tallies[0]).toBeDefined();
      expect(tallies[1]).toBe(tallies[0]);
      expect(tallies[2]).toBe(tallies[0]);
      expect(tallies[0]).toEqual({ bytes: 100, pages: 0 });
      expect(tallies[3]).not.toBe(tallies[0]);
      expect(tallies[3]).toEqual({ bytes: 0, pages: 0 });
    });

    it('returns items (given kind and apiVersion when the list leaves them out), the RV and the continue token', async () => {
      const bare = { metadata: { name: 'a', namespace: 'default' } };
      const lw = new ListWatch<Pod>({ client: new RecordingClient(podList([bare, makePod('b')], '7', { continue: 'next' })), path: '/api/v1/pods', kind: 'Pod' });
      const result = await lw.list({}, signal);
      expect(result.resourceVersion).toBe('7');
      expect(result.continue).toBe('next');
      expect(result.items.map((p) => [p.kind, p.apiVersion, p.metadata?.name])).toEqual([
        ['Pod', 'v1', 'a'],
        ['Pod', 'v1', 'b'],
      ]);
    });

    it('applies the transform to every item, after kind and apiVersion are filled in', async () => {
      const seen: unknown[] = [];
      const transform = (pod: Pod): Pod => {
        seen.push(structuredClone(pod));
        return { ...pod, metadata: { ...pod.metadata, labels: { transformed: 'yes' } } };
      };
      const bare = { metadata: { name: 'a', namespace: 'default' } };
      const lw = new ListWatch<Pod>({ client: new RecordingClient(podList([bare, makePod('b')])), path: '/api/v1/pods', kind: 'Pod', transform });
      const result = await lw.list({}, signal);
      expect(seen).toEqual([{ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default' } }, makePod('b')]);
      expect(result.items.map((p) => [p.metadata?.name, p.metadata?.labels])).toEqual([
        ['a', { transformed: 'yes' }],
        ['b', { transformed: 'yes' }],
      ]);
    });

    it('drops managedFields with stripManagedFields as the transform', async () => {
      const withFields = { ...makePod('a'), metadata: { ...makePod('a').metadata, managedFields: [{ manager: 'kubectl' }] } };
      const lw = new ListWatch<Pod>({ client: new RecordingClient(podList([withFields])), path: '/api/v1/pods', kind: 'Pod', transform: stripManagedFields });
      expect((await lw.list({}, signal)).items).toEqual([makePod('a')]);
    });

    it('throws PODCONFIG_WATCH_DECODE, with the cause, when the transform throws', async () => {
      const boom = new Error('boom');
      const transform = (): Pod => {
        throw boom;
      };
      const lw = new ListWatch<Pod>({ client: new RecordingClient(podList([makePod('a')])), path: '/api/v1/pods', kind: 'Pod', transform });
      await expect(lw.list({}, signal)).rejects.toSatisfy((err) => PodConfigError.is(err, 'PODCONFIG_WATCH_DECODE') && err.cause === boom);
    });

    it('throws PODCONFIG_WATCH_DECODE for a body that is not a list', async () => {
      for (const body of [{ kind: 'Status' }, podList([]).items, { items: [], metadata: {} }, podList(['x'])]) {
        const lw = new ListWatch<Pod>({ client: new RecordingClient(body), path: '/api/v1/pods', kind: 'Pod' });
        await expect(lw.list({}, signal)).rejects.toSatisfy((err) => PodConfigError.is(err, 'PODCONFIG_WATCH_DECODE'));
      }
    });
  });

  describe('watch()', () => {
    it('asks for scanned heads, dropManagedFields as configured, and one spec memo that each list empties', async () => {
      const client = new RecordingClient(podList([]));
      const lw = new ListWatch<Pod>({ client, path: '/api/v1/pods', kind: 'Pod', dropManagedFields: true });
      const watch = { resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 1 };
      await lw.watch(watch, signal);
      const memo = client.watchOptions[0]?.specMemo;
      expect(client.watchOptions[0]).toEqual({ scanHeads: true, dropManagedFields: true, specMemo: expect.any(Map) });
      memo?.set('ns/a', { bytes: { digest: 'd', length: 2 }, spec: {} });
      await lw.watch(watch, signal);
      expect(client.watchOptions[1]?.specMemo).toBe(memo);
      expect(memo?.size).toBe(1);
      await lw.list({}, signal);
      expect(memo?.size).toBe(0);
      memo?.set('ns/a', { bytes: { digest: 'd', length: 2 }, spec: {} });
      await lw.watch({ ...watch, sendInitialEvents: true }, signal);
      expect(memo?.size).toBe(0);
      await new ListWatch<Pod>({ client, path: '/api/v1/pods', kind: 'Pod' }).watch(watch, signal);
      expect(client.watchOptions[3]?.dropManagedFields).toBe(false);
    });

    it('sends watch=true and the watch parameters, and yields the events', async () => {
      const added = { type: 'ADDED', object: makePod('a') };
      const error = { type: 'ERROR', object: { kind: 'Status', code: 410 } };
      const client = new RecordingClient(undefined, [added, error]);
      const lw = new ListWatch<Pod>({ client, path: '/api/v1/pods', fieldSelector: 'spec.nodeName=n1', kind: 'Pod' });
      const events = await collect(
        await lw.watch({ resourceVersion: '', resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds: 321 }, signal),
      );
      expect(events).toEqual([added, error]);
      expect(client.calls[0]!.query).toEqual({
        fieldSelector: 'spec.nodeName=n1',
        watch: 'true',
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: 'true',
        sendInitialEvents: 'true',
        timeoutSeconds: '321',
      });
    });

    it('applies the transform to ADDED, MODIFIED and DELETED objects, never to BOOKMARK or ERROR objects', async () => {
      const events = [
        { type: 'ADDED', object: makePod('a') },
        { type: 'MODIFIED', object: makePod('a', { resourceVersion: '2' }) },
        { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '3' } } },
        { type: 'DELETED', object: makePod('a', { resourceVersion: '4' }) },
        { type: 'ERROR', object: { kind: 'Status', code: 410 } },
      ];
      const seen: unknown[] = [];
      const transform = (pod: Pod): Pod => {
        seen.push(pod);
        return { ...pod, metadata: { ...pod.metadata, labels: { transformed: 'yes' } } };
      };
      const lw = new ListWatch<Pod>({ client: new RecordingClient(undefined, events), path: '/api/v1/pods', kind: 'Pod', transform });
      const out = await collect(await lw.watch({ resourceVersion: '1', allowWatchBookmarks: true, timeoutSeconds: 300 }, signal));
      expect(seen).toEqual([events[0]!.object, events[1]!.object, events[3]!.object]);
      expect(out.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'BOOKMARK', 'DELETED', 'ERROR']);
      expect(out.map((e) => (e.type === 'ERROR' || e.type === 'UNKNOWN' ? undefined : e.object.metadata?.labels))).toEqual([
        { transformed: 'yes' },
        { transformed: 'yes' },
        undefined,
        { transformed: 'yes' },
        undefined,
      ]);
      expect(out[2]!.object).toBe(events[2]!.object);
      expect(out[4]!.object).toBe(events[4]!.object);
    });

    it('throws PODCONFIG_WATCH_DECODE, with the cause, when the transform throws', async () => {
      const boom = new Error('boom');
      const transform = (): Pod => {
        throw boom;
      };
      const lw = new ListWatch<Pod>({ client: new RecordingClient(undefined, [{ type: 'ADDED', object: makePod('a') }]), path: '/api/v1/pods', kind: 'Pod', transform });
      const stream = await lw.watch({ resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 300 }, signal);
      await expect(collect(stream)).rejects.toSatisfy((err) => PodConfigError.is(err, 'PODCONFIG_WATCH_DECODE') && err.cause === boom);
    });

    it('passes an event of an unknown type on as UNKNOWN with its wire type, untransformed (spec §5.3: the Reflector logs it)', async () => {
      const transform = (): Pod => {
        throw new Error('not for unknown events');
      };
      const events = [{ type: 'WHATEVER', object: { metadata: { resourceVersion: '7' } } }, { type: 'UNKNOWN' }];
      const lw = new ListWatch<Pod>({ client: new RecordingClient(undefined, events), path: '/api/v1/pods', kind: 'Pod', transform });
      const stream = await lw.watch({ resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 300 }, signal);
      expect(await collect(stream)).toEqual([
        { type: 'UNKNOWN', wireType: 'WHATEVER', object: { metadata: { resourceVersion: '7' } } },
        { type: 'UNKNOWN', wireType: 'UNKNOWN', object: undefined },
      ]);
    });

    it('throws PODCONFIG_WATCH_DECODE for an event without a type, or a known one without an object', async () => {
      for (const bad of [{ type: 7, object: {} }, { type: 'ADDED' }, 'line', null]) {
        const lw = new ListWatch<Pod>({ client: new RecordingClient(undefined, [bad]), path: '/api/v1/pods', kind: 'Pod' });
        const stream = await lw.watch({ resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 300 }, signal);
        await expect(collect(stream)).rejects.toSatisfy((err) => PodConfigError.is(err, 'PODCONFIG_WATCH_DECODE'));
      }
    });
  });
});
