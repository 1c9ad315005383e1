import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface PemPair {
  readonly cert: string;
  readonly key: string;
}

export interface TestPki {
  readonly ca: PemPair;
  /** Serving certificate for 127.0.0.1, ::1 and localhost (plus `hosts`). */
  readonly server: PemPair;
  /** Client certificate (CN `podconfig-test-client`, O `system:masters`). */
  readonly client: PemPair;
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
}

let serial = 1;

/** What a certificate made here is for: its key usages, extended key usage and basic constraints. */
type Role = 'ca' | 'server' | 'client';

interface Issuer {
  readonly cert: x509.X509Certificate;
  readonly key: CryptoKey;
}

const validity = (): { notBefore: Date; notAfter: Date } => ({
  notBefore: new Date(Date.now() - 60_000),
  notAfter: new Date(Date.now() + 24 * 3600_000),
});

/** subjectAltName entries: IP addresses as such, anything else a DNS name. */
function altNames(hosts: readonly string[]): x509.SubjectAlternativeNameExtension {
  return new x509.SubjectAlternativeNameExtension(
    hosts.map((h) => (/^[\d.]+$|:/.test(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h })),
  );
}

async function issue(issuer: Issuer, subject: string, role: Role, hosts: readonly string[]): Promise<PemPair> {
  const keys = await generateKeys();
  const usage: x509.Extension[] = role === 'ca'
    ? [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ]
    : [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([role === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      ];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    subject,
    issuer: issuer.cert.subject,
    ...validity(),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: issuer.key,
    extensions: [...usage, await x509.AuthorityKeyIdentifierExtension.create(issuer.cert), ...(hosts.length === 0 ? [] : [altNames(hosts)])],
  });
  return { cert: cert.toString('pem'), key: await keyPem(keys.privateKey) };
}

/**
 * A throwaway CA with a server and a client certificate, made at test time (ECDSA P-256, valid
 * one day). Real TLS handshakes in tests use it; nothing is read from or written to disk.
 */
export async function createTestPki(options: { hosts?: readonly string[]; caName?: string } = {}): Promise<TestPki> {
  const caKeys = await generateKeys();
  const caCert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    name: `CN=${options.caName ?? 'podconfig test CA'}`,
    ...validity(),
    signingAlgorithm: ALG,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const ca: Issuer = { cert: caCert, key: caKeys.privateKey };
  const server = await issue(ca, 'CN=127.0.0.1', 'server', ['127.0.0.1', '::1', 'localhost', ...(options.hosts ?? [])]);
  const client = await issue(ca, 'CN=podconfig-test-client, O=system:masters', 'client', []);
  return { ca: { cert: caCert.toString('pem'), key: await keyPem(caKeys.privateKey) }, server, client };
}

/** What {@link issueTestCertificate} makes. */
export interface TestCertificateOptions {
  /** The subject's Common Name. */
  readonly commonName: string;
  /**
   * The subjectAltName's names (IP addresses as such, anything else a DNS name). None: a certificate without a
   * subjectAltName, naming its host in the Common Name only, which Go (since 1.15) and podconfig refuse.
   */
  readonly hosts?: readonly string[];
  /** `ca`: an intermediate CA, to issue from in turn; default `server`. */
  readonly role?: 'ca' | 'server';
}

/**
 * A certificate signed by `issuer` (a CA's PEM pair: `createTestPki().ca`, or an intermediate made here), valid one
 * day: a serving certificate, or with `role: 'ca'` an intermediate CA. Its PEM ends in a newline, so that a chain
 * is the certificates joined: a server whose certificate an intermediate issued sends `leaf.cert + intermediate.cert`.
 */
export async function issueTestCertificate(issuer: PemPair, options: TestCertificateOptions): Promise<PemPair> {
  const der = Buffer.from(issuer.key.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const key = await webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  const issued = await issue({ cert: new x509.X509Certificate(issuer.cert), key }, `CN=${options.commonName}`, options.role ?? 'server', options.hosts ?? []);
  return { cert: `${issued.cert.trimEnd()}\n`, key: issued.key };
}
