import { BACKSLASH, CLOSE_BRACE, COLON, COMMA, OPEN_BRACE, QUOTE } from './json-bytes.js';

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
/** Compact JSON has `}{` nowhere, not even in strings (their quotes are escaped): two events on one line. */
const NEXT_EVENT = Buffer.from('}{"type":"');
const CHANGE_TYPES: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED']);

/**
 * Reads the head of a change event as the API server writes it, compact and in Go's field order:
 * `{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":…,"namespace":…,
 * "uid":…,"resourceVersion":…,` — the type, the object's `kind` (before `metadata`) and its
 * namespace, name and resourceVersion (in `metadata`, before its first value that is not a string).
 * Only plain strings are read (no escapes); anything else — another layout, BOOKMARK and ERROR
 * events, a cluster-scoped object — gives `undefined` and the line is decoded whole, as before.
 * A line that cannot be one event — not ending in `}`, or holding a second event (`}{"type":"`, what a
 * lost newline leaves) — gives `undefined` too, so it is decoded (and refused) at once, never dropped
 * undecoded behind a later change: a replaced line is checked this far, and no further.
 * Costs a few hundred bytes of scanning and one native search of the line, against `JSON.parse` of it.
 */
export function scanWatchHead(buf: Buffer, start: number, end: number): WatchHead | undefined {
  if (!startsWith(buf, start, end, ENVELOPE) || buf[end - 1] !== CLOSE_BRACE) return undefined;
  const typeEnd = plainStringEnd(buf, start + ENVELOPE.length, end);
  if (typeEnd < 0) return undefined;
  const type = buf.toString('latin1', start + ENVELOPE.length, typeEnd);
  if (!CHANGE_TYPES.has(type) || !startsWith(buf, typeEnd + 1, end, OBJECT)) return undefined;
  let at = typeEnd + 1 + OBJECT.length;
  let kind: string | undefined;
  // The object's members up to `metadata`: plain strings only (kind, apiVersion).
  for (;;) {
    const key = readKey(buf, at, end);
    if (key === undefined) return undefined;
    at = key.next;
    if (key.name === 'metadata') break;
    const value = readPlainString(buf, at, end);
    if (value === undefined) return undefined;
    if (key.name === 'kind') kind = value.text;
    at = value.next;
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
    const key = readKey(buf, at, end);
    if (key === undefined) return undefined;
    const value = readPlainString(buf, key.next, end);
    if (value === undefined) return undefined;
    if (key.name === 'name') name = value.text;
    else if (key.name === 'namespace') namespace = value.text;
    else if (key.name === 'resourceVersion') resourceVersion = value.text;
    if (name !== undefined && namespace !== undefined && resourceVersion !== undefined) {
      // Searched last: only lines with a head pay for it.
      if (buf.subarray(start, end).includes(NEXT_EVENT)) return undefined;
      return { type: type as WatchHead['type'], kind, namespace, name, resourceVersion };
    }
    at = value.next;
    if (at >= end || buf[at] !== COMMA) return undefined;
    at++;
  }
}

function startsWith(buf: Buffer, at: number, end: number, prefix: Buffer): boolean {
  if (at + prefix.length > end) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[at + i] !== prefix[i]) return false;
  return true;
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

/** `"key":` at `at` → the key and the index after the colon. */
function readKey(buf: Buffer, at: number, end: number): { name: string; next: number } | undefined {
  if (at >= end || buf[at] !== QUOTE) return undefined;
  const close = plainStringEnd(buf, at + 1, end);
  if (close < 0 || close + 1 >= end || buf[close + 1] !== COLON) return undefined;
  return { name: buf.toString('latin1', at + 1, close), next: close + 2 };
}

/** A string value without escapes at `at` → its text (UTF-8) and the index after it. */
function readPlainString(buf: Buffer, at: number, end: number): { text: string; next: number } | undefined {
  if (at >= end || buf[at] !== QUOTE) return undefined;
  const close = plainStringEnd(buf, at + 1, end);
  if (close < 0) return undefined;
  return { text: buf.toString('utf8', at + 1, close), next: close + 1 };
}
