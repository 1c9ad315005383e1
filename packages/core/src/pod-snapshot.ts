import { HashTrie } from './hash-trie.js';
import { podKey, type Pod } from './pod.js';

/**
 * An immutable keyed set of pods. Deriving a new snapshot with {@link with} or {@link without}
 * costs O(log N) and shares structure with the old one (decision D17): a source can push its
 * complete set after every event without copying N pods.
 *
 * Keys are the producer's (usually `namespace/name`); consumers must not assume more than
 * "one pod per key".
 */
export class PodSnapshot implements Iterable<Pod> {
  static readonly empty: PodSnapshot = new PodSnapshot(HashTrie.empty());

  readonly #map: HashTrie<Pod>;

  private constructor(map: HashTrie<Pod>) {
    this.#map = map;
  }

  /**
   * Builds a snapshot from a list. The first pod for a key wins; later ones are returned in
   * `duplicates` so the caller can report them.
   */
  static from(pods: Iterable<Pod>, keyOf: (pod: Pod) => string = podKey): { snapshot: PodSnapshot; duplicates: Pod[] } {
    const duplicates: Pod[] = [];
    const entries = new Map<string, Pod>();
    for (const pod of pods) {
      const key = keyOf(pod);
      if (entries.has(key)) duplicates.push(pod);
      else entries.set(key, pod);
    }
    return { snapshot: new PodSnapshot(HashTrie.from(entries)), duplicates };
  }

  /** Like {@link from}, but later pods with the same key replace earlier ones (client-go Replace). */
  static fromEntries(entries: Iterable<readonly [string, Pod]>): PodSnapshot {
    return new PodSnapshot(HashTrie.from(entries));
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: string): Pod | undefined {
    return this.#map.get(key);
  }

  has(key: string): boolean {
    return this.#map.has(key);
  }

  /** A new snapshot with `pod` at `key`; `this` is unchanged. */
  with(key: string, pod: Pod): PodSnapshot {
    const next = this.#map.set(key, pod);
    return next === this.#map ? this : new PodSnapshot(next);
  }

  /** A new snapshot without `key`; returns `this` when the key is absent. */
  without(key: string): PodSnapshot {
    const next = this.#map.delete(key);
    return next === this.#map ? this : new PodSnapshot(next);
  }

  keys(): IterableIterator<string> {
    return this.#map.keys();
  }

  values(): IterableIterator<Pod> {
    return this.#map.values();
  }

  entries(): IterableIterator<[string, Pod]> {
    return this.#map.entries();
  }

  [Symbol.iterator](): IterableIterator<Pod> {
    return this.#map.values();
  }

  /** O(N): for consumers that need an array (tests, status endpoints). */
  toArray(): Pod[] {
    return [...this.#map.values()];
  }
}

/** What changed between an earlier snapshot of a source (`base`) and the one that carries this. */
export interface PodSetChanges {
  /** The snapshot the keys are relative to: the merger applies the delta only if it last saw exactly this one. */
  readonly base: PodSnapshot;
  /** Keys whose pod was added, replaced or removed since `base`. */
  readonly keys: ReadonlySet<string>;
}
