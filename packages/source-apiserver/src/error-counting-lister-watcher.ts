import type { BufferedIterator, ListerWatcher, ListOptions, ListResult, WatchEvent, WatchOptions } from '@podconfig/cache';
import { PodConfigError } from '@podconfig/core';

const isDecodeError = (reason: unknown): boolean => PodConfigError.is(reason) && reason.code === 'PODCONFIG_WATCH_DECODE';

/**
 * A {@link ListerWatcher} decorator that counts failed requests for the `errors` counter of
 * `/sources`: rejected lists and watch opens, watch streams that throw or that the reflector cut
 * while waiting for an event (a stall), and watch ERROR events. A stream the reflector cut because an
 * object did not decode when applied is not counted here: the reflector counts those
 * (`undecodableEvents`). Nothing is counted once `stopped` has aborted (shutdown is not an error).
 */
export class ErrorCountingListerWatcher<T> implements ListerWatcher<T> {
  readonly #inner: ListerWatcher<T>;
  readonly #stopped: AbortSignal;
  #errors = 0;

  constructor(inner: ListerWatcher<T>, stopped: AbortSignal) {
    this.#inner = inner;
    this.#stopped = stopped;
  }

  /** Failures seen so far. */
  get errors(): number {
    return this.#errors;
  }

  async list(options: ListOptions, signal: AbortSignal): Promise<ListResult<T>> {
    try {
      return await this.#inner.list(options, signal);
    } catch (err: unknown) {
      this.#count();
      throw err;
    }
  }

  async watch(options: WatchOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<T>>> {
    let iterable: AsyncIterable<WatchEvent<T>>;
    try {
      iterable = await this.#inner.watch(options, signal);
    } catch (err: unknown) {
      this.#count();
      throw err;
    }
    return { [Symbol.asyncIterator]: () => this.#counted(iterable[Symbol.asyncIterator](), signal) };
  }

  /** `signal` is the stream's own: aborted while a `next()` is pending, the caller cut the stream (a stall). */
  #counted(inner: BufferedIterator<WatchEvent<T>>, signal: AbortSignal): BufferedIterator<WatchEvent<T>> {
    const seen = (result: IteratorResult<WatchEvent<T>>): IteratorResult<WatchEvent<T>> => {
      if (result.done === true ? signal.aborted && !isDecodeError(signal.reason) : result.value.type === 'ERROR') this.#count();
      return result;
    };
    const failed = (err: unknown): never => {
      this.#count();
      throw err;
    };
    const buffered = inner.nextBuffered?.bind(inner);
    return {
      // then() rather than async/await: one promise fewer per watch event.
      next: () => inner.next().then(seen, failed),
      return: async () => (await inner.return?.()) ?? { done: true, value: undefined },
      ...(buffered === undefined ? {} : {
        nextBuffered: () => {
          let result: IteratorResult<WatchEvent<T>> | undefined;
          try {
            result = buffered();
          } catch (err: unknown) {
            return failed(err);
          }
          return result === undefined ? undefined : seen(result);
        },
      }),
    };
  }

  #count(): void {
    if (!this.#stopped.aborted) this.#errors++;
  }
}
