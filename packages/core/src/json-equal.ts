/**
 * Exact equality of two decoded JSON values: the same keys with the same values, arrays element by
 * element; `null`, `undefined`, a missing key and an empty object or array all differ. Where
 * {@link deepEqual} answers the kubelet's question ("semantically the same?"), this answers "may the
 * merger keep its own subtree instead of the incoming one?" (the kubelet copies the incoming one: only
 * an identical value can stand in for it). So `0` and `-0` differ (`JSON.parse` keeps the sign), and a
 * member named `__proto__` (an own member in parsed JSON) is compared as a member, never as a prototype.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return a !== 0 || Object.is(a, b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const arrayA = Array.isArray(a);
  if (arrayA !== Array.isArray(b)) return false;
  if (arrayA) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if ((x[i] !== y[i] || x[i] === 0) && !jsonEqual(x[i], y[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const key in x) {
    keys++;
    const value = x[key];
    // Not `y[key]` alone: without an own `__proto__`, that reads Object.prototype, which compares equal to `{}`.
    const other = key === '__proto__' && !Object.hasOwn(y, key) ? undefined : y[key];
    if ((value !== other || value === 0) && !jsonEqual(value, other)) return false;
    if (other === undefined && !Object.hasOwn(y, key)) return false;
  }
  for (const _key in y) keys--;
  return keys === 0;
}
