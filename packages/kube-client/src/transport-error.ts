import { PodConfigError, tlsFailure, tlsFailureText } from '@podconfig/core';

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
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
    return new PodConfigError('PODCONFIG_TLS', `TLS with ${server} failed (${describe}): ${tlsFailureText(tls, trusted)}`, {
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
