/**
 * At most `perWindow` warnings (or other lines worth a level above debug) per `windowMs` (on a monotonic clock);
 * the rest are demoted (to debug), and the next line let through says how many were. A handler-wide outage (a
 * webhook down) fails every pod at once, and its end recovers every pod at once: without it, each pod's lines
 * would flood the log.
 */
export class WarnBudget {
  readonly #perWindow: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  #windowStart = Number.NEGATIVE_INFINITY;
  #used = 0;
  #demoted = 0;

  constructor(options: { readonly perWindow: number; readonly windowMs: number; readonly now: () => number }) {
    this.#perWindow = options.perWindow;
    this.#windowMs = options.windowMs;
    this.#now = options.now;
  }

  /** Undefined: demote this one. Else warn, with the number of warnings demoted since the last one let through. */
  take(): number | undefined {
    const now = this.#now();
    if (now - this.#windowStart >= this.#windowMs) {
      this.#windowStart = now;
      this.#used = 0;
    }
    if (this.#used >= this.#perWindow) {
      this.#demoted++;
      return undefined;
    }
    this.#used++;
    const demoted = this.#demoted;
    this.#demoted = 0;
    return demoted;
  }
}
