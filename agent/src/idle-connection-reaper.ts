import type { Socket } from 'node:net';

interface Activity {
  read: number;
  written: number;
  pending: number;
  since: number;
}

/**
 * Destroys connections that move no bytes for `idleMs`: nothing read, nothing handed to the kernel (a
 * response a stalled reader left in Node's buffer stays there). Not `server.timeout` / `socket.setTimeout`:
 * on Node.js 20, once the server has headers or request timeouts, its periodic connection check keeps
 * every socket's idle timer from firing unless the timer is shorter than the check interval (30 s).
 * One sweep every third of `idleMs` checks each open connection: they are few (loopback scrapes). A sweep that
 * comes late (the event loop was held: a large response built, a long GC) only looks: timers run before the
 * loop reads the sockets, so bytes a client sent meanwhile are still unread, and it would count as idle a
 * connection whose data is waiting.
 */
export class IdleConnectionReaper {
  readonly #sockets = new Map<Socket, Activity>();
  readonly #idleMs: number;
  readonly #timer: NodeJS.Timeout;
  readonly #periodMs: number;
  #lastSweep = performance.now();
  readonly #onReap: (socket: Socket) => void;

  /** `onReap` is told of each connection it destroys, before it does. */
  constructor(idleMs: number, onReap: (socket: Socket) => void = () => {}) {
    this.#idleMs = idleMs;
    this.#onReap = onReap;
    this.#periodMs = Math.max(1, Math.floor(idleMs / 3));
    this.#timer = setInterval(() => this.#sweep(), this.#periodMs);
    this.#timer.unref();
  }

  track(socket: Socket): void {
    this.#sockets.set(socket, { read: socket.bytesRead, written: socket.bytesWritten, pending: socket.writableLength, since: performance.now() });
    socket.once('close', () => this.#sockets.delete(socket));
  }

  close(): void {
    clearInterval(this.#timer);
    this.#sockets.clear();
  }

  #sweep(): void {
    const now = performance.now();
    const late = now - this.#lastSweep > 2 * this.#periodMs;
    this.#lastSweep = now;
    for (const [socket, a] of this.#sockets) {
      const read = socket.bytesRead;
      const written = socket.bytesWritten;
      const pending = socket.writableLength;
      if (read !== a.read || written !== a.written || pending !== a.pending) {
        a.read = read;
        a.written = written;
        a.pending = pending;
        a.since = now;
      } else if (!late && now - a.since >= this.#idleMs) {
        this.#sockets.delete(socket);
        this.#onReap(socket);
        socket.destroy();
      }
    }
  }
}
