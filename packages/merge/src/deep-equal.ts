/**
 * Structural equality for decoded JSON (Go `reflect.DeepEqual` on API structs): `undefined` and
 * `null` are equal, and an object property holding either counts as absent, as a Go field
 * decoded from a JSON `null` or a missing key is nil. Arrays compare element-wise; an absent array is not equal to an
 * empty one, and an absent object is not equal to an empty one (Go: nil ≠ empty).
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || a === null || b === undefined || b === null) {
    return (a === undefined || a === null) && (b === undefined || b === null);
  }
  if (typeof a !== 'object' || typeof b !== 'object') return Number.isNaN(a) && Number.isNaN(b);
  const arrayA = Array.isArray(a);
  if (arrayA || Array.isArray(b)) {
    if (!arrayA || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !deepEqual(a[i], b[i])) return false;
    return true;
  }
  // for…in rather than Object.keys: no key arrays per object (this runs on every pod change).
  // Decoded JSON objects have no inherited enumerable properties.
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let present = 0;
  for (const key in x) {
    const value = x[key];
    if (value === undefined || value === null) continue;
    present++;
    const other = y[key];
    // Most values are equal strings: no call for them.
    if (value !== other && !deepEqual(value, other)) return false;
  }
  for (const key in y) {
    const value = y[key];
    if (value !== undefined && value !== null) present--;
  }
  return present === 0;
}
