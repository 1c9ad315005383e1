import { GoYamlError, parseGoYaml } from './go-yaml.js';
import { isJsonObject, jsonTypeName, type JsonObject } from './json-object.js';
import { jsonBudget, JSON_VALUE_COUNT_MIN_CHARS } from './json-token-budget.js';
import { lineAndColumn } from './line-and-column.js';
import { MAX_MANIFEST_BYTES } from './max-manifest-bytes.js';
import { reject, rejectNotAPod } from './rejection.js';
import { yamlBudget, YAML_TOKEN_COUNT_MIN_CHARS } from './yaml-token-budget.js';
import { MAX_NESTING_DEPTH } from './max-nesting-depth.js';


const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Steps 1 and 2 of the decoding pipeline: enforce the size cap, turn the bytes into text, and read
 * the first YAML document (JSON passes through) into a plain JSON object. `null` members are dropped,
 * as decoding into the API types does. Throws a `Rejection`.
 */
export function parseManifestDocument(data: Uint8Array | string): JsonObject {
  const size = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.byteLength;
  if (size > MAX_MANIFEST_BYTES) {
    rejectNotAPod(`manifest is ${size} bytes, more than the limit of ${MAX_MANIFEST_BYTES} bytes`, 'PODCONFIG_MANIFEST_TOO_LARGE');
  }
  const text = typeof data === 'string' ? data.replace(/^\uFEFF/, '') : decodeText(data);
  // eslint-disable-next-line no-control-regex -- looking for exactly these
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(text)) {
    rejectNotAPod('manifest contains control characters: binary data, not YAML or JSON');
  }
  if (text.trim() === '') rejectNotAPod('manifest is empty');

  const value = /^\s*\{/.test(text) ? parseJson(text) : parseFirstYamlDocument(text);
  if (value === null || value === undefined) rejectNotAPod('manifest is empty (the first YAML document has no content)');
  if (!isJsonObject(value)) rejectNotAPod(`manifest is not a mapping: the document is ${describeNode(value)}`);
  return toJsonObject(value, undefined, 0);
}

function decodeText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return rejectNotAPod('manifest is not valid UTF-8 text: binary data, not YAML or JSON');
  }
}

/**
 * Text that starts with `{` is JSON, and only JSON: the kubelet's converter (`utilyaml.ToJSON`) hands it to the
 * JSON decoder as it is, so `{a: 1}` or a trailing comma is an error there, not YAML flow style. A large text only
 * once its values are counted (json-token-budget.ts: decoding's memory grows with them, not with the bytes, and
 * 10 MiB of tiny members outgrew any heap the agent has, or made V8 abort the process).
 */
function parseJson(text: string): unknown {
  if (text.length >= JSON_VALUE_COUNT_MIN_CHARS) {
    const budget = jsonBudget(text);
    if (budget.kind === 'too-many-values') rejectNotAPod(budget.reason, 'PODCONFIG_MANIFEST_TOO_LARGE');
    if (budget.kind === 'too-deep') reject(budget.reason);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err: unknown) {
    // V8's words and position only: some of its messages quote the input, which may hold a secret.
    const found = /^(.*) in JSON at position (\d+)/.exec(err instanceof Error ? err.message : '');
    const position = found === null ? undefined : Number(found[2]);
    return reject(position === undefined ? 'invalid JSON' : `invalid JSON at ${lineAndColumn(text, position)}: ${found?.[1] ?? ''}`);
  }
}

/**
 * The first YAML document, as the kubelet's converter (`sigs.k8s.io/yaml`, go-yaml v2) reads it; a large text only
 * once its tokens are counted (yaml-token-budget.ts: the parse's memory grows with them, not with the bytes), and
 * then only its first document.
 */
function parseFirstYamlDocument(text: string): unknown {
  let first = text;
  if (text.length >= YAML_TOKEN_COUNT_MIN_CHARS) {
    const budget = yamlBudget(text);
    if (budget.kind === 'too-many-tokens') rejectNotAPod(budget.reason, 'PODCONFIG_MANIFEST_TOO_LARGE');
    if (budget.kind === 'too-deep') reject(budget.reason);
    first = text.slice(0, budget.firstDocumentEnd);
  }
  try {
    return parseGoYaml(first);
  } catch (err: unknown) {
    if (err instanceof GoYamlError) reject(err.message);
    throw err;
  }
}

/** What the document is, with its article: `a scalar string (…)`, `an array`, `a number`. */
function describeNode(value: unknown): string {
  if (typeof value === 'string') return 'a scalar string (is this YAML at all?)';
  const name = jsonTypeName(value);
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

/** Where a value sits in the document, for messages: made for containers only, and turned into text only to reject. */
interface Path {
  readonly parent: Path | undefined;
  readonly key: string | number;
}

/** `spec.containers[0].image`: the text of `parent`'s member `key` (the root is `undefined`). */
function pathText(parent: Path | undefined, key: string | number): string {
  const base = parent === undefined ? '' : pathText(parent.parent, parent.key);
  if (typeof key === 'number') return `${base}[${key}]`;
  return base === '' ? key : `${base}.${key}`;
}

/**
 * A converted document as plain JSON values, without `null` members; rejects non-JSON values. The converted
 * objects are fresh, so they are kept as they are: an object is copied only where a member is dropped or replaced.
 */
function toJsonObject(value: JsonObject, path: Path | undefined, depth: number): JsonObject {
  const keys = Object.keys(value);
  let out: JsonObject | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key === '__proto__') reject(`${pathText(path, key)}: the key "__proto__" is not allowed`);
    const member = value[key];
    if (member === null || member === undefined) {
      out ??= copyOf(value, keys, i);
      continue;
    }
    const json = toJsonValue(member, path, key, depth + 1);
    if (out === undefined && json !== member) out = copyOf(value, keys, i);
    if (out !== undefined) out[key] = json;
  }
  return out ?? value;
}

/** The first `count` members of `value`. */
function copyOf(value: JsonObject, keys: readonly string[], count: number): JsonObject {
  const out: JsonObject = {};
  for (let i = 0; i < count; i++) out[keys[i]!] = value[keys[i]!]!;
  return out;
}

function toJsonValue(value: unknown, parent: Path | undefined, key: string | number, depth: number): unknown {
  if (depth > MAX_NESTING_DEPTH) reject(`${pathText(parent, key)}: nested more than ${MAX_NESTING_DEPTH} levels deep`);
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) reject(`${pathText(parent, key)}: ${String(value)} is not a JSON number`);
      return value;
    case 'object': {
      if (value === null) return null;
      const path: Path = { parent, key };
      if (Array.isArray(value)) {
        let out: unknown[] | undefined;
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          const json = toJsonValue(item, path, i, depth + 1);
          if (out === undefined && json !== item) out = value.slice(0, i) as unknown[];
          if (out !== undefined) out.push(json);
        }
        return out ?? value;
      }
      if (Object.getPrototypeOf(value) === Object.prototype) return toJsonObject(value as JsonObject, path, depth);
      return reject(`${pathText(parent, key)}: unsupported YAML value (${value.constructor.name}): only mappings, sequences and scalars map to JSON`);
    }
    default:
      return reject(`${pathText(parent, key)}: unsupported YAML value (${typeof value})`);
  }
}
