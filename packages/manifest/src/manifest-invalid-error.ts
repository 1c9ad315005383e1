import { PodConfigError } from '@podconfig/core';

/** The codes a rejected manifest carries. */
export type ManifestInvalidCode =
  | 'PODCONFIG_MANIFEST_INVALID'
  | 'PODCONFIG_MANIFEST_TOO_LARGE'
  | 'PODCONFIG_MANIFEST_FORBIDDEN_REFERENCE';

/**
 * A manifest was rejected. `origin` is the file path or the URL without userinfo and query string;
 * `reason` says what is wrong where (field paths, never field values that could be secret).
 * The message is `<origin>: <reason>`.
 */
export class ManifestInvalidError extends PodConfigError {
  readonly origin: string;
  readonly reason: string;
  /**
   * Whether the rejected input may be a Pod's manifest with a mistake in it: YAML or JSON that does not parse, a
   * mapping of kind `Pod` (or of no kind, with `metadata` or `spec`) that fails decoding or validation, or a file
   * that could not be read. False for what never defined a pod: empty input, binary data, a scalar or a list,
   * another kind, more than the size cap. The file source holds orphan kills only for the former (D4).
   */
  readonly mayDefinePod: boolean;

  constructor(code: ManifestInvalidCode, origin: string, reason: string, options: ErrorOptions & { readonly mayDefinePod?: boolean } = {}) {
    super(code, `${origin}: ${reason}`, options);
    this.origin = origin;
    this.reason = reason;
    this.mayDefinePod = options.mayDefinePod ?? true;
  }
}
