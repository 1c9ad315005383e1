/**
 * The API's `Unsupported value` error (field.NotSupported): `value` must be one of `allowed`. An absent value
 * passes; callers that require one say so themselves, as the API does.
 */
export function oneOf(value: string | undefined, allowed: readonly string[], at: string, errors: string[]): void {
  if (value === undefined) return;
  if (!allowed.includes(value)) {
    errors.push(`${at}: Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`);
  }
}
