import { LegacyCommonNameError } from './go-server-verification.js';

/** OpenSSL's certificate verification results, as Node.js reports them in `err.code`. */
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

/** Why a TLS connection failed, read from an error's `cause` chain by {@link tlsFailure}. */
export interface TlsFailure {
  /** OpenSSL's or Node.js's code: `DEPTH_ZERO_SELF_SIGNED_CERT`, `ERR_TLS_CERT_ALTNAME_INVALID`, `ERR_SSL_…`. */
  readonly code: string;
  /**
   * Node.js's message; for a name the certificate does not hold, Go's words instead (`certificate is valid for
   * 127.0.0.1, not localhost`), which name every name it holds (Node.js names only one), or for a certificate that
   * names its host in the Common Name only, `certificate relies on legacy Common Name field …, use SANs instead …`.
   */
  readonly reason: string;
  /** The chain leads to no trusted CA: where an operator looks first is which CAs were trusted. */
  readonly untrusted: boolean;
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The first error in `err`'s `cause` chain (5 deep) whose code marks a TLS verification or handshake failure. */
export function tlsFailure(err: unknown): TlsFailure | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = errorCode(e);
    if (code === undefined || !(VERIFY_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))) continue;
    const reason = code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? (nameMismatch(e) ?? e.message) : e.message;
    return { code, reason, untrusted: UNTRUSTED_CODES.has(code) };
  }
  return undefined;
}

/**
 * `certificate is valid for a, b, not host` from Node.js's error, which carries the host and the certificate; a
 * certificate refused for naming its host only in the Common Name (core's `checkServerIdentity`) keeps its reason.
 */
function nameMismatch(err: Error): string | undefined {
  if (err instanceof LegacyCommonNameError) return err.reason;
  const { host, cert } = err as { host?: unknown; cert?: { subjectaltname?: unknown } };
  if (typeof host !== 'string') return undefined;
  const alt = cert?.subjectaltname;
  // `DNS:a.example, IP Address:127.0.0.1`: the names without their types. The subject's Common Name is no name a
  // host is checked against (Go since 1.15, core's checkServerIdentity): never listed.
  const names = typeof alt === 'string' ? alt.split(',').map((n) => n.trim().replace(/^[^:]*:/, '')).filter((n) => n !== '') : [];
  return names.length > 0 ? `certificate is valid for ${names.join(', ')}, not ${host}` : `certificate is not valid for any names, but wanted to match ${host}`;
}

/** How the process was started, as far as its default CAs go. */
export interface CaRuntime {
  readonly execArgv: readonly string[];
  readonly nodeOptions: string | undefined;
}

const THIS_PROCESS: CaRuntime = { execArgv: process.execArgv, nodeOptions: process.env.NODE_OPTIONS };

/**
 * Which CAs a client trusted, for a TLS error whose chain leads to none of them: `the CA of <caSource>`, or, without a
 * CA of its own (`caSource` undefined), the default roots: Node.js's bundled ones, not the system's store that Go
 * programs (kubectl, the kubelet) read, unless Node.js runs with `--use-openssl-ca`. An operator whose CA sits in the
 * system store (or in `SSL_CERT_FILE`) is told how to get it trusted.
 */
export function trustedCas(caSource: string | undefined, runtime: CaRuntime = THIS_PROCESS): string {
  if (caSource !== undefined) return `the CA of ${caSource}`;
  // As Node.js reads it: `_` for `-`, any `=value`; a lone `--no-use-openssl-ca` keeps the bundled roots.
  const flags = [...runtime.execArgv, ...(runtime.nodeOptions ?? '').split(/\s+/)].map((f) => f.replace(/_/g, '-').split('=')[0]);
  return flags.includes('--use-openssl-ca')
    ? "the system's OpenSSL store (--use-openssl-ca: SSL_CERT_FILE and SSL_CERT_DIR apply; NODE_EXTRA_CA_CERTS adds to it)"
    : "Node.js's bundled roots, not the system's store (NODE_EXTRA_CA_CERTS adds to them; NODE_OPTIONS=--use-openssl-ca reads the system's, and SSL_CERT_FILE)";
}

/** `<code>: <reason>`, and `(trusted: <trusted>)` when the chain led to no trusted CA and `trusted` says which were. */
export function tlsFailureText(failure: TlsFailure, trusted?: string): string {
  return `${failure.code}: ${failure.reason}${failure.untrusted && trusted !== undefined ? ` (trusted: ${trusted})` : ''}`;
}
