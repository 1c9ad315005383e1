import { PodConfigError } from '@podconfig/core';

/** The manifest URL answered with a status that is no answer (`PODCONFIG_HTTP_STATUS`), maybe saying when to come back. */
export class HttpStatusError extends PodConfigError {
  /** From a 429's or 5xx's `Retry-After`, in ms: the next poll is not sooner. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, retryAfterMs: number | undefined) {
    super('PODCONFIG_HTTP_STATUS', message, { retryable: true });
    this.retryAfterMs = retryAfterMs;
  }
}
