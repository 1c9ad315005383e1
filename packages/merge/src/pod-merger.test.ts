import {
  ANNOTATIONS, PodSnapshot, coalescePodSets, deepFreeze, podKey,
  type ObjectMeta, type Pod, type PodSetUpdate, type PodUpdate, type SourceName,
} from '@podconfig/core';
import { InstantClock, makePod, sameHiddenClass, seededRandom } from '@podconfig/testing';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { PodMerger, type PodEvent } from './pod-merger.js';

const SEEN_LAYOUT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}(Z|[+-]\d{2}:\d{2})$/;

function capture(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

function newMerger(clock = new InstantClock()): { merger: PodMerger; clock: InstantClock; lines: Record<string, unknown>[] } {
  const { logger, lines } = capture();
  return { merger: new PodMerger({ logger, clock }), clock, lines };
}

const snap = (pods: Pod[]): PodSnapshot => PodSnapshot.from(pods).snapshot;
const set = (pods: Pod[] | PodSnapshot, source: SourceName = 'file'): PodSetUpdate => ({
  source, op: 'SET', pods: Array.isArray(pods) ? snap(pods) : pods,
});

/** `OP:name,name` per update: the shape most assertions need. */
const ops = (updates: readonly PodUpdate[]): string[] =>
  updates.map((u) => `${u.op}:${u.pods.map((p) => p.metadata?.name).join(',')}`);

/** The pod with some metadata replaced, leaving the original alone. */
function withMeta(pod: Pod, meta: { [K in keyof ObjectMeta]?: ObjectMeta[K] | undefined }): Pod {
  const metadata: Record<string, unknown> = { ...structuredClone(pod.metadata) };
  for (const [key, value] of Object.entries(meta)) {
    if (value === undefined) delete metadata[key];
    else metadata[key] = value;
  }
  return { ...structuredClone(pod), metadata };
}

/** A pod with a changed field, leaving the original alone. */
function edit(pod: Pod, change: (p: Pod) => void): Pod {
  const copy = structuredClone(pod);
  change(copy);
  return copy;
}

describe(PodMerger.name, () => {
  describe('merge()', () => {
    it('emits exactly one ADD of all pods and no empty ADD for a first SET of 3 pods (75)', () => {
      const { merger } = newMerger();
      const out = merger.merge(set([makePod('a'), makePod('b'), makePod('c')]));
      expect(ops(out)).toEqual(['ADD:a,b,c']);
      expect(out[0]?.source).toBe('file');
    });

    it('emits the empty ADD marker for an empty first SET and nothing for a second empty one (76)', () => {
      const { merger } = newMerger();
      expect(merger.merge(set([]))).toEqual([{ source: 'file', op: 'ADD', pods: [] }]);
      expect(merger.merge(set([]))).toEqual([]);
    });

    it('emits nothing for the same snapshot twice or for a relist with equal fresh objects (57, 58)', () => {
      const { merger } = newMerger();
      const first = set([makePod('a', { labels: { x: '1' } }), makePod('b')]);
      merger.merge(first);
      expect(merger.merge(first)).toEqual([]);
      expect(merger.merge(set([makePod('b'), makePod('a', { labels: { x: '1' } })]))).toEqual([]);
    });

    it('emits REMOVE, ADD, UPDATE in that order for a SET that adds p4, removes p1 and changes p2 (77)', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p1'), makePod('p2'), makePod('p3')]));
      const out = merger.merge(set([makePod('p2', { image: 'nginx:2' }), makePod('p3'), makePod('p4')]));
      expect(ops(out)).toEqual(['REMOVE:p1', 'ADD:p4', 'UPDATE:p2']);
      expect(out[2]?.pods[0]?.spec?.containers[0]?.image).toBe('nginx:2');
    });

    it('emits REMOVE, ADD, UPDATE, DELETE and RECONCILE in that order for one SET that does all five (§6.2)', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('gone'), makePod('changed'), makePod('deleting'), makePod('status')], 'api'));
      const out = merger.merge(set([
        makePod('status', { phase: 'Running' }),
        withMeta(makePod('deleting'), { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }),
        makePod('changed', { image: 'nginx:2' }),
        makePod('new'),
      ], 'api'));
      expect(ops(out)).toEqual(['REMOVE:gone', 'ADD:new', 'UPDATE:changed', 'DELETE:deleting', 'RECONCILE:status']);
    });

    it('emits only UPDATE when spec and status change together (78)', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p')]));
      const out = merger.merge(set([makePod('p', { image: 'nginx:2', phase: 'Running' })]));
      expect(ops(out)).toEqual(['UPDATE:p']);
      expect(out[0]?.pods[0]?.status?.phase).toBe('Running');
    });

    it('emits RECONCILE and stores the new status when only the status changes (59)', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p')], 'api'));
      const out = merger.merge(set([makePod('p', { phase: 'Running' })], 'api'));
      expect(ops(out)).toEqual(['RECONCILE:p']);
      expect(merger.pods('api')[0]?.status?.phase).toBe('Running');
      expect(merger.merge(set([makePod('p', { phase: 'Running' })], 'api'))).toEqual([]);
    });

    it('emits nothing when only a local annotation changes (79)', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p')]));
      for (const key of [ANNOTATIONS.configSeen, ANNOTATIONS.configSource, ANNOTATIONS.configMirror]) {
        expect(merger.merge(set([makePod('p', { annotations: { [key]: 'other' } })]))).toEqual([]);
      }
    });

    it('emits UPDATE when another annotation is added, changed or removed (80)', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p')]));
      expect(ops(merger.merge(set([makePod('p', { annotations: { team: 'a' } })])))).toEqual(['UPDATE:p']);
      expect(ops(merger.merge(set([makePod('p', { annotations: { team: 'b' } })])))).toEqual(['UPDATE:p']);
      expect(ops(merger.merge(set([makePod('p')])))).toEqual(['UPDATE:p']);
      expect(merger.pods()[0]?.metadata?.annotations?.team).toBeUndefined();
    });

    it('emits nothing when labels go from absent to {} (D14 replaces 81), but UPDATE when a label appears', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p')]));
      expect(merger.merge(set([makePod('p', { labels: {} })]))).toEqual([]);
      expect(merger.merge(set([makePod('p', { annotations: {} })]))).toEqual([]);
      expect(ops(merger.merge(set([makePod('p', { labels: { app: 'x' } })])))).toEqual(['UPDATE:p']);
    });

    it('emits nothing when a spec map goes from absent to {} (D14: nil and empty maps compare equal; D6 keeps the UID), but UPDATE for an empty list', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p')]));
      expect(merger.merge(set([edit(makePod('p'), (p) => { p.spec!.nodeSelector = {}; })]))).toEqual([]);
      expect(merger.merge(set([edit(makePod('p'), (p) => { p.spec!.containers[0]!.resources = { limits: {} }; })]))).toEqual([]);
      expect(ops(merger.merge(set([edit(makePod('p'), (p) => { p.spec!.volumes = []; })])))).toEqual(['UPDATE:p']); // Go: nil ≠ empty slice
      expect(ops(merger.merge(set([edit(makePod('p'), (p) => { p.spec!.nodeSelector = { disk: 'ssd' }; })])))).toEqual(['UPDATE:p']);
    });

    it('emits nothing for ownerReferences, finalizers or resourceVersion changes and keeps the old values (82)', () => {
      const { merger } = newMerger();
      const pod = makePod('p', { resourceVersion: '1' });
      merger.merge(set([pod]));
      const moved = withMeta(pod, {
        resourceVersion: '2',
        finalizers: ['example.com/f'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'node-uid' }],
      });
      expect(merger.merge(set([moved]))).toEqual([]);
      const out = merger.merge(set([edit(moved, (p) => (p.spec!.containers[0]!.image = 'nginx:2'))]));
      expect(ops(out)).toEqual(['UPDATE:p']);
      expect(out[0]?.pods[0]?.metadata?.resourceVersion).toBe('1');
      expect(out[0]?.pods[0]?.metadata?.finalizers).toBeUndefined();
      expect(out[0]?.pods[0]?.metadata?.ownerReferences).toBeUndefined();
    });

    it('stamps every pod added by one SET with the same config.seen, however the clock moves meanwhile', () => {
      const clock = new InstantClock();
      const now = clock.now.bind(clock);
      // A wall clock that moves on at every read.
      clock.now = () => { const t = now(); clock.advance(1); return t; };
      const { merger } = newMerger(clock);
      const out = merger.merge(set([makePod('a'), makePod('b'), makePod('c')]));
      const seen = new Set(out[0]?.pods.map((p) => p.metadata?.annotations?.[ANNOTATIONS.configSeen]));
      expect(seen.size).toBe(1);
    });

    it('stamps config.source and config.seen on ADD and keeps config.seen on UPDATE (83)', () => {
      const { merger, clock } = newMerger();
      const added = merger.merge(set([makePod('p')], 'http'))[0]?.pods[0];
      const seen = added?.metadata?.annotations?.[ANNOTATIONS.configSeen];
      expect(added?.metadata?.annotations?.[ANNOTATIONS.configSource]).toBe('http');
      expect(seen).toMatch(SEEN_LAYOUT);
      expect(Date.parse(seen!)).toBe(clock.now());
      clock.advance(60_000);
      const updated = merger.merge(set([makePod('p', { image: 'nginx:2' })], 'http'))[0]?.pods[0];
      expect(updated?.metadata?.annotations?.[ANNOTATIONS.configSeen]).toBe(seen);
      expect(updated?.metadata?.annotations?.[ANNOTATIONS.configSource]).toBe('http');
    });

    it('copies generation on UPDATE and rebuilds annotations as the new ones plus the stored local ones', () => {
      const { merger } = newMerger();
      merger.merge(set([withMeta(makePod('p', { annotations: { team: 'a' } }), { generation: 1 })], 'api'));
      const seen = merger.pods('api')[0]!.metadata!.annotations![ANNOTATIONS.configSeen];
      const next = withMeta(makePod('p', {
        annotations: { owner: 'b', [ANNOTATIONS.configMirror]: 'hash', [ANNOTATIONS.configSeen]: 'forged', [ANNOTATIONS.configSource]: 'file' },
      }), { generation: 2 });
      const updated = merger.merge(set([next], 'api'))[0]!.pods[0]!;
      expect(updated.metadata?.generation).toBe(2);
      expect(updated.metadata?.annotations).toEqual({
        owner: 'b', [ANNOTATIONS.configMirror]: 'hash', [ANNOTATIONS.configSeen]: seen, [ANNOTATIONS.configSource]: 'api',
      });
      // Status-only: only the status is copied, generation stays.
      const reconciled = merger.merge(set([withMeta(makePod('p', { phase: 'Running', annotations: next.metadata!.annotations! }), { generation: 3 })], 'api'));
      expect(reconciled.map((u) => u.op)).toEqual(['RECONCILE']);
      expect(reconciled[0]!.pods[0]!.metadata?.generation).toBe(2);
    });

    it('keeps the first of two pods with one full name, warns naming both, gives the kubelet\'s FailedValidation event, and counts it once (84, D14)', () => {
      const { logger, lines } = capture();
      const events: PodEvent[] = [];
      const merger = new PodMerger({ logger, clock: new InstantClock(), onPodEvent: (e) => events.push(e) });
      const first = makePod('web', { uid: 'u1' });
      const second = makePod('web', { uid: 'u2', image: 'nginx:2' });
      const pods = PodSnapshot.fromEntries([['b.yaml', second], ['a.yaml', first]]);
      expect(merger.merge(set(pods)).map((u) => u.pods.map((p) => p.metadata?.uid))).toEqual([['u1']]);
      const message = 'Error validating pod web_default(u2) from file due to duplicate pod name "web", ignoring';
      const warns = lines.filter((l) => l.msg === 'duplicate pod dropped');
      expect(warns).toEqual([expect.objectContaining({
        level: 40, component: 'merge', source: 'file', reason: 'duplicate full name',
        pod: 'default/web', uid: 'u2', winner: 'default/web', winnerUid: 'u1', event: { reason: 'FailedValidation', message },
      })]);
      expect(events).toEqual([{ type: 'Warning', reason: 'FailedValidation', message, pod: second }]);
      expect(merger.merge(set(pods.with('c.yaml', makePod('other'))))).toHaveLength(1);
      expect(lines.filter((l) => l.msg === 'duplicate pod dropped')).toHaveLength(1);
      expect(events).toHaveLength(1);
      expect(merger.stats().sources.file).toMatchObject({ pods: 2, dropped: 1, duplicateNames: 1, duplicateUids: 0 });
    });

    it('keeps the pod that won before when a duplicate with a smaller key appears (D14, no spurious REMOVE)', () => {
      const { merger } = newMerger();
      const running = makePod('web', { uid: 'u1' });
      let pods = PodSnapshot.fromEntries([['m.yaml', running]]);
      merger.merge(set(pods));
      pods = pods.with('a.yaml', makePod('web', { uid: 'u2' }));
      expect(merger.merge(set(pods))).toEqual([]);
      expect(merger.pods().map((p) => p.metadata?.uid)).toEqual(['u1']);
      pods = pods.without('m.yaml');
      expect(merger.merge(set(pods)).map((u) => `${u.op}:${u.pods[0]?.metadata?.uid}`)).toEqual(['REMOVE:u1', 'ADD:u2']);
    });

    it('drops a pod under another key whose full name a pod under its own namespace/name key has, by change keys or whole (D14)', () => {
      for (const delta of [true, false]) {
        const { merger, lines } = newMerger();
        const update = (base: PodSnapshot, next: PodSnapshot, key: string): PodSetUpdate =>
          delta ? { source: 'api', op: 'SET', pods: next, changes: { base, keys: new Set([key]) } } : set(next, 'api');
        // Keys default/web and default/db: their pods' own, so the merger keeps no map of full names.
        const base = snap([makePod('web', { uid: 'u1' }), makePod('db', { uid: 'u2' })]);
        merger.merge(set(base, 'api'));
        // a.yaml sorts before default/web: only "the pod that won before keeps winning" keeps u1.
        const next = base.with('a.yaml', makePod('web', { uid: 'u3' }));
        expect(merger.merge(update(base, next, 'a.yaml')), `delta ${delta}`).toEqual([]);
        expect(lines.filter((l) => l.msg === 'duplicate pod dropped')).toEqual([expect.objectContaining({
          reason: 'duplicate full name', pod: 'default/web', uid: 'u3', winnerUid: 'u1',
        })]);
        const gone = next.without('default/web');
        expect(merger.merge(update(next, gone, 'default/web')).map((u) => `${u.op}:${u.pods[0]?.metadata?.uid}`)).toEqual(['REMOVE:u1', 'ADD:u3']);
      }
    });

    it('takes a_b in namespace c and a in namespace b_c for one full name, though their namespace/name keys differ (D14)', () => {
      const { merger } = newMerger();
      const base = snap([makePod('a_b', { namespace: 'c', uid: 'u1' })]);
      merger.merge(set(base, 'api'));
      const next = base.with('b_c/a', makePod('a', { namespace: 'b_c', uid: 'u2' }));
      expect(merger.merge({ source: 'api', op: 'SET', pods: next, changes: { base, keys: new Set(['b_c/a']) } })).toEqual([]);
      expect(merger.stats().sources.api).toMatchObject({ pods: 1, dropped: 1, duplicateNames: 1 });
      // Whole, to a merger without an incumbent: the smaller key wins.
      expect(ops(newMerger().merger.merge(set(next, 'api')))).toEqual(['ADD:a']);
    });

    it('keeps the incumbent of two pods with one UID, else the smaller snapshot key whatever the list order, and reports the other (D14)', () => {
      // A snapshot is keyed, not ordered: "first" in a source's own order (file order, PodList order) is the
      // source's to settle. The merger's rule: the pod stored before keeps the UID, else the smallest key.
      const { merger, lines } = newMerger();
      expect(ops(merger.merge(set([makePod('z', { uid: 'same' })])))).toEqual(['ADD:z']);
      // `a` comes first in the list and has the smaller key: `z` stays, as the incumbent.
      expect(merger.merge(set([makePod('a', { uid: 'same' }), makePod('z', { uid: 'same' })]))).toEqual([]);
      expect(merger.pods().map((p) => p.metadata?.name)).toEqual(['z']);
      expect(lines.filter((l) => l.msg === 'duplicate pod dropped')).toEqual([expect.objectContaining({
        reason: 'duplicate UID', pod: 'default/a', uid: 'same', winner: 'default/z', winnerUid: 'same',
      })]);
      expect(merger.stats().sources.file).toMatchObject({ duplicateNames: 0, duplicateUids: 1, dropped: 1 });

      // No incumbent: the smaller key wins, though `z` comes first in the list.
      const fresh = newMerger();
      expect(ops(fresh.merger.merge(set([makePod('z', { uid: 'same' }), makePod('a', { uid: 'same' })])))).toEqual(['ADD:a']);
      expect(fresh.lines.filter((l) => l.msg === 'duplicate pod dropped')).toEqual([expect.objectContaining({
        reason: 'duplicate UID', pod: 'default/z', uid: 'same', winner: 'default/a',
      })]);
      expect(fresh.merger.stats().sources.file).toMatchObject({ duplicateNames: 0, duplicateUids: 1, dropped: 1 });
    });

    it('emits REMOVE of the old and ADD of the new pod when the name or namespace changes under one UID (D14)', () => {
      const { merger, clock } = newMerger();
      merger.merge(set([makePod('old', { uid: 'pinned' })]));
      clock.advance(1000);
      const out = merger.merge(set([makePod('new', { uid: 'pinned' })]));
      expect(ops(out)).toEqual(['REMOVE:old', 'ADD:new']);
      expect(Date.parse(out[1]!.pods[0]!.metadata!.annotations![ANNOTATIONS.configSeen]!)).toBe(clock.now());
      const moved = merger.merge(set([makePod('new', { uid: 'pinned', namespace: 'kube-system' })]));
      expect(moved.map((u) => `${u.op}:${u.pods[0]?.metadata?.namespace}`)).toEqual(['REMOVE:default', 'ADD:kube-system']);
      expect(merger.pods()).toHaveLength(1);
    });

    it('emits frozen pods: a consumer cannot change the state or later output (85)', () => {
      const { merger } = newMerger();
      const out = merger.merge(set([makePod('p', { labels: { a: '1' } })]));
      const emitted = out[0]!.pods[0]!;
      expect(() => { emitted.metadata!.labels!.a = 'mutated'; }).toThrow(TypeError);
      expect(() => { emitted.spec!.containers[0]!.image = 'mutated'; }).toThrow(TypeError);
      expect(() => { emitted.metadata!.annotations![ANNOTATIONS.configSource] = 'http'; }).toThrow(TypeError);
      expect(merger.pods()[0]?.metadata?.labels?.a).toBe('1');
      expect(merger.pods()[0]?.spec?.containers[0]?.image).toBe('registry.k8s.io/pause:3.10');
      expect(merger.merge(set([makePod('p', { labels: { a: '1' } })]))).toEqual([]);
    });

    it('takes spec, labels and status from the new pod on a change, not an earlier value that is only semantically equal', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p', { labels: {} })]));
      const withNull = { ...makePod('p', { image: 'nginx:2' }), status: { phase: 'Running', message: null } } as unknown as Pod;
      const [update] = merger.merge(set([withNull]));
      expect(update?.op).toBe('UPDATE');
      expect(update?.pods[0]?.metadata).not.toHaveProperty('labels'); // {} before: the kubelet copies ref's labels
      expect(update?.pods[0]?.status).toEqual({ phase: 'Running', message: null });
      expect(update?.pods[0]?.spec?.containers[0]?.image).toBe('nginx:2');
    });

    it('adopts a pod that its source froze already: the copies it makes are frozen, the source pod is untouched', () => {
      const { merger } = newMerger();
      const pod = deepFreeze(makePod('p', { labels: { a: '1' } }));
      const before = structuredClone(pod);
      const emitted = merger.merge(set([pod]))[0]!.pods[0]!;
      expect(emitted).not.toBe(pod);
      for (const part of [emitted, emitted.metadata, emitted.metadata?.annotations]) expect(Object.isFrozen(part)).toBe(true);
      expect(() => { emitted.metadata!.annotations![ANNOTATIONS.configSource] = 'http'; }).toThrow(TypeError);
      expect(emitted.metadata?.annotations?.[ANNOTATIONS.configSource]).toBe('file');
      expect(emitted.spec).toBe(pod.spec);
      expect(emitted.metadata?.labels).toBe(pod.metadata?.labels);
      expect(pod).toEqual(before);
    });

    it('emits a new frozen version on a change and leaves the one emitted before as it was', () => {
      const { merger } = newMerger();
      const first = merger.merge(set([makePod('p', { labels: { a: '1' } })]))[0]!.pods[0]!;
      const before = structuredClone(first);
      const updated = merger.merge(set([makePod('p', { labels: { a: '2' } })]))[0]!.pods[0]!;
      expect(updated).not.toBe(first);
      expect(Object.isFrozen(updated.metadata)).toBe(true);
      expect(updated.metadata?.labels).toEqual({ a: '2' });
      expect(first).toEqual(before);
      // Unchanged subtrees are shared with the earlier version rather than frozen again.
      expect(updated.spec).toBe(first.spec);
      expect(merger.pods()[0]).toBe(updated);
    });

    it('never modifies the pods of the snapshot it is given', () => {
      const { merger } = newMerger();
      const pod = makePod('p');
      const frozen = structuredClone(pod);
      merger.merge(set([pod]));
      merger.merge(set([makePod('p', { image: 'nginx:2' })]));
      merger.merge(set([pod]));
      expect(pod).toEqual(frozen);
    });

    it('emits ADD, not DELETE, for a pod first seen with a deletionTimestamp (88)', () => {
      const { merger } = newMerger();
      const pod = withMeta(makePod('p'), { deletionTimestamp: '2026-01-01T00:00:00Z' });
      expect(ops(merger.merge(set([pod], 'api')))).toEqual(['ADD:p']);
    });

    it('emits DELETE when a deletionTimestamp appears and REMOVE when the pod goes (60)', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p'), makePod('q')], 'api'));
      const deleting = withMeta(makePod('p'), { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 });
      const out = merger.merge(set([deleting, makePod('q')], 'api'));
      expect(ops(out)).toEqual(['DELETE:p']);
      expect(out[0]?.pods[0]?.metadata?.deletionGracePeriodSeconds).toBe(30);
      expect(ops(merger.merge(set([makePod('q')], 'api')))).toEqual(['REMOVE:p']);
    });

    it('emits UPDATE, not DELETE, for a change whose pod has a null deletionTimestamp (decoded JSON)', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p')], 'api'));
      // The type says string | undefined; a decoded `"deletionTimestamp": null` is null all the same.
      const changed = edit(makePod('p', { image: 'nginx:2' }), (p) => { (p.metadata as Record<string, unknown>)['deletionTimestamp'] = null; });
      expect(ops(merger.merge(set([changed], 'api')))).toEqual(['UPDATE:p']);
    });

    it('emits DELETE again when a deleting pod gets a label change (89)', () => {
      const { merger } = newMerger();
      const deleting = withMeta(makePod('p'), { deletionTimestamp: '2026-01-01T00:00:30Z' });
      merger.merge(set([makePod('p')], 'api'));
      expect(ops(merger.merge(set([deleting], 'api')))).toEqual(['DELETE:p']);
      const relabelled = withMeta(deleting, { labels: { state: 'stopping' } });
      expect(ops(merger.merge(set([relabelled], 'api')))).toEqual(['DELETE:p']);
    });

    it('emits nothing for a SET whose snapshot did not change (a delete of an unknown key, 56)', () => {
      const { merger } = newMerger();
      const pods = snap([makePod('a')]);
      merger.merge(set(pods, 'api'));
      const same = pods.without('default/unknown');
      expect(merger.merge({ source: 'api', op: 'SET', pods: same, changes: { base: pods, keys: new Set(['default/unknown']) } })).toEqual([]);
    });

    it('sorts REMOVE and UPDATE by full name and ADD by creationTimestamp, then full name (D15)', () => {
      const { merger } = newMerger();
      merger.merge(set(['d', 'b', 'c', 'a'].map((n) => makePod(n))));
      const out = merger.merge(set([
        makePod('c', { image: 'x' }), makePod('a', { image: 'x' }),
        makePod('z', { creationTimestamp: '2026-01-01T00:00:03Z' }),
        makePod('y', { creationTimestamp: '2026-01-01T00:00:01Z' }),
        makePod('x', { creationTimestamp: '2026-01-01T00:00:01Z' }),
        makePod('w'),
      ]));
      expect(ops(out)).toEqual(['REMOVE:b,d', 'ADD:w,x,y,z', 'UPDATE:a,c']);
    });

    it('sorts DELETE by full name (D15)', () => {
      const { merger } = newMerger();
      merger.merge(set(['c', 'a', 'b'].map((n) => makePod(n)), 'api'));
      const deleting = (name: string): Pod => withMeta(makePod(name), { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 });
      const out = merger.merge(set(['c', 'a', 'b'].map(deleting), 'api'));
      expect(ops(out)).toEqual(['DELETE:a,b,c']);
    });

    it('sorts REMOVE and RECONCILE by full name (name_namespace), not by namespace/name key or storage order (D15)', () => {
      const { merger } = newMerger();
      // Full names a_zz < b_default < c_default < d_kube-system; keys default/b < default/c < kube-system/d < zz/a.
      const placed = [['d', 'kube-system'], ['b', 'default'], ['a', 'zz'], ['c', 'default']] as const;
      const gone = placed.map(([name, namespace]) => makePod(`${name}1`, { namespace }));
      merger.merge(set([...gone, ...placed.map(([name, namespace]) => makePod(name, { namespace }))], 'api'));
      const out = merger.merge(set(placed.map(([name, namespace]) => makePod(name, { namespace, phase: 'Running' })), 'api'));
      expect(ops(out)).toEqual(['REMOVE:a1,b1,c1,d1', 'RECONCILE:a,b,c,d']);
    });

    it('orders a first ADD by creationTimestamp even against the names\' order (D15, 93)', () => {
      const { merger } = newMerger();
      const out = merger.merge(set([
        makePod('a', { creationTimestamp: '2026-01-01T00:00:03Z' }),
        makePod('b', { creationTimestamp: '2026-01-01T00:00:01Z' }),
        makePod('c', { creationTimestamp: '2026-01-01T00:00:02Z' }),
      ]));
      expect(ops(out)).toEqual(['ADD:b,c,a']);
    });

    it('takes a changed deletionGracePeriodSeconds alone as a change: DELETE with the new grace (§6.2)', () => {
      const { merger } = newMerger();
      const deleting = withMeta(makePod('p'), { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 });
      merger.merge(set([deleting], 'http'));
      const now = withMeta(deleting, { deletionGracePeriodSeconds: 0 });
      const out = merger.merge(set([now], 'http'));
      expect(ops(out)).toEqual(['DELETE:p']);
      expect(out[0]?.pods[0]?.metadata?.deletionGracePeriodSeconds).toBe(0);
      expect(merger.pods('http')[0]?.metadata?.deletionGracePeriodSeconds).toBe(0);
    });

    it('keeps the stored pod\'s local annotations on an UPDATE whose pod lacks them (config.mirror, §6.2)', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('p', { annotations: { [ANNOTATIONS.configMirror]: 'x' } })], 'http'));
      const out = merger.merge(set([makePod('p', { labels: { v: '2' } })], 'http'));
      expect(ops(out)).toEqual(['UPDATE:p']);
      expect(out[0]?.pods[0]?.metadata?.annotations?.[ANNOTATIONS.configMirror]).toBe('x');
      expect(out[0]?.pods[0]?.metadata?.labels).toEqual({ v: '2' });
    });

    it('keeps sources apart: same full name from two sources is ADDed by both, outputs never mix (86, §6.6)', () => {
      const { merger } = newMerger();
      const file = merger.merge(set([makePod('etcd', { uid: 'f' })], 'file'));
      const http = merger.merge(set([makePod('etcd', { uid: 'h' })], 'http'));
      expect(file.map((u) => [u.source, u.op])).toEqual([['file', 'ADD']]);
      expect(http.map((u) => [u.source, u.op])).toEqual([['http', 'ADD']]);
      expect(ops(merger.merge(set([], 'file')))).toEqual(['REMOVE:etcd']);
      expect(merger.pods('http').map((p) => p.metadata?.uid)).toEqual(['h']);
      expect(merger.pods().map((p) => p.metadata?.uid)).toEqual(['h']);
    });

    it("gives a REMOVE the pod's last state the SET carries for it (a force delete's grace 0), not the older stored one", () => {
      const { merger } = newMerger();
      const s0 = snap([makePod('a', { uid: 'ua' }), makePod('b', { uid: 'ub' })]);
      merger.merge(set(s0, 'api'));
      const forced = withMeta(makePod('a', { uid: 'ua' }), { deletionTimestamp: '2026-11-23T01:00:00Z', deletionGracePeriodSeconds: 0 });
      const stale = makePod('b', { uid: 'an-older-b' }); // another UID under the key: not b's last state
      const s1 = s0.without('default/a').without('default/b');
      const out = merger.merge({
        source: 'api', op: 'SET', pods: s1,
        changes: { base: s0, keys: new Set(['default/a', 'default/b']) }, removed: new Map([['ua', forced], ['an-older-b', stale]]),
      });
      expect(ops(out)).toEqual(['REMOVE:a,b']);
      const [a, b] = out[0]!.pods;
      expect(a!.metadata).toMatchObject({ uid: 'ua', deletionGracePeriodSeconds: 0, deletionTimestamp: '2026-11-23T01:00:00Z' });
      expect(a!.metadata?.annotations?.['kubernetes.io/config.source']).toBe('api'); // still the merger's pod
      expect(b!.metadata).toMatchObject({ uid: 'ub' });
      expect(b!.metadata).not.toHaveProperty('deletionGracePeriodSeconds');
    });

    it('applies change keys in O(changes) when their base is the snapshot merged last, else diffs fully (D17)', () => {
      const { merger } = newMerger();
      const s0 = snap([makePod('a'), makePod('b')]);
      merger.merge(set(s0, 'api'));
      const s1 = s0.with('default/c', makePod('c'));
      expect(ops(merger.merge({ source: 'api', op: 'SET', pods: s1, changes: { base: s0, keys: new Set(['default/c']) } })))
        .toEqual(['ADD:c']);
      expect(merger.stats().sources.api).toMatchObject({ merges: 2, deltaMerges: 1 });
      // A base the merger never saw: the keys are not trusted, the whole set is diffed.
      const s2 = s1.without('default/a').with('default/d', makePod('d'));
      expect(ops(merger.merge({ source: 'api', op: 'SET', pods: s2, changes: { base: s0, keys: new Set(['default/d']) } })))
        .toEqual(['REMOVE:a', 'ADD:d']);
      expect(merger.stats().sources.api).toMatchObject({ merges: 3, deltaMerges: 1 });
    });

    it('reads only the changed keys of a 2,000-pod snapshot on the delta path, never iterating it (D17)', () => {
      const { merger } = newMerger();
      const calls = new Map<string, number>();
      /** The snapshot behind a proxy that counts every member used on it. */
      const counted = (snapshot: PodSnapshot): PodSnapshot => new Proxy(snapshot, {
        get(target, property) {
          const name = String(property);
          calls.set(name, (calls.get(name) ?? 0) + 1);
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      let pods = counted(snap(Array.from({ length: 2000 }, (_, i) => makePod(`p${i}`))));
      merger.merge(set(pods, 'api'));
      calls.clear();
      for (let i = 0; i < 100; i++) {
        const base = pods;
        const key = `default/p${i * 7}`;
        pods = counted(base.with(key, makePod(`p${i * 7}`, { image: `img:${i}` })));
        expect(ops(merger.merge({ source: 'api', op: 'SET', pods, changes: { base, keys: new Set([key]) } }))).toEqual([`UPDATE:p${i * 7}`]);
      }
      expect(merger.stats().sources.api).toMatchObject({ deltaMerges: 100, pods: 2000 });
      // Only point reads (plus the with() calls of this test), a handful per event.
      expect([...calls.keys()].sort()).toEqual(['get', 'with']);
      expect(calls.get('get')!).toBeLessThanOrEqual(100 * 12);
    });

    it('handles a key whose pod gets a new UID, a UID that moves keys, and a duplicate outside the changed keys (D17)', () => {
      const { merger } = newMerger();
      const s0 = PodSnapshot.fromEntries([['k1', makePod('a', { uid: 'u1' })], ['k2', makePod('b', { uid: 'u2' })]]);
      merger.merge(set(s0));
      const delta = (base: PodSnapshot, pods: PodSnapshot, ...keys: string[]): PodUpdate[] =>
        merger.merge({ source: 'file', op: 'SET', pods, changes: { base, keys: new Set(keys) } });
      const s1 = s0.with('k1', makePod('a', { uid: 'u9' }));
      expect(delta(s0, s1, 'k1').map((u) => `${u.op}:${u.pods[0]?.metadata?.uid}`)).toEqual(['REMOVE:u1', 'ADD:u9']);
      const s2 = s1.without('k2').with('k3', makePod('b', { uid: 'u2' }));
      expect(delta(s1, s2, 'k2', 'k3')).toEqual([]);
      const s3 = s2.with('k0', makePod('b', { uid: 'u7' }));
      expect(delta(s2, s3, 'k0')).toEqual([]);
      expect(merger.stats().sources.file).toMatchObject({ duplicateNames: 1, dropped: 1, deltaMerges: 3 });
      const s4 = s3.without('k3');
      expect(delta(s3, s4, 'k3').map((u) => `${u.op}:${u.pods[0]?.metadata?.uid}`)).toEqual(['REMOVE:u2', 'ADD:u7']);
      expect(merger.stats().sources.file).toMatchObject({ dropped: 0, pods: 2 });
    });
  });

  describe('seenSources()', () => {
    it('lists the sources that delivered at least one SET, even an empty one', () => {
      const { merger } = newMerger();
      expect([...merger.seenSources()]).toEqual([]);
      merger.merge(set([], 'http'));
      merger.merge(set([makePod('a')], 'file'));
      expect([...merger.seenSources()].sort()).toEqual(['file', 'http']);
    });
  });

  describe('pods()', () => {
    it('returns the desired pods per source or of all sources, with config.source set', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('a')], 'file'));
      merger.merge(set([makePod('b'), makePod('c')], 'api'));
      expect(merger.pods('file').map((p) => p.metadata?.name)).toEqual(['a']);
      expect(merger.pods('http')).toEqual([]);
      expect(merger.pods().map((p) => p.metadata?.annotations?.[ANNOTATIONS.configSource]).sort()).toEqual(['api', 'api', 'file']);
    });
  });

  describe('stats()', () => {
    it('counts per source and returns a snapshot that later merges do not change', () => {
      const { merger } = newMerger();
      merger.merge(set([makePod('a'), makePod('b', { uid: 'uid-default-a' })]));
      const before = merger.stats();
      merger.merge(set([], 'file'));
      expect(before.sources.file).toEqual({ pods: 1, dropped: 1, duplicateNames: 0, duplicateUids: 1, merges: 1, deltaMerges: 0 });
      expect(merger.stats().sources.file).toEqual({ pods: 0, dropped: 0, duplicateNames: 0, duplicateUids: 1, merges: 2, deltaMerges: 0 });
      expect(merger.stats().sources.api).toBeUndefined();
    });
  });

  it('stores the annotations of every pod, and of every version, with one V8 hidden class', () => {
    // A map per stored pod would make each read of its annotations megamorphic, and leave a map per
    // change in the old generation. Object spreads that add keys did that after the first few changes.
    const { merger } = newMerger();
    const decoded = (name: string, seq: number): Pod =>
      JSON.parse(JSON.stringify(makePod(name, { annotations: { 'example.com/seq': String(seq) }, resourceVersion: String(seq) }))) as Pod;
    const names = ['a', 'b', 'c'];
    let pods = snap(names.map((name) => decoded(name, 0)));
    merger.merge(set(pods, 'api'));
    const annotationsOf = (): Record<string, string>[] =>
      merger.pods('api').sort((x, y) => x.metadata!.name!.localeCompare(y.metadata!.name!)).map((p) => p.metadata!.annotations!);
    const firstVersions = annotationsOf();
    for (let seq = 1; seq <= 100; seq++) {
      const name = names[seq % names.length]!;
      const base = pods;
      pods = pods.with(`default/${name}`, decoded(name, seq));
      expect(ops(merger.merge({ source: 'api', op: 'SET', pods, changes: { base, keys: new Set([`default/${name}`]) } }))).toEqual([`UPDATE:${name}`]);
    }
    const latest = annotationsOf();
    expect(latest.map((a) => a['example.com/seq'])).toEqual(['99', '100', '98']);
    for (const annotations of [...firstVersions, ...latest]) expect(sameHiddenClass(annotations, latest[0]!)).toBe(true);
  });
});


