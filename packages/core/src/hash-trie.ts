/**
 * A persistent map from strings to values: a hash array mapped trie (32-way, 5 bits of a 32-bit hash
 * per level). `set` and `delete` copy only the path to the key, O(log N), and share the rest with the
 * map they derive from; a map never changes once built.
 *
 * Why not a library's (immutable.js was used before): its `Map` hashes a key again on every call, and
 * for a key longer than 16 characters goes through a cache of 255 strings kept as an object's property
 * names — each lookup of a `namespace/name` key of a big set missed it, interned the key and, every 255
 * misses, dropped the cache. Per-event cost grew with the set (D17). Here a key is hashed by one loop over
 * its characters per call, whatever its length, and an update allocates only the copied path.
 */
export class HashTrie<V> implements Iterable<[string, V]> {
  static empty<V>(): HashTrie<V> {
    return EMPTY;
  }

  /** Builds a map from entries; a later entry for a key replaces an earlier one. One pass, nodes filled in place. */
  static from<V>(entries: Iterable<readonly [string, V]>): HashTrie<V> {
    const builder = new HashTrieBuilder<V>();
    for (const [key, value] of entries) builder.set(key, value);
    return builder.build();
  }

  /** @internal The root node, for the tests of how versions share structure (D17). */
  static rootOf(trie: HashTrie<unknown>): object {
    return trie.#root;
  }

  readonly size: number;
  readonly #root: Branch<V>;

  /** @internal */
  constructor(root: Branch<V>, size: number) {
    this.#root = root;
    this.size = size;
  }

  get(key: string): V | undefined {
    return this.#leaf(key)?.value;
  }

  has(key: string): boolean {
    return this.#leaf(key) !== undefined;
  }

