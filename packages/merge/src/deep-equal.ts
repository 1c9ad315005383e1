import { compareJson, DIFFERENT } from './compare-json.js';

/**
 * Structural equality for decoded JSON (Go `reflect.DeepEqual` on API structs): `undefined` and
 * `null` are equal, and an object property holding either counts as absent, as a Go field
 * decoded from a JSON `null` or a missing key is nil. Arrays compare element-wise; an absent array is not equal to an
 * empty one (Go: nil ≠ empty), but an absent object is equal to an empty one (decision D14: nil and empty maps
 * compare equal). The semantic half of
 * {@link compareJson}.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  return compareJson(a, b) !== DIFFERENT;
}
