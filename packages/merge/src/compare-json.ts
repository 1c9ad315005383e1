/** `compareJson`'s answers, from closest to farthest. */
export const EXACT = 0;
export const SEMANTIC = 1;
export const DIFFERENT = 2;
export type Sameness = typeof EXACT | typeof SEMANTIC | typeof DIFFERENT;

/**
 * Core's `jsonEqual` and the kubelet's DeepEqual ({@link deepEqual}) in one walk: `EXACT` where `jsonEqual`
 * holds, `SEMANTIC` where only DeepEqual does (a `null`, an `undefined` and a missing member alike; Go: nil,
 * but nil ≠ empty), `DIFFERENT` otherwise. The merger asks both questions of a pod's spec and status on
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
    if (member === DIFFERENT) return DIFFERENT;
    if (member === SEMANTIC) sameness = SEMANTIC;
  }
  for (const key in y) {
    keys--;
    const value = y[key];
    if (value !== undefined && value !== null) present--;
  }
  if (present !== 0) return DIFFERENT;
  return keys === 0 ? sameness : SEMANTIC;
}
