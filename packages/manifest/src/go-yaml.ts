import { Composer, isAlias, isMap, isScalar, isSeq, LineCounter, Parser, type Document, type Node } from 'yaml';

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

/** Expanded alias nodes allowed per document (billion laughs). */
export const MAX_ALIAS_NODES = 10_000;
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

/**
 * go-yaml v2's `resolve()` for a plain scalar, as decoded into `interface{}`: null, booleans
 * (YAML 1.1 words: `yes`, `on`, `y`, …), Go integers (`0x1F`, `017`, `0o17`, `0b1`, `1_000`),
 * floats (`1e3`, `.5`, `.inf`), and strings for everything else (timestamps too).
 */
export function resolvePlainScalar(text: string): string | number | boolean | null {
  if (NULLS.has(text)) return null;
  const first = text[0] ?? '';
  if (/[yYnNtTfFoO]/.test(first)) {
    if (TRUES.has(text)) return true;
    if (FALSES.has(text)) return false;
    return text;
  }
  if (first === '.') {
    const special = SPECIAL_FLOATS.get(text);
    if (special !== undefined) return special;
    return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) ? Number(text) : text;
  }
  if (!/[-+0-9]/.test(first)) return text;
  const special = SPECIAL_FLOATS.get(text);
  if (special !== undefined) return special;
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
    if (value >= INT64_MIN && value <= INT64_MAX) return Number(value);
    if (sign === '' && value <= UINT64_MAX) return Number(value);
  }
  if (YAML_STYLE_FLOAT.test(plain)) {
    // Out of float64's range (`1e400`), Go's ParseFloat fails and go-yaml keeps the text.
    const float = Number(plain);
    return Number.isFinite(float) ? float : text;
  }
  return text;
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
  let aliasNodes = 0;
  const sizes = new Map<Node, number>();

  const convert = (node: unknown, depth: number): GoYamlValue => {
    if (depth > MAX_DEPTH) throw new ProblemAt(rangeOf(node), 'nested too deeply');
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (target === undefined) throw new ProblemAt(rangeOf(node), 'an alias refers to an unknown anchor');
      aliasNodes += sizes.get(target) ?? countNodes(target, sizes);
      if (aliasNodes > MAX_ALIAS_NODES) {
        throw new ProblemAt(rangeOf(node), `aliases expand to more than ${MAX_ALIAS_NODES} nodes: refusing a possible alias bomb`);
      }
      return convert(target, depth + 1);
    }
    if (isScalar(node)) return scalar(node.value, node.type, node.tag, rangeOf(node));
    if (isSeq(node)) return node.items.map((item) => convert(item, depth + 1));
    if (isMap(node)) {
      const out: Record<string, GoYamlValue> = {};
      // Keys as go-yaml's map holds them: a string and a number of the same text differ.
      const keys = new Set<string | number | boolean>();
      for (const pair of node.items) {
        if (isMergeKey(pair.key)) {
          merge(out, pair.value, depth);
          continue;
        }
        const key = convert(pair.key, depth + 1);
        // sigs.k8s.io/yaml: "unsupported map key" for a null key (`~:`) and for a collection.
        if (key === null || typeof key === 'object') throw new ProblemAt(rangeOf(pair.key), 'a mapping key is null or not a scalar');
        if (keys.has(key)) throw new ProblemAt(rangeOf(pair.key), 'Map keys must be unique');
        keys.add(key);
        setMember(out, String(key), convert(pair.value, depth + 1));
      }
      return out;
    }
    throw new ProblemAt(rangeOf(node), 'an unsupported YAML node');
  };

  const merge = (out: Record<string, GoYamlValue>, value: unknown, depth: number): void => {
    const mapping = (node: unknown): Record<string, GoYamlValue> => {
      const target = isAlias(node) ? node.resolve(doc) : node;
      if (!isMap(target)) throw new ProblemAt(rangeOf(node), 'a merge key (<<) has a value that is not a mapping or a list of mappings');
      return convert(node, depth + 1) as Record<string, GoYamlValue>;
    };
    const target = isAlias(value) ? value.resolve(doc) : value;
    // go-yaml v2 decodes a list's mappings last to first, so that the earlier ones win.
    const sources = isSeq(target) && !isAlias(value) ? [...target.items].reverse().map(mapping) : [mapping(value)];
    for (const source of sources) for (const [key, member] of Object.entries(source)) setMember(out, key, member);
  };

  return convert(doc.contents, 0);
}

function scalar(value: unknown, type: string | undefined, tag: string | undefined, offset: number): GoYamlValue {
  const text = typeof value === 'string' ? value : String(value);
  let resolved: GoYamlValue;
  if (tag === undefined) resolved = type === 'PLAIN' ? resolvePlainScalar(text) : text;
  // The non-specific `!` (and any local tag) leaves the text a string in go-yaml v2.
  else if (tag === '!' || tag === `${TAG}str` || !tag.startsWith(TAG)) resolved = text;
  else if (tag === `${TAG}binary`) {
    // The yaml library decodes !!binary itself; go-yaml v2 makes the bytes a string.
    resolved = value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : Buffer.from(text, 'base64').toString('utf8');
  }
  else {
    // An explicit !!int, !!bool, …: the text must resolve to that type (go-yaml v2 checks it).
    resolved = resolvePlainScalar(text);
    const want = tag.slice(TAG.length);
    const got = resolved === null ? 'null' : typeof resolved === 'boolean' ? 'bool' : typeof resolved === 'number' ? 'number' : 'str';
    // !!int takes only Go integer syntax (`!!int 1.5` or `!!int 1e3` are floats: an error in go-yaml v2).
    const fits = want === got || (got === 'number' && (want === 'float' || (want === 'int' && GO_INT.test(text.replaceAll('_', ''))))) ||
      (want === 'timestamp' && got === 'str');
    if (!fits) throw new ProblemAt(offset, `a scalar cannot be decoded as !!${want}`);
    if (want === 'float' && typeof resolved === 'number') resolved = Number(resolved);
  }
  if (typeof resolved === 'number' && !Number.isFinite(resolved)) throw new ProblemAt(offset, 'NaN or an infinity, which JSON cannot hold');
  return resolved;
}

/** `out[key] = value`, as an own member even for `__proto__` (an assignment would set the prototype). */
function setMember(out: Record<string, GoYamlValue>, key: string, value: GoYamlValue): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

function isMergeKey(key: unknown): boolean {
  return isScalar(key) && key.type === 'PLAIN' && key.tag === undefined && key.value === '<<';
}

function rangeOf(node: unknown): number {
  const range = (node as { range?: readonly number[] | null } | null)?.range;
  return range?.[0] ?? 0;
}

/** Nodes under `node` (itself included), aliases counted as one. */
function countNodes(node: Node, sizes: Map<Node, number>): number {
  let n = 1;
  if (isSeq(node)) for (const item of node.items) n += isAlias(item) || !item ? 1 : countNodes(item as Node, sizes);
  else if (isMap(node)) {
    for (const pair of node.items) {
      for (const part of [pair.key, pair.value]) n += isAlias(part) || !part ? 1 : countNodes(part as Node, sizes);
    }
  }
  sizes.set(node, n);
  return n;
}
