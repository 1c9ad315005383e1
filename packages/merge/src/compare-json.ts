/** `compareJson`'s answers, from closest to farthest. */
export const EXACT = 0;
export const SEMANTIC = 1;
export const DIFFERENT = 2;
export type Sameness = typeof EXACT | typeof SEMANTIC | typeof DIFFERENT;

/**
 * Core's `jsonEqual` and the kubelet's DeepEqual ({@link deepEqual}) in one walk: `EXACT` where `jsonEqual`
 * holds, `SEMANTIC` where only DeepEqual does (a `null`, an `undefined` and a missing member alike; Go: nil;
 * and, by decision D14, an empty map `{}` and a missing member; an empty list is not a missing one, as in
 * Go), `DIFFERENT` otherwise. The merger asks both questions of a pod's spec and status on
 * every change; walking them twice, through megamorphic keyed loads, was two thirds of `checkAndUpdatePod`.
 */
export function compareJson(a: unknown, b: unknown): Sameness {
  // 0 and -0: equal to Go (a float's ==), not to jsonEqual (JSON.parse keeps the sign).
  if (a === b) return a !== 0 || Object.is(a, b) ? EXACT : SEMANTIC;
  if (a === undefined || a === null || b === undefined || b === null) {
    return (a === undefined || a === null) && (b === undefined || b === null) ? SEMANTIC : DIFFERENT;
  }
  if (typeof a !== 'object' || typeof b !== 'object') return Number.isNaN(a) && Number.isNaN(b) ? SEMANTIC : DIFFERENT;
  let sameness: Sameness = EXACT;
  const arrayA = Array.isArray(a);
  if (arrayA || Array.isArray(b)) {
    if (!arrayA || !Array.isArray(b) || a.length !== b.length) return DIFFERENT;
    for (let i = 0; i < a.length; i++) {
      if (a[i] === b[i] && a[i] !== 0) continue;
      const item = compareJson(a[i], b[i]);
      if (item === DIFFERENT) return DIFFERENT;
      if (item === SEMANTIC) sameness = SEMANTIC;
    }
    return sameness;
  }
  // for…in rather than Object.keys: no key arrays per object (this runs on every pod change).
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  let present = 0;
  for (const key in x) {
    keys++;
    const value = x[key];
    // Not `y[key]` alone: without an own `__proto__`, that reads Object.prototype, which compares equal to `{}`.
    const other = key === '__proto__' && !Object.hasOwn(y, key) ? undefined : y[key];
    if (value === undefined || value === null) {
      // Absent to deepEqual; jsonEqual needs the same value under the same key.
      if (value !== other || (other === undefined && !Object.hasOwn(y, key))) sameness = SEMANTIC;
      continue;
    }
    present++;
    if (value === other && value !== 0) continue;
    const member = compareJson(value, other);
    if (member === DIFFERENT) {
      // D14: an empty map equals a missing one (checked only here, off the common path).
      if ((other === undefined || other === null) && isEmptyMap(value)) {
        present--;
        sameness = SEMANTIC;
        continue;
      }
      return DIFFERENT;
    }
    if (member === SEMANTIC) sameness = SEMANTIC;
  }
  for (const key in y) {
    keys--;
    const value = y[key];
    if (value !== undefined && value !== null) present--;
  }
  if (present !== 0) return onlyEmptyMapsMissing(x, y) ? SEMANTIC : DIFFERENT;
  return keys === 0 ? sameness : SEMANTIC;
}

/** A map with nothing in it, to DeepEqual: no members, or only nil ones and maps with nothing in them. */
const isEmptyMap = (value: unknown): boolean => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const map = value as Record<string, unknown>;
  for (const key in map) {
    const member = map[key];
    if (member !== undefined && member !== null && !isEmptyMap(member)) return false;
  }
  return true;
};

/**
 * `y`'s members that `x` lacks (or holds as `null`) are all empty maps (D14: equal to missing ones); its
 * others matched `x`'s already. The rare path of {@link compareJson}: members present on one side only.
 */
function onlyEmptyMapsMissing(x: Record<string, unknown>, y: Record<string, unknown>): boolean {
  for (const key in y) {
    const value = y[key];
    if (value === undefined || value === null) continue;
    const mine = key === '__proto__' && !Object.hasOwn(x, key) ? undefined : x[key];
    if ((mine === undefined || mine === null) && !isEmptyMap(value)) return false;
  }
  return true;
}
