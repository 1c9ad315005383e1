import { PodSnapshot } from '@podconfig/core';
import { makePod } from '@podconfig/testing';
import { describe, expect, it, vi } from 'vitest';
import { AcceptedPodIndex } from './accepted-pod-index.js';

describe(AcceptedPodIndex.name, () => {
  it("keeps no map of full names for a snapshot keyed by its pods' namespace/name: one map entry per pod, not two", () => {
    const pods = Array.from({ length: 100 }, (_, i) => makePod(`p${i}`, { uid: `u${i}` }));
    const ownKeys = PodSnapshot.from(pods).snapshot;
    const fileKeys = PodSnapshot.fromEntries(pods.map((pod, i) => [`p${i}.yaml`, pod]));
    const sets = vi.spyOn(Map.prototype, 'set');
    const entriesFor = (snapshot: PodSnapshot): number => {
      sets.mockClear();
      const change = new AcceptedPodIndex().rebuild(snapshot, undefined);
      expect(change).toMatchObject({ drops: [], everyKey: true });
      return sets.mock.calls.length;
    };
    try {
      expect({ ownKeys: entriesFor(ownKeys), fileKeys: entriesFor(fileKeys) }).toEqual({ ownKeys: 100, fileKeys: 200 });
    } finally {
      sets.mockRestore();
    }
  });
});
