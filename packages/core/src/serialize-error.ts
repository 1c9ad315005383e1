import type { pino } from 'pino';
import { errorMessageWithCauses } from './error-message-with-causes.js';
import { PodConfigError, StatusError } from './errors.js';

/** pino's `err` serializer's type (`pino.stdSerializers.err`), which {@link serializeErrorWith} builds on. */
export type ErrSerializer = typeof pino.stdSerializers.err;

/**
 * Errors whose stack says nothing an operator can use, only where podconfig noticed what its message says: a
 * rejected manifest is the input's fault, and its message names the file or URL and what is wrong where (a stack
 * is 1 KB of the decoder's frames in every warn line a typo causes); a Kubernetes `Status` is the API server's
 * answer; and a retryable error is the outside world failing for now (a refused connection, a timeout, a 503),
 * warned of at every retry during an outage (~2.5 KB a line with its stack).
 */
const isOutsideFailure = (err: Error): boolean => {
  if (err instanceof StatusError) return true;
  // A configuration error is said once, at start-up, and `--log-level=debug` asks for its stack.
  if (PodConfigError.is(err) && err.retryable && err.code !== 'PODCONFIG_CONFIG_INVALID') return true;
  const code = (err as { readonly code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('PODCONFIG_MANIFEST_');
};

/**
 * pino's `err` serializer (`base`: type, stack with the causes' stacks, own fields) with {@link errorMessageWithCauses}
 * for the message, and no stack for a failure of the outside: a rejected manifest, an API server's `Status`, a
 * retryable error. podconfig's messages quote their causes already, which pino's own serializer would append a second
 * time (`request failed: connect ECONNREFUSED …: connect ECONNREFUSED …`). The agent's logger uses it; give it to your
 * own: `pino({ serializers: { err: serializeErrorWith(pino.stdSerializers.err) } })` (core takes pino as a type only).
 */
export function serializeErrorWith(base: ErrSerializer): ErrSerializer {
  return (err) => {
    const out = base(err);
    if (!(err instanceof Error) || typeof out !== 'object' || out === null) return out;
    out.message = errorMessageWithCauses(err);
    if (isOutsideFailure(err)) delete (out as { stack?: string }).stack;
    return out;
  };
}
