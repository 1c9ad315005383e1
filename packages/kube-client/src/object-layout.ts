import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE, sameBytes } from './json-bytes.js';

const METADATA = Buffer.from('metadata');
const SPEC = Buffer.from('spec');
const MANAGED_FIELDS = Buffer.from('managedFields');

/** A byte range [start, end) of a line. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * Where two parts of an object's compact JSON are in its line. Every layout has all three members (one
 * V8 hidden class for all of them: they are read on every walked watch event).
 */
export interface ObjectLayout {
  /** `metadata.managedFields` with the comma that joins it to its neighbour: cut it and the rest still parses. */
  readonly managedFields: ByteRange | undefined;
  /** The value of the top-level `spec` (an object). */
  readonly spec: ByteRange | undefined;
  /**
   * The `spec` range was not scanned but taken from the `specLength` given: right only if its bytes are
   * those of a complete value seen before (the caller compares their digest), else read the layout again
   * without it.
   */
  readonly specAssumed: boolean;
}

/**
 * Finds `metadata.managedFields` and `spec` in the compact JSON object that starts at `at` (its `{`) and
 * ends before `end`, by walking its members and skipping their values byte by byte (strings with their
 * escapes, nested objects and arrays by depth), never decoding them; it stops at `spec`. `metadata` laid
 * out as the API server writes it is found by a search instead ({@link searchMetadata}), and so is the end
 * of a Pod's `spec` when `specBeforeStatus` ({@link searchSpecEnd}: the caller checks that range). With
 * `specLength` (the length of this object's `spec` last time) and bytes that fit it, `spec` is assumed
 * rather than scanned. Returns `undefined` when the bytes are not laid out as compact JSON members
 * (whitespace, a truncated value): the caller then parses the whole line, which says what is wrong with it.
 */
export function readObjectLayout(buf: Buffer, at: number, end: number, specLength?: number, specBeforeStatus = false): ObjectLayout | undefined {
  if (buf[at] !== OPEN_BRACE || buf[end - 1] !== CLOSE_BRACE) return undefined;
  const last = end - 1;
  let managedFields: ByteRange | undefined;
  let i = at + 1;
  if (i === last) return layout(undefined, undefined, false);
  for (;;) {
    const keyEnd = keyEndAt(buf, i, last);
    if (keyEnd < 0) return undefined;
    const valueStart = keyEnd + 2;
    if (sameBytes(buf, i + 1, keyEnd, SPEC) && buf[valueStart] === OPEN_BRACE) {
      if (specLength !== undefined) {
        const assumedEnd = valueStart + specLength;
        if (assumedEnd <= last && buf[assumedEnd - 1] === CLOSE_BRACE && (assumedEnd === last || buf[assumedEnd] === COMMA)) {
          return layout(managedFields, { start: valueStart, end: assumedEnd }, true);
        }
      }
      const found = specBeforeStatus ? searchSpecEnd(buf, valueStart, last) : -1;
      const valueEnd = found < 0 ? valueEndAt(buf, valueStart, last) : found;
      if (valueEnd < 0 || (valueEnd !== last && buf[valueEnd] !== COMMA)) return undefined;
      return layout(managedFields, { start: valueStart, end: valueEnd }, false); // status, after it, is not needed
    }
    let valueEnd: number;
    if (sameBytes(buf, i + 1, keyEnd, METADATA) && buf[valueStart] === OPEN_BRACE) {
      const metadata = searchMetadata(buf, valueStart, last) ?? readMetadata(buf, valueStart, last);
      if (metadata === undefined) return undefined;
      managedFields = metadata.managedFields;
      valueEnd = metadata.end;
    } else {
      valueEnd = valueEndAt(buf, valueStart, last);
    }
    if (valueEnd < 0) return undefined;
    if (valueEnd === last) break;
    if (buf[valueEnd] !== COMMA) return undefined;
    i = valueEnd + 1;
  }
  return layout(managedFields, undefined, false);
}

const layout = (managedFields: ByteRange | undefined, spec: ByteRange | undefined, specAssumed: boolean): ObjectLayout =>
  ({ managedFields, spec, specAssumed });

const SPEC_MEMBER = Buffer.from(',"spec":{');
const MANAGED_FIELDS_MEMBER = Buffer.from(',"managedFields":[');

/**
 * `metadata`'s object at `at` as the API server writes an ObjectMeta, found with three native searches
 * instead of a walk over its bytes (most of them `managedFields`; the walk was ~6 % of a 5,000-pod watch's
 * time): `managedFields` is its last member (Go's field order), and the object's `spec` follows it:
 * `…,"managedFields":[…]},"spec":{`. ObjectMeta has no `spec` key at any depth (managedFields' field sets
 * spell theirs `f:spec`), and a string cannot hold these bytes (its quotes are escaped), so the first
 * `,"spec":{` after `at` closes the metadata, and the last `,"managedFields":[` before it opens its last
 * member (searched backwards: measured faster than forwards). A ManagedFieldsEntry holds no array, so the
 * first `]` after that one must be the one before metadata's `}`: in a valid line the cut is then exactly
 * that member, whatever follows it. Undefined when the bytes are not laid out so (a `]` in a managedFields
 * string, say): the caller walks them.
 *
 * What a search can still misread the decoder checks in the parsed object (see scanned-watch-event's
 * `parseTrimmed`): that its spec is the marker put in place of the cut one, that metadata has no
 * managedFields left, and that metadata is the member right before the spec (a member between them that
 * ended in a managedFields array would have lost that instead). Not checked: the bytes inside the cut
 * managedFields, which are never parsed; and one layout that only repeated top-level keys make, a `spec`
 * that is not an object before such a member, then the spec (searching for the first `"spec":` key as well
 * cost ~1 µs a line).
 */
