import type { ManifestInvalidCode } from './manifest-invalid-error.js';

/**
 * Thrown inside the pipeline, where the origin is not known; the decode functions turn it into a
 * `ManifestInvalidError` that names the origin. Never crosses the package boundary.
 */
export class Rejection extends Error {
  readonly code: ManifestInvalidCode;
  /** See `ManifestInvalidError.mayDefinePod`. */
  readonly mayDefinePod: boolean;

  constructor(code: ManifestInvalidCode, reason: string, options: ErrorOptions & { readonly mayDefinePod?: boolean } = {}) {
    super(reason, options);
    this.name = 'Rejection';
    this.code = code;
    this.mayDefinePod = options.mayDefinePod ?? true;
  }
}

export function reject(reason: string, code: ManifestInvalidCode = 'PODCONFIG_MANIFEST_INVALID'): never {
  throw new Rejection(code, reason);
}

/** A rejection of input that cannot be a Pod's manifest with a mistake in it (see `ManifestInvalidError.mayDefinePod`). */
export function rejectNotAPod(reason: string, code: ManifestInvalidCode = 'PODCONFIG_MANIFEST_INVALID'): never {
  throw new Rejection(code, reason, { mayDefinePod: false });
}
