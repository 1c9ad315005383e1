/**
 * The canonical JSON of a value (the D6 contract): object keys sorted recursively by UTF-16 code
 * units (JavaScript's default sort), members whose value is empty (`null`, `undefined`, `""`, `[]`,
 * `{}`, also after their own empty members are dropped) left out, no whitespace, strings and numbers
 * as `JSON.stringify` writes them. Array items keep their order; an empty item inside an array stays
 * (as `null`, `""`, `[]` or `{}`) so positions do not shift. `false` and `0` are values, not empty.
 */
export function canonicalJson(value: unknown): string {
  return write(value) ?? 'null';
}

/**
 * Writes a value, or returns `undefined` when it is empty and is to be left out of its object. Built by
 * concatenation, not with arrays and `join`: every file pod is written once per decode (its UID).
 */
function write(value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'string') return quote(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      out += `${i === 0 ? '' : ','}${write(item) ?? emptyOf(item)}`;
    }
    return `${out}]`;
  }
  if (typeof value === 'object') {
    let out = '';
    for (const key of Object.keys(value).sort()) {
      const member = write((value as Record<string, unknown>)[key]);
      if (member !== undefined) out += `${out === '' ? '{' : ','}${quote(key)}:${member}`;
    }
    return out === '' ? undefined : `${out}}`;
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  throw new TypeError(`canonicalJson: unsupported ${typeof value}`);
}

/** Printable ASCII but the quote and the backslash: what `JSON.stringify` writes between quotes unchanged. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A string as `JSON.stringify` writes it; most names and values need no escaping and skip the call. */
function quote(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

/** How an empty value is written where it cannot be left out (inside an array). */
function emptyOf(item: unknown): string {
  if (Array.isArray(item)) return '[]';
  if (item === '') return '""';
  if (typeof item === 'object' && item !== null) return '{}';
  return 'null';
}
