/**
 * The reason the agent's root signal aborts with at the first SIGTERM, SIGINT or SIGHUP, and so what a handler
 * sees as `signal.reason` then (in its calls, `start()` and factory): an Error named `AbortError`, as the platform's
 * own abort reason is, so `signal.throwIfAborted()` throws an Error and code that tells an abort by `err.name`
 * (undici, `fetch`, `fs`) still does. Its message names the OS signal; `signal` holds it.
 *
 * Imports nothing: the process entry makes it before the agent's modules have loaded.
 */
export class ShutdownSignalError extends Error {
  override readonly name = 'AbortError';

  constructor(readonly signal: NodeJS.Signals) {
    super(`podconfig-agent received ${signal}: shutting down`);
  }
}
