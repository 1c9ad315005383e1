import { BACKSLASH, CLOSE_BRACE, COLON, COMMA, OPEN_BRACE, QUOTE, sameBytes } from './json-bytes.js';

/** What the start of a watch line says about its object, read without decoding the line. */
export interface WatchHead {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
}

const ENVELOPE = Buffer.from('{"type":"');
const OBJECT = Buffer.from(',"object":{');
/** The change types, as the head gives them (one string each, not one per line). */
const CHANGE_TYPES: readonly (readonly [Buffer, WatchHead['type']])[] = (['ADDED', 'MODIFIED', 'DELETED'] as const)
  .map((type) => [Buffer.from(type), type] as const);
// Keys are compared as bytes: only the values the head keeps become strings.
const KIND = Buffer.from('kind');
const METADATA = Buffer.from('metadata');
const NAME = Buffer.from('name');
const NAMESPACE = Buffer.from('namespace');
const RESOURCE_VERSION = Buffer.from('resourceVersion');

/**
 * Reads the head of a change event as the API server writes it, compact and in Go's field order:
 * `{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":…,"namespace":…,
 * "uid":…,"resourceVersion":…,` — the type, the object's `kind` (before `metadata`) and its
 * namespace, name and resourceVersion (in `metadata`, before its first value that is not a string).
 * Only plain strings are read (no escapes); anything else — another layout, BOOKMARK and ERROR
 * events, a cluster-scoped object — gives `undefined` and the line is decoded whole, as before.
 * A line not ending in `}` gives `undefined` too, so it is decoded (and refused) at once. A line holding
 * a second event (what a lost newline leaves) is not looked for here: decoding refuses it, and a line
 * dropped undecoded is checked for it then (`ScannedWatchEvent.discard()`).
 * Costs a few hundred bytes of scanning, against `JSON.parse` of the line.
 */
export function scanWatchHead(buf: Buffer, start: number, end: number): WatchHead | undefined {
  if (!startsWith(buf, start, end, ENVELOPE) || buf[end - 1] !== CLOSE_BRACE) return undefined;
  const typeStart = start + ENVELOPE.length;
  const typeEnd = plainStringEnd(buf, typeStart, end);
  if (typeEnd < 0) return undefined;
  const type = changeType(buf, typeStart, typeEnd);
  if (type === undefined || !startsWith(buf, typeEnd + 1, end, OBJECT)) return undefined;
  let at = typeEnd + 1 + OBJECT.length;
  let kind: string | undefined;
  // The object's members up to `metadata`: plain strings only (kind, apiVersion).
  for (;;) {
    const keyEnd = keyEndAt(buf, at, end);
    if (keyEnd < 0) return undefined;
    const keyStart = at + 1;
    at = keyEnd + 2;
    if (sameBytes(buf, keyStart, keyEnd, METADATA)) break;
    const valueEnd = plainValueEnd(buf, at, end);
    if (valueEnd < 0) return undefined;
    if (sameBytes(buf, keyStart, keyEnd, KIND)) kind = buf.toString('utf8', at + 1, valueEnd);
    at = valueEnd + 1;
    if (at >= end || buf[at] !== COMMA) return undefined;
    at++;
  }
  if (kind === undefined || at >= end || buf[at] !== OPEN_BRACE) return undefined;
  at++;
  let namespace: string | undefined;
  let name: string | undefined;
  let resourceVersion: string | undefined;
  // metadata's leading string members; stop once the three are known.
  for (;;) {
    const keyEnd = keyEndAt(buf, at, end);
    if (keyEnd < 0) return undefined;
    const keyStart = at + 1;
    const valueStart = keyEnd + 2;
    const valueEnd = plainValueEnd(buf, valueStart, end);
    if (valueEnd < 0) return undefined;
    if (sameBytes(buf, keyStart, keyEnd, NAME)) name = buf.toString('utf8', valueStart + 1, valueEnd);
    else if (sameBytes(buf, keyStart, keyEnd, NAMESPACE)) namespace = buf.toString('utf8', valueStart + 1, valueEnd);
    else if (sameBytes(buf, keyStart, keyEnd, RESOURCE_VERSION)) resourceVersion = buf.toString('utf8', valueStart + 1, valueEnd);
    if (name !== undefined && namespace !== undefined && resourceVersion !== undefined) return { type, kind, namespace, name, resourceVersion };
    at = valueEnd + 1;
    if (at >= end || buf[at] !== COMMA) return undefined;
    at++;
  }
}

function changeType(buf: Buffer, start: number, end: number): WatchHead['type'] | undefined {
  for (const [bytes, type] of CHANGE_TYPES) if (sameBytes(buf, start, end, bytes)) return type;
  return undefined;
}

function startsWith(buf: Buffer, at: number, end: number, prefix: Buffer): boolean {
  return at + prefix.length <= end && sameBytes(buf, at, at + prefix.length, prefix);
}

/** The index of the quote closing a string whose content starts at `at`; -1 for an escape or no quote. */
function plainStringEnd(buf: Buffer, at: number, end: number): number {
  for (let i = at; i < end; i++) {
    const byte = buf[i];
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH) return -1;
  }
  return -1;
}

/** `"key":` at `at` (a key without escapes): the index of its closing quote (the colon follows it); -1 when it is not there. */
function keyEndAt(buf: Buffer, at: number, end: number): number {
  if (at >= end || buf[at] !== QUOTE) return -1;
  const close = plainStringEnd(buf, at + 1, end);
  return close < 0 || close + 1 >= end || buf[close + 1] !== COLON ? -1 : close;
}

/** A string value without escapes at `at`: the index of its closing quote; -1 when it is not one. */
function plainValueEnd(buf: Buffer, at: number, end: number): number {
  if (at >= end || buf[at] !== QUOTE) return -1;
  return plainStringEnd(buf, at + 1, end);
}
