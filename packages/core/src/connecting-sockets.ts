/** What {@link ConnectingSockets} needs of a socket. */
interface Destroyable {
  destroy(error?: Error): unknown;
}

/**
 * The sockets of an HTTP client's connector (undici's `connect` option: `(options, callback)`,
 * returning the socket it opens) from the moment they are opened until the connector calls back.
 * undici 7 neither aborts a pending TCP/TLS connect when a request's signal aborts nor when its
 * dispatcher is destroyed: against a server that accepts and never answers, the socket stays open
 * until the connect timeout. {@link destroy} ends them; the connector then calls back with the
 * error and undici fails the requests waiting for the connection. Has no undici dependency: the
 * owner of the dispatcher wraps its connector with {@link wrap}.
 */
export class ConnectingSockets {
  readonly #sockets = new Set<Destroyable>();

  /** `connect`, with each socket it returns tracked until its callback runs. */
  wrap<O, C extends (...args: never) => void>(connect: (options: O, callback: C) => unknown): (options: O, callback: C) => void {
    return (options, callback) => {
      let socket: Destroyable | undefined;
      let settled = false;
      const tracked = ((...args: unknown[]) => {
        settled = true;
        if (socket !== undefined) this.#sockets.delete(socket);
        (callback as unknown as (...a: unknown[]) => void)(...args);
      }) as unknown as C;
      const returned = connect(options, tracked);
      if (!settled && typeof (returned as Destroyable | undefined)?.destroy === 'function') {
        socket = returned as Destroyable;
        this.#sockets.add(socket);
      }
    };
  }

  /** Sockets still connecting. */
  get size(): number {
    return this.#sockets.size;
  }

  /** Destroys every socket still connecting with `reason` (its connector reports it as the connect error). */
  destroy(reason: Error): void {
    const sockets = [...this.#sockets];
    this.#sockets.clear();
    for (const socket of sockets) socket.destroy(reason);
  }
}