  /** A map with `value` at `key`; `this` when the key holds that very value already. */
  set(key: string, value: V): HashTrie<V> {
    grew = false;
    const root = setIn(this.#root, 0, hashOf(key), key, value, undefined) as Branch<V>;
    return root === this.#root ? this : new HashTrie(root, grew ? this.size + 1 : this.size);
  }

  /** A map without `key`; `this` when it has no such key. */
  delete(key: string): HashTrie<V> {
    const root = deleteIn(this.#root, 0, hashOf(key), key);
    if (root === this.#root) return this;
    // Branches collapse below the root only: what is left at the top is a branch or nothing.
    return root === undefined ? HashTrie.empty() : new HashTrie(root as Branch<V>, this.size - 1);
  }

  keys(): IterableIterator<string> {
    return new TrieIterator(this.#root, KEYS);
  }

  values(): IterableIterator<V> {
    return new TrieIterator(this.#root, VALUES);
  }

  entries(): IterableIterator<[string, V]> {
    return new TrieIterator(this.#root, ENTRIES);
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }

  #leaf(key: string): Leaf<V> | undefined {
    const hash = hashOf(key);
    let node: Node<V> = this.#root;
    for (let shift = 0; ; shift += BITS) {
      if (node instanceof Branch) {
        const bit = 1 << ((hash >>> shift) & MASK);
        if ((node.bitmap & bit) === 0) return undefined;
        node = node.slots[slotOf(node.bitmap, bit)]!;
      } else if (node instanceof Leaf) {
        return node.hash === hash && node.key === key ? node : undefined;
      } else {
        return node.hash === hash ? node.find(key) : undefined;
      }
    }
  }
}

/** Fills a map in place (nodes it created are mutated, not copied) until {@link build}. */
class HashTrieBuilder<V> {
  #root: Branch<V> = EMPTY_BRANCH;
  #size = 0;
  #owner: object | undefined = {};

  set(key: string, value: V): void {
    grew = false;
    this.#root = setIn(this.#root, 0, hashOf(key), key, value, this.#owner) as Branch<V>;
    if (grew) this.#size++;
  }

  build(): HashTrie<V> {
    // The owner token is dropped: a later set() copies what it changes, like the map's own set().
    this.#owner = undefined;
    return this.#size === 0 ? HashTrie.empty() : new HashTrie(this.#root, this.#size);
  }
}

const BITS = 5;
const MASK = 31;

/**
 * FNV-1a over the UTF-16 code units, then a MurmurHash3 finaliser so that keys differing only in their
 * last characters (`ns/app-1`, `ns/app-2`) spread over the trie's first levels. Exported for the tests.
 */
export function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** The index in a branch's slots of the child at `bit`: the number of bits set below it. */
function slotOf(bitmap: number, bit: number): number {
  let x = bitmap & (bit - 1);
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

class Leaf<V> {
  constructor(
    readonly hash: number,
    readonly key: string,
    readonly value: V,
  ) {}
}

/** Keys whose 32-bit hashes are equal: below the last level of branches. */
class Collision<V> {
  constructor(
    readonly hash: number,
    readonly leaves: readonly Leaf<V>[],
  ) {}

  find(key: string): Leaf<V> | undefined {
    for (const leaf of this.leaves) if (leaf.key === key) return leaf;
    return undefined;
  }
}

/** A level of the trie: `slots` holds a child for each bit set in `bitmap`, in bit order. */
class Branch<V> {
  constructor(
    public bitmap: number,
    public slots: Node<V>[],
    readonly owner: object | undefined,
  ) {}
}

type Node<V> = Branch<V> | Leaf<V> | Collision<V>;

const EMPTY_BRANCH = new Branch<never>(0, [], undefined);
const EMPTY = new HashTrie<never>(EMPTY_BRANCH, 0);

/** Whether the last {@link setIn} added a key (it is synchronous and not re-entered: one flag serves every map). */
let grew = false;

function setIn<V>(node: Node<V>, shift: number, hash: number, key: string, value: V, owner: object | undefined): Node<V> {
  if (node instanceof Branch) {
    const bit = 1 << ((hash >>> shift) & MASK);
    const at = slotOf(node.bitmap, bit);
    if ((node.bitmap & bit) === 0) {
      grew = true;
      const leaf = new Leaf(hash, key, value);
      if (owner !== undefined && node.owner === owner) {
        node.slots.splice(at, 0, leaf);
        node.bitmap |= bit;
        return node;
      }
      const slots = node.slots.slice(0, at);
      slots.push(leaf);
      for (let i = at; i < node.slots.length; i++) slots.push(node.slots[i]!);
      return new Branch(node.bitmap | bit, slots, owner);
    }
    const child = node.slots[at]!;
    const next = setIn(child, shift + BITS, hash, key, value, owner);
    if (next === child) return node;
    if (owner !== undefined && node.owner === owner) {
      node.slots[at] = next;
      return node;
    }
    const slots = node.slots.slice();
    slots[at] = next;
    return new Branch(node.bitmap, slots, owner);
  }
  if (node instanceof Leaf) {
    if (node.hash === hash && node.key === key) return node.value === value ? node : new Leaf(hash, key, value);
    grew = true;
    return pair(shift, node, new Leaf(hash, key, value), owner);
  }
  if (node.hash !== hash) {
    grew = true;
    return pair(shift, node, new Leaf(hash, key, value), owner);
  }
  const leaves = node.leaves.slice();
  const at = leaves.findIndex((leaf) => leaf.key === key);
  if (at === -1) {
    grew = true;
    leaves.push(new Leaf(hash, key, value));
  } else {
    if (leaves[at]!.value === value) return node;
    leaves[at] = new Leaf(hash, key, value);
  }
  return new Collision(hash, leaves);
}

/** A node holding two nodes of different keys found at the same slot of the level above `shift`. */
function pair<V>(shift: number, a: Leaf<V> | Collision<V>, b: Leaf<V>, owner: object | undefined): Node<V> {
  if (shift >= 32) return new Collision(b.hash, [...(a instanceof Collision ? a.leaves : [a]), b]);
  const ia = (a.hash >>> shift) & MASK;
  const ib = (b.hash >>> shift) & MASK;
  if (ia === ib) return new Branch(1 << ia, [pair(shift + BITS, a, b, owner)], owner);
  return new Branch((1 << ia) | (1 << ib), ia < ib ? [a, b] : [b, a], owner);
}

/** `node` without `key`: the same node when absent, undefined when nothing is left. */
function deleteIn<V>(node: Node<V>, shift: number, hash: number, key: string): Node<V> | undefined {
  if (node instanceof Leaf) return node.hash === hash && node.key === key ? undefined : node;
  if (node instanceof Collision) {
    if (node.hash !== hash || node.find(key) === undefined) return node;
    const leaves = node.leaves.filter((leaf) => leaf.key !== key);
    return leaves.length === 1 ? leaves[0] : new Collision(hash, leaves);
  }
  const bit = 1 << ((hash >>> shift) & MASK);
  if ((node.bitmap & bit) === 0) return node;
  const at = slotOf(node.bitmap, bit);
  const child = node.slots[at]!;
  const next = deleteIn(child, shift + BITS, hash, key);
  if (next === child) return node;
  if (next === undefined) {
    if (node.slots.length === 1) return undefined;
    // A branch left with one leaf is replaced by it (not at the root): lookups stay as short as inserts made them.
    if (node.slots.length === 2 && shift > 0) {
      const other = node.slots[1 - at]!;
      if (!(other instanceof Branch)) return other;
    }
    const slots = node.slots.slice();
    slots.splice(at, 1);
    return new Branch(node.bitmap & ~bit, slots, undefined);
  }
  if (node.slots.length === 1 && shift > 0 && !(next instanceof Branch)) return next;
  const slots = node.slots.slice();
  slots[at] = next;
  return new Branch(node.bitmap, slots, undefined);
}

const KEYS = 0;
const VALUES = 1;
const ENTRIES = 2;
type Mode = typeof KEYS | typeof VALUES | typeof ENTRIES;

/** Depth-first over the trie with an explicit stack (no generator frame to keep alive). */
class TrieIterator<V, T> implements IterableIterator<T> {
  readonly #mode: Mode;
  readonly #nodes: (Branch<V> | Collision<V>)[] = [];
  readonly #next: number[] = [];

  constructor(root: Branch<V>, mode: Mode) {
    this.#mode = mode;
    this.#nodes.push(root);
    this.#next.push(0);
  }

  [Symbol.iterator](): this {
    return this;
  }

  next(): IteratorResult<T> {
    const nodes = this.#nodes;
    const next = this.#next;
    while (nodes.length > 0) {
      const top = nodes.length - 1;
      const node = nodes[top]!;
      const at = next[top]!;
      const children: readonly Node<V>[] = node instanceof Branch ? node.slots : node.leaves;
      if (at === children.length) {
        nodes.pop();
        next.pop();
        continue;
      }
      next[top] = at + 1;
      const child = children[at]!;
      if (child instanceof Leaf) return { done: false, value: this.#out(child) };
      nodes.push(child);
      next.push(0);
    }
    return { done: true, value: undefined };
  }

  #out(leaf: Leaf<V>): T {
    const mode = this.#mode;
    return (mode === KEYS ? leaf.key : mode === VALUES ? leaf.value : [leaf.key, leaf.value]) as T;
  }
}
