import { ConfigInvalidError, type Clock } from '@podconfig/core';

export interface TokenBucketOptions {
  /** Tokens added per second; `Infinity` disables the limit. */
  readonly qps: number;
  /** Bucket size: requests that may go at once after a quiet period. The bucket starts full. */
  readonly burst: number;
  readonly clock: Clock;
}

/**
 * client-go's client-side rate limiter (`flowcontrol.NewTokenBucketRateLimiter`, i.e.
 * `x/time/rate`): each `take()` reserves a token, and waits until the bucket's refill covers
 * it. Reservations are first come, first served; an aborted wait gives its token back.
 */
export class TokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number | undefined;

  constructor(options: TokenBucketOptions) {
    if (!(options.qps > 0)) throw new ConfigInvalidError(`qps must be > 0 (Infinity for no limit), got ${options.qps}`);
    if (!Number.isInteger(options.burst) || options.burst < 1) {
      throw new ConfigInvalidError(`burst must be an integer >= 1, got ${options.burst}`);
    }
    this.#qps = options.qps;
    this.#burst = options.burst;
    this.#clock = options.clock;
    this.#tokens = options.burst;
  }

  /** Resolves when the caller may send; rejects with the signal's reason when it aborts first. */
  async take(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.#qps === Infinity) return;
    const now = this.#clock.monotonic(); // elapsed time: a wall-clock step neither refills nor drains the bucket
    if (this.#last !== undefined) {
      this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) * this.#qps) / 1000);
    }
    this.#last = now;
    this.#tokens -= 1;
    if (this.#tokens >= 0) return;
    const waitMs = (-this.#tokens * 1000) / this.#qps;
    await this.#clock.sleep(waitMs, signal);
    if (signal.aborted) {
      this.#tokens += 1;
      signal.throwIfAborted();
    }
  }
}
