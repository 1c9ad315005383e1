import { hash, randomBytes } from 'node:crypto';
import { jsonEqual, PodConfigError, stripManagedFields } from '@podconfig/core';
import { readObjectLayout, type ByteRange } from './object-layout.js';
import type { DecodedSpec, SpecBytes, WatchDecodeOptions } from './watch-decode-options.js';
import type { WatchHead } from './watch-head.js';

/** `{"type":"` and `","object":` around the type in the head's layout: the object's `{` follows them. */
const OBJECT_OFFSET = '{"type":"'.length + '","object":'.length;

const NO_OPTIONS: WatchDecodeOptions = {};

/**
 * While the spec memo holds fewer objects than this, an object's first line is parsed whole (a node's
 * initial set, on a cold runtime) and its spec remembered without a digest; its later lines are walked,
 * the first of them comparing its parsed spec with the remembered one. From this many on, first sights
 * are walked too, so that their next changes find a digest. A node's pods (the kubelet's default cap is
 * 110) stay below it.
 */
export const WALK_FROM = 1000;

/**
 * A process's first this many changes of objects in a small set are parsed whole too: until V8 has
 * compiled the walk it runs several times slower than `JSON.parse`, and right after the first set the
 * rest of the change path is cold as well. Walking from the first change made the first 20–90 changes
 * at 2,000 events/s queue behind each other (over 5 ms); from the 500th, the walk warms up alone.
 */
export const COLD_CHANGES = 500;

let coldChangesLeft = COLD_CHANGES;

/** True for each of the process's first {@link COLD_CHANGES} calls. */
function coldChange(): boolean {
  if (coldChangesLeft === 0) return false;
  coldChangesLeft--;
  return true;
}

/**
 * A change event of a watch stream read only as far as its {@link WatchHead}: `decodeObject()` parses
 * the line when (and if) someone needs the object. A consumer that coalesces changes per object (the
 * cache's Reflector) never decodes an event superseded by a later one of the same object.
 *
 * Holds the line's bytes (a view of the chunk they came in) until it is decoded or discarded.
 */
export class ScannedWatchEvent {
  readonly type: WatchHead['type'];
  readonly head: WatchHead;
  #bytes: Buffer | undefined;
  readonly #line: number;
  readonly #describe: string;
  readonly #options: WatchDecodeOptions;
  #object: Record<string, unknown> | undefined;
  #error: PodConfigError | undefined;

  constructor(head: WatchHead, bytes: Buffer, line: number, describe: string, options: WatchDecodeOptions = NO_OPTIONS) {
    this.type = head.type;
    this.head = head;
    this.#bytes = bytes;
    this.#line = line;
    this.#describe = describe;
    this.#options = options;
  }

