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

  it("keeps the last state of every pod removed, by UID, along a chain and across a gap, without modifying the maps given", () => {
    const base = PodSnapshot.empty.with('default/a', makePod('a', { uid: 'a1' })).with('default/b', makePod('b', { uid: 'b1' }));
    const first = base.without('default/a');
    const second = first.without('default/b');
    const removedA = new Map([['a1', makePod('a', { uid: 'a1' })]]);
    const removedB = new Map([['b1', makePod('b', { uid: 'b1' })]]);
    const chained = coalescePodSets(
      { source: 'api', op: 'SET', pods: first, changes: { base, keys: new Set(['default/a']) }, removed: removedA },
      { source: 'api', op: 'SET', pods: second, changes: { base: first, keys: new Set(['default/b']) }, removed: removedB },
    );
    expect([...chained.removed!.keys()]).toEqual(['a1', 'b1']);
    expect([...removedA.keys()]).toEqual(['a1']);
    // A gap (a relist into an empty store pushes no changes) drops the keys, not the last states.
    const gap = coalescePodSets({ source: 'api', op: 'SET', pods: first, removed: removedA }, { source: 'api', op: 'SET', pods: PodSnapshot.empty });
    expect(gap.changes).toBeUndefined();
    expect([...gap.removed!.keys()]).toEqual(['a1']);
  });

  it('keeps both UIDs of a name removed, re-created and removed again', () => {
    const a1 = makePod('a', { uid: 'a1' });
    const a2 = makePod('a', { uid: 'a2' });
    const recreated = PodSnapshot.empty.with('default/a', a2);
    const merged = [
      { source: 'api', op: 'SET', pods: PodSnapshot.empty, removed: new Map([['a2', a2]]) } as const,
    ].reduce(coalescePodSets, coalescePodSets(
      { source: 'api', op: 'SET', pods: PodSnapshot.empty, removed: new Map([['a1', a1]]) },
      { source: 'api', op: 'SET', pods: recreated },
    ));
    expect([...merged.removed!.values()]).toEqual([a1, a2]);
  });

  it('keeps no more last states than twice the most pods a snapshot held and the newest removals, dropping the oldest (D16)', () => {
    let update: PodSetUpdate = { source: 'api', op: 'SET', pods: PodSnapshot.empty };
    for (let i = 0; i < 100; i++) {
      // Pods that come and go while the consumer is stalled: each SET removes one.
      update = coalescePodSets(update, { source: 'api', op: 'SET', pods: PodSnapshot.empty, removed: new Map([[`u${i}`, makePod(`p${i}`, { uid: `u${i}` })]]) });
    }
    expect([...update.removed!.keys()]).toEqual(['u99']);
  });

  it('keeps twice the most pods a snapshot held, plus the newest removals, when the snapshots are not empty (D16)', () => {
    const pods = PodSnapshot.from([makePod('a'), makePod('b')]).snapshot;
    let update: PodSetUpdate = { source: 'api', op: 'SET', pods };
    for (let i = 0; i < 20; i++) {
      update = coalescePodSets(update, { source: 'api', op: 'SET', pods, removed: new Map([[`u${i}`, makePod(`p${i}`, { uid: `u${i}` })]]) });
    }
    // 2 · 2 pods + the 1 removal of the newest SET.
    expect([...update.removed!.keys()]).toEqual(['u15', 'u16', 'u17', 'u18', 'u19']);
  });

  it('counts a UID removed again as the newest removal: its last state outlives older ones when the bound drops some (D16)', () => {
    const pods = PodSnapshot.from([makePod('x')]).snapshot;
    const removal = (uid: string, name: string): PodSetUpdate => ({ source: 'api', op: 'SET', pods, removed: new Map([[uid, makePod(name, { uid })]]) });
    const again = removal('ua', 'a-again');
    // At most 2 · 1 pod + 1 newest removal are kept.
    const merged = [removal('ub', 'b'), removal('uc', 'c'), again, removal('ud', 'd')].reduce(coalescePodSets, removal('ua', 'a'));
    expect([...merged.removed!.keys()]).toEqual(['uc', 'ua', 'ud']);
    expect(merged.removed!.get('ua')).toBe(again.removed!.get('ua'));
  });

  it('bounds the last states by the pending SET\'s base when it held more pods than the pending snapshot (D16)', () => {
    const uid = (n: number): string => `u${n}`;
    const removals = (from: number, to: number): Map<string, ReturnType<typeof makePod>> =>
      new Map(Array.from({ length: to - from }, (_, i) => [uid(from + i), makePod(`p${from + i}`, { uid: uid(from + i) })]));
    const base = PodSnapshot.from([makePod('a'), makePod('b'), makePod('c')]).snapshot;
    const pods = base.without('default/b').without('default/c');
    const pending: PodSetUpdate = { source: 'api', op: 'SET', pods, changes: { base, keys: new Set(['default/b', 'default/c']) }, removed: removals(0, 6) };
    const merged = coalescePodSets(pending, { source: 'api', op: 'SET', pods, changes: { base: pods, keys: new Set() }, removed: removals(6, 7) });
    // 2 · 3 pods (the base) + 1 newest removal: all 7 kept.
    expect(merged.removed!.size).toBe(7);
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
