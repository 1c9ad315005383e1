/** The resources the fake serves. */
export type FakeResource = 'pods' | 'nodes';

/** A JSON object as stored: serialised once, parsed once, deeply frozen. */
export interface StoredObject {
  readonly key: string;
  readonly object: KubeJson;
  /** `JSON.stringify(object)`, reused for every list and watch event. */
  readonly json: string;
  readonly rv: number;
}

export interface KubeJson {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string | undefined;
    readonly uid?: unknown;
    readonly resourceVersion?: string | undefined;
    readonly labels?: Readonly<Record<string, string>> | undefined;
    readonly [field: string]: unknown;
  };
  readonly [field: string]: unknown;
}

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One write, as etcd's history would hold it. */
export interface HistoryEntry {
  readonly rv: number;
  readonly resource: FakeResource;
  readonly type: ChangeType;
  /** The new state; for DELETED the last state, stamped with the deletion RV. */
  readonly current: StoredObject;
  /** The state before this write (undefined for ADDED). */
  readonly previous: StoredObject | undefined;
}

export type RvProblem = { readonly problem: 'expired'; readonly oldest: number } | { readonly problem: 'too-large'; readonly current: number };

export function isRvProblem(value: readonly StoredObject[] | readonly HistoryEntry[] | RvProblem): value is RvProblem {
  return 'problem' in value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const keyOf = (metadata: KubeJson['metadata']): string =>
  metadata.namespace === undefined || metadata.namespace === '' ? metadata.name : `${metadata.namespace}/${metadata.name}`;

/**
 * A multi-version object store with one global resourceVersion (etcd-like): current objects per resource,
 * the history of writes since the last compaction, and the state at any retained RV (rebuilt by undoing the
 * writes after it). Objects are serialised once, at write time.
 */
export class ResourceStore {
  #rv: number;
  /** Writes with rv > this are retained; watches from an RV below it get 410. */
  #compacted: number;
  readonly #historyLimit: number;
  readonly #current = new Map<FakeResource, Map<string, StoredObject>>([
    ['pods', new Map()],
    ['nodes', new Map()],
  ]);
  #history: HistoryEntry[] = [];
  #historyStart = 0;
  readonly #sorted = new Map<string, readonly StoredObject[]>();

  constructor(o: { initialResourceVersion?: number; historyLimit?: number } = {}) {
    this.#rv = o.initialResourceVersion ?? 1;
    this.#compacted = this.#rv;
    this.#historyLimit = o.historyLimit ?? Number.POSITIVE_INFINITY;
  }

  get resourceVersion(): number {
    return this.#rv;
  }

  /** The oldest RV a watch may start from. */
  get oldestResourceVersion(): number {
    return this.#compacted;
  }

  get(resource: FakeResource, key: string): StoredObject | undefined {
    return this.#map(resource).get(key);
  }

  /** Writes `object` (create or replace) or deletes `key` (object undefined), bumping the RV. */
  write(resource: FakeResource, type: ChangeType, object: KubeJson): HistoryEntry {
    const rv = ++this.#rv;
    // Serialise once; the stored object is parsed back from that text (so it shares nothing with the
    // caller's) and frozen (so handing it out cannot make it drift from its JSON).
    const json = JSON.stringify(inGoOrder(object, String(rv)));
    const stamped = deepFreeze(JSON.parse(json) as KubeJson);
    const key = keyOf(stamped.metadata);
    const map = this.#map(resource);
    const previous = map.get(key);
    const current: StoredObject = { key, object: stamped, json, rv };
    if (type === 'DELETED') map.delete(key);
    else map.set(key, current);
    const entry: HistoryEntry = { rv, resource, type, current, previous };
    this.#history.push(entry);
    if (this.#history.length - this.#historyStart > this.#historyLimit) this.#dropOldest(1);
    return entry;
  }

  /** Drops history up to and including `rv` (default: all of it): older watches and continue tokens get 410. */
  compact(rv: number = this.#rv): void {
    let drop = 0;
    while (this.#historyStart + drop < this.#history.length && this.#history[this.#historyStart + drop]!.rv <= rv) drop++;
    this.#dropOldest(drop);
    this.#compacted = Math.max(this.#compacted, Math.min(rv, this.#rv));
  }

  /** Writes after `rv`, oldest first, or why they are unavailable. */
  eventsAfter(rv: number): readonly HistoryEntry[] | RvProblem {
    if (rv > this.#rv) return { problem: 'too-large', current: this.#rv };
    if (rv < this.#compacted) return { problem: 'expired', oldest: this.#compacted };
    return this.#history.slice(this.#firstAfter(rv));
  }

  /** The objects of `resource` at `rv` (default: now), sorted by key, or why that state is unavailable. */
  stateAt(resource: FakeResource, rv: number = this.#rv): readonly StoredObject[] | RvProblem {
    if (rv > this.#rv) return { problem: 'too-large', current: this.#rv };
    if (rv < this.#compacted) return { problem: 'expired', oldest: this.#compacted };
    const cacheKey = `${resource}@${rv}`;
    const cached = this.#sorted.get(cacheKey);
    if (cached !== undefined) return cached;
    const state = new Map(this.#map(resource));
    for (let i = this.#history.length - 1; i >= this.#historyStart; i--) {
      const entry = this.#history[i]!;
      if (entry.rv <= rv) break;
      if (entry.resource !== resource) continue;
      if (entry.previous === undefined) state.delete(entry.current.key);
      else state.set(entry.previous.key, entry.previous);
    }
    const sorted = [...state.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    if (this.#sorted.size >= 8) this.#sorted.delete(this.#sorted.keys().next().value!);
    this.#sorted.set(cacheKey, sorted);
    return sorted;
  }

  #map(resource: FakeResource): Map<string, StoredObject> {
    return this.#current.get(resource)!;
  }

  #firstAfter(rv: number): number {
    let lo = this.#historyStart;
    let hi = this.#history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#history[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #dropOldest(n: number): void {
    if (n <= 0) return;
    this.#compacted = Math.max(this.#compacted, this.#history[this.#historyStart + n - 1]!.rv);
    this.#historyStart += n;
    if (this.#historyStart > 4096 && this.#historyStart * 2 > this.#history.length) {
      this.#history = this.#history.slice(this.#historyStart);
      this.#historyStart = 0;
    }
  }
}

/**
 * `object` with `resourceVersion` set and its leading fields where the API server (Go's encoding/json)
 * writes them: `kind`, `apiVersion`, `metadata` first, and in `metadata` `name`, `generateName`,
 * `namespace`, `selfLink`, `uid`, `resourceVersion` before the rest. Clients may rely on this layout to
 * read an event's head without decoding it (kube-client's `scanWatchHead`); absent fields stay absent.
 */
function inGoOrder(object: KubeJson, resourceVersion: string): KubeJson {
  const m = object.metadata;
  // Keys set to undefined first hold their place; JSON.stringify leaves out the ones that stay undefined.
  const metadata: Record<string, unknown> = { name: m.name, generateName: undefined, namespace: undefined, selfLink: undefined, uid: undefined, resourceVersion: undefined };
  Object.assign(metadata, m, { resourceVersion });
  const ordered: Record<string, unknown> = { kind: object.kind, apiVersion: object.apiVersion, metadata };
  for (const [key, value] of Object.entries(object)) if (key !== 'metadata') ordered[key] = value;
  return ordered as unknown as KubeJson;
}
