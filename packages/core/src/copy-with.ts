/**
 * A shallow copy of `base` with the keys of `added` set: `Object.assign({}, base, added)`. For copies
 * on hot paths that add keys `base` lacks, where `{ ...base, key: value }` would be the obvious
 * spelling: in Node 20's V8, once the spread's inline cache has warmed up, such a copy gets a hidden
 * class (map) of its own. Each copy then costs ~15× as much to build and leaves a new map in the old
 * generation, and every later read of it is megamorphic and every `for…in` over it uncached. Copies
 * made with `Object.assign` share one map per sequence of keys. (A spread that only replaces keys
 * `base` has, like `{ ...pod, metadata }`, keeps the shared map.)
 */
export function copyWith<T extends object, U extends object>(base: T | null | undefined, added: U): T & U {
  return Object.assign({}, base, added);
}
