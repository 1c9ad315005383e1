import type { Dispatcher } from 'undici';

/** Body bytes queued unread at which the connection stops being read (back-pressure). */
export const BODY_PAUSE_BYTES = 256 * 1024;
/** Queued bytes at or under which a paused connection is read again. */
export const BODY_RESUME_BYTES = 64 * 1024;
/**
 * Counted for each queued chunk on top of its bytes, about what a `Buffer` costs: a flood of tiny chunks (a
 * byte each) is bounded by the objects it makes, not just by its bytes.
 */
export const CHUNK_OVERHEAD_BYTES = 64;
/** What {@link ResponseBody.dump} reads of a body before it gives the connection up (undici's own default). */
const DUMP_LIMIT_BYTES = 128 * 1024;

/** A response as {@link ResponseBody.dispatch} gives it: status and headers once they came, the body to read. */
export interface DispatchedResponse {
  readonly statusCode: number;
  /** Lower-case names; a repeated header is an array. */
  readonly headers: Dispatcher.ResponseData['headers'];
  readonly body: ResponseBody;
}

/**
 * A response's body, chunk by chunk, each the very buffer undici's parser produced, read through undici's
 * dispatch controller: the connection is paused once {@link BODY_PAUSE_BYTES} wait unread and resumed only
 * when they are down to {@link BODY_RESUME_BYTES}.
 *
 * Why not `request()`'s `Readable`: its async iterator joins everything buffered into a new buffer (a copy of
 * the watch stream whenever the consumer is behind), and taking its chunks one by one instead keeps its
 * buffer at its high-water mark, so undici resumes its parser after every chunk taken; each resume re-reads
 * the socket's whole backlog, parses one chunk and puts the rest back, and reads more from the socket as it
 * does. With a watch of small events, one HTTP chunk each as the API server writes them, that was quadratic:
 * 100,000 bookmarks took 20 s and 1 GB. Here a resume parses up to 192 KiB of events at once.
 *
 * Ends after the response's end; throws the transport's error once the chunks before it are taken.
 * `return()` and {@link destroy} abort the request (the connection is closed); an abort of the signal given
 * to {@link dispatch} does too, drops what was queued, and the reader then gets the signal's reason.
 * Informational responses (1xx: 102, 103) are skipped, as `request()` skips them.
 */
export class ResponseBody implements AsyncIterableIterator<Buffer> {
  /** Taken from `#head` on, so that taking is O(1) however many chunks wait (`Array#shift` is not). */
  #queue: (Buffer | undefined)[] = [];
  #head = 0;
  /** Queued bytes, each chunk's {@link CHUNK_OVERHEAD_BYTES} included. */
  #queuedBytes = 0;
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the request is to be aborted, when that was decided before undici handed over its controller. */
  #abortBefore: Error | undefined;
  #paused = false;
  /** The response ended or failed: undici calls no more. */
  #finished = false;
  #ended = false;
  #destroyed = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;
  #onFinish: (() => void) | undefined;

  private constructor() {}

  /**
   * Sends one request through `dispatcher` and resolves with its status and headers, or rejects with the
   * transport's error (or `signal`'s reason once it aborts, when undici has the request in hand).
   */
  static dispatch(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortSignal): Promise<DispatchedResponse> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const body = new ResponseBody();
    return new Promise<DispatchedResponse>((resolve, reject) => {
      let started = false;
      const onAbort = (): void => body.destroy(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      body.#onFinish = () => signal.removeEventListener('abort', onAbort);
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: (controller) => {
          body.#controller = controller;
          if (body.#abortBefore !== undefined) controller.abort(body.#abortBefore);
        },
        onResponseStart: (_controller, statusCode, headers) => {
          if (statusCode < 200) return; // 103 Early Hints and the like: the response is still to come
          started = true;
          resolve({ statusCode, headers, body });
        },
        onResponseData: (controller, chunk) => body.#push(controller, chunk),
        onResponseEnd: () => body.#finish(undefined),
        onResponseError: (_controller, err) => {
          body.#finish(err);
          if (!started) reject(err);
        },
      };
      try {
        dispatcher.dispatch(options, handler);
      } catch (err: unknown) {
        // undici throws here for options it refuses (a bad header, say), before any callback.
        const error = err instanceof Error ? err : new Error(String(err));
        body.#finish(error);
        reject(error);
      }
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<Buffer>> {
    for (;;) {
      const chunk = this.#take();
      if (chunk !== undefined) return { done: false, value: chunk };
      if (this.#error !== undefined) throw this.#error;
      if (this.#ended || this.#destroyed) return { done: true, value: undefined };
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  return(): Promise<IteratorResult<Buffer>> {
    this.destroy();
    return Promise.resolve({ done: true, value: undefined });
  }

  /**
   * Stops reading: the request is aborted unless it already ended, queued chunks are dropped. With `err`, a
   * reader waiting or still to come gets it (a deadline); without, the body just ends.
   */
  destroy(err?: Error): void {
    this.#queue = [];
    this.#head = 0;
    this.#queuedBytes = 0;
    if (err !== undefined) this.#error ??= err;
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#abort(err ?? new Error('the response body was released unread'));
    this.#notify();
  }

  /** Reads the rest of the body and drops it, so that the connection may be kept; past 128 KiB it is closed. */
  async dump(): Promise<void> {
    let bytes = 0;
    try {
      for (let read = await this.next(); read.done !== true; read = await this.next()) {
        bytes += read.value.length;
        if (bytes > DUMP_LIMIT_BYTES) break;
      }
    } catch {
      // The connection is gone: nothing left to drop.
    }
    this.destroy();
  }

  #push(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#destroyed) return;
    this.#queue.push(chunk);
    this.#queuedBytes += chunk.length + CHUNK_OVERHEAD_BYTES;
    if (!this.#paused && this.#queuedBytes >= BODY_PAUSE_BYTES) {
      this.#paused = true;
      controller.pause();
    }
    this.#notify();
  }

  #take(): Buffer | undefined {
    const queue = this.#queue;
    if (this.#head === queue.length) return undefined;
    const chunk = queue[this.#head]!;
    queue[this.#head++] = undefined;
    if (this.#head === queue.length) {
      queue.length = 0;
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= queue.length) {
      queue.splice(0, this.#head); // amortised: at most once per as many chunks taken as are left
      this.#head = 0;
    }
    this.#queuedBytes -= chunk.length + CHUNK_OVERHEAD_BYTES;
    if (this.#paused && this.#queuedBytes <= BODY_RESUME_BYTES) {
      this.#paused = false;
      this.#controller?.resume();
    }
    return chunk;
  }

  #abort(reason: Error): void {
    if (this.#finished) return;
    if (this.#controller === undefined) this.#abortBefore ??= reason;
    else if (!this.#controller.aborted) this.#controller.abort(reason);
  }

  /** The response ended (`err` undefined) or failed: the signal is let go, a waiting reader woken. */
  #finish(err: Error | undefined): void {
    this.#finished = true;
    if (err === undefined) this.#ended = true;
    else if (!this.#ended && !this.#destroyed) this.#error ??= err; // a destroy(err) set its own; destroy() ends
    this.#onFinish?.();
    this.#onFinish = undefined;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
