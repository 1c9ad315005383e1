import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * Checks a CA bundle as client-go's `certutil.NewPool` does: at least one CERTIFICATE block, and
 * every one parses. Returns a problem description, or undefined when the bundle is fine.
 */
export function caBundleProblem(pem: string): string | undefined {
  const blocks = pem.match(CERT_BLOCK) ?? [];
  if (blocks.length === 0) return 'contains no PEM certificate';
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      return 'contains a certificate that cannot be parsed';
    }
  }
  return undefined;
}

/** Checks that a client certificate and key parse and belong together; returns a problem or undefined. */
export function keyPairProblem(cert: string, key: string): string | undefined {
  // OpenSSL says `bad decrypt`; what it means is a passphrase nobody can type here (kubectl cannot parse one either).
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|^Proc-Type:\s*4,\s*ENCRYPTED/m.test(key)) {
    return 'the private key is encrypted (passphrase-protected), which is not supported: decrypt it (openssl pkey -in key.pem -out plain.pem)';
  }
  try {
    createSecureContext({ cert, key });
    return undefined;
  } catch (err: unknown) {
    // OpenSSL's messages name the failing routine, never the key material.
    return (err as Error).message;
  }
}
