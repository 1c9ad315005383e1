import sonicBoom from 'sonic-boom';

/** What the agent's log lines may queue while stdout takes none: past it, lines are dropped and counted. */
export const STDOUT_BACKLOG_BYTES = 8 * 1024 * 1024;
/** How often a blocked stdout is tried again. */
const BLOCKED_RETRY_MS = 100;

export interface StdoutDestinationOptions {
  /** Default: stdout's. */
  readonly fd?: number;
  /** Default {@link STDOUT_BACKLOG_BYTES}. */
  readonly maxBacklogBytes?: number;
}

/**
 * stdout, written synchronously as the kubelet's klog writes: lines keep their order (pino's asynchronous default
 * wrote the last ones out of order at exit) and none waits in a buffer when the process ends.
 *
 * Two ways a reader fails it, neither of which may stop the agent:
 * - A reader that has gone away (EPIPE: `| head`, a log forwarder that died): the lines are dropped, as pino drops
 *   them. sonic-boom 4, pino 10's, retried that write for good, deaf to every later signal; this one is 5, ours
 *   whatever pino depends on.
 * - A reader that stopped reading (a full pipe: a stalled log shipper, `| tee` to a slow disk): sonic-boom's
 *   synchronous mode slept and retried in a loop that held the event loop, so /healthz went unanswered and
 *   SIGTERM unheard for as long as the reader stalled. Here a write that meets EAGAIN leaves its lines queued
 *   (up to {@link StdoutDestinationOptions.maxBacklogBytes}, then dropped and counted) and is tried again on a
 *   timer; the first line after the queue has gone out is preceded by `onDropped`'s report. `flush()` fails
 *   meanwhile, which is what the status server's `log` check (`logging blocked`) looks for.
 */
export class StdoutDestination {
  readonly #stream: sonicBoom.SonicBoom;
  #gone = false;
  #retry: NodeJS.Timeout | undefined;
  #dropped = 0;
  /** Told how many lines were dropped, before the next line once stdout takes lines again. */
  onDropped: ((lines: number) => void) | undefined;

  constructor(options: StdoutDestinationOptions = {}) {
    this.#stream = new sonicBoom.SonicBoom({
      // Reading process.stdout first matters: for a pipe Node.js sets it non-blocking, so a full one answers EAGAIN
      // instead of holding the thread in write(2).
      fd: options.fd ?? (process.stdout.fd || 1),
      sync: true,
      maxLength: options.maxBacklogBytes ?? STDOUT_BACKLOG_BYTES,
      retryEAGAIN: () => false,
    });
    this.#stream.on('error', (err: unknown) => {
      const code = (err as { code?: unknown } | null)?.code;
      if (code === 'EPIPE') this.#gone = true;
      else if (code === 'EAGAIN' || code === 'EBUSY') this.#tryAgainLater();
      else throw err;
    });
    this.#stream.on('drop', () => {
      this.#dropped += 1;
    });
  }

  /** Whether stdout refused the last write (lines are queued, or dropped past the backlog). */
  get blocked(): boolean {
    return this.#retry !== undefined;
  }

  write(line: string): void {
    if (this.#gone) return;
    if (this.#dropped > 0 && !this.blocked) {
      const lines = this.#dropped;
      this.#dropped = 0;
      this.onDropped?.(lines);
    }
    this.#stream.write(line);
  }

  /** `cb` once every queued line has been written; with the error when stdout refuses them. */
  flush(cb: (err?: Error) => void): void {
    if (this.#gone) cb();
    else this.#stream.flush(cb);
  }

  /** At exit: whatever is queued, written if stdout takes it now, else left. */
  flushAtExit(): void {
    if (this.#gone) return;
    try {
      this.#stream.flushSync();
    } catch {
      // stdout still refuses it: the lines go with the process.
    }
  }

  #tryAgainLater(): void {
    if (this.#retry !== undefined) return;
    // Unref'd: a blocked stdout must not keep a stopping process alive.
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#stream.flush();
    }, BLOCKED_RETRY_MS).unref();
  }
}
