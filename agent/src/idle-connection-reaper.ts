import type { Socket } from 'node:net';

interface Activity {
  read: number;
  written: number;
  pending: number;
  since: number;
  /** Found idle: cut after the loop's next read of the sockets unless it moved by then. */
  doomed: boolean;
  /** Requests taken in (their headers complete) whose response has not ended. */
  inFlight: number;
}

/** Why the reaper closes a connection. */
export type ReapReason =
  /** It moved no bytes for `idleMs`. */
  | 'idle'
  /** At the cap: it had no request in flight and was the one idle the longest, closed to admit a new one. */
  | 'evicted'
  /** At the cap with a request in flight on every connection held: the new connection itself. */
  | 'refused';

export interface IdleConnectionReaperOptions {
  /** A connection that moves no bytes this long is closed. */
  readonly idleMs: number;
  /** Connections held at once (see {@link IdleConnectionReaper.track}); unlimited when left out. */
  readonly maxConnections?: number;
  /** Told of each connection it closes, and why, before it does. */
  readonly onReap?: (socket: Socket, reason: ReapReason) => void;
}

/**
 * The status server's connections: closes those that move no bytes for `idleMs`, and holds at most
 * `maxConnections` of them by closing an idle one to admit a new one.
 *
 * No bytes moved: nothing read, nothing handed to the kernel (a response a stalled reader left in Node's buffer
 * stays there). Not `server.timeout` / `socket.setTimeout`: on Node.js 20, once the server has headers or request
 * timeouts, its periodic connection check (`connectionsCheckingInterval`) keeps every socket's idle timer from firing
 * unless the timer is shorter than the check's period. One sweep every third of `idleMs` checks each open
 * connection: they are few (loopback scrapes). A connection found idle is cut only after the loop's next read of the
 * sockets (`setImmediate`): timers run before it, so bytes a client sent while the loop was held (a large response
 * built, a long GC) are still unread at the sweep.
 *
 * The cap: any local user can connect, so a cap that refuses new connections lets one who holds the cap's worth of
 * silent ones fail every liveness probe. Instead, at the cap a new connection closes the held one that has had no
 * request in flight the longest (a keep-alive connection between requests, or one that has not sent a complete
 * first request: a silent one or a slowloris); only when every held connection has a request in flight is the new
 * one closed. A probe's fresh connection is the last such one to go, and once its request is in, it is not taken.
 */
export class IdleConnectionReaper {
  /** In the order the connections last ended a request (or opened): the first idle one is idle the longest. */
  readonly #sockets = new Map<Socket, Activity>();
  readonly #idleMs: number;
  readonly #maxConnections: number;
  readonly #timer: NodeJS.Timeout;
  readonly #onReap: (socket: Socket, reason: ReapReason) => void;

  constructor(options: IdleConnectionReaperOptions) {
    this.#idleMs = options.idleMs;
    this.#maxConnections = options.maxConnections ?? Infinity;
    this.#onReap = options.onReap ?? (() => {});
    this.#timer = setInterval(() => this.#sweep(), Math.max(1, Math.floor(this.#idleMs / 3)));
    this.#timer.unref();
  }

  /**
   * Takes in a new connection. At `maxConnections`, closes the held connection idle the longest to make room, or,
   * when every held one has a request in flight, closes `socket` itself; false then.
   */
  track(socket: Socket): boolean {
    if (this.#sockets.size >= this.#maxConnections && !this.#evictOne()) {
      this.#onReap(socket, 'refused');
      socket.destroy();
      return false;
    }
    this.#sockets.set(socket, { read: socket.bytesRead, written: socket.bytesWritten, pending: socket.writableLength, since: performance.now(), doomed: false, inFlight: 0 });
    socket.once('close', () => this.#sockets.delete(socket));
    return true;
  }

  /**
   * A request on `socket` was taken in (its headers are complete): the connection is busy, not to be evicted, until
   * the returned function is called (when the response has ended or failed; more calls do nothing).
   */
  requestStarted(socket: Socket): () => void {
    const a = this.#sockets.get(socket);
    if (a === undefined) return () => {};
    a.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      a.inFlight--;
      if (this.#sockets.get(socket) !== a) return; // closed meanwhile
      // Now the most recently used: evicted after every connection idle for longer.
      this.#sockets.delete(socket);
      this.#sockets.set(socket, a);
    };
  }

  close(): void {
    clearInterval(this.#timer);
    this.#sockets.clear();
  }

  /** Closes the held connection without a request in flight that is idle the longest; false when there is none. */
  #evictOne(): boolean {
    for (const [socket, a] of this.#sockets) {
      if (a.inFlight > 0) continue;
      this.#sockets.delete(socket);
      this.#onReap(socket, 'evicted');
      socket.destroy();
      return true;
    }
    return false;
  }

  #sweep(): void {
    const now = performance.now();
    for (const [socket, a] of this.#sockets) {
      if (moved(socket, a)) a.since = now;
      else if (now - a.since >= this.#idleMs && !a.doomed) {
        a.doomed = true;
        setImmediate(() => this.#reapUnlessMoved(socket, a));
      }
    }
  }

  #reapUnlessMoved(socket: Socket, a: Activity): void {
    a.doomed = false;
    if (this.#sockets.get(socket) !== a) return; // closed, or the reaper was
    if (moved(socket, a)) {
      a.since = performance.now();
      return;
    }
    this.#sockets.delete(socket);
    this.#onReap(socket, 'idle');
    socket.destroy();
  }
}

/** Whether the connection moved bytes since `a` was taken; takes the new counts. */
function moved(socket: Socket, a: Activity): boolean {
  const read = socket.bytesRead;
  const written = socket.bytesWritten;
  const pending = socket.writableLength;
  if (read === a.read && written === a.written && pending === a.pending) return false;
  a.read = read;
  a.written = written;
  a.pending = pending;
  return true;
}
