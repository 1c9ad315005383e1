import { makePod } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { coalescePodSets } from './coalesce-pod-sets.js';
import { PodSnapshot } from './pod-snapshot.js';
import { podSetUpdate, type PodSetUpdate } from './pod-update.js';

const SHAPE = ['source', 'op', 'pods', 'changes', 'removed'];

describe('podSetUpdate', () => {
  it('gives every SET the same members in the same order, undefined where not known', () => {
    const base = PodSnapshot.fromEntries([['default/a', makePod('a')]]);
    const pods = PodSnapshot.fromEntries([['default/b', makePod('b')]]);
    const removed = new Map([['a-uid', makePod('a')]]);
    const sets = [
      podSetUpdate('api', pods),
      podSetUpdate('api', pods, { base, keys: new Set(['default/a', 'default/b']) }),
      podSetUpdate('api', pods, undefined, removed),
      podSetUpdate('api', pods, { base, keys: new Set(['default/a']) }, removed),
    ];
    for (const set of sets) expect(Object.keys(set)).toEqual(SHAPE);
    expect(sets[0]).toEqual({ source: 'api', op: 'SET', pods, changes: undefined, removed: undefined });
    expect(sets[3]!.removed).toBe(removed);
  });

  it('is the shape coalescePodSets gives, on a chain, a gap and with removed pods', () => {
    const first = PodSnapshot.fromEntries([['default/a', makePod('a')]]);
    const second = PodSnapshot.fromEntries([['default/b', makePod('b')]]);
    const chain: PodSetUpdate = { source: 'api', op: 'SET', pods: second, changes: { base: first, keys: new Set(['default/a', 'default/b']) } };
    const start: PodSetUpdate = { source: 'api', op: 'SET', pods: first, changes: { base: PodSnapshot.empty, keys: new Set(['default/a']) } };
    const removal: PodSetUpdate = { source: 'api', op: 'SET', pods: second, removed: new Map([['u', makePod('a', { uid: 'u' })]]) };
    for (const merged of [coalescePodSets(start, chain), coalescePodSets(start, removal), coalescePodSets(removal, start)]) {
      expect(Object.keys(merged)).toEqual(SHAPE);
    }
  });
});