function searchMetadata(buf: Buffer, at: number, end: number): { end: number; managedFields: ByteRange } | undefined {
  const spec = buf.indexOf(SPEC_MEMBER, at);
  if (spec < 0 || spec >= end || buf[spec - 1] !== CLOSE_BRACE || buf[spec - 2] !== CLOSE_BRACKET) return undefined;
  const managedFields = buf.lastIndexOf(MANAGED_FIELDS_MEMBER, spec);
  if (managedFields <= at) return undefined;
  // A ManagedFieldsEntry holds no array: the first `]` after the one that opens managedFields closes it, right
  // before metadata's `}`. Otherwise (a member after it, or a `]` in a string) the bytes are walked.
  if (buf.indexOf(CLOSE_BRACKET, managedFields + MANAGED_FIELDS_MEMBER.length) !== spec - 2) return undefined;
  return { end: spec, managedFields: { start: managedFields, end: spec - 1 } };
}

const STATUS_MEMBER = Buffer.from('},"status":{');

/**
 * The end of the `spec` object at `at` in a Pod as the API server writes it, found with a native search
 * instead of a walk over its bytes (6.6 µs a pod of a 50,000-pod initial set, ~5 % of it): the Pod's
 * members are those of its Go type in their order (`kind`, `apiVersion`, `metadata`, `spec`, `status`),
 * so `status` follows `spec`, and PodSpec has no `status` key holding an object. As in
 * {@link searchMetadata}, a string cannot hold these bytes. -1 when they are not there: the caller walks.
 *
 * Not checked here that the range is exactly the spec: a `status` object nested in it (an ephemeral
 * volume's claim template can hold one in its managedFields) ends it early, a producer that wrote other
 * members after `spec`, or after the watch event's `object`, ends it late. The decoder parses a range it
 * has not seen before on its own, which fails unless the range is exactly one JSON value, and otherwise
 * parses the whole line.
 */
function searchSpecEnd(buf: Buffer, at: number, end: number): number {
  const status = buf.indexOf(STATUS_MEMBER, at);
  return status < 0 || status >= end ? -1 : status + 1;
}

/** `metadata`'s object at `at`: where it ends, and its `managedFields` member (walked, not decoded). */
function readMetadata(buf: Buffer, at: number, end: number): { end: number; managedFields: ByteRange | undefined } | undefined {
  let managedFields: ByteRange | undefined;
  let i = at + 1;
  if (buf[i] === CLOSE_BRACE) return { end: i + 1, managedFields };
  for (;;) {
    const keyEnd = keyEndAt(buf, i, end);
    if (keyEnd < 0) return undefined;
    const valueEnd = valueEndAt(buf, keyEnd + 2, end);
    if (valueEnd < 0 || valueEnd >= end) return undefined;
    if (sameBytes(buf, i + 1, keyEnd, MANAGED_FIELDS)) {
      // The member with the comma before it, or (the first member) with the comma after it.
      managedFields = buf[i - 1] === COMMA
        ? { start: i - 1, end: valueEnd }
        : { start: i, end: buf[valueEnd] === COMMA ? valueEnd + 1 : valueEnd };
    }
    if (buf[valueEnd] === CLOSE_BRACE) return { end: valueEnd + 1, managedFields };
    if (buf[valueEnd] !== COMMA) return undefined;
    i = valueEnd + 1;
  }
}

/** `"key":` at `at`: the index of the key's closing quote (the colon follows it); -1 when it is not there. */
function keyEndAt(buf: Buffer, at: number, end: number): number {
  if (buf[at] !== QUOTE) return -1;
  const close = stringEnd(buf, at + 1, end);
  return close < 0 || close + 1 >= end || buf[close + 1] !== COLON ? -1 : close;
}

/**
 * The index after the JSON value that starts at `at` (before `end`); -1 when it does not end there.
 * One loop with strings skipped inline: this runs over most bytes of every watch event it is used on.
 */
function valueEndAt(buf: Buffer, at: number, end: number): number {
  const first = buf[at];
  if (first === QUOTE || first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    let i = at;
    while (i < end) {
      const byte = buf[i++];
      if (byte === QUOTE) {
        for (;;) {
          if (i >= end) return -1;
          const c = buf[i++];
          if (c === QUOTE) break;
          if (c === BACKSLASH) i++;
        }
        if (depth === 0) return i;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        depth++;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (--depth === 0) return i;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  for (let i = at; i < end; i++) {
    const byte = buf[i];
    if (byte === COMMA || byte === CLOSE_BRACE || byte === CLOSE_BRACKET) return i === at ? -1 : i;
  }
  return end === at ? -1 : end;
}

/** The index of the quote that closes a string whose content starts at `at`; -1 when none does before `end`. */
function stringEnd(buf: Buffer, at: number, end: number): number {
  for (let i = at; i < end; i++) {
    const byte = buf[i];
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH) i++;
  }
  return -1;
}

