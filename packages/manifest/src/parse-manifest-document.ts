import {
  Composer,
  Parser,
  YAMLError,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type Document,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
} from 'yaml';
import { isJsonObject, jsonTypeName, type JsonObject } from './json-object.js';
import { MAX_MANIFEST_BYTES } from './max-manifest-bytes.js';
import { reject } from './rejection.js';

/** Alias resolutions allowed per document (the yaml library's `maxAliasCount`): stops "billion laughs". */
const MAX_ALIAS_COUNT = 100;
/** Nesting deeper than this is no Pod (the schema is about 15 levels deep). */
const MAX_DEPTH = 64;

/**
 * YAML 1.1, as the kubelet's converter (go-yaml v2) reads it: `0644` is octal, `yes`/`on` are
 * booleans. The 1.1 timestamp and base-60 (`22:22`) types are dropped: go-yaml keeps those as strings.
 * `uniqueKeys` is off because the library compares each key with every earlier one (O(n²) per
 * mapping: 40,000 keys took 9 s); {@link findDuplicateKey} does the same check in O(n).
 */
const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  prettyErrors: false,
  uniqueKeys: false,
  customTags: (tags) =>
    tags.filter((tag) =>
      typeof tag === 'string'
        ? !['timestamp', 'intTime', 'floatTime'].includes(tag)
        : tag.tag !== 'tag:yaml.org,2002:timestamp' && tag.format !== 'TIME'),
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Steps 1 and 2 of the decoding pipeline: enforce the size cap, turn the bytes into text, and read
 * the first YAML document (JSON passes through) into a plain JSON object. `null` members are dropped,
 * as decoding into the API types does. Throws a `Rejection`.
 */
export function parseManifestDocument(data: Uint8Array | string): JsonObject {
  const size = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.byteLength;
  if (size > MAX_MANIFEST_BYTES) {
    reject(`manifest is ${size} bytes, more than the limit of ${MAX_MANIFEST_BYTES} bytes`, 'PODCONFIG_MANIFEST_TOO_LARGE');
  }
  const text = typeof data === 'string' ? data.replace(/^\uFEFF/, '') : decodeText(data);
  // eslint-disable-next-line no-control-regex -- looking for exactly these
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(text)) {
    reject('manifest contains control characters: binary data, not YAML or JSON');
  }
  if (text.trim() === '') reject('manifest is empty');

  const value = parseJson(text) ?? parseFirstYamlDocument(text);
  if (value === null || value === undefined) reject('manifest is empty (the first YAML document has no content)');
  if (!isJsonObject(value)) reject(`manifest is not a mapping: the document is a ${describeNode(value)}`);
  return toJsonObject(value, '', 0);
}

function decodeText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return reject('manifest is not valid UTF-8 text: binary data, not YAML or JSON');
  }
}

/** JSON passes through untouched; anything that is not valid JSON goes to the YAML parser. */
function parseJson(text: string): unknown {
  if (!/^\s*\{/.test(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined; // the YAML parser gives a message with a position (JSON.parse quotes the input)
  }
}

function parseFirstYamlDocument(text: string): unknown {
  let doc: Document.Parsed | undefined;
  try {
    // Compose lazily: later documents are never read, like the kubelet (only the first one counts).
    for (const d of new Composer(YAML_OPTIONS).compose(new Parser().parse(text), true)) {
      doc = d;
      break;
    }
  } catch (err: unknown) {
    if (err instanceof RangeError) reject('manifest is nested too deeply');
    throw err;
  }
  if (doc === undefined) return undefined;
  const error = doc.errors[0];
  if (error !== undefined) reject(describeYamlError(error, text));
  const duplicate = findDuplicateKey(doc.contents);
  if (duplicate !== undefined) reject(`invalid YAML at ${position(duplicate, text)}: Map keys must be unique`);
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (err: unknown) {
    if (err instanceof ReferenceError && /alias/i.test(err.message)) {
      reject(`YAML aliases expand too far (more than ${MAX_ALIAS_COUNT} resolutions): refusing a possible alias bomb`);
    }
    if (err instanceof RangeError) reject('manifest is nested too deeply');
    if (err instanceof YAMLError) reject(describeYamlError(err, text));
    throw err;
  }
}

/**
 * The offset of the first key that repeats an earlier key of the same mapping, by the rule the
 * yaml library's `uniqueKeys: true` applies (scalars with equal values; `"1"` and `1` differ, merge
 * keys `<<` may repeat, collection and alias keys never collide), or `undefined`. One `Set` per
 * mapping and an explicit stack: O(nodes), whatever the nesting. Aliases are not followed (their
 * anchors are checked where they are defined).
 */
function findDuplicateKey(root: unknown): number | undefined {
  // The stack visits mappings out of text order: keep the earliest repeat, as the library reported it.
  let first: number | undefined;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const { key, value } of node.items) {
        // NaN keys never collide (the library compares with ===; a Set would match them).
        if (isScalar(key) && typeof key.value !== 'symbol' && !Number.isNaN(key.value)) {
          if (seen.has(key.value)) {
            const at = key.range?.[0] ?? 0;
            if (first === undefined || at < first) first = at;
          }
          seen.add(key.value);
        } else {
          stack.push(key);
        }
        stack.push(value);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item);
    } else if (isPair(node)) {
      stack.push(node.key, node.value);
    }
  }
  return first;
}

/** The parser's own words and position, without the quoted source line (it could hold a secret). */
function describeYamlError(error: YAMLError, text: string): string {
  if (/call stack/i.test(error.message)) return 'manifest is nested too deeply';
  const message = error.message.split('\n')[0] ?? error.message;
  return `invalid YAML at ${position(error.pos[0], text)}: ${message}`;
}

/** `line L, column C` (1-based) of a character offset. */
function position(offset: number, text: string): string {
  const before = text.slice(0, Math.min(offset, text.length));
  const line = before.split('\n').length;
  const col = before.length - before.lastIndexOf('\n');
  return `line ${line}, column ${col}`;
}

function describeNode(value: unknown): string {
  if (typeof value === 'string') return 'scalar string (is this YAML at all?)';
  return jsonTypeName(value);
}

/** Copies a converted document into plain JSON values, dropping `null` members; rejects non-JSON values. */
function toJsonObject(value: JsonObject, path: string, depth: number): JsonObject {
  const out: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (key === '__proto__') reject(`${at}: the key "__proto__" is not allowed`);
    if (member === null || member === undefined) continue;
    out[key] = toJsonValue(member, at, depth + 1);
  }
  return out;
}

function toJsonValue(value: unknown, path: string, depth: number): unknown {
  if (depth > MAX_DEPTH) reject(`${path}: nested more than ${MAX_DEPTH} levels deep`);
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) reject(`${path}: ${String(value)} is not a JSON number`);
      return value;
    case 'object':
      if (value === null) return null;
      if (Array.isArray(value)) return value.map((item: unknown, i) => toJsonValue(item, `${path}[${i}]`, depth + 1));
      if (Object.getPrototypeOf(value) === Object.prototype) return toJsonObject(value as JsonObject, path, depth);
      return reject(`${path}: unsupported YAML value (${value.constructor.name}): only mappings, sequences and scalars map to JSON`);
    default:
      return reject(`${path}: unsupported YAML value (${typeof value})`);
  }
}
