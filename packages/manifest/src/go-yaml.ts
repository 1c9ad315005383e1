import { Composer, isAlias, isMap, isScalar, isSeq, LineCounter, Parser, visit, type Alias, type Document, type Node } from 'yaml';

/** A YAML value as `sigs.k8s.io/yaml` hands it to `encoding/json`: JSON types only. */
export type GoYamlValue = string | number | boolean | null | GoYamlValue[] | { [key: string]: GoYamlValue };

/**
 * Where a document cannot be read as Go's YAML reads it: the position (1-based line and column) and
 * the problem. The message is `invalid YAML at line L, column C: <problem>`, without the source text
 * (it may hold a secret).
 */
export class GoYamlError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly problem: string,
  ) {
    super(`invalid YAML at line ${line}, column ${column}: ${problem}`);
    this.name = 'GoYamlError';
  }
}

/** A problem found at an offset of the text; {@link parseGoYaml} turns it into a {@link GoYamlError}. */
class ProblemAt extends Error {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

/** Nesting the conversion follows before it gives up (the parser's own recursion ends earlier on some inputs). */
const MAX_DEPTH = 1000;

const TAG = 'tag:yaml.org,2002:';
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
type Resolved =
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

/**
 * Reads the first YAML document of `text` as `sigs.k8s.io/yaml` (go-yaml v2) reads it into JSON, the way
 * the kubelet reads manifests and kubectl reads kubeconfigs: later documents are never parsed, plain
 * scalars are resolved by {@link resolvePlainScalar}, and a key repeated in one mapping is an error (go-yaml's
 * strict mode; a repeated `<<` is not a repeat). `null` when the text holds no document or an empty
 * one. Throws {@link GoYamlError}.
 */
export function parseGoYaml(text: string): GoYamlValue {
  const lines = new LineCounter();
  const fail = (offset: number, problem: string): never => {
    const { line, col } = lines.linePos(offset);
    throw new GoYamlError(line, col, problem);
  };
  let doc: Document.Parsed | undefined;
  try {
    // failsafe: every scalar keeps its text, for goYamlValue to resolve. uniqueKeys is off: the
    // library compares each key with every earlier one (O(n²): 40,000 keys took 9 s); goYamlValue
    // checks in O(n).
    const composer = new Composer({ schema: 'failsafe', uniqueKeys: false, prettyErrors: false });
    for (const d of composer.compose(new Parser(lines.addNewLine).parse(text), true)) {
      doc = d;
      break;
    }
  } catch (err: unknown) {
    if (err instanceof RangeError) fail(0, 'nested too deeply');
    throw err;
  }
  if (doc === undefined) return null;
  const error = doc.errors[0];
  if (error !== undefined) {
    // The library reports its own stack overflow as an error of the document.
    if (/call stack/i.test(error.message)) fail(error.pos[0], 'nested too deeply');
    // The parser's own words, without the quoted source line that follows them.
    fail(error.pos[0], error.message.split('\n')[0] ?? error.message);
  }
  try {
    return goYamlValue(doc);
  } catch (err: unknown) {
    if (err instanceof ProblemAt) fail(err.offset, err.problem);
    if (err instanceof RangeError) fail(0, 'nested too deeply');
    throw err;
  }
}

/**
 * Converts a parsed YAML document (parse it with the `failsafe` schema, so that every scalar keeps
 * its text) into the value `sigs.k8s.io/yaml` would give `encoding/json`, with go-yaml v2's rules:
 * only plain scalars are resolved (quoted and block scalars are strings), explicit `!!str` /
 * `!!binary` / `!!int` / … tags are honoured, `<<` merge keys are applied as go-yaml v2 applies
 * them (a merge overrides the keys before it, later keys override the merge, in a merged list the
 * earlier mappings win), mapping keys become strings, a key repeated in one mapping is refused (by its
 * resolved value: `1` and `0x1` repeat, `"1"` and `1` do not), and NaN / infinities are refused (Go's
 * JSON encoder refuses them). Throws {@link ProblemAt}.
 */
function goYamlValue(doc: Document.Parsed): GoYamlValue {
  // Walked on the first alias only: most manifests have none.
  let anchored: Map<Alias, Node> | undefined;
  const resolve = (node: Alias): Node | undefined => (anchored ??= aliasTargets(doc)).get(node);
  // go-yaml v2's alias budget (decode.go): every node decoded counts, those inside an alias expansion twice over.
  let decodes = 0;
  let aliasDecodes = 0;
  let aliasDepth = 0;
  const expanding = new Set<Alias>();
  const count = (node: unknown): void => {
    decodes++;
    if (aliasDepth > 0) aliasDecodes++;
    if (aliasDecodes > 100 && decodes > 1000 && aliasDecodes / decodes > allowedAliasRatio(decodes)) {
      throw new ProblemAt(rangeOf(node), 'the document contains excessive aliasing: refusing a possible alias bomb');
    }
  };
  /** An alias's anchored node, converted by `then` inside the alias's expansion. */
  const expand = <T>(node: Alias, depth: number, then: (target: Node, depth: number) => T): T => {
    const target = resolve(node);
    if (target === undefined) throw new ProblemAt(rangeOf(node), 'an alias refers to an unknown anchor');
    // go-yaml v2: "anchor … value contains itself" (an alias inside the node its anchor names).
    if (expanding.has(node)) throw new ProblemAt(rangeOf(node), `the value of anchor "${node.source}" contains itself`);
    expanding.add(node);
    aliasDepth++;
    try {
      return then(target, depth + 1);
    } finally {
      aliasDepth--;
      expanding.delete(node);
    }
  };

  const convert = (node: unknown, depth: number): GoYamlValue => {
    if (depth > MAX_DEPTH) throw new ProblemAt(rangeOf(node), 'nested too deeply');
    if (node === null || node === undefined) return null;
    count(node);
    if (isAlias(node)) return expand(node, depth, convert);
    if (isScalar(node)) return scalar(node.value, node.type, node.tag, rangeOf(node));
    if (isSeq(node)) return node.items.map((item) => convert(item, depth + 1));
    if (isMap(node)) {
      const out: Record<string, GoYamlValue> = {};
      // Keys as go-yaml's map holds them: by Go type and value (`1` and `0x1` repeat, `"1"` and `1` do not).
      const keys = new Set<string>();
      for (const pair of node.items) {
        if (isMergeKey(pair.key)) {
          merge(out, pair.value, depth);
          continue;
        }
        const key = mapKey(pair.key, depth + 1);
        if (keys.has(key.id)) throw new ProblemAt(rangeOf(pair.key), 'Map keys must be unique');
        keys.add(key.id);
        setMember(out, key.text, convert(pair.value, depth + 1));
      }
      return out;
    }
    throw new ProblemAt(rangeOf(node), 'an unsupported YAML node');
  };

  /** A mapping key: its identity in go-yaml's map, and the string sigs.k8s.io/yaml makes of it. */
  const mapKey = (node: unknown, depth: number): { readonly id: string; readonly text: string } => {
    if (depth > MAX_DEPTH) throw new ProblemAt(rangeOf(node), 'nested too deeply');
    if (node !== null && node !== undefined) count(node);
    if (isAlias(node)) return expand(node, depth, mapKey);
    // sigs.k8s.io/yaml: "unsupported map key" for a null key (`~:`), a collection and a uint64.
    if (!isScalar(node)) throw new ProblemAt(rangeOf(node), 'a mapping key is null or not a scalar');
    const resolved = resolveScalar(node.value, node.type, node.tag, rangeOf(node));
    switch (resolved.kind) {
      case 'null':
        throw new ProblemAt(rangeOf(node), 'a mapping key is null or not a scalar');
      case 'uint':
        throw new ProblemAt(rangeOf(node), 'a mapping key is an unsigned integer beyond int64, which sigs.k8s.io/yaml does not support');
      case 'int':
        return { id: `i${resolved.value}`, text: String(resolved.value) };
      case 'float':
        // NaN is no NaN's equal as a Go map key: two `.nan` keys are no repeat (the later one wins in the JSON).
        return { id: Number.isNaN(resolved.value) ? `nan@${rangeOf(node)}` : `f${resolved.value}`, text: formatFloatKey(resolved.value) };
      case 'bool':
        return { id: `b${resolved.value}`, text: String(resolved.value) };
      case 'str':
        return { id: `s${resolved.value}`, text: resolved.value };
    }
  };

  const merge = (out: Record<string, GoYamlValue>, value: unknown, depth: number): void => {
    const mapping = (node: unknown): Record<string, GoYamlValue> => {
      const target = isAlias(node) ? resolve(node) : node;
      if (!isMap(target)) throw new ProblemAt(rangeOf(node), 'a merge key (<<) has a value that is not a mapping or a list of mappings');
      return convert(node, depth + 1) as Record<string, GoYamlValue>;
    };
    const target = isAlias(value) ? resolve(value) : value;
    // go-yaml v2 decodes a list's mappings last to first, so that the earlier ones win.
    const sources = isSeq(target) && !isAlias(value) ? [...target.items].reverse().map(mapping) : [mapping(value)];
    for (const source of sources) for (const [key, member] of Object.entries(source)) setMember(out, key, member);
  };

  return convert(doc.contents, 0);
}

/**
 * Each alias's node: the last node before it (in document order, an enclosing one included) with its anchor. One
 * walk of the document: the library's `Alias.resolve()` walks the whole document per alias, quadratic in a
 * manifest of many aliases (40,000 of them, 195 KiB: four minutes).
 */
function aliasTargets(doc: Document.Parsed): Map<Alias, Node> {
  const targets = new Map<Alias, Node>();
  const anchors = new Map<string, Node>();
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        if (target !== undefined) targets.set(node, target);
      } else if (typeof node.anchor === 'string') {
        anchors.set(node.anchor, node);
      }
    },
  });
  return targets;
}