/**
 * Random SETs over a small universe (10 keys, 5 names, 2 namespaces, 8 UIDs) so that duplicate
 * full names, duplicate UIDs, renames under one UID, UID changes at one key and UIDs moving
 * between keys all happen often.
 */
/**
 * Random event batches. With `ownKeys`, pods are mostly placed under their own `namespace/name` (as the
 * apiserver source's are), with now and then a stray key, and some names and namespaces hold a `_`
 * (`a_b` in `c` and `a` in `b_c` are one full name under two such keys).
 */
class RandomSource {
  readonly #random: () => number;
  readonly #ownKeys: boolean;
  snapshot = PodSnapshot.empty;
  #rv = 0;

  constructor(seed: number, ownKeys = false) {
    this.#random = seededRandom(seed);
    this.#ownKeys = ownKeys;
  }

  chance(p: number): boolean {
    return this.#random() < p;
  }

  #pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.#random() * values.length)]!;
  }

  #pod(): Pod {
    const labels = this.#pick([undefined, {}, { app: 'x' }, { app: 'y' }]);
    const annotations = this.#pick([undefined, {}, { team: 't' }, { [ANNOTATIONS.configMirror]: 'm' }]);
    const creationTimestamp = this.#pick([undefined, '2026-01-01T00:00:01Z', '2026-01-01T00:00:02Z']);
    const pod = makePod(this.#pick(this.#ownKeys ? ['a', 'b', 'c', 'a_b'] : ['a', 'b', 'c', 'd', 'e']), {
      namespace: this.#pick(this.#ownKeys ? ['default', 'c', 'b_c'] : ['default', 'kube-system']),
      uid: this.#pick(['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7']),
      image: this.#pick(['i1', 'i2', 'i3']),
      phase: this.#pick(['Pending', 'Running']),
      resourceVersion: String(++this.#rv),
      ...(labels === undefined ? {} : { labels }),
      ...(annotations === undefined ? {} : { annotations }),
      ...(creationTimestamp === undefined ? {} : { creationTimestamp }),
    });
    return this.chance(0.1) ? withMeta(pod, { deletionTimestamp: '2026-01-01T00:01:00Z' }) : pod;
  }

  #mutate(pod: Pod): Pod {
    const fresh = this.#pod();
    switch (Math.floor(this.#random() * 9)) {
      case 0: return { ...pod, spec: fresh.spec! };
      case 1: return { ...pod, status: fresh.status! };
      case 2: return withMeta(pod, { labels: fresh.metadata?.labels });
      case 3: return withMeta(pod, { annotations: fresh.metadata?.annotations });
      case 4: return withMeta(pod, { deletionTimestamp: fresh.metadata?.deletionTimestamp });
      case 5: return withMeta(pod, { resourceVersion: fresh.metadata?.resourceVersion });
      case 6: return withMeta(pod, { name: fresh.metadata?.name });
      case 7: return withMeta(pod, { namespace: fresh.metadata?.namespace });
      default: return withMeta(pod, { uid: fresh.metadata?.uid });
    }
  }

  /** One event batch: returns the SET with its change keys relative to the previous snapshot. */
  step(): PodSetUpdate {
    const base = this.snapshot;
    const keys = new Set<string>();
    let pods = base;
    const existing = (): string | undefined => {
      const all = [...pods.keys()];
      return all.length === 0 ? undefined : this.#pick(all);
    };
    const events = 1 + Math.floor(this.#random() * 4);
    for (let i = 0; i < events; i++) {
      // With ownKeys, half the stray keys sort before every own key (a full rebuild's smallest key wins).
      const n = Math.floor(this.#random() * 10);
      const stray = this.#ownKeys && n < 5 ? `0k${n}` : `k${n}`;
      const from = existing();
      const op = this.#random();
      // Puts `pod` under `target`, or with ownKeys mostly under its own key; `leaving`: the key it moves from.
      const place = (pod: Pod, target: string, leaving?: string): void => {
        const key = !this.#ownKeys ? target : this.chance(0.05) ? stray : podKey(pod);
        if (leaving !== undefined && leaving !== key) pods = pods.without(leaving);
        pods = pods.with(key, pod);
        keys.add(key);
      };
      if (op < 0.3 || from === undefined) place(this.#pod(), stray);
      else if (op < 0.55) place(this.#mutate(pods.get(from)!), from, from);
      else if (op < 0.7) pods = pods.without(this.chance(0.8) ? from : stray);
      else if (op < 0.8) place(pods.get(from)!, stray, from);
      else if (op < 0.9) place(pods.get(from)!, stray);
      else place(pods.get(stray) ?? this.#pod(), stray);
      keys.add(stray).add(from ?? stray);
    }
    if (this.chance(0.2)) keys.add(`k${Math.floor(this.#random() * 10)}`); // an untouched key is harmless
    this.snapshot = pods;
    return { source: 'api', op: 'SET', pods, changes: { base, keys } };
  }
}

const full = (update: PodSetUpdate): PodSetUpdate => ({ source: update.source, op: 'SET', pods: update.pods });
const byUid = (pods: Pod[]): Pod[] => [...pods].sort((a, b) => (a.metadata!.uid! < b.metadata!.uid! ? -1 : 1));
const counters = (merger: PodMerger): unknown => {
  const { merges: _m, deltaMerges: _d, ...rest } = merger.stats().sources.api ?? { merges: 0, deltaMerges: 0 };
  return rest;
};

/** Checks against the SET itself, not against the other path: what D14 promises. */
function checkInvariants(merger: PodMerger, pods: PodSnapshot): void {
  const stored = merger.pods('api');
  const fullNames = stored.map((p) => `${p.metadata?.name}_${p.metadata?.namespace}`);
  expect(new Set(fullNames).size).toBe(stored.length);
  expect(new Set(stored.map((p) => p.metadata?.uid)).size).toBe(stored.length);
  expect(stored.length + merger.stats().sources.api!.dropped).toBe(pods.size);
  const count = (values: string[], v: string): number => values.filter((x) => x === v).length;
  const all = pods.toArray();
  const names = all.map((p) => `${p.metadata?.name}_${p.metadata?.namespace}`);
  const uids = all.map((p) => p.metadata!.uid!);
  for (const pod of all) {
    if (count(names, `${pod.metadata?.name}_${pod.metadata?.namespace}`) > 1 || count(uids, pod.metadata!.uid!) > 1) continue;
    const mine = stored.find((p) => p.metadata?.uid === pod.metadata?.uid);
    expect(mine?.metadata?.name).toBe(pod.metadata?.name);
    expect(mine?.spec).toEqual(pod.spec);
  }
}

describe(`${PodMerger.name} delta path`, () => {
  it('reads each changed pod from the new snapshot once (a lookup in a big immutable map costs about a microsecond)', () => {
    const { merger } = newMerger();
    const names = Array.from({ length: 20 }, (_, i) => `p${i}`);
    const base = snap(names.map((name) => makePod(name)));
    merger.merge(set(base, 'api'));
    const changed = names.filter((_, i) => i % 2 === 0);
    let next = base;
    for (const name of changed) next = next.with(`default/${name}`, makePod(name, { phase: 'Running' }));
    const keys = new Set(changed.map((name) => `default/${name}`));
    // The method itself, taken before the spy replaces it.
    const original = Object.getOwnPropertyDescriptor(PodSnapshot.prototype, 'get')?.value as (this: PodSnapshot, key: string) => Pod | undefined;
    const reads: string[] = [];
    const spy = vi.spyOn(PodSnapshot.prototype, 'get').mockImplementation(function (this: PodSnapshot, key: string) {
      if (this === next) reads.push(key);
      return original.call(this, key);
    });
    try {
      const updates = merger.merge({ source: 'api', op: 'SET', pods: next, changes: { base, keys } });
      expect(ops(updates)).toEqual([`RECONCILE:${[...changed].sort().join(',')}`]);
    } finally {
      spy.mockRestore();
    }
    expect(reads.sort()).toEqual([...keys].sort());
  });

  it.each([
    { keys: 'stray keys', ownKeys: false },
    { keys: 'mostly namespace/name keys (no map of full names while every key is its pod\'s own)', ownKeys: true },
  ])('gives the same output, state and counters with change keys as without, over random event sequences, $keys (D17)', ({ ownKeys }) => {
    const SEEDS = 80;
    const STEPS = 50;
    let deltaMerges = 0;
    let coalescedDeltaMerges = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const source = new RandomSource(seed, ownKeys);
      const clock = new InstantClock();
      const make = (): PodMerger => new PodMerger({ logger: pino({ level: 'silent' }), clock });
      const [delta, whole, coalesced, wholeAtSamePoints] = [make(), make(), make(), make()];
      let pending: PodSetUpdate | undefined;
      for (let step = 0; step < STEPS; step++) {
        clock.advance(1000);
        const update = source.step();
        const context = `seed ${seed}, step ${step}`;
        expect(delta.merge(update), context).toEqual(whole.merge(full(update)));
        checkInvariants(whole, update.pods);

        // The same events through a slow consumer: SETs coalesce; sometimes the chain breaks.
        pending = pending === undefined ? update : coalescePodSets(pending, source.chance(0.05) ? full(update) : update);
        if (source.chance(0.4)) {
          expect(coalesced.merge(pending), context).toEqual(wholeAtSamePoints.merge(full(pending)));
          pending = undefined;
        }
      }
      expect(byUid(delta.pods())).toEqual(byUid(whole.pods()));
      expect(counters(delta)).toEqual(counters(whole));
      expect(byUid(coalesced.pods())).toEqual(byUid(wholeAtSamePoints.pods()));
      expect(counters(coalesced)).toEqual(counters(wholeAtSamePoints));
      deltaMerges += delta.stats().sources.api!.deltaMerges;
      coalescedDeltaMerges += coalesced.stats().sources.api!.deltaMerges;
      expect(whole.stats().sources.api!.deltaMerges).toBe(0);
    }
    // The delta path was really taken: every SET after the first one, and most coalesced ones.
    expect(deltaMerges).toBe(SEEDS * (STEPS - 1));
    expect(coalescedDeltaMerges).toBeGreaterThan(SEEDS * 5);
  });
});
