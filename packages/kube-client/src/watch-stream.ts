import { PodConfigError } from '@podconfig/core';
import { ScannedWatchEvent } from './scanned-watch-event.js';
import type { WatchDecodeOptions } from './watch-decode-options.js';
import { isJsonPrefix } from './json-prefix.js';
import { scanWatchHead } from './watch-head.js';

/** A line that holds nothing but JSON's white space (CR of CRLF included). */
const JSON_BLANK = /^[ \t\r\n]*$/;

const NEWLINE = 0x0a;
const DONE: IteratorResult<unknown> = Object.freeze({ done: true, value: undefined });

/** A watch line longer than this is refused (etcd caps objects at 1.5 MiB; a list of them is not a line). */
export const MAX_WATCH_LINE_BYTES = 64 * 1024 * 1024;

export interface WatchStreamOptions {
  /** The response body's chunks. Pulled one at a time, only when the consumer needs the next line. */
  readonly chunks: AsyncIterator<Uint8Array>;
  /** Releases the connection (destroys the body); called once, when the stream ends early or fails. */
  readonly release: () => void;
  /** Turns a read error into the error the iterator throws (transport classification). */
  readonly readError: (err: unknown) => unknown;
  /** For error messages: `GET /api/v1/pods`. */
  readonly describe: string;
  readonly signal: AbortSignal;
  /**
   * Yield a change event whose head {@link scanWatchHead} can read as a {@link ScannedWatchEvent}, decoded
   * only when its object is asked for. Default false: every line is decoded as it is read.
   */
  readonly scanHeads?: boolean;
  /** How a {@link ScannedWatchEvent} decodes its object. */
  readonly decode?: WatchDecodeOptions;
  /**
   * Called when the body ends inside a line that is not JSON (the server or a proxy closed the stream mid-line:
   * Go's unexpected EOF). The iterator then ends normally, as client-go's stream watcher closes the watch.
   */
  readonly onUnexpectedEof?: (details: { readonly line: number; readonly bytes: number }) => void;
  /**
   * A watch-list's (`sendInitialEvents=true`) initial events are its list: their lines up to the first bookmark may
   * add up to this many bytes, a list body's limit, else the stream fails with `PODCONFIG_BODY_TOO_LARGE`. Each
   * line alone is under {@link MAX_WATCH_LINE_BYTES}, but a server that never sends the bookmark would otherwise
   * grow the reflector's initial set without end. Default: no limit.
   */
  readonly initialEventsMaxBytes?: number;
}

/**
 * Decodes a newline-delimited JSON watch stream into events, one per `next()`, pull-based: the
 * next chunk is read only when the current one has no complete line left, so a slow consumer
 * holds the server back (back-pressure) instead of buffering the stream in memory.
 *
 * A line split across chunks is kept as pieces and joined once its newline arrives (no quadratic
 * concatenation). A line that is not JSON, or not an object with a string `type`, throws
 * `PODCONFIG_WATCH_DECODE` (the reflector relists), except an unfinished last line when the body ends (an
 * unexpected EOF: reported to `onUnexpectedEof`, and the stream ends). The stream ends when the server closes it,
 * or when the signal aborts (abort is a normal end). `return()` releases the connection.
 */
export class WatchStream implements AsyncIterableIterator<unknown> {
  readonly #o: WatchStreamOptions;
  #chunk: Buffer | undefined;
  #offset = 0;
  readonly #pending: Buffer[] = [];
  #pendingBytes = 0;
  #line = 0;
  #done = false;
  #released = false;
  /** What the initial events may still take, until the first bookmark; undefined once it came, or for no limit. */
  #initialBytesLeft: number | undefined;