/** go-yaml v2's `allowedAliasRatio`: 99 % of the decoded nodes may come from aliases, down to 10 % for huge documents. */
function allowedAliasRatio(decodes: number): number {
  if (decodes <= 400_000) return 0.99;
  if (decodes >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decodes - 400_000) / 3_600_000);
}

/** Tags go-yaml v2 resolves a scalar to (`resolvableTag`); any other `!!` tag leaves it a string. */
const RESOLVABLE = new Set(['bool', 'null', 'int', 'float', 'timestamp']);

/** A scalar node as go-yaml v2 resolves it: only plain scalars by their text, explicit tags honoured. */
function resolveScalar(value: unknown, type: string | undefined, tag: string | undefined, offset: number): Resolved {
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

function scalar(value: unknown, type: string | undefined, tag: string | undefined, offset: number): GoYamlValue {
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

/** `out[key] = value`, as an own member even for `__proto__` (an assignment would set the prototype). */
function setMember(out: Record<string, GoYamlValue>, key: string, value: GoYamlValue): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** go-yaml v2's `isMerge`: a plain untagged `<<`, or one tagged `!!merge`. */
function isMergeKey(key: unknown): boolean {
  if (!isScalar(key)) return false;
  // The yaml library turns a `!!merge <<` into its merge symbol.
  if (key.tag === `${TAG}merge`) return key.value === '<<' || (typeof key.value === 'symbol' && key.value.description === '<<');
  return key.value === '<<' && key.type === 'PLAIN' && key.tag === undefined;
}

function rangeOf(node: unknown): number {
  const range = (node as { range?: readonly number[] | null } | null)?.range;
  return range?.[0] ?? 0;
}
