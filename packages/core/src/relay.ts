import { DONE, PullIterator } from './pull-iterator.js';

/** What {@link relay} passes on, and how it ends. */
export interface RelayParts<T> {
  /** Where the values come from. */
  readonly source: AsyncIterable<T>;
  /** Called with each value as the consumer takes it. */
  readonly each?: (value: T) => void;
  /**
   * Runs once, after `source` has ended (`'ended'`), or after the consumer returned early or `source` threw
   * (`'stopped'`; `source`'s iterator has been returned first if the consumer did). Its rejection is the
   * consumer's error; after a throwing `source`, that error follows unless `finish` threw its own.
   */
  readonly finish?: (how: 'ended' | 'stopped') => Promise<void>;
}

/**
 * An async iterator that passes on `source`'s values and runs `finish` at the end: what
 * `for await (const v of source) { each(v); yield v; }` inside `try { … } finally { … }` does, as an object
 * that keeps no passed-on value in a suspended frame (see {@link PullIterator}). `open` runs on the first
 * `next()`, as a generator's body would; a `return()` before it does not run it.
 */
export function relay<T>(open: () => RelayParts<T>): PullIterator<T> {
  return new Relay(open);
}

class Relay<T> extends PullIterator<T> {
  readonly #open: () => RelayParts<T>;
  #parts: RelayParts<T> | undefined;
  #source: AsyncIterator<T> | undefined;

  constructor(open: () => RelayParts<T>) {
    super();
    this.#open = open;
  }

  protected async pull(): Promise<IteratorResult<T, undefined>> {
    const parts = (this.#parts ??= this.#open());
    const source = (this.#source ??= parts.source[Symbol.asyncIterator]());
    let result: IteratorResult<T>;
    try {
      result = await source.next();
    } catch (err: unknown) {
      if (!this.finished) await parts.finish?.('stopped');
      throw err;
    }
    // Returned while this pull was waiting: close() ends the relay.
    if (this.finished) return DONE;
    if (result.done === true) {
      await parts.finish?.('ended');
      return DONE;
    }
    if (parts.each !== undefined) {
      try {
        parts.each(result.value);
      } catch (err: unknown) {
        await this.return();
        throw err;
      }
    }
    return result;
  }

  protected async close(): Promise<void> {
    const parts = this.#parts;
    if (parts === undefined) return;
    try {
      await this.#source?.return?.();
    } finally {
      await parts.finish?.('stopped');
    }
  }
}
