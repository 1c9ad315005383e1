import { DONE, PullIterator } from './pull-iterator.js';

export interface LatestByKeyOptions {
  /**
   * When a waiting consumer is woken after a `put()`: once per macrotask (default), so that a producer's
   * burst coalesces first, or in a microtask, for producers that already put at most once per macrotask
   * (a mailbox fed from other mailboxes), where another macrotask would only delay the value by a turn
   * of the event loop.
   */
  readonly wake?: 'macrotask' | 'microtask';
}

/**
 * A mailbox that keeps only the latest value per key (decision D16). `put()` never blocks and
 * memory is bounded by the number of keys; `drain()` yields pending values in the order their
 * keys first became pending. Values for the same key are combined with `combine` (default: the
 * newer replaces the older), so a producer may run ahead of a slow consumer without loss of
 * anything observable: each value supersedes the earlier ones.
 *
 * A waiting consumer is woken by `put()` once per macrotask (`setImmediate`), not once per put:
 * everything a producer puts in the same turn (a reflector applying every event of one network
 * chunk) coalesces before the consumer runs. With `{ wake: 'microtask' }` it is woken as soon as the
 * producer's synchronous code is done. `close()` and an abort wake it at once.
 */
export class LatestByKey<K, V> {
  readonly #pending = new Map<K, V>();
  readonly #combine: (pending: V, next: V) => V;
  readonly #wakeInMicrotask: boolean;
  #wake: (() => void) | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #closed = false;

  constructor(combine: (pending: V, next: V) => V = (_pending, next) => next, options: LatestByKeyOptions = {}) {
    this.#combine = combine;
    this.#wakeInMicrotask = options.wake === 'microtask';
  }

  /** Number of keys with a pending value. */
  get size(): number {
    return this.#pending.size;
  }

  put(key: K, value: V): void {
    if (this.#closed) return;
    const pending = this.#pending.get(key);
    this.#pending.set(key, pending === undefined ? value : this.#combine(pending, value));
    if (this.#wake === undefined) return;
    // The consumer's promise resolves now and it runs in a microtask: after this put's caller is done.
    if (this.#wakeInMicrotask) this.#notify();
    else this.#immediate ??= setImmediate(this.#wakeLater);
  }

  /** After `close()`, `drain()` yields what is pending and then returns. */
  close(): void {
    this.#closed = true;
    this.#notify();
  }

  /**
   * Yields pending values until `signal` aborts or the mailbox is closed and empty. One consumer at a time.
   * An iterator object rather than an async generator, so that no suspended frame keeps a value it has
   * passed on (see {@link PullIterator}).
   */
  drain(signal: AbortSignal): PullIterator<V> {
    return new Drain<V>(
      {
        take: () => {
          const first = this.#pending.entries().next();
          if (first.done === true) return this.#closed ? DONE : undefined;
          const [key, value] = first.value;
          this.#pending.delete(key);
          return { done: false, value };
        },
        waitForPut: (wake) => {
          this.#wake = wake;
        },
        wakeNow: () => this.#notify(),
      },
      signal,
    );
  }

  readonly #wakeLater = (): void => {
    this.#immediate = undefined;
    this.#notify();
  };

  #notify(): void {
    if (this.#immediate !== undefined) {
      clearImmediate(this.#immediate);
      this.#immediate = undefined;
    }
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** What a {@link Drain} may do with its mailbox. */
interface DrainPort<V> {
  /** The next pending value, done once the mailbox is closed and empty, or undefined if there is none yet. */
  readonly take: () => IteratorResult<V, undefined> | undefined;
  /** Calls `wake` once, on the next put, close or wake-up. */
  readonly waitForPut: (wake: () => void) => void;
  /** Runs a waiting `wake` now. */
  readonly wakeNow: () => void;
}

class Drain<V> extends PullIterator<V> {
  readonly #port: DrainPort<V>;
  readonly #signal: AbortSignal;
  readonly #onAbort: () => void;
  #listening = false;

  constructor(port: DrainPort<V>, signal: AbortSignal) {
    super();
    this.#port = port;
    this.#signal = signal;
    this.#onAbort = port.wakeNow;
  }

  protected async pull(): Promise<IteratorResult<V, undefined>> {
    if (!this.#listening) {
      this.#listening = true;
      this.#signal.addEventListener('abort', this.#onAbort);
    }
    for (;;) {
      const result = this.#take();
      if (result !== undefined) return result;
      // Resumes in a microtask after the wake-up: puts in the same synchronous run combine first.
      await new Promise<void>((resolve) => this.#port.waitForPut(resolve));
    }
  }

  protected close(): Promise<void> {
    this.#stopListening();
    // A pull waiting for a put ends now (done: the iteration has finished).
    this.#port.wakeNow();
    return Promise.resolve();
  }

  #take(): IteratorResult<V, undefined> | undefined {
    const result = this.finished || this.#signal.aborted ? DONE : this.#port.take();
    if (result?.done === true) this.#stopListening();
    return result;
  }

  #stopListening(): void {
    if (!this.#listening) return;
    this.#listening = false;
    this.#signal.removeEventListener('abort', this.#onAbort);
  }
}
