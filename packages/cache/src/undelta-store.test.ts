import type { Pod, PodSetChanges, PodSnapshot } from '@podconfig/core';
import { makePod } from '@podconfig/testing';
import { describe, expect, it } from 'vitest';
import { UndeltaStore } from './undelta-store.js';

function recording(): { store: UndeltaStore; pushes: { snapshot: PodSnapshot; changes: PodSetChanges | undefined; removed?: Pod }[] } {
  const pushes: { snapshot: PodSnapshot; changes: PodSetChanges | undefined; removed?: Pod }[] = [];
  const store = new UndeltaStore({
    push: (snapshot, changes, removed) => pushes.push({ snapshot, changes, ...(removed === undefined ? {} : { removed }) }),
  });
  return { store, pushes };
}

const pod = (name: string, rv: string, o: { namespace?: string; image?: string } = {}): Pod =>
  makePod(name, { resourceVersion: rv, ...o });

describe(UndeltaStore.name, () => {
  describe('apply()', () => {
    it('pushes the full set exactly once per event, with the previous snapshot as base and the one key', () => {
      const { store, pushes } = recording();
      store.replace([pod('a', '1')], '1');
      const afterReplace = store.snapshot();
      store.apply({ type: 'ADDED', object: pod('b', '2') });
      store.apply({ type: 'MODIFIED', object: pod('a', '3', { image: 'nginx' }) });
      store.apply({ type: 'DELETED', object: pod('b', '4') });
      expect(pushes).toHaveLength(4);
      expect(pushes.map((p) => [...p.snapshot.keys()].sort())).toEqual([['default/a'], ['default/a', 'default/b'], ['default/a', 'default/b'], ['default/a']]);
      expect(pushes[1]!.changes).toEqual({ base: afterReplace, keys: new Set(['default/b']) });
      expect(pushes[2]!.changes?.base).toBe(pushes[1]!.snapshot);
      expect(pushes[2]!.changes?.keys).toEqual(new Set(['default/a']));
      expect(pushes[3]!.changes?.keys).toEqual(new Set(['default/b']));
      expect(store.snapshot()).toBe(pushes[3]!.snapshot);
    });

    it('leaves earlier snapshots unchanged (structure sharing, not mutation)', () => {
      const { store, pushes } = recording();
      store.replace([pod('a', '1'), pod('b', '1')], '1');
      const before = store.snapshot();
      store.apply({ type: 'MODIFIED', object: pod('a', '2', { image: 'nginx' }) });
      store.apply({ type: 'DELETED', object: pod('b', '3') });
      expect(before.get('default/a')?.metadata?.resourceVersion).toBe('1');
      expect(before.has('default/b')).toBe(true);
      expect(pushes[2]!.snapshot.get('default/a')?.spec?.containers[0]?.image).toBe('nginx');
      expect(pushes[2]!.snapshot.has('default/b')).toBe(false);
    });

    it('still pushes when deleting an absent key (checklist 56), with an unchanged snapshot', () => {
      const { store, pushes } = recording();
      store.replace([pod('a', '1')], '1');
      store.apply({ type: 'DELETED', object: pod('ghost', '2') });
      expect(pushes).toHaveLength(2);
      expect(pushes[1]!.snapshot).toBe(pushes[0]!.snapshot);
      expect(pushes[1]!.changes).toEqual({ base: pushes[0]!.snapshot, keys: new Set(['default/ghost']) });
      expect(pushes[1]!.removed).toEqual(pod('ghost', '2')); // a DELETED's object: the pod's last state
    });

    it('inserts on MODIFIED of an absent key (upsert) and uses the keyOf option', () => {
      const pushes: PodSnapshot[] = [];
      const store = new UndeltaStore({ keyOf: (p) => p.metadata?.uid ?? '', push: (s) => pushes.push(s) });
      store.apply({ type: 'MODIFIED', object: pod('a', '1') });
      expect([...store.snapshot().keys()]).toEqual(['uid-default-a']);
      expect(pushes).toHaveLength(1);
    });
  });

  describe('replace()', () => {
    it('pushes once even when nothing changed, with an empty change set', () => {
      const { store, pushes } = recording();
      store.replace([pod('a', '1'), pod('b', '2')], '2');
      store.replace([pod('a', '1'), pod('b', '2')], '2');
      expect(pushes).toHaveLength(2);
      expect(pushes[1]!.changes).toEqual({ base: pushes[0]!.snapshot, keys: new Set() });
    });

    it('reports added, removed and re-versioned keys, and lets later duplicates win', () => {
      const { store, pushes } = recording();
      store.replace([pod('a', '1'), pod('b', '1'), pod('c', '1')], '1');
      store.replace([pod('a', '1'), pod('b', '5'), pod('d', '5'), pod('d', '6', { image: 'late' })], '6');
      expect(pushes[0]!.changes).toBeUndefined(); // into an empty store: every key is new
      expect(pushes[1]!.changes?.keys).toEqual(new Set(['default/b', 'default/c', 'default/d']));
      expect(store.snapshot().get('default/d')?.spec?.containers[0]?.image).toBe('late');
      expect(store.snapshot().size).toBe(3);
    });

    it('passes no changes into an empty store, also after everything was deleted', () => {
      const { store, pushes } = recording();
      store.replace([], '1');
      store.replace([pod('a', '2')], '2');
      store.apply({ type: 'DELETED', object: pod('a', '3') });
      store.replace([pod('a', '4')], '4');
      expect(pushes.map((p) => p.changes === undefined)).toEqual([true, true, false, true]);
      expect(pushes.map((p) => p.snapshot.size)).toEqual([0, 1, 0, 1]);
    });

    it('counts a pod without a resourceVersion as changed', () => {
      const { store, pushes } = recording();
      store.replace([makePod('a')], '1');
      store.replace([makePod('a')], '2');
      expect(pushes[1]!.changes?.keys).toEqual(new Set(['default/a']));
    });
  });
});
