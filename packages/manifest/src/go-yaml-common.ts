import type { CST } from 'yaml';
import { ProblemAt, resolveScalar, scalarKey, scalarValue, setMember, type GoYamlValue } from './go-yaml-scalar.js';
import { yaml } from './yaml-library.js';

const { Parser } = yaml;
const resolveAsScalar = yaml.CST.resolveAsScalar;

/**
 * Thrown inside the walk when the document leaves the common subset: {@link readCommonYaml} then answers
 * `undefined`. One object, made once: it is control flow, not an error, so no stack is taken per throw.
 */
const OUTSIDE = new Error('outside the common subset');

/** Deeper than this, the composed reading takes over (it has its own limit and message). */
const MAX_DEPTH = 64;

/** Keys longer than this are left to the composed reading, which refuses a `:` more than 1,024 characters on. */
const MAX_KEY_SPAN = 512;

/**
 * The first YAML document of `text`, read straight from the `yaml` library's parser tokens (its CST), when the
 * document is in the subset manifests and kubeconfigs are written in: a block mapping at the root; block
 * mappings and sequences, flow sequences and mappings of scalars and of other flow collections, and plain, quoted
 * and block scalars below it; comments and blank lines anywhere; a `---` before it and other documents after it.
 * `undefined` for anything else (anchors, aliases, tags, `<<`, explicit `?` keys, `[a: b]` pairs, tabs in
 * indentation, a `...` or a directive, a repeated key, a value JSON cannot hold, keys longer than 512 characters or
 * more than 512 characters of blank lines after an empty value, and every error): `parseGoYaml` then reads the text
 * by composing the document, which gives the same value for what this accepts, and the error, with its position,
 * for what is wrong.
 *
 * Why: composing builds a node object for every key and value and checks each against rules this subset cannot
 * break; skipping it is about a third of the parse time of a manifest. Every check the library's composer makes on
 * the token shapes accepted here is made here too, or the shape is not accepted.
 */
export function readCommonYaml(text: string): GoYamlValue | undefined {
  try {
    let doc: CST.Document | undefined;
    for (const token of new Parser().parse(text)) {
      if (token.type === 'document') {
        if (doc !== undefined) break; // a later document: never read (the composer would hold it apart)
        doc = token;
      } else if (token.type !== 'comment' && token.type !== 'newline' && token.type !== 'space') {
        return undefined; // directives, `...`, a byte-order mark, errors
      }
    }
    if (doc?.value?.type !== 'block-map') return undefined;
    const start = props(doc.start, 'doc-start', true, false);
    if (start.found && !start.hasNewline) return undefined; // a block collection on the `---` line
    props(doc.end, undefined, true, false); // as if on a new line: the composer wants no space before a comment there
    return blockMap(doc.value, 0);
  } catch (err: unknown) {
    if (err === OUTSIDE || err instanceof ProblemAt || err instanceof RangeError) return undefined;
    throw err;
  }
}

interface Props {
  /** The indicator was there (`-`, `:`, `---`). */
  readonly found: boolean;
  readonly hasNewline: boolean;
  readonly comma: boolean;
}

/**
 * The composer's `resolveProps` for the tokens before a node, with the subset's limits: spaces (no tab),
 * newlines, comments after white space, at most one `indicator` and, in a flow, one comma; anything else
 * (anchors, tags, other indicators, errors) is outside. Without an indicator, its `resolveEnd` for the tokens after
 * a node (`startOnNewline` then stands for its `!reqSpace`).
 */
function props(
  tokens: readonly CST.SourceToken[] | undefined,
  indicator: CST.SourceToken['type'] | undefined,
  startOnNewline: boolean,
  flow: boolean,
): Props {
  let hasSpace = startOnNewline;
  let found = false;
  let hasNewline = false;
  let comma = false;
  if (tokens !== undefined) {
    for (const token of tokens) {
      switch (token.type) {
        case 'space':
          if (token.source.includes('\t')) throw OUTSIDE;
          hasSpace = true;
          break;
        case 'newline':
          hasNewline = true;
          hasSpace = true;
          break;
        case 'comment':
          if (!hasSpace) throw OUTSIDE; // "Comments must be separated from other tokens by white space characters"
          break;
        case 'comma':
          if (!flow || comma) throw OUTSIDE;
          comma = true;
          hasSpace = false;
          break;
        default:
          if (indicator === undefined || token.type !== indicator || found) throw OUTSIDE;
          found = true;
          hasSpace = false;
      }
    }
  }
  return { found, hasNewline, comma };
}

