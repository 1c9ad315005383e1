import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { FILE_SOURCE, LatestByKey, PodSnapshot, coalescePodSets, systemClock, type PodSetUpdate, type PodSource, type SourceName } from '@podconfig/core';
import { podConfig } from '@podconfig/merge';
import { Reconciler } from '@podconfig/reconcile';
import { makePod } from '@podconfig/testing';

describe('the pods of one ADD reach the handler (podConfig → Reconciler)', () => {
  // Spec §6.3 and checklist 93: the merger sorts an ADD by creationTimestamp, then full name, and the
  // reconciler starts the pods' creates in that order, whatever the concurrency lets run at once.
  it.each([1, 8])('in creationTimestamp order, then by full name, with concurrency %d (checklist 93)', async (concurrency) => {
    const logger = pino({ level: 'silent' });
    const box = new LatestByKey<SourceName, PodSetUpdate>(coalescePodSets);
    const source: PodSource = { name: FILE_SOURCE, updates: (signal) => box.drain(signal) };
    const created: string[] = [];
    let allCreated!: () => void;
    const done = new Promise<void>((resolve) => { allCreated = resolve; });
    const reconciler = new Reconciler({
      handlers: [{
        name: 'recording',
        syncPod: ({ pod }) => {
          created.push(pod.metadata?.name ?? '');
          if (created.length === 4) allCreated();
          return Promise.resolve();
        },
        killPod: () => Promise.resolve(),
      }],
      sources: [FILE_SOURCE],
      logger,
      clock: systemClock,
      concurrency,
    });
    const stop = new AbortController();
    const running = reconciler.run(podConfig([source], { logger, clock: systemClock }, stop.signal), stop.signal);
    try {
      const pods = [
        makePod('a', { creationTimestamp: '2026-01-01T00:00:03Z' }),
        makePod('b', { creationTimestamp: '2026-01-01T00:00:01Z' }),
        makePod('d', { creationTimestamp: '2026-01-01T00:00:02Z' }),
        makePod('c', { creationTimestamp: '2026-01-01T00:00:02Z' }), // the same time as d: by full name
      ];
      box.put(FILE_SOURCE, { source: FILE_SOURCE, op: 'SET', pods: PodSnapshot.from(pods).snapshot });
      await done;
      expect(created).toEqual(['b', 'c', 'd', 'a']);
    } finally {
      stop.abort();
      await running;
    }
  });
});
