import { podKey, PodSnapshot, type Pod, type PodSetChanges } from '@podconfig/core';
import type { ReflectorSink } from './reflector-sink.js';
import type { ChangeEvent } from './watch-event.js';

export interface UndeltaStoreOptions {
  /** Default: `podKey` (`namespace/name`, client-go `MetaNamespaceKeyFunc`). */
  readonly keyOf?: (pod: Pod) => string;
  /**
   * Receives the complete contents after every `replace()` and `apply()`, exactly once each. Must not block
   * or throw (decision D16: the apiserver source puts into a `LatestByKey` mailbox).
   */
  readonly push: (snapshot: PodSnapshot, changes: PodSetChanges | undefined, removed?: Pod) => void;
}

/**
 * client-go's `UndeltaStore` (spec §4.2) over an immutable {@link PodSnapshot}: every replace and every
 * watch event pushes the full set once. `apply()` derives the next snapshot with `with()` / `without()` in
 * O(log N) and passes `changes = { base: previous, keys: {key} }` (decision D17; a delete also the DELETED
 * event's object, the pod's last state, as `push`'s third argument); `replace()` passes the
 * keys that were added, removed or whose `resourceVersion` differs (an object's RV changes on every write),
 * except into an empty store (the first list), where every key is new: it passes no changes.
 */
export class UndeltaStore implements ReflectorSink<Pod> {
  readonly #keyOf: (pod: Pod) => string;
  readonly #push: UndeltaStoreOptions['push'];
  #snapshot: PodSnapshot = PodSnapshot.empty;

  constructor(options: UndeltaStoreOptions) {
    this.#keyOf = options.keyOf ?? podKey;
    this.#push = options.push;
  }

  /** The current contents. */
  snapshot(): PodSnapshot {
    return this.#snapshot;
  }

  replace(items: readonly Pod[], _resourceVersion: string): void {
    const base = this.#snapshot;
    const next = PodSnapshot.fromEntries(items.map((pod) => [this.#keyOf(pod), pod] as const));
    if (base.size === 0) {
      // Every key is new: the consumer's diff is a full one anyway, without a set of every key to build.
      this.#snapshot = next;
      this.#push(next, undefined);
      return;
    }
    const keys = new Set<string>();
    for (const [key, pod] of next.entries()) {
      const old = base.get(key);
      const rv = pod.metadata?.resourceVersion;
      if (old === undefined || rv === undefined || rv === '' || old.metadata?.resourceVersion !== rv) keys.add(key);
    }
    for (const key of base.keys()) if (!next.has(key)) keys.add(key);
    this.#snapshot = next;
    this.#push(next, { base, keys });
  }

  apply(event: ChangeEvent<Pod>): void {
    const base = this.#snapshot;
    const key = this.#keyOf(event.object);
    // Update of an absent key inserts it; delete of an absent key still pushes (spec §4.2, checklist 56).
    const next = event.type === 'DELETED' ? base.without(key) : base.with(key, event.object);
    this.#snapshot = next;
    // A DELETED's object is the pod's last state, which a change coalesced into the delete may have carried alone.
    this.#push(next, { base, keys: new Set([key]) }, event.type === 'DELETED' ? event.object : undefined);
  }
}
