import type { Alias, Document, ErrorCode, Node, YAMLError } from 'yaml';
import { readCommonYaml } from './go-yaml-common.js';
import { ProblemAt, resolveScalar, scalarKey, scalarValue, setMember, TAG, type GoYamlValue, type MapKey } from './go-yaml-scalar.js';
import { yaml } from './yaml-library.js';

const { Composer, isAlias, isMap, isScalar, isSeq, LineCounter, Parser, visit } = yaml;

export { resolvePlainScalar, type GoYamlValue } from './go-yaml-scalar.js';

/**
 * Where a document cannot be read as Go's YAML reads it: the position (1-based line and column) and
 * the problem. The message is `invalid YAML at line L, column C: <problem>`, without the source text
 * (it may hold a secret): neither the source line the yaml library prints under its messages nor the
 * value, tag, escape or token some of them quote (see {@link libraryProblem}). A key named in a problem
 * of ours (`Map keys must be unique: "name" is repeated`) is kept.
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

/** Nesting the conversion follows before it gives up (the parser's own recursion ends earlier on some inputs). */
const MAX_DEPTH = 1000;

/**
 * Reads the first YAML document of `text` as `sigs.k8s.io/yaml` (go-yaml v2) reads it into JSON, the way
 * the kubelet reads manifests and kubectl reads kubeconfigs: later documents are never parsed, plain
 * scalars are resolved by {@link resolvePlainScalar}, and a key repeated in one mapping is an error (go-yaml's
 * strict mode; a repeated `<<` is not a repeat). `null` when the text holds no document or an empty
 * one. Throws {@link GoYamlError}.
 */
export function parseGoYaml(text: string): GoYamlValue {
  // Most manifests and kubeconfigs are in the subset read straight from the parser's tokens (a third faster); the
  // rest, errors included, is read by composing the document.
  return readCommonYaml(text) ?? readComposedYaml(text);
}

/** `parseGoYaml` by composing the document, for every input (exported for the test that compares the two readings). */
export function readComposedYaml(text: string): GoYamlValue {
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
    fail(error.pos[0], libraryProblem(error));
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
 * Fixed words for the yaml library's errors of the codes whose messages quote the input without a `: ` before it
 * (`Invalid escape sequence \q`, `The !x! tag has no suffix`, `Unsupported YAML version abc`), or hold a
 * thrown error's message (`RESOURCE_EXHAUSTION`, a stack overflow in all but name).
 */
const FIXED_PROBLEMS: Partial<Record<ErrorCode, string>> = {
  BAD_DQ_ESCAPE: 'Invalid escape sequence in a double-quoted scalar',
  TAG_RESOLVE_FAILED: 'Could not resolve tag',
  BAD_DIRECTIVE: 'Invalid or unsupported directive',
  RESOURCE_EXHAUSTION: 'nested too deeply',
};

/**
 * The yaml library's words for `error`, with nothing of the input: a manifest (its errors are logged and shown in
 * /sources), a kubeconfig or the agent's config file may hold a secret where the error is. The first line only
 * (the library's pretty form prints the source line under it); a code whose messages quote the input has fixed
 * words ({@link FIXED_PROBLEMS}); any other message ends before its first `: ` after a word, after which the library quotes
 * what it refused (`Block scalar header includes extra characters: |<the rest of the line>`, `Could not resolve
 * tag: !<tag>`, `Unexpected scalar token in YAML stream: "<the scalar>"`, `Not a YAML token: <text>`). What is
 * left names YAML syntax only: an indicator (`,`, `]`, `%`, `@`, `?`, `:`) or a token type. Exported for its test.
 */
export function libraryProblem(error: YAMLError): string {
  const fixed = FIXED_PROBLEMS[error.code];
  if (fixed !== undefined) return fixed;
  const line = error.message.split('\n', 1)[0] ?? '';
  // After a word: `Missing , or : between flow sequence items` and `The : indicator must be at most 1024 chars`
  // name the indicator, with a space before it.
  const quote = /\S: /.exec(line);
  return quote === null ? line : line.slice(0, quote.index + 1);
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
    if (isScalar(node)) return scalarValue(node.value, node.type, node.tag, rangeOf(node));
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
        if (keys.has(key.id)) throw new ProblemAt(rangeOf(pair.key), `Map keys must be unique: ${repeatedKey(key.text)} is repeated`);
        keys.add(key.id);
        setMember(out, key.text, convert(pair.value, depth + 1));
      }
      return out;
    }
    throw new ProblemAt(rangeOf(node), 'an unsupported YAML node');
  };

  /** A mapping key: its identity in go-yaml's map, and the string sigs.k8s.io/yaml makes of it. */
  const mapKey = (node: unknown, depth: number): MapKey => {
    if (depth > MAX_DEPTH) throw new ProblemAt(rangeOf(node), 'nested too deeply');
    if (node !== null && node !== undefined) count(node);
    if (isAlias(node)) return expand(node, depth, mapKey);
    if (!isScalar(node)) throw new ProblemAt(rangeOf(node), 'a mapping key is null or not a scalar');
    return scalarKey(resolveScalar(node.value, node.type, node.tag, rangeOf(node)), rangeOf(node));
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

/**
 * A repeated key as an error names it (go-yaml: `key "x" already set in map`): a name, not a value, so no
 * secret; a long one is cut.
 */
function repeatedKey(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}
