import { makePod } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { coalescePodSets } from './coalesce-pod-sets.js';
import { PodSnapshot } from './pod-snapshot.js';
import type { PodSetUpdate } from './pod-update.js';

/** A chain of snapshots, each adding one pod, with the SET that carries it. */
function chain(n: number): { snapshots: PodSnapshot[]; sets: PodSetUpdate[] } {
  const snapshots = [PodSnapshot.empty];
  const sets: PodSetUpdate[] = [];
  for (let i = 1; i <= n; i++) {
    const base = snapshots[i - 1]!;
    const key = `default/p${i}`;
    const pods = base.with(key, makePod(`p${i}`));
    snapshots.push(pods);
    sets.push({ source: 'api', op: 'SET', pods, changes: { base, keys: new Set([key]) } });
  }
  return { snapshots, sets };
}

describe('coalescePodSets()', () => {
  it('keeps the newer snapshot and unions the keys of an unbroken chain, relative to the oldest base', () => {
    const { snapshots, sets } = chain(3);
    const merged = sets.slice(1).reduce(coalescePodSets, sets[0]!);
    expect(merged.pods).toBe(snapshots[3]);
    expect(merged.changes?.base).toBe(snapshots[0]);
    expect([...merged.changes!.keys].sort()).toEqual(['default/p1', 'default/p2', 'default/p3']);
    expect(merged.source).toBe('api');
    expect(merged.op).toBe('SET');
  });

  it("keeps the last state of every pod removed along the chain, the newer SET's winning, without modifying the maps given", () => {
    const base = PodSnapshot.empty.with('default/a', makePod('a')).with('default/b', makePod('b'));
    const first = base.without('default/a');
    const second = first.without('default/b');
    const removedA = new Map([['default/a', makePod('a', { uid: 'last-a' })]]);
    const removedB = new Map([['default/b', makePod('b', { uid: 'last-b' })]]);
    const merged = coalescePodSets(
      { source: 'api', op: 'SET', pods: first, changes: { base, keys: new Set(['default/a']), removed: removedA } },
      { source: 'api', op: 'SET', pods: second, changes: { base: first, keys: new Set(['default/b']), removed: removedB } },
    );
    expect([...merged.changes!.removed!.entries()].map(([k, p]) => [k, p.metadata?.uid])).toEqual([['default/a', 'last-a'], ['default/b', 'last-b']]);
    expect([...removedA.keys()]).toEqual(['default/a']);
  });

  it('never modifies the key sets it was given', () => {
    const { sets } = chain(3);
    const originals = sets.map((s) => [...s.changes!.keys]);
    const merged = sets.slice(1).reduce(coalescePodSets, sets[0]!);
    expect(sets.map((s) => [...s.changes!.keys])).toEqual(originals);
    expect(merged.changes?.keys).not.toBe(sets[0]!.changes!.keys);
  });

  it('drops the change keys when the newer SET is not based on the pending snapshot (a gap)', () => {
    const { snapshots, sets } = chain(3);
    const merged = coalescePodSets(sets[0]!, sets[2]!);
    expect(merged.pods).toBe(snapshots[3]);
    expect(merged.changes).toBeUndefined();
  });

  it('drops the change keys when either SET has none', () => {
    const { snapshots, sets } = chain(2);
    const full0: PodSetUpdate = { source: 'api', op: 'SET', pods: snapshots[1]! };
    expect(coalescePodSets(full0, sets[1]!).changes).toBeUndefined();
    const full1: PodSetUpdate = { source: 'api', op: 'SET', pods: snapshots[2]! };
    const merged = coalescePodSets(sets[0]!, full1);
    expect(merged.changes).toBeUndefined();
    expect(merged.pods).toBe(snapshots[2]);
  });

  it('keeps the keys of a long chain without growing beyond the distinct keys', () => {
    let pods = PodSnapshot.empty;
    let pending: PodSetUpdate | undefined;
    const first = pods;
    for (let i = 0; i < 1000; i++) {
      const base = pods;
      const key = `default/p${i % 10}`;
      pods = pods.with(key, makePod(`p${i % 10}`, { image: `i${i}` }));
      const next: PodSetUpdate = { source: 'file', op: 'SET', pods, changes: { base, keys: new Set([key]) } };
      pending = pending === undefined ? next : coalescePodSets(pending, next);
    }
    expect(pending?.pods).toBe(pods);
    expect(pending?.changes?.base).toBe(first);
    expect(pending?.changes?.keys.size).toBe(10);
  });

  it('drops the change keys once they outnumber the pods of both snapshots: pods come and go, memory stays bounded (D16)', () => {
    // Short-lived pods with unique names (Jobs) while the consumer is stalled: each adds a key, and none stays.
    const base = chain(5).snapshots[5]!;
    let pods = base;
    let pending: PodSetUpdate | undefined;
    for (let i = 0; i < 100; i++) {
      const key = `default/job-${i}`;
      for (const step of ['add', 'delete'] as const) {
        const before = pods;
        pods = step === 'add' ? pods.with(key, makePod(`job-${i}`)) : pods.without(key);
        const next: PodSetUpdate = { source: 'api', op: 'SET', pods, changes: { base: before, keys: new Set([key]) } };
        pending = pending === undefined ? next : coalescePodSets(pending, next);
        // A full diff of the two snapshots costs no more than their pods: more keys than that are not kept.
        expect(pending.changes?.keys.size ?? 0).toBeLessThanOrEqual(base.size + pods.size + 1);
      }
    }
    expect(pending?.pods).toBe(pods);
    expect(pending?.changes).toBeUndefined();
  });
});
