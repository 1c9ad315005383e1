/** The logger's flush, as pino has it: `cb` once the destination has taken every line written so far. */
export type FlushLogs = (cb: (err?: Error) => void) => void;

export interface LogHealthOptions {
  readonly flush: FlushLogs;
  /** Monotonic milliseconds; default `performance.now()`. */
  readonly now?: () => number;
}

/** How often the logs are flushed once the check has been asked (the kubelet's one minute). */
export const LOG_FLUSH_PERIOD_MS = 60_000;
/** No flush completed for this long: the check fails (the kubelet's two minutes). */
export const LOG_BLOCKED_AFTER_MS = 120_000;

/**
 * The kubelet's `log` health check (k8s.io/apiserver `healthz.LogHealthz`): from the first probe on, the logs
 * are flushed every minute, and the check fails, `logging blocked`, when no flush has completed for two minutes
 * — a log destination that stopped taking lines (a full pipe whose reader is gone) would otherwise hold every
 * line written meanwhile, unseen. The first probe starts the flushing, as the kubelet's does: an agent nobody
 * probes flushes nothing.
 */
export class LogHealth {
  readonly #o: LogHealthOptions;
  #lastFlushed: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: LogHealthOptions) {
    this.#o = options;
  }

  /** Undefined while the logs flush, else why not. */
  check(): string | undefined {
    if (this.#lastFlushed === undefined) this.#start();
    return this.#now() - (this.#lastFlushed ?? 0) < LOG_BLOCKED_AFTER_MS ? undefined : 'logging blocked';
  }

  /** Stops the flushing (the status server's shutdown). */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #start(): void {
    this.#lastFlushed = this.#now();
    if (this.#closed) return;
    this.#flush();
    // Unref'd: a probe must not keep a stopping process alive.
    this.#timer = setInterval(() => this.#flush(), LOG_FLUSH_PERIOD_MS).unref();
  }

  #flush(): void {
    this.#o.flush((err) => {
      if (err === undefined || err === null) this.#lastFlushed = this.#now();
    });
  }

  #now(): number {
    return this.#o.now?.() ?? performance.now();
  }
}