  /**
   * The event's object, parsed once. Throws `PODCONFIG_WATCH_DECODE` (naming the watch and the line,
   * never quoting it) when the line is not JSON or its object is not what the head said.
   */
  decodeObject(): Record<string, unknown> {
    if (this.#object !== undefined) return this.#object;
    if (this.#error !== undefined) throw this.#error;
    const bytes = this.#bytes ?? Buffer.alloc(0);
    this.#bytes = undefined;
    const head = this.head;
    const { dropManagedFields = false, specMemo } = this.#options;
    const key = specMemo === undefined ? undefined : `${head.namespace}/${head.name}`;
    const remembered = key === undefined ? undefined : specMemo?.get(key);
    // A first sight in a small set is parsed whole: there the walk saves little, and until the process
    // is warm it runs several times slower than the native parse (a node's initial set, cold). A change
    // is walked (after COLD_CHANGES): parsing its spec again and comparing it cost more than the walk once
    // warm (at 2,000 events/s, walking them took 13 % off the busy time). A big set walks first sights
    // too (cluster-wide, most changes are an object's second version, which then finds a digest).
    const small = specMemo === undefined || specMemo.size < WALK_FROM;
    const whole = small && (remembered === undefined || coldChange());
    let trimmed = whole ? undefined : this.#trimmed(bytes, remembered);
    // False for a line whose object ends up with another spec than the one cut from it: it neither uses
    // nor fills the memo.
    let sameSpec = true;
    let event: unknown;
    if (trimmed !== undefined) {
      const parsed = parseTrimmed(trimmed);
      if (parsed === NOT_JSON || parsed === OTHER_SPEC) {
        // Cut bytes cannot make a good line bad, but a misread spec range does not parse on its own: the
        // whole line is parsed, and says what is wrong with it if anything is. Another spec: see parseTrimmed.
        sameSpec = parsed === NOT_JSON;
        trimmed = undefined;
      } else event = parsed;
    }
    if (trimmed === undefined) event = this.#parseWhole(bytes);
    const decoded = isRecord(event) ? event.object : undefined;
    const metadata = isRecord(decoded) ? decoded.metadata : undefined;
    if (
      !isRecord(event) ||
      event.type !== head.type ||
      !isRecord(decoded) ||
      decoded.kind !== head.kind ||
      !isRecord(metadata) ||
      metadata.name !== head.name ||
      metadata.namespace !== head.namespace ||
      metadata.resourceVersion !== head.resourceVersion
    ) {
      throw this.#bad('decodes to something other than its head (duplicate keys?)');
    }
    // After a cut too: a key spelled with an escape is not found by the byte searches (a no-op otherwise).
    const object = dropManagedFields ? stripManagedFields(decoded) : decoded;
    try {
      this.#settleSpec(object, trimmed, remembered, key, sameSpec);
    } catch (err: unknown) {
      // JSON.parse takes any depth; a comparison that recurses does not (a spec nested thousands deep).
      if (err instanceof RangeError) throw this.#bad('nests too deeply to compare its spec');
      throw err;
    }
    this.#object = object;
    return object;
  }

  /**
   * The event will not be decoded (a later change of its object replaced it): lets go of its bytes. Throws
   * `PODCONFIG_WATCH_DECODE` when the line holds a second event (`}{"type":"`: what a lost newline leaves),
   * whose change — maybe another object's — would otherwise be lost unseen. Decoding refuses such a line
   * anyway (it is not one JSON value), so only a dropped line needs the search.
   */
  discard(): void {
    const bytes = this.#bytes;
    if (bytes === undefined) return;
    this.#bytes = undefined;
    if (bytes.includes(NEXT_EVENT)) throw this.#bad('holds more than one event (a lost newline?)');
  }

  /**
   * Puts the remembered spec in place when this one is unchanged — said by the digest of its bytes
   * (`trimmed.reused`), or, when no digest is remembered, by comparing the parsed spec with it — then
   * remembers what the next change needs: the spec, with this line's digest when the line was walked.
   * DELETED forgets the object. A line whose object has another spec than the one cut from it (`sameSpec`
   * false: two `spec` keys) neither uses nor fills the memo.
   */
  #settleSpec(object: Record<string, unknown>, trimmed: Trimmed | undefined, remembered: DecodedSpec | undefined, key: string | undefined, sameSpec: boolean): void {
    // Not when both are undefined: an object without a spec must not get a `spec` member.
    if (sameSpec && remembered !== undefined && object.spec !== remembered.spec &&
      (trimmed?.reused === true || (remembered.bytes === undefined && jsonEqual(object.spec, remembered.spec)))) {
      object.spec = remembered.spec;
    }
    const memo = this.#options.specMemo;
    if (memo === undefined || key === undefined) return;
    if (this.head.type === 'DELETED') memo.delete(key);
    else if (!sameSpec) return;
    else if (trimmed === undefined) {
      if (object.spec !== remembered?.spec) memo.set(key, { spec: object.spec });
    } else if (!trimmed.reused && trimmed.specBytes !== undefined) memo.set(key, { bytes: trimmed.specBytes, spec: object.spec });
  }

  /**
   * The line as text without the bytes it need not parse together: `metadata.managedFields` (when
   * dropped) cut out, and the top-level `spec` replaced by `null`. A spec whose bytes have the digest of
   * the remembered one is not parsed at all (`reused`); another is parsed on its own (`specText`), which
   * also proves that its range is exactly one JSON value. `specBytes`: the spec's digest and length.
   * Undefined when the object's layout cannot be read: the whole line is parsed.
   */
  #trimmed(bytes: Buffer, remembered: DecodedSpec | undefined): Trimmed | undefined {
    const objectAt = OBJECT_OFFSET + this.head.type.length;
    const objectEnd = bytes.length - 1;
    const pod = this.head.kind === 'Pod';
    let layout = readObjectLayout(bytes, objectAt, objectEnd, remembered?.bytes?.length, pod);
    if (layout === undefined) return undefined;
    let digest = layout.spec === undefined ? undefined : specDigest(bytes, layout.spec);
    const reused = digest !== undefined && digest === remembered?.bytes?.digest;
    if (!reused && layout.specAssumed === true) {
      // The spec changed (or its length only matched): find where it really ends.
      layout = readObjectLayout(bytes, objectAt, objectEnd, undefined, pod);
      if (layout === undefined) return undefined;
      digest = layout.spec === undefined ? undefined : specDigest(bytes, layout.spec);
    }
    const spec = layout.spec;
    const cuts: Cut[] = [];
    const managedFields = this.#options.dropManagedFields === true ? layout.managedFields : undefined;
    const cutManagedFields = managedFields !== undefined;
    // Cuts spelled out, not `{ ...range, text }`: such spreads get a V8 map each (see core's copyWith).
    if (managedFields !== undefined) cuts.push(cut(managedFields, EMPTY));
    if (spec !== undefined) cuts.push(cut(spec, SPEC_MARKER_JSON));
    // managedFields (in metadata) comes before spec: the cuts are in order.
    const text = cutText(bytes, cuts);
    if (spec === undefined || digest === undefined) return { text, reused: false, specText: undefined, specBytes: undefined, cutManagedFields };
    const specText = reused ? undefined : bytes.toString('utf8', spec.start, spec.end);
    return { text, reused, specText, specBytes: { digest, length: spec.end - spec.start }, cutManagedFields };
  }

