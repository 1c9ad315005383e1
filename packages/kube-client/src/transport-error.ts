import { PodConfigError } from '@podconfig/core';

/** OpenSSL's certificate verification results, as Node reports them in `err.code`. */
const VERIFY_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_CRL',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Verification results that say the chain does not lead to a trusted CA (not a name, a date or a handshake). */
const UNTRUSTED_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);

/** The first error in the `cause` chain whose code marks a TLS failure. */
function tlsFailure(err: unknown): Error | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = errorCode(e);
    if (code !== undefined && (VERIFY_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))) return e;
  }
  return undefined;
}

/**
 * Maps what undici or Node threw for a request into podconfig's errors:
 * - TLS verification or handshake failures (wrong CA, hostname mismatch, client certificate
 *   refused): `PODCONFIG_TLS`, naming the server and the reason;
 * - everything else (refused, reset, closed, timeouts, DNS): `PODCONFIG_SOURCE_UNAVAILABLE`.
 * Both are retryable: the reflector backs off and tries again (decision D11).
 * `server` is already safe to print (`safeUrl`); undici and OpenSSL messages hold no credentials. `trusted`
 * says which CAs were trusted (`the certificate-authority of kubeconfig:/etc/kubeconfig#ctx`): added when the
 * chain leads to none of them, where an operator looks first.
 */
export function transportError(err: unknown, describe: string, server: string, trusted?: string): PodConfigError {
  if (PodConfigError.is(err)) return err;
  const tls = tlsFailure(err);
  if (tls !== undefined) {
    const code = errorCode(tls);
    const hint = trusted !== undefined && code !== undefined && UNTRUSTED_CODES.has(code) ? ` (trusted: ${trusted})` : '';
    return new PodConfigError('PODCONFIG_TLS', `TLS with ${server} failed (${describe}): ${code}: ${tls.message}${hint}`, {
      cause: err,
      retryable: true,
    });
  }
  const code = errorCode(err) ?? (err instanceof Error ? err.name : 'error');
  const message = err instanceof Error ? err.message : String(err);
  return new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', `${describe} to ${server} failed: ${code}: ${message}`, {
    cause: err,
    retryable: true,
  });
}
