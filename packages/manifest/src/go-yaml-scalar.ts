// go-yaml v2's reading of scalars, shared by the two ways a document is read (go-yaml.ts, go-yaml-common.ts):
// what a scalar's text resolves to, what it becomes as a JSON value and as a mapping key.

/** A YAML value as `sigs.k8s.io/yaml` hands it to `encoding/json`: JSON types only. */
export type GoYamlValue = string | number | boolean | null | GoYamlValue[] | { [key: string]: GoYamlValue };

/** A problem found at an offset of the text; `parseGoYaml` turns it into a `GoYamlError`. */
export class ProblemAt extends Error {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

export const TAG = 'tag:yaml.org,2002:';
const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const TRUES = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const FALSES = new Set(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
const SPECIAL_FLOATS: ReadonlyMap<string, number> = new Map([
  ...['.nan', '.NaN', '.NAN'].map((s): [string, number] => [s, Number.NaN]),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((s): [string, number] => [s, Number.POSITIVE_INFINITY]),
  ...['-.inf', '-.Inf', '-.INF'].map((s): [string, number] => [s, Number.NEGATIVE_INFINITY]),
]);
/** go-yaml v2 `yamlStyleFloat`. */
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** Go `strconv.ParseInt(s, 0, 64)` / `ParseUint` syntax (underscores already removed). */
const GO_INT = /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]+)|([0-9]+))$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** A scalar as go-yaml v2 resolves it into `interface{}`: the Go type decides JSON values and map keys alike. */
export type Resolved =
  | { readonly kind: 'null' }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'uint'; readonly value: bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'str'; readonly value: string };

const NULL: Resolved = { kind: 'null' };

/**
 * go-yaml v2's `resolve()` for a plain scalar: null, booleans (YAML 1.1 words: `yes`, `on`, `y`, …), Go
 * integers (`0x1F`, `017`, `0o17`, `0b1`, `1_000`; int64, else uint64), floats (`1e3`, `.5`, `.inf`), and
 * strings for everything else (timestamps too).
 */
function resolvePlain(text: string): Resolved {
  if (NULLS.has(text)) return NULL;
  const first = text[0] ?? '';
  const str: Resolved = { kind: 'str', value: text };
  if (/[yYnNtTfFoO]/.test(first)) {
    if (TRUES.has(text)) return { kind: 'bool', value: true };
    if (FALSES.has(text)) return { kind: 'bool', value: false };
    return str;
  }
  if (first === '.') {
    const special = SPECIAL_FLOATS.get(text);
    if (special !== undefined) return { kind: 'float', value: special };
    return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) ? { kind: 'float', value: Number(text) } : str;
  }
  if (!/[-+0-9]/.test(first)) return str;
  const special = SPECIAL_FLOATS.get(text);
  if (special !== undefined) return { kind: 'float', value: special };
  const plain = text.replaceAll('_', '');
  const int = GO_INT.exec(plain);
  if (int !== null) {
    const [, sign, hex, oct, bin, leadingZeroOct, dec] = int;
    const magnitude =
      hex !== undefined ? BigInt(`0x${hex}`)
      : oct !== undefined ? BigInt(`0o${oct}`)
      : bin !== undefined ? BigInt(`0b${bin}`)
      : leadingZeroOct !== undefined ? BigInt(`0o${leadingZeroOct}`)
      : BigInt(dec ?? '0');
    const value = sign === '-' ? -magnitude : magnitude;
    if (value >= INT64_MIN && value <= INT64_MAX) return { kind: 'int', value };
    if (sign === '' && value <= UINT64_MAX) return { kind: 'uint', value };
  }
  if (YAML_STYLE_FLOAT.test(plain)) {
    // Out of float64's range (`1e400`), Go's ParseFloat fails and go-yaml keeps the text.
    const float = Number(plain);
    return Number.isFinite(float) ? { kind: 'float', value: float } : str;
  }
  return str;
}

/** {@link resolvePlain} as a JSON value: what a plain scalar decodes to (numbers as JavaScript numbers). */
export function resolvePlainScalar(text: string): string | number | boolean | null {
  const resolved = resolvePlain(text);
  return resolved.kind === 'null' ? null : resolved.kind === 'int' || resolved.kind === 'uint' ? Number(resolved.value) : resolved.value;
}

/** Tags go-yaml v2 resolves a scalar to (`resolvableTag`); any other `!!` tag leaves it a string. */
const RESOLVABLE = new Set(['bool', 'null', 'int', 'float', 'timestamp']);

