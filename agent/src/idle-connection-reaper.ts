import type { Socket } from 'node:net';

interface Activity {
  read: number;
  written: number;
  pending: number;
  since: number;
  /** Found idle: cut after the loop's next read of the sockets unless it moved by then. */
  doomed: boolean;
}

/**
 * Destroys connections that move no bytes for `idleMs`: nothing read, nothing handed to the kernel (a
 * response a stalled reader left in Node's buffer stays there). Not `server.timeout` / `socket.setTimeout`:
 * on Node.js 20, once the server has headers or request timeouts, its periodic connection check keeps
 * every socket's idle timer from firing unless the timer is shorter than the check interval (30 s).
 * One sweep every third of `idleMs` checks each open connection: they are few (loopback scrapes). A connection
 * found idle is cut only after the loop's next read of the sockets (`setImmediate`): timers run before it, so bytes
 * a client sent while the loop was held (a large response built, a long GC) are still unread at the sweep.
 */
export class IdleConnectionReaper {
  readonly #sockets = new Map<Socket, Activity>();
  readonly #idleMs: number;
  readonly #timer: NodeJS.Timeout;
  readonly #onReap: (socket: Socket) => void;

  /** `onReap` is told of each connection it destroys, before it does. */
  constructor(idleMs: number, onReap: (socket: Socket) => void = () => {}) {
    this.#idleMs = idleMs;
    this.#onReap = onReap;
    this.#timer = setInterval(() => this.#sweep(), Math.max(1, Math.floor(idleMs / 3)));
    this.#timer.unref();
  }

  track(socket: Socket): void {
    this.#sockets.set(socket, { read: socket.bytesRead, written: socket.bytesWritten, pending: socket.writableLength, since: performance.now(), doomed: false });
    socket.once('close', () => this.#sockets.delete(socket));
  }

  close(): void {
    clearInterval(this.#timer);
    this.#sockets.clear();
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
    this.#onReap(socket);
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