function node(token: CST.Token | undefined, depth: number): GoYamlValue {
  if (token === undefined) return null; // `key:` or `-` with nothing after it
  switch (token.type) {
    case 'block-map':
      return blockMap(token, depth + 1);
    case 'block-seq':
      return blockSeq(token, depth + 1);
    case 'flow-collection':
      return flow(token, depth + 1);
    default:
      return scalarOf(token);
  }
}

function blockMap(map: CST.BlockMap, depth: number): Record<string, GoYamlValue> {
  if (depth > MAX_DEPTH) throw OUTSIDE;
  const out: Record<string, GoYamlValue> = {};
  const keys = new Set<string>();
  const items = map.items;
  for (let i = 0; i < items.length; i++) {
    const { start, key, sep, value } = items[i]!;
    if (props(start, 'explicit-key-ind', true, false).found) throw OUTSIDE; // `? key`
    if (key === undefined && sep === undefined && value === undefined) {
      // Comments after the last pair; anywhere else the composer finds "Map comment with trailing content".
      if (i !== items.length - 1) throw OUTSIDE;
      continue;
    }
    if (key === undefined || key === null || sep === undefined) throw OUTSIDE;
    if (!isFlowScalar(key) || key.indent !== map.indent || key.source.includes('\n') || (key.end !== undefined && key.end.length > 0)) throw OUTSIDE;
    const valueProps = props(sep, 'map-value-ind', false, false);
    if (!valueProps.found) throw OUTSIDE; // "Implicit map keys need to be followed by map values"
    if (value?.type === 'block-map' && !valueProps.hasNewline) throw OUTSIDE; // "Nested mappings are not allowed in compact mappings"
    const indicator = sep.find((token) => token.type === 'map-value-ind');
    if (indicator === undefined || indicator.offset - key.offset > MAX_KEY_SPAN) throw OUTSIDE;
    if (value === undefined && emptyTail(sep, indicator) > MAX_KEY_SPAN) throw OUTSIDE;
    setMember(out, newKey(key, keys), node(value, depth));
  }
  return out;
}

function blockSeq(seq: CST.BlockSequence, depth: number): GoYamlValue[] {
  if (depth > MAX_DEPTH) throw OUTSIDE;
  const out: GoYamlValue[] = [];
  const items = seq.items;
  for (let i = 0; i < items.length; i++) {
    const { start, value } = items[i]!;
    if (!props(start, 'seq-item-ind', true, false).found) {
      if (value !== undefined || i !== items.length - 1) throw OUTSIDE; // only comments may follow the last item
      continue;
    }
    if (value === undefined) {
      const indicator = start.find((token) => token.type === 'seq-item-ind');
      if (indicator === undefined || emptyTail(start, indicator) > MAX_KEY_SPAN) throw OUTSIDE;
    }
    out.push(node(value, depth));
  }
  return out;
}

/**
 * How far the tokens after an empty value's indicator (`key:` or `-` with nothing after it) reach. The composer
 * ends an empty value at its indicator and measures the next key's 1,024 characters from there, so blank lines
 * held here count against that key: beyond {@link MAX_KEY_SPAN} (with the key's own span, at most 1,024 in all),
 * the composed reading decides.
 */
function emptyTail(tokens: readonly CST.SourceToken[], indicator: CST.SourceToken): number {
  const last = tokens[tokens.length - 1]!;
  return last.offset + last.source.length - (indicator.offset + indicator.source.length);
}

