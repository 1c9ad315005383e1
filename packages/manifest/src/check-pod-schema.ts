import { isJsonObject, jsonTypeName, type JsonObject } from './json-object.js';
import { GO_SCALAR_VALUE_FIELDS, GO_STRING_VALUE_FIELDS, GO_STRUCT_VALUE_FIELDS } from './go-value-fields.generated.js';
import { POD_SCHEMA_TYPES } from './pod-schema.generated.js';
import { isQuantity } from './quantity.js';

/** At most this many problems are reported for one object; the rest are summarised. */
const MAX_PROBLEMS = 10;

/**
 * Checks a decoded object against the v1 field tree of `type` (`Pod` or `PodList`), like
 * `kubectl --validate=strict` and the API's strict decoding: unknown fields and values of the wrong
 * JSON type are errors. Returns the problems (empty when the object fits); messages name field paths
 * and types, never values. Quantities written as JSON numbers (`cpu: 1`) are rewritten in place as
 * strings (`"1"`), the type the API serializes them as, so `1` and `"1"` decode (and hash) alike. An
 * empty string or object where the API's Go type holds a string or struct value, not a pointer (`workingDir:
 * ""`, `resources: {}`), is dropped: decoded into the API types it is the zero value, the same as no field, so
 * the kubelet sees no change when one comes or goes, and neither should the merger.
 */
export function checkPodSchema(value: JsonObject, type: 'Pod' | 'PodList'): string[] {
  const problems: string[] = [];
  checkObject(value, type, '', problems);
  if (problems.length > MAX_PROBLEMS) {
    const more = problems.length - MAX_PROBLEMS;
    return [...problems.slice(0, MAX_PROBLEMS), `and ${more} more`];
  }
  return problems;
}

function checkObject(value: JsonObject, type: string, path: string, problems: string[]): void {
  const fields = POD_SCHEMA_TYPES[type];
  if (fields === undefined) throw new Error(`no type ${type} in the pod schema`);
  const strings = GO_STRING_VALUE_FIELDS[type];
  const scalars = GO_SCALAR_VALUE_FIELDS[type];
  const structs = GO_STRUCT_VALUE_FIELDS[type];
  for (const [key, member] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    const code = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (code === undefined) {
      problems.push(`unknown field "${at}"`);
      continue;
    }
    const decoded = checkValue(member, code, at, problems);
    if (isGoZeroValue(decoded, key, strings, scalars, structs)) {
      delete value[key];
    } else if (decoded !== member) value[key] = decoded;
  }
}

/**
 * For a string field that got a boolean or a number: YAML's unquoted `yes`, `n`, `on`, `8080` are not strings
 * (go-yaml v2 reads the YAML 1.1 booleans), which surprises people writing label values and env values.
 */
function quoteHint(value: unknown): string {
  if (typeof value === 'boolean') return ' (unquoted, true, false, yes, no, on, off, y and n are booleans in YAML: quote the value)';
  if (typeof value === 'number') return ' (an unquoted number is a number in YAML: quote the value)';
  return '';
}

/** Checks one value; returns it, or its replacement (a number quantity becomes a string). */
function checkValue(value: unknown, code: string, path: string, problems: string[]): unknown {
  if (code.startsWith('[]')) {
    if (!Array.isArray(value)) return fail(problems, `${path}: must be an array, got ${jsonTypeName(value)}`, value);
    value.forEach((item: unknown, i) => {
      const decoded = checkValue(item, code.slice(2), `${path}[${i}]`, problems);
      if (decoded !== item) value[i] = decoded;
    });
    return value;
  }
  if (code.startsWith('{}')) {
    if (!isJsonObject(value)) return fail(problems, `${path}: must be an object (a map), got ${jsonTypeName(value)}`, value);
    for (const [key, member] of Object.entries(value)) {
      const decoded = checkValue(member, code.slice(2), `${path}[${JSON.stringify(key)}]`, problems);
      if (decoded !== member) value[key] = decoded;
    }
    return value;
  }
  switch (code) {
    case 's':
    case 't':
      return typeof value === 'string' ? value : fail(problems, `${path}: must be a string, got ${jsonTypeName(value)}${quoteHint(value)}`, value);
    case 'i':
      return Number.isSafeInteger(value) ? value : fail(problems, `${path}: must be an integer, got ${describeNumberish(value)}`, value);
    case 'n':
      return typeof value === 'number' ? value : fail(problems, `${path}: must be a number, got ${jsonTypeName(value)}`, value);
    case 'b':
      return typeof value === 'boolean' ? value : fail(problems, `${path}: must be a boolean, got ${jsonTypeName(value)}`, value);
    case 'x':
      return typeof value === 'string' || Number.isSafeInteger(value)
        ? value
        : fail(problems, `${path}: must be an integer or a string, got ${describeNumberish(value)}`, value);
    case 'q':
      if (typeof value !== 'number' && typeof value !== 'string') {
        return fail(problems, `${path}: must be a quantity (a string or a number), got ${jsonTypeName(value)}`, value);
      }
      if (!isQuantity(value)) {
        return fail(problems, `${path}: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`, value);
      }
      return String(value);
    case 'a':
      return value;
    default:
      if (!isJsonObject(value)) return fail(problems, `${path}: must be an object, got ${jsonTypeName(value)}`, value);
      checkObject(value, code, path, problems);
      return value;
  }
}

function fail(problems: string[], problem: string, value: unknown): unknown {
  problems.push(problem);
  return value;
}

function describeNumberish(value: unknown): string {
  return typeof value === 'number' ? 'a non-integer number' : jsonTypeName(value);
}

/**
 * A member that decodes to its Go field's zero value, the same as no member to the kubelet (its pods are Go structs):
 * `""` of a string value, `false` or `0` of a bool or number value, `{}` of a struct value; never of a pointer field.
 */
function isGoZeroValue(
  decoded: unknown, key: string, strings: readonly string[] | undefined, scalars: readonly string[] | undefined, structs: readonly string[] | undefined,
): boolean {
  if (decoded === '') return strings?.includes(key) === true;
  if (decoded === false || decoded === 0) return scalars?.includes(key) === true;
  return isJsonObject(decoded) && Object.keys(decoded).length === 0 && structs?.includes(key) === true;
}
