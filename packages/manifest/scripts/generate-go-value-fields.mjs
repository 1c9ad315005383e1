#!/usr/bin/env node
// Generates src/go-value-fields.generated.ts: for each object type of the pod schema, the JSON fields whose Go
// type (k8s.io/api/core/v1, k8s.io/apimachinery meta/v1) is a value, not a pointer: a string (or a named string
// type), a bool or a number that Go's JSON omits at zero (omitempty), or a struct. Decoded into the API types, an
// empty string, false, 0 or an empty object there is the zero value, the same as no field at all, which is how the
// kubelet compares pods; the OpenAPI document (and so the client-node metadata the schema comes from) does not tell
// values from pointers, the Go sources do.
//
//   node scripts/generate-go-value-fields.mjs [GO_SRC]
//
// GO_SRC is a GOPATH src directory holding k8s.io/api and k8s.io/apimachinery; default: the one the real API
// server tool (../shared/realapi) extracts from Debian's golang-k8s-api-dev and golang-k8s-apimachinery-dev.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const goSrc = process.argv[2] ?? '/opt/realapi/root/usr/share/gocode/src';
const target = join(here, '..', 'src', 'go-value-fields.generated.ts');
const files = [
  join(goSrc, 'k8s.io/api/core/v1/types.go'),
  join(goSrc, 'k8s.io/apimachinery/pkg/apis/meta/v1/types.go'),
  join(goSrc, 'k8s.io/apimachinery/pkg/types/uid.go'),
];
const { POD_SCHEMA_TYPES } = await import(pathToFileURL(join(here, '..', 'dist', 'pod-schema.generated.js')).href);

const GO_SCALARS = new Set(['string', 'bool', 'int', 'int32', 'int64', 'uint', 'uint32', 'uint64', 'float32', 'float64', 'byte']);
/** Named types: `type PullPolicy string` → 'string'. */
const named = new Map();
/** Structs: name → [{ json, goType, inline }]. */
const structs = new Map();

for (const file of files) {
  const text = await readFile(file, 'utf8');
  for (const m of text.matchAll(/^type (\w+) (\w+)\s*$/gm)) named.set(m[1], m[2]);
  for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
    const fields = [];
    for (const line of m[2].split('\n')) {
      const field = /^\t(?:(\w+)\s+)?([*\w.[\]]+)\s+`json:"([^"]*)"/.exec(line);
      if (field === null) continue;
      const [, name, goType, tag] = field;
      const [json, ...opts] = tag.split(',');
      if (json === '-') continue;
      fields.push({
        json: json === '' ? (name ?? goType) : json, goType, inline: opts.includes('inline') || (name === undefined && json === ''),
        omitempty: opts.includes('omitempty'),
      });
    }
    structs.set(m[1], fields);
  }
}

/** The kind of a Go type: 'pointer', 'slice', 'map', 'string', 'scalar', 'struct' or 'other'. */
function kind(goType) {
  if (goType.startsWith('*')) return 'pointer';
  if (goType.startsWith('[]')) return 'slice';
  if (goType.startsWith('map[')) return 'map';
  const base = goType.replace(/^\w+\./, '');
  if (base === 'string') return 'string';
  if (GO_SCALARS.has(base)) return 'scalar';
  if (named.has(base)) return named.get(base) === 'string' ? 'string' : GO_SCALARS.has(named.get(base)) ? 'scalar' : 'other';
  // metav1.Time and intstr.IntOrString marshal as scalars: not plain structs.
  if (base === 'Time' || base === 'MicroTime' || base === 'IntOrString' || base === 'Quantity') return 'other';
  if (structs.has(base)) return 'struct';
  return 'other';
}

/** JSON field → kind, inline members flattened. */
function fieldsOf(structName, seen = new Set()) {
  const out = new Map();
  if (seen.has(structName)) return out;
  seen.add(structName);
  for (const f of structs.get(structName) ?? []) {
    if (f.inline) {
      for (const [k, v] of fieldsOf(f.goType.replace(/^\w+\./, ''), seen)) out.set(k, v);
    } else {
      // A bool or number without omitempty is written even at its zero value (a required field: `port: 0`):
      // it stays, as the kubelet's own JSON of the pod has it.
      const k = kind(f.goType);
      out.set(f.json, k === 'scalar' && !f.omitempty ? 'required-scalar' : k);
    }
  }
  return out;
}

/** Schema names that differ from the Go struct's name (client-node prefixes clashing ones). */
const GO_NAME = { CoreV1ResourceClaim: 'ResourceClaim' };

const strings = {};
const scalars = {};
const objects = {};
for (const [type, schemaFields] of Object.entries(POD_SCHEMA_TYPES).sort(([a], [b]) => a.localeCompare(b))) {
  const goName = GO_NAME[type] ?? type;
  if (!structs.has(goName)) throw new Error(`no Go struct ${goName} for schema type ${type}`);
  const go = fieldsOf(goName);
  const s = [];
  const n = [];
  const o = [];
  for (const field of Object.keys(schemaFields).sort()) {
    const k = go.get(field);
    if (k === 'string') s.push(field);
    else if (k === 'scalar') n.push(field);
    else if (k === 'struct') o.push(field);
  }
  if (s.length > 0) strings[type] = s;
  if (n.length > 0) scalars[type] = n;
  if (o.length > 0) objects[type] = o;
}

const list = (table) =>
  Object.entries(table).map(([type, fields]) => `  ${type}: [${fields.map((f) => `'${f}'`).join(', ')}],`).join('\n');
const out = `// Code generated by scripts/generate-go-value-fields.mjs. DO NOT EDIT.
// Source: k8s.io/api core/v1 and k8s.io/apimachinery meta/v1 types.go (Debian golang-k8s-api-dev 0.36.4).

/** Fields whose Go type is a string value (not a pointer): \`""\` there is the zero value, the same as no field. */
export const GO_STRING_VALUE_FIELDS: Readonly<Record<string, readonly string[]>> = {
${list(strings)}
};

/** Fields whose Go type is a bool or number value (not a pointer) marked omitempty: \`false\` or \`0\` there is the zero value, the same as no field. */
export const GO_SCALAR_VALUE_FIELDS: Readonly<Record<string, readonly string[]>> = {
${list(scalars)}
};

/** Fields whose Go type is a struct value (not a pointer): \`{}\` there is the zero value, the same as no field. */
export const GO_STRUCT_VALUE_FIELDS: Readonly<Record<string, readonly string[]>> = {
${list(objects)}
};
`;
await writeFile(target, out);
console.log(`wrote ${target}: ${Object.values(strings).flat().length} string fields, ${Object.values(scalars).flat().length} bool and number fields, ${Object.values(objects).flat().length} struct fields`);