/**
 * A flow sequence or mapping of scalars and flow collections, on one or more lines (`args: ["--a", b]`,
 * `resources: {}`, `{cpu: 100m}`); block collections, `? key`, `[a: b]` pairs and empty items are outside.
 */
function flow(collection: CST.FlowCollection, depth: number): GoYamlValue {
  if (depth > MAX_DEPTH) throw OUTSIDE;
  const isMap = collection.start.source === '{';
  const seq: GoYamlValue[] = [];
  const map: Record<string, GoYamlValue> = {};
  const keys = new Set<string>();
  const items = collection.items;
  for (let i = 0; i < items.length; i++) {
    const { start, key, sep, value } = items[i]!;
    const p = props(start, 'explicit-key-ind', false, true);
    if (p.found) throw OUTSIDE;
    if (key === undefined && sep === undefined && value === undefined) {
      // A trailing comma (`[a, b, ]`); an empty item anywhere else is an error.
      if (i === 0 || i !== items.length - 1) throw OUTSIDE;
      continue;
    }
    if (i === 0 ? p.comma : !p.comma) throw OUTSIDE; // "Unexpected , in flow …", "Missing , between flow … items"
    if (!isMap) {
      if (key !== undefined || sep !== undefined || value === undefined) throw OUTSIDE;
      seq.push(flowValue(value, depth));
      continue;
    }
    // `{key: value}`: a one-line key, its `:`, and a scalar value or none (`{a: }` is `a: null`).
    if (key === undefined || key === null || sep === undefined || !isFlowScalar(key)) throw OUTSIDE;
    if (key.source.includes('\n') || (key.end !== undefined && key.end.length > 0)) throw OUTSIDE;
    if (!props(sep, 'map-value-ind', false, true).found) throw OUTSIDE;
    setMember(map, newKey(key, keys), value === undefined ? null : flowValue(value, depth));
  }
  const [close, ...after] = collection.end;
  if (close?.type !== (isMap ? 'flow-map-end' : 'flow-seq-end')) throw OUTSIDE;
  props(after, undefined, false, false);
  return isMap ? map : seq;
}

/** A value inside a flow collection: a scalar or another flow collection (block collections are errors there). */
function flowValue(token: CST.Token, depth: number): GoYamlValue {
  if (token.type === 'flow-collection') return flow(token, depth + 1);
  if (!isFlowScalar(token)) throw OUTSIDE;
  return scalarOf(token);
}

/**
 * A mapping key's member name, added to the mapping's `keys` (go-yaml's identities); a merge key (`<<`) and a
 * repeat are outside (the composed reading applies the merge, or names the repeat's position).
 */
function newKey(key: FlowScalar, keys: Set<string>): string {
  const { value, type, offset } = scalar(key);
  if (value === '<<' && type === 'PLAIN') throw OUTSIDE;
  const id = scalarKey(resolveScalar(value, type, undefined, offset), offset);
  if (keys.has(id.id)) throw OUTSIDE;
  keys.add(id.id);
  return id.text;
}

/** A scalar token as a JSON value. */
function scalarOf(token: CST.Token): GoYamlValue {
  const { value, type, offset } = scalar(token);
  return scalarValue(value, type, undefined, offset);
}

type FlowScalar = CST.FlowScalar & { readonly type: 'scalar' | 'single-quoted-scalar' | 'double-quoted-scalar' };

function isFlowScalar(token: CST.Token): token is FlowScalar {
  return token.type === 'scalar' || token.type === 'single-quoted-scalar' || token.type === 'double-quoted-scalar';
}

const refuse = (): never => {
  throw OUTSIDE;
};

/** A scalar token's text as the composer resolves it (folding, escapes, block scalars' indentation), or outside. */
function scalar(token: CST.Token): { readonly value: string; readonly type: string | undefined; readonly offset: number } {
  if (!isFlowScalar(token) && token.type !== 'block-scalar') throw OUTSIDE; // aliases, errors
  const resolved = resolveAsScalar(token, true, refuse);
  if (resolved === null) throw OUTSIDE;
  return { value: resolved.value, type: resolved.type ?? undefined, offset: token.offset };
}
