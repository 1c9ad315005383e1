import { describe, expect, it } from 'vitest';
import { HashTrie, hashOf } from './hash-trie.js';

/** A small deterministic generator (LCG): the same sequence on every run. */
function random(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32;
  };
}

const sorted = <V>(entries: Iterable<[string, V]>): [string, V][] => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Two pairs of keys whose 32-bit hashes are equal (found by a birthday search). */
const COLLIDING: readonly (readonly [string, string])[] = [
  ['ns/xu71bi7t', 'ns/nnap3qa7'],
  ['ns/1y13va5ag', 'ns/shqpx558'],
];

/** The trie's nodes as the tests see them (hash-trie.ts: `Branch`, `Leaf`, `Collision`; only their fields are read). */
type TrieNode = TrieBranch | { readonly hash: number; readonly key: string } | { readonly hash: number; readonly leaves: readonly TrieNode[] };
interface TrieBranch {
  readonly bitmap: number;
  readonly slots: readonly TrieNode[];
}

const isBranch = (node: TrieNode): node is TrieBranch => 'slots' in node;

/** A trie's root branch, read by the nodes' own fields from here on. */
function rootOf(trie: HashTrie<unknown>): TrieBranch {
  const root = HashTrie.rootOf(trie) as TrieNode;
  if (!isBranch(root)) throw new Error('the trie\'s root is not a branch');
  return root;
}

/** Every node under `root`, itself included (branches, collisions, leaves). */
function nodesOf(root: TrieBranch): Set<TrieNode> {
  const seen = new Set<TrieNode>();
  const stack: TrieNode[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    seen.add(node);
    if (isBranch(node)) stack.push(...node.slots);
    else if ('leaves' in node) stack.push(...node.leaves);
  }
  return seen;
}

/** The nodes on `key`'s path in `trie` that a set or delete of `key` must copy: its branches, and its leaf if present. */
function pathLength(trie: HashTrie<unknown>, key: string): number {
  const hash = hashOf(key);
  let length = trie.has(key) ? 1 : 0;
  let node: TrieNode | undefined = rootOf(trie);
  for (let shift = 0; node !== undefined && isBranch(node); shift += 5) {
    length++;
    node = childAt(node, 1 << ((hash >>> shift) & 31));
  }
  return length;
}

/** The child of `branch` at `bit`, if any (slots hold a child per bit set in the bitmap, in bit order). */
function childAt(branch: TrieBranch, bit: number): TrieNode | undefined {
  if ((branch.bitmap & bit) === 0) return undefined;
  let below = 0;
  for (let b = 1; b !== bit; b <<= 1) if ((branch.bitmap & b) !== 0) below++;
  return branch.slots[below];
}

/**
 * How `after` (derived from `before` by one set or delete of `key`) shares structure with it: the nodes of
 * `after` that are not nodes of `before` (`fresh`), and, along `key`'s path, every child off the path that is
 * not the very same node in both (`unshared`, by level and slot).
 */
function sharing(before: HashTrie<unknown>, after: HashTrie<unknown>, key: string): { fresh: number; unshared: string[] } {
  const a = rootOf(before);
  const b = rootOf(after);
  const old = nodesOf(a);
  let fresh = 0;
  for (const node of nodesOf(b)) if (!old.has(node)) fresh++;
  const unshared: string[] = [];
  const hash = hashOf(key);
  let x: TrieNode | undefined = a;
  let y: TrieNode | undefined = b;
  for (let shift = 0; x !== undefined && y !== undefined && x !== y && isBranch(x) && isBranch(y); shift += 5) {
    const onPath = 1 << ((hash >>> shift) & 31);
    for (let slot = 0; slot < 32; slot++) {
      const bit = 1 << slot;
      if (bit !== onPath && childAt(x, bit) !== childAt(y, bit)) unshared.push(`level ${shift / 5} slot ${slot}`);
    }
    x = childAt(x, onPath);
    y = childAt(y, onPath);
  }
  return { fresh, unshared };
}