  constructor(options: WatchStreamOptions) {
    this.#o = options;
    this.#initialBytesLeft = options.initialEventsMaxBytes;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<unknown>> {
    for (;;) {
      const buffered = this.nextBuffered();
      if (buffered !== undefined) return buffered;
      let read: IteratorResult<Uint8Array>;
      try {
        read = await this.#o.chunks.next();
      } catch (err: unknown) {
        this.#finish();
        if (this.#o.signal.aborted) return DONE;
        throw this.#o.readError(err);
      }
      if (read.done === true) {
        this.#done = true;
        this.#released = true; // the body ended: nothing to release
        if (this.#pendingBytes > 0) {
          const event = this.#decodeLast();
          if (event !== undefined) return { done: false, value: event };
        }
        return DONE;
      }
      const value = read.value;
      this.#chunk = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      this.#offset = 0;
    }
  }

  /**
   * The next event when the bytes already read hold its whole line, else undefined (the next chunk must be
   * read: call {@link next}). What `next()` would reject with, this throws. A consumer that calls this
   * first pays for a promise only once per chunk instead of once per event (the Reflector does).
   */
  nextBuffered(): IteratorResult<unknown> | undefined {
    while (!this.#done) {
      const chunk = this.#chunk;
      if (chunk === undefined) return undefined;
      const end = chunk.indexOf(NEWLINE, this.#offset);
      if (end === -1) {
        if (this.#offset < chunk.length) this.#keep(chunk.subarray(this.#offset));
        this.#chunk = undefined;
        return undefined;
      }
      const start = this.#offset;
      this.#offset = end + 1;
      const event = this.#pendingBytes === 0 ? this.#decode(chunk, start, end) : this.#decodePending(chunk.subarray(start, end));
      if (event !== undefined) return { done: false, value: event };
    }
    return DONE;
  }

  /** Stops early (a `for await` break): releases the connection. */
  return(): Promise<IteratorResult<unknown>> {
    this.#finish();
    return Promise.resolve({ done: true, value: undefined });
  }

  #finish(): void {
    this.#done = true;
    this.#chunk = undefined;
    this.#pending.length = 0;
    this.#pendingBytes = 0;
    if (this.#released) return;
    this.#released = true;
    this.#o.release();
  }

  #keep(piece: Buffer): void {
    this.#pendingBytes += piece.length;
    if (this.#pendingBytes > MAX_WATCH_LINE_BYTES) {
      this.#finish();
      throw new PodConfigError(
        'PODCONFIG_WATCH_DECODE',
        `watch ${this.#o.describe}: line ${this.#line + 1} is longer than ${MAX_WATCH_LINE_BYTES} bytes`,
      );
    }
    this.#pending.push(piece);
  }

  #decodePending(tail: Buffer): unknown {
    this.#pending.push(tail);
    const line = Buffer.concat(this.#pending, this.#pendingBytes + tail.length);
    this.#pending.length = 0;
    this.#pendingBytes = 0;
    return this.#decode(line, 0, line.length);
  }

  /**
   * The bytes after the last newline when the body ended. A whole event (a server that does not end its last
   * line) is decoded; a JSON value cut off before its end is an unexpected EOF, which ends the stream like a
   * normal close (spec §5.3; client-go's StreamWatcher logs it and closes the watch), not a decode error that
   * would relist; anything malformed is a decode error, as mid-stream (Go's decoder: a `SyntaxError`, not
   * `io.ErrUnexpectedEOF`). Not head-scanned: a cut line can look like a whole one up to its last `}`.
   */
  #decodeLast(): unknown {
    const line = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending.length = 0;
    this.#pendingBytes = 0;
    this.#line++;
    this.#countInitial(line.length);
    const text = line.toString('utf8');
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      if (JSON_BLANK.test(text)) return undefined;
      if (!isJsonPrefix(text)) throw this.#bad(`is not valid JSON (${line.length} bytes)`);
      this.#o.onUnexpectedEof?.({ line: this.#line, bytes: line.length });
      return undefined;
    }
    return this.#checkEvent(event);
  }

  /** Decodes bytes [start, end) as one event; blank lines give undefined. */
  #decode(buf: Buffer, start: number, end: number): unknown {
    this.#line++;
    this.#countInitial(end - start);
    if (this.#o.scanHeads === true) {
      const head = scanWatchHead(buf, start, end);
      if (head !== undefined) return new ScannedWatchEvent(head, buf.subarray(start, end), this.#line, this.#o.describe, this.#o.decode);
    }
    const text = buf.toString('utf8', start, end);
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch {
      // JSON's white space only (String#trim() also takes U+00A0, U+FEFF, …, which are not JSON).
      if (JSON_BLANK.test(text)) return undefined;
      throw this.#bad(`is not valid JSON (${end - start} bytes)`);
    }
    return this.#checkEvent(event);
  }

  #checkEvent(event: unknown): unknown {
    if (typeof event !== 'object' || event === null || typeof (event as { type?: unknown }).type !== 'string') {
      throw this.#bad('is not a watch event (an object with a string "type")');
    }
    // The initial events end at a bookmark (scanned heads are change events, never bookmarks).
    if ((event as { type: string }).type === 'BOOKMARK') this.#initialBytesLeft = undefined;
    return event;
  }

  #countInitial(bytes: number): void {
    if (this.#initialBytesLeft === undefined) return;
    this.#initialBytesLeft -= bytes;
    if (this.#initialBytesLeft >= 0) return;
    this.#finish();
    throw new PodConfigError('PODCONFIG_BODY_TOO_LARGE',
      `watch ${this.#o.describe}: the initial events are larger than the limit of ${this.#o.initialEventsMaxBytes ?? 0} bytes (a list's body limit) before the initial-events-end bookmark`);
  }

  #bad(problem: string): PodConfigError {
    this.#finish();
    // The line itself stays out of the message: it may hold a pod spec with secrets in it.
    return new PodConfigError('PODCONFIG_WATCH_DECODE', `watch ${this.#o.describe}: line ${this.#line} ${problem}`);
  }
}
