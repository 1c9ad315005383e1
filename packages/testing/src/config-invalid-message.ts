import { PodConfigError } from '@podconfig/core';

/**
 * The message of the `PODCONFIG_CONFIG_INVALID` error `fn` throws. Throws when `fn` returns, and rethrows any other
 * error, so that a test asserting on the message also asserts on the kind.
 */
export function configInvalidMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err: unknown) {
    if (PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')) return err.message;
    throw err;
  }
  throw new Error('expected a PODCONFIG_CONFIG_INVALID error, got none');
}