/** A scalar node as go-yaml v2 resolves it: only plain scalars by their text, explicit tags honoured. */
export function resolveScalar(value: unknown, type: string | undefined, tag: string | undefined, offset: number): Resolved {
  const text = typeof value === 'string' ? value : String(value);
  if (tag === undefined) return type === 'PLAIN' ? resolvePlain(text) : { kind: 'str', value: text };
  if (tag === `${TAG}binary`) {
    // The yaml library decodes !!binary itself; go-yaml v2 makes the bytes a string.
    const bytes = value instanceof Uint8Array ? Buffer.from(value) : Buffer.from(text, 'base64');
    return { kind: 'str', value: bytes.toString('utf8') };
  }
  // The non-specific `!`, local tags, !!str and tags go-yaml does not resolve (`!!seq`, `!!merge`, …): the text.
  const want = tag.startsWith(TAG) ? tag.slice(TAG.length) : '';
  if (!RESOLVABLE.has(want)) return { kind: 'str', value: text };
  // An explicit !!int, !!bool, …: the text must resolve to that type (go-yaml v2 checks it).
  const resolved = resolvePlain(text);
  switch (want) {
    case 'timestamp':
      if (resolved.kind === 'str') return resolved;
      break;
    case 'float':
      // !!float 1 is the float 1 (a map key "1", not an int).
      if (resolved.kind === 'float') return resolved;
      if (resolved.kind === 'int' || resolved.kind === 'uint') return { kind: 'float', value: Number(resolved.value) };
      break;
    default:
      // !!int takes only Go integer syntax (`!!int 1.5` or `!!int 1e3` are floats: an error in go-yaml v2).
      if (resolved.kind === want || (want === 'int' && resolved.kind === 'uint')) return resolved;
  }
  throw new ProblemAt(offset, `a scalar cannot be decoded as !!${want}`);
}

export function scalarValue(value: unknown, type: string | undefined, tag: string | undefined, offset: number): GoYamlValue {
  const resolved = resolveScalar(value, type, tag, offset);
  switch (resolved.kind) {
    case 'null':
      return null;
    case 'int':
    case 'uint':
      return Number(resolved.value);
    case 'float':
      if (!Number.isFinite(resolved.value)) throw new ProblemAt(offset, 'NaN or an infinity, which JSON cannot hold');
      return resolved.value;
    default:
      return resolved.value;
  }
}

/**
 * A float map key as sigs.k8s.io/yaml writes it: `strconv.FormatFloat(f, 'g', -1, 32)`, the shortest digits that
 * give back the float32, in exponent form below 1e-4 and from 1e6 (`1e+06`, `1e-05`, `3.1415927`), `.inf`, `-.inf`,
 * `.nan` for the specials.
 */
function formatFloatKey(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  const x = Math.fround(f);
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let digits = '1';
  let exponent = 0;
  for (let precision = 1; precision <= 9; precision++) {
    const [mantissa = '', exp = '0'] = Math.abs(x).toExponential(precision - 1).split('e');
    if (Math.fround(Number(`${mantissa}e${exp}`)) === Math.abs(x)) {
      digits = mantissa.replace('.', '');
      exponent = Number(exp);
      break;
    }
  }
  const sign = x < 0 ? '-' : '';
  if (exponent < -4 || exponent >= 6) {
    const e = Math.abs(exponent);
    return `${sign}${digits[0] ?? ''}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${exponent < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  const point = exponent + 1; // digits before the decimal point
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}


/** A mapping key: its identity in go-yaml's map, and the string sigs.k8s.io/yaml makes of it. */
export interface MapKey {
  readonly id: string;
  readonly text: string;
}

/** A resolved scalar as a mapping key (go-yaml's map keys by Go type and value: `1` and `0x1` repeat, `"1"` and `1` do not). */
export function scalarKey(resolved: Resolved, offset: number): MapKey {
  switch (resolved.kind) {
    case 'null':
      // sigs.k8s.io/yaml: "unsupported map key" for a null key (`~:`), a collection and a uint64.
      throw new ProblemAt(offset, 'a mapping key is null or not a scalar');
    case 'uint':
      throw new ProblemAt(offset, 'a mapping key is an unsigned integer beyond int64, which sigs.k8s.io/yaml does not support');
    case 'int':
      return { id: `i${resolved.value}`, text: String(resolved.value) };
    case 'float':
      // NaN is no NaN's equal as a Go map key: two `.nan` keys are no repeat (the later one wins in the JSON).
      return { id: Number.isNaN(resolved.value) ? `nan@${offset}` : `f${resolved.value}`, text: formatFloatKey(resolved.value) };
    case 'bool':
      return { id: `b${resolved.value}`, text: String(resolved.value) };
    case 'str':
      return { id: `s${resolved.value}`, text: resolved.value };
  }
}

/** `out[key] = value`, as an own member even for `__proto__` (an assignment would set the prototype). */
export function setMember(out: Record<string, GoYamlValue>, key: string, value: GoYamlValue): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
