import type { Logger } from 'pino';
import { ListWatch, Reflector, UndeltaStore, type ResourceClient } from '@podconfig/cache';
import { PodIntake } from '@podconfig/source-apiserver';
import {
  API_SOURCE, LatestByKey, coalescePodSets, linked, podSetUpdate, podUid, relay,
  type Clock, type Pod, type PodSetUpdate, type PodSource, type PullIterator, type SourceName,
} from '@podconfig/core';

/**
 * Every pod of the cluster (no field selector): the library use of the cache package, wired like
 * `ApiserverPodSource`'s pod half (ListWatch → Reflector → UndeltaStore → LatestByKey mailbox) without
 * the node gate, which a cluster-wide watch has no node for. Like that source's default, it drops
 * `metadata.managedFields` and deep-freezes the initial set's pods as they are decoded (its `PodIntake`).
 */
export class ClusterPodSource implements PodSource {
  readonly name: SourceName = API_SOURCE;
  readonly #o: { client: ResourceClient; logger: Logger; clock: Clock; keepManagedFields: boolean };

  constructor(options: { client: ResourceClient; logger: Logger; clock: Clock; keepManagedFields: boolean }) {
    this.#o = options;
  }

  /** An iterator object like `ApiserverPodSource.updates()`'s (core `PullIterator`: no suspended frame keeps a SET). */
  updates(signal: AbortSignal): PullIterator<PodSetUpdate> {
    return relay(() => {
      const stop = linked(signal);
      const box = new LatestByKey<SourceName, PodSetUpdate>(coalescePodSets);
      const intake = new PodIntake({ keepManagedFields: this.#o.keepManagedFields });
      const store = new UndeltaStore({
        push: (pods, changes, removed) => {
          intake.pushed();
          box.put(API_SOURCE, podSetUpdate(API_SOURCE, pods, changes, removed === undefined ? undefined : new Map([[podUid(removed), removed]])));
        },
      });
      const reflector = new Reflector<Pod>({
        listerWatcher: new ListWatch<Pod>({ client: this.#o.client, path: '/api/v1/pods', kind: 'Pod', transform: intake.transform, dropManagedFields: this.#o.keepManagedFields !== true }),
        sink: store, logger: this.#o.logger, clock: this.#o.clock, expectedKind: 'Pod', name: 'pods',
      });
      const done = reflector.run(stop.signal).catch((err: unknown) => stop.abort(err));
      return {
        source: box.drain(stop.signal),
        finish: async () => {
          stop.abort();
          await done;
          stop.dispose();
        },
      };
    });
  }
}
