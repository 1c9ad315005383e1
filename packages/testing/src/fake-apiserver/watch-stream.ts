import type { ServerResponse } from 'node:http';
import { TLSSocket } from 'node:tls';
import { writeLinesAsChunks } from '../write-lines-as-chunks.js';

/** Lines corked together, at most this much: one `writev` for many queued events keeps syscalls few. */
const MAX_BATCH_BYTES = 64 * 1024;
/** `drained()` waits while more than this many bytes are queued for the client. */
const HIGH_WATER_BYTES = 1024 * 1024;

/**
 * One open watch response: a queue of newline-terminated JSON lines written with back-pressure (it stops
 * when `write()` returns false and resumes on 'drain'), each line its own HTTP chunk as the API server writes
 * an event, optionally in slow halves (fault injection).
 */
export class WatchStream {
  readonly #res: ServerResponse;
  readonly #onClosed: () => void;
  #queue: string[] = [];
  #queuedBytes = 0;
  #pumping = false;
  #ending = false;
  #closed = false;
  #drainWaiters: (() => void)[] = [];
  #slowWritesMs: () => number;

  constructor(res: ServerResponse, o: { slowWritesMs: () => number; onClosed: () => void }) {
    this.#res = res;
    this.#slowWritesMs = o.slowWritesMs;
    this.#onClosed = o.onClosed;
    res.on('close', () => this.#finish());
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes queued but not yet handed to the socket. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Queues one line (a trailing newline is added). Ignored once the stream is ending. */
  send(line: string): void {
    if (this.#closed || this.#ending) return;
    this.#queue.push(`${line}\n`);
    this.#queuedBytes += line.length + 1;
    this.#pump();
  }

  /** Ends the response normally once everything queued is written. */
  end(): void {
    if (this.#closed || this.#ending) return;
    this.#ending = true;
    this.#pump();
  }

  /**
   * Drops the connection without finishing the chunked body (a reset mid-stream). Plain TCP gets a
   * real RST; a TLS socket has no raw TCP handle to reset, so it is destroyed (the client still sees
   * the stream cut before its terminating chunk).
   */
  destroy(): void {
    if (this.#closed) return;
    const socket = this.#res.socket;
    if (socket instanceof TLSSocket) socket.destroy();
    else socket?.resetAndDestroy();
    this.#res.destroy();
    this.#finish();
  }

  /** Resolves once the queue is below the high-water mark (or the stream closed). */
  drained(): Promise<void> {
    if (this.#closed || this.#queuedBytes <= HIGH_WATER_BYTES) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    this.#write().catch(() => this.destroy());
  }

  /** Runs while `#pumping`; clears it in the same turn as the final queue check, so no `send()` is missed. */
  async #write(): Promise<void> {
    try {
      while (!this.#closed && this.#queue.length > 0) {
        const slow = this.#slowWritesMs();
        if (slow === 0) {
          let n = 0;
          let bytes = 0;
          while (n < this.#queue.length && (n === 0 || bytes + this.#queue[n]!.length <= MAX_BATCH_BYTES)) bytes += this.#queue[n++]!.length;
          this.#queuedBytes -= bytes;
          this.#wakeDrainWaiters();
          if (!(await this.#writeLines(this.#queue.splice(0, n)))) return;
          continue;
        }
        const line = this.#queue.shift()!;
        this.#queuedBytes -= line.length;
        this.#wakeDrainWaiters();
        // Split the UTF-8 bytes, not the string: a cut inside a multi-byte character is what a client must
        // handle, while a cut between the halves of a surrogate pair would send two U+FFFD instead.
        const bytes = Buffer.from(line, 'utf8');
        const half = Math.max(1, Math.floor(bytes.length / 2));
        if (!(await this.#writeChunk(bytes.subarray(0, half)))) return;
        await new Promise((resolve) => setTimeout(resolve, slow));
        if (!(await this.#writeChunk(bytes.subarray(half)))) return;
      }
      if (this.#ending && !this.#closed) this.#res.end();
    } finally {
      this.#pumping = false;
    }
  }

  /** Writes each line as its own HTTP chunk, corked into one `writev`, with back-pressure; false when the stream closed. */
  async #writeLines(lines: readonly string[]): Promise<boolean> {
    if (this.#closed) return false;
    return writeLinesAsChunks(this.#res, lines) || this.#drain();
  }

  /** Writes with back-pressure; false when the stream closed meanwhile. */
  async #writeChunk(chunk: string | Uint8Array): Promise<boolean> {
    if (this.#closed) return false;
    if (this.#res.write(chunk)) return true;
    return this.#drain();
  }

  /** Waits for 'drain' (or the close); false when the stream closed meanwhile. */
  async #drain(): Promise<boolean> {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.#res.off('drain', done);
        this.#res.off('close', done);
        resolve();
      };
      this.#res.on('drain', done);
      this.#res.on('close', done);
    });
    return !this.#closed;
  }

  #wakeDrainWaiters(): void {
    if (this.#queuedBytes > HIGH_WATER_BYTES || this.#drainWaiters.length === 0) return;
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const wake of waiters) wake();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#queuedBytes = 0;
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const wake of waiters) wake();
    this.#onClosed();
  }
}
