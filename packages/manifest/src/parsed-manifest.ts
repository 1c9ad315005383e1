import type { JsonObject } from './json-object.js';
import type { ManifestInvalidCode } from './manifest-invalid-error.js';
import { Rejection } from './rejection.js';

interface ParseRejection {
  readonly code: ManifestInvalidCode;
  readonly reason: string;
  readonly mayDefinePod: boolean;
}

/**
 * A manifest whose first document was already parsed, off the event loop ({@link parseManifestOffThread}):
 * the document as JSON text, or why it was rejected. The decode functions take it in place of the bytes and
 * go on from there. Opaque: only this package reads it.
 */
export class ParsedManifest {
  readonly #json: string | undefined;
  readonly #rejection: ParseRejection | undefined;

  private constructor(json: string | undefined, rejection: ParseRejection | undefined) {
    this.#json = json;
    this.#rejection = rejection;
  }

  static document(json: string): ParsedManifest {
    return new ParsedManifest(json, undefined);
  }

  static rejected(code: ManifestInvalidCode, reason: string, mayDefinePod: boolean): ParsedManifest {
    return new ParsedManifest(undefined, { code, reason, mayDefinePod });
  }

  /** The parsed document, or the parse's rejection thrown again (a `Rejection`, for the pipeline to name the origin). */
  value(): JsonObject {
    const rejection = this.#rejection;
    if (rejection !== undefined) throw new Rejection(rejection.code, rejection.reason, { mayDefinePod: rejection.mayDefinePod });
    return JSON.parse(this.#json ?? '{}') as JsonObject;
  }
}
