import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  API_SOURCE, LatestByKey, PodSnapshot, coalescePodSets, systemClock, type Pod, type PodSetUpdate, type PodSource, type SourceName,
} from '@podconfig/core';
import { PodMerger, podConfig } from '@podconfig/merge';
import { Reconciler } from '@podconfig/reconcile';

const PODS = 20;
// Enough SETs for V8 to optimise the pipeline's loops while they run (with async generators, each of
// them then kept an old pod set: 63–105 pod versions alive at the end instead of 20, in every run).
const SETS = 3000;

describe('the pod pipeline (source → mergeSources → podConfig → Reconciler)', () => {
  it('keeps no pod version alive but the current ones once it has taken in a long stream of SETs', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const logger = pino({ level: 'silent' });
    const versions: WeakRef<Pod>[] = [];
    const pod = (i: number, version: number): Pod => {
      const p: Pod = {
        metadata: { name: `pod-${i}`, namespace: 'default', uid: `uid-${i}`, annotations: { version: String(version) } },
        spec: { nodeName: 'node-a', containers: [{ name: 'app', image: 'registry.example/app:1' }] },
        status: { phase: 'Running' },
      };
      versions.push(new WeakRef(p));
      return p;
    };
    const box = new LatestByKey<SourceName, PodSetUpdate>(coalescePodSets);
    const source: PodSource = { name: API_SOURCE, updates: (signal) => box.drain(signal) };
    // The version of each pod the handler saw last: the stream is taken in once every pod's is the latest.
    const seen = new Map<string, string | undefined>();
    const reconciler = new Reconciler({
      handlers: [{
        name: 'recording',
        syncPod: ({ pod }) => {
          seen.set(pod.metadata?.name ?? '', pod.metadata?.annotations?.version);
          return Promise.resolve();
        },
        killPod: () => Promise.resolve(),
      }],
      sources: [API_SOURCE],
      logger,
      clock: systemClock,
    });
    const stop = new AbortController();
    const running = reconciler.run(podConfig([source], { logger, clock: systemClock, merger: new PodMerger({ logger, clock: systemClock }) }, stop.signal), stop.signal);
    try {
      const latest = Array.from({ length: PODS }, () => '0');
      let snapshot = PodSnapshot.from(Array.from({ length: PODS }, (_, i) => pod(i, 0))).snapshot;
      box.put(API_SOURCE, { source: API_SOURCE, op: 'SET', pods: snapshot });
      for (let set = 1; set <= SETS; set++) {
        await new Promise((resolve) => setImmediate(resolve)); // the pipeline takes in (nearly) each SET before the next
        const i = set % PODS;
        const key = `default/pod-${i}`;
        const next = snapshot.with(key, pod(i, set));
        latest[i] = String(set);
        box.put(API_SOURCE, { source: API_SOURCE, op: 'SET', pods: next, changes: { base: snapshot, keys: new Set([key]) } });
        snapshot = next;
      }
      const caughtUp = (): boolean => latest.every((version, i) => seen.get(`pod-${i}`) === version);
      for (let turn = 0; turn < 10_000 && !caughtUp(); turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(caughtUp()).toBe(true);
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10)); // WeakRefs are cleared after the job that read them
      gc();
      expect(versions.filter((v) => v.deref() !== undefined)).toHaveLength(PODS);
    } finally {
      stop.abort();
      await running;
    }
  });
});
