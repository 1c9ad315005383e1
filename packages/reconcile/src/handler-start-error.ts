import { PodConfigError } from '@podconfig/core';

/**
 * A handler's `start()` failed (`PODCONFIG_HANDLER_FAILED`) or did not finish within the call timeout
 * (`PODCONFIG_HANDLER_TIMEOUT`): `Reconciler.run()` rejects with it, `cause` being what `start()` threw. It
 * carries the handler's name, and lets the agent tell a handler that could not start from a failure of the
 * running pipeline by type, not by message.
 */
export class HandlerStartError extends PodConfigError {
  /** The name the handler runs under. */
  readonly handler: string;

  constructor(handler: string, message: string, options: ErrorOptions & { timedOut?: boolean } = {}) {
    super(options.timedOut === true ? 'PODCONFIG_HANDLER_TIMEOUT' : 'PODCONFIG_HANDLER_FAILED', message,
      options.cause === undefined ? {} : { cause: options.cause });
    this.handler = handler;
  }
}
