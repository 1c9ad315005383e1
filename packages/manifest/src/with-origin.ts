import { errorMessage } from '@podconfig/core';
import { ManifestInvalidError } from './manifest-invalid-error.js';
import { describeOrigin, type ManifestOrigin } from './manifest-origin.js';
import { Rejection } from './rejection.js';

/** Runs a pipeline step and turns anything it throws into a `ManifestInvalidError` naming the origin. */
export function withOrigin<T>(origin: ManifestOrigin, run: () => T): T {
  try {
    return run();
  } catch (err: unknown) {
    if (err instanceof Rejection) throw new ManifestInvalidError(err.code, describeOrigin(origin), err.message, { mayDefinePod: err.mayDefinePod });
    throw new ManifestInvalidError('PODCONFIG_MANIFEST_INVALID', describeOrigin(origin), `internal error while decoding: ${errorMessage(err)}`, { cause: err });
  }
}
