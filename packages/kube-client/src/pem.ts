import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The certificates of a CA bundle that parse, or why it has none. */
export type CaBundle =
  /** `pem`: the bundle as given when every block parses, else the blocks that do, joined; `skipped`: those that do not. */
  | { readonly pem: string; readonly skipped: number }
  | { readonly problem: string };

/**
 * Reads a CA bundle as client-go does (`rootCertPool`, Go's `x509.CertPool.AppendCertsFromPEM`): every CERTIFICATE
 * block that parses is trusted, one that does not is skipped, and only a bundle without any usable one is refused.
 * The skipped blocks are cut out, not handed to Node.js: OpenSSL stops reading a bundle at its first bad block, and
 * would drop every certificate after it.
 */
export function parseCaBundle(pem: string): CaBundle {
  const blocks = pem.match(CERT_BLOCK) ?? [];
  if (blocks.length === 0) return { problem: 'contains no PEM certificate' };
  const parsed = blocks.filter((block) => {
    try {
      new X509Certificate(block);
      return true;
    } catch {
      return false;
    }
  });
  if (parsed.length === 0) return { problem: 'contains no certificate that can be parsed' };
  const skipped = blocks.length - parsed.length;
  return { pem: skipped === 0 ? pem : `${parsed.join('\n')}\n`, skipped };
}

/** The warning for `skipped` certificates of a CA bundle that `owner` names (`the certificate authority of …`). */
export function skippedCertificatesWarning(owner: string, skipped: number): string {
  return `${owner} has ${skipped} certificate${skipped === 1 ? '' : 's'} that cannot be parsed: skipped, as kubectl skips them`;
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