  #parseWhole(bytes: Buffer): unknown {
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch {
      throw this.#bad(`is not valid JSON (${bytes.length} bytes)`);
    }
  }

  #bad(problem: string): PodConfigError {
    return (this.#error = new PodConfigError('PODCONFIG_WATCH_DECODE', `watch ${this.#describe}: line ${this.#line} ${problem}`));
  }
}

/** The SHA-256 of a `spec`'s bytes: equal digests stand for equal bytes. */
function specDigest(bytes: Buffer, range: ByteRange): string {
  return hash('sha256', bytes.subarray(range.start, range.end), 'base64');
}

/**
 * What {@link ScannedWatchEvent} parses instead of the whole line. Every member is always present (one
 * V8 hidden class).
 */
interface Trimmed {
  /** The line with its cuts; the spec, when it has one, is `null` there. */
  readonly text: string;
  /** The spec's bytes have the remembered digest: its `null` stays until the remembered spec replaces it. */
  readonly reused: boolean;
  /** The spec's text when it was cut and is not reused: parsed on its own. */
  readonly specText: string | undefined;
  /** The cut spec's digest and length. */
  readonly specBytes: SpecBytes | undefined;
  /** `metadata.managedFields` was cut out (by where a search found it: the parsed object is checked). */
  readonly cutManagedFields: boolean;
}

const NOT_JSON = Symbol('not JSON');
const OTHER_SPEC = Symbol('another spec');

/**
 * Parses a trimmed line and puts its separately parsed spec in place. `NOT_JSON` when the text or the
 * spec's text is not JSON: a spec range that is not exactly one value (a search that misread it) fails
 * here; also when the managedFields cut was not metadata's own last member, as far as the parsed object
 * tells (metadata still has one, or another member comes between metadata and spec). `OTHER_SPEC` when the
 * object's `spec` is not the marker put in place of the cut one: a later `spec` key (however its name is
 * escaped) won, as `JSON.parse` keeps the last, or the cut was not the object's own spec.
 */
function parseTrimmed(trimmed: Trimmed): unknown {
  let event: unknown;
  let spec: unknown;
  try {
    event = JSON.parse(trimmed.text);
    if (trimmed.specText !== undefined) spec = JSON.parse(trimmed.specText);
  } catch {
    return NOT_JSON;
  }
  const object = isRecord(event) ? event.object : undefined;
  if (trimmed.cutManagedFields && !cutMetadataOwn(object)) return NOT_JSON;
  if (trimmed.specBytes === undefined) return event;
  if (!isRecord(object) || object.spec !== SPEC_MARKER) return OTHER_SPEC;
  if (trimmed.specText !== undefined) object.spec = spec;
  return event;
}

/**
 * After a managedFields cut: metadata has none left (a second key, or one spelled with an escape, would
 * be), and metadata is the member right before `spec` (so the cut, which ended where the member before
 * the spec did, was in metadata).
 */
function cutMetadataOwn(object: unknown): boolean {
  if (!isRecord(object)) return false;
  const metadata = object.metadata;
  if (!isRecord(metadata) || Object.hasOwn(metadata, 'managedFields')) return false;
  let previous: string | undefined;
  for (const key in object) {
    if (key === 'spec') return previous === 'metadata';
    previous = key;
  }
  return false;
}

/** Bytes [start, end) of a line, to be replaced by `text`. */
interface Cut {
  readonly start: number;
  readonly end: number;
  readonly text: Buffer;
}

const cut = (range: ByteRange, text: Buffer): Cut => ({ start: range.start, end: range.end, text });

/** Compact JSON has `}{` nowhere, not even in strings (their quotes are escaped): two events on one line. */
const NEXT_EVENT = Buffer.from('}{"type":"');
const EMPTY = Buffer.alloc(0);
/**
 * What stands in for a cut spec, to be found in the parsed object's `spec` again: a string no line can hold
 * by chance (random for each process), where `null` could be a real spec.
 */
const SPEC_MARKER = `podconfig:cut-spec:${randomBytes(12).toString('hex')}`;
const SPEC_MARKER_JSON = Buffer.from(JSON.stringify(SPEC_MARKER));

/** Where {@link cutText} assembles a line (one copy, instead of a string per piece); a longer line gets its own. */
const SCRATCH = Buffer.allocUnsafe(64 * 1024);

/** `bytes` with `cuts` (in order, not overlapping) replaced, as text. */
function cutText(bytes: Buffer, cuts: readonly Cut[]): string {
  if (cuts.length === 0) return bytes.toString('utf8');
  const size = bytes.length + SPEC_MARKER_JSON.length * cuts.length;
  const scratch = size <= SCRATCH.length ? SCRATCH : Buffer.allocUnsafe(size);
  let length = 0;
  let at = 0;
  for (const cut of cuts) {
    length += bytes.copy(scratch, length, at, cut.start);
    length += cut.text.copy(scratch, length);
    at = cut.end;
  }
  length += bytes.copy(scratch, length, at, bytes.length);
  return scratch.toString('utf8', 0, length);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
