// eslint-disable-next-line no-restricted-imports -- pino's err serializer, a pure function: no logger is made here
import { pino } from 'pino';
import { errorMessageWithCauses } from './error-message-with-causes.js';

type SerializedError = ReturnType<typeof pino.stdSerializers.err>;

/**
 * A rejected manifest is the input's fault, and its message names the file or URL and what is wrong where: a stack
 * (1 KB of the decoder's frames) would only bury that in every warn line an operator's typo causes.
 */
const isManifestRejection = (err: Error): boolean => {
  const code = (err as { readonly code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('PODCONFIG_MANIFEST_');
};

/**
 * pino's `err` serializer (type, stack with the causes' stacks, own fields) with {@link errorMessageWithCauses} for the
 * message, and no stack for a rejected manifest. podconfig's messages quote their causes already, which pino's own
 * serializer would append a second time (`request failed: connect ECONNREFUSED …: connect ECONNREFUSED …`). The
 * agent's logger uses it; give it to your own: `pino({ serializers: { err: serializeError } })`.
 */
export function serializeError(err: Error): SerializedError {
  const out = pino.stdSerializers.err(err);
  if (!(err instanceof Error) || typeof out !== 'object' || out === null) return out;
  out.message = errorMessageWithCauses(err);
  if (isManifestRejection(err)) delete (out as { stack?: string }).stack;
  return out;
}
