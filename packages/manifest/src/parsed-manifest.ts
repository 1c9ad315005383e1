import type { JsonObject } from './json-object.js';
import type { ManifestInvalidCode } from './manifest-invalid-error.js';
import { reject } from './rejection.js';

/**
 * A manifest whose first document was already parsed, off the event loop ({@link parseManifestOffThread}):
 * the document as JSON text, or why it was rejected. The decode functions take it in place of the bytes and
 * go on from there. Opaque: only this package reads it.
 */
export class ParsedManifest {
  readonly #json: string | undefined;
  readonly #rejection: { readonly code: ManifestInvalidCode; readonly reason: string } | undefined;

  private constructor(json: string | undefined, rejection: { readonly code: ManifestInvalidCode; readonly reason: string } | undefined) {
    this.#json = json;
    this.#rejection = rejection;
  }

  static document(json: string): ParsedManifest {
    return new ParsedManifest(json, undefined);
  }

  static rejected(code: ManifestInvalidCode, reason: string): ParsedManifest {
    return new ParsedManifest(undefined, { code, reason });
  }

  /** The parsed document, or the parse's rejection thrown again (a `Rejection`, for the pipeline to name the origin). */
  value(): JsonObject {
    if (this.#rejection !== undefined) reject(this.#rejection.reason, this.#rejection.code);
    return JSON.parse(this.#json ?? '{}') as JsonObject;
  }
}
