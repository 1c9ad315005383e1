import { isIP } from 'node:net';
import type { ConnectionOptions, PeerCertificate } from 'node:tls';
import { nodeCheckServerIdentity } from './builtins-on-first-use.js';

/**
 * A server certificate refused because only its subject's Common Name names the host (it has no subjectAltName):
 * `code` `ERR_TLS_CERT_ALTNAME_INVALID`, with `reason`, `host` and `cert` as Node.js's own name-mismatch error has
 * them, so that whatever reads those (core's `tlsFailure`) reads this one too.
 */
export class LegacyCommonNameError extends Error {
  readonly code = 'ERR_TLS_CERT_ALTNAME_INVALID';
  /** Go's words, with the host and the Common Name; `tlsFailure` reports it as it is. */
  readonly reason: string;
  readonly host: string;
  readonly cert: PeerCertificate;

  constructor(host: string, cert: PeerCertificate) {
    const cn = typeof cert.subject?.CN === 'string' ? ` (CN ${cert.subject.CN})` : '';
    const reason = `certificate relies on legacy Common Name field${cn}, use SANs instead: it has no subjectAltName to match ${host}`;
    super(`Hostname/IP does not match certificate's altnames: ${reason}`);
    this.reason = reason;
    this.host = host;
    this.cert = cert;
  }
}

/** A DNS entry in Node.js's `subjectaltname` text (`DNS:a, IP Address:b`; an entry with a comma comes quoted). */
const DNS_ENTRY = /(?:^|, )"?DNS:/;

/**
 * Node.js's `tls.checkServerIdentity` (DNS names, wildcards and IP addresses of the subjectAltName), without its
 * fallback to the subject's Common Name for a host name when the certificate names no DNS name: Go's crypto/x509
 * dropped that fallback in Go 1.15 (`x509: certificate relies on legacy Common Name field, use SANs instead`), and
 * so kubectl, client-go and the kubelet refuse such a certificate. A certificate Go refuses must not be accepted by
 * podconfig: it would work here and fail the day the same configuration is used by a Go client. Node.js passes it
 * the name checked: `servername` (`tls-server-name`) when set, else the host connected to.
 */
export function checkServerIdentity(hostname: string, cert: PeerCertificate): Error | undefined {
  const failure = nodeCheckServerIdentity(hostname, cert);
  if (failure !== undefined) return failure;
  // Node.js matched: by a SAN, or for a host name without DNS SANs by the Common Name, which Go never reads.
  const altNames = cert.subjectaltname ?? '';
  if (isIP(hostname.replace(/\.$/, '')) !== 0 || DNS_ENTRY.test(altNames)) return undefined;
  if (altNames === '') return new LegacyCommonNameError(hostname, cert);
  // SANs, but no DNS name among them (IP addresses only, say): Node.js's words; tlsFailure names the SANs, as Go does.
  const reason = `Host: ${hostname}. is not in the cert's altnames: ${altNames}`;
  return Object.assign(new Error(`Hostname/IP does not match certificate's altnames: ${reason}`), {
    code: 'ERR_TLS_CERT_ALTNAME_INVALID', reason, host: hostname, cert,
  });
}

/**
 * `options` with a server verified as Go's crypto/tls verifies it: the name by {@link checkServerIdentity} (no
 * Common Name fallback) and, when they name a CA, every certificate in it a trust anchor (`allowPartialTrustChain`),
 * as Go's `x509.CertPool` takes them: a `certificate-authority` that holds an intermediate CA verifies a server
 * whose chain leads to it, where OpenSSL by default wants the chain to end in a self-signed root. Used for every
 * outgoing TLS connection podconfig makes; the proxy connectors apply it themselves. Verification is on unless the
 * caller turns it off itself (`rejectUnauthorized: false`, a kubeconfig's `insecure-skip-tls-verify`): Node.js would
 * otherwise take its default from `NODE_TLS_REJECT_UNAUTHORIZED`, and `=0` in the environment would silently
 * accept any server, where Go has no such switch.
 */
export function withGoServerVerification<T extends ConnectionOptions>(options: T): T {
  return {
    ...options,
    rejectUnauthorized: options.rejectUnauthorized ?? true,
    checkServerIdentity,
    ...(options.ca === undefined ? {} : { allowPartialTrustChain: true }),
  };
}
