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

  /** Yields pending values until `signal` aborts or the mailbox is closed and empty. One consumer at a time. */
  async *drain(signal: AbortSignal): AsyncGenerator<V, void, undefined> {
    const onAbort = (): void => this.#notify();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        const first = this.#pending.entries().next();
        if (!first.done) {
          const [key, value] = first.value;
          this.#pending.delete(key);
          yield value;
          continue;
        }
        if (this.#closed) return;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
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