describe(HashTrie.name, () => {
  it('agrees with a Map over random sets and deletes, and every earlier version stays as it was', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const next = random(seed);
      const pool = Array.from({ length: 400 }, (_, i) => `ns-${i % 7}/pod-${i}`);
      let trie = HashTrie.empty<number>();
      const model = new Map<string, number>();
      const versions: { trie: HashTrie<number>; entries: [string, number][] }[] = [];
      for (let op = 0; op < 2000; op++) {
        const key = pool[Math.floor(next() * pool.length)]!;
        if (next() < 0.3) {
          trie = trie.delete(key);
          model.delete(key);
        } else {
          trie = trie.set(key, op);
          model.set(key, op);
        }
        expect(trie.size).toBe(model.size);
        expect(trie.get(key)).toBe(model.get(key));
        expect(trie.has(key)).toBe(model.has(key));
        if (op % 250 === 0) versions.push({ trie, entries: sorted(model.entries()) });
      }
      expect(sorted(trie.entries())).toEqual(sorted(model.entries()));
      for (const key of pool) expect(trie.get(key)).toBe(model.get(key));
      for (const version of versions) {
        expect(sorted(version.trie.entries())).toEqual(version.entries);
        expect(version.trie.size).toBe(version.entries.length);
      }
    }
  });

  it('returns the same map for a set of the value a key already holds and for a delete of an absent key', () => {
    const value = { pod: 'a' };
    const trie = HashTrie.empty<object>().set('default/a', value);
    expect(trie.set('default/a', value)).toBe(trie);
    expect(trie.delete('default/b')).toBe(trie);
    expect(trie.set('default/a', { pod: 'a' })).not.toBe(trie);
  });

  it('keeps keys whose hashes collide apart, through set, delete and iteration', () => {
    for (const [a, b] of COLLIDING) expect(hashOf(a)).toBe(hashOf(b));
    const [[a1, a2], [b1, b2]] = COLLIDING as [[string, string], [string, string]];
    let trie = HashTrie.empty<string>();
    for (const key of [a1, a2, b1, b2, 'default/x']) trie = trie.set(key, `v:${key}`);
    expect(trie.size).toBe(5);
    for (const key of [a1, a2, b1, b2]) expect(trie.get(key)).toBe(`v:${key}`);
    const replaced = trie.set(a2, 'new');
    expect(replaced.get(a2)).toBe('new');
    expect(replaced.get(a1)).toBe(`v:${a1}`);
    expect(trie.get(a2)).toBe(`v:${a2}`);
    const without = replaced.delete(a1);
    expect(without.size).toBe(4);
    expect(without.has(a1)).toBe(false);
    expect(without.get(a2)).toBe('new');
    expect(without.delete(a2).delete(b1).delete(b2).delete('default/x').size).toBe(0);
    expect(sorted(trie)).toEqual(sorted([a1, a2, b1, b2, 'default/x'].map((k) => [k, `v:${k}`])));
  });

  it('builds from entries with later ones replacing earlier ones, and a built map is not changed by maps derived from it', () => {
    const built = HashTrie.from<number>([['a', 1], ['b', 2], ['a', 3]]);
    expect(built.size).toBe(2);
    expect(built.get('a')).toBe(3);
    const derived = built.set('c', 4).delete('b');
    expect(sorted(built)).toEqual([['a', 3], ['b', 2]]);
    expect(sorted(derived)).toEqual([['a', 3], ['c', 4]]);
    expect(HashTrie.from([])).toBe(HashTrie.empty());
  });

  it('holds 50,000 keys, iterates each once, and is empty again when they are deleted', () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `namespace-${i % 500}/pod-${i}`);
    const built = HashTrie.from(keys.map((key, i) => [key, i] as const));
    expect(built.size).toBe(keys.length);
    expect(new Set(built.keys()).size).toBe(keys.length);
    expect([...built.values()].reduce((a, b) => a + b, 0)).toBe((keys.length * (keys.length - 1)) / 2);
    let trie = built;
    for (const key of keys) trie = trie.delete(key);
    expect(trie.size).toBe(0);
    expect([...trie.keys()]).toEqual([]);
    expect(built.get(keys[123]!)).toBe(123);
  });

  it('has() tells a key holding undefined from an absent one', () => {
    const trie = HashTrie.empty<undefined>().set('k', undefined);
    expect(trie.has('k')).toBe(true);
    expect(trie.has('other')).toBe(false);
    expect(trie.size).toBe(1);
  });

  /** 100,000 keys: 32^3 < N < 32^4, so most keys sit below the root and three more branches. */
  const big = (): { keys: string[]; trie: HashTrie<number>; bound: number } => {
    const n = 100_000;
    const keys = Array.from({ length: n }, (_, i) => `namespace-${i % 500}/pod-${i}`);
    // ⌈log32 N⌉ + 1: a key's branches and its leaf. A key whose hash shares its first 20 bits with another
    // key's sits one branch deeper (1 in 10 here) and costs one node more; the keys below are not such keys.
    return { keys, trie: HashTrie.from(keys.map((key, i) => [key, i] as const)), bound: Math.ceil(Math.log(n) / Math.log(32)) + 1 };
  };

  it('set() copies only the path to the key and shares every other node (D17)', () => {
    const { keys, trie, bound } = big();
    for (const key of [keys[0]!, keys[54_321]!, keys[keys.length - 1]!, 'namespace-0/pod-new']) {
      const updated = trie.set(key, -1);
      expect(updated.get(key)).toBe(-1);
      const { fresh, unshared } = sharing(trie, updated, key);
      expect(unshared).toEqual([]);
      expect(fresh).toBe(pathLength(updated, key));
      expect(fresh).toBeLessThanOrEqual(bound);
    }
  });

  it('delete() copies only the path to the key and shares every other node (D17)', () => {
    const { keys, trie, bound } = big();
    for (const key of [keys[0]!, keys[54_321]!, keys[keys.length - 1]!]) {
      const without = trie.delete(key);
      expect(without.size).toBe(keys.length - 1);
      expect(trie.has(key)).toBe(true);
      const { fresh, unshared } = sharing(trie, without, key);
      expect(unshared).toEqual([]);
      expect(fresh).toBe(pathLength(without, key));
      expect(fresh).toBeGreaterThan(0);
      expect(fresh).toBeLessThanOrEqual(bound);
    }
  });
});
