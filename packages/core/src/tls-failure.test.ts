import { describe, expect, it } from 'vitest';
import { tlsFailure, tlsFailureText, trustedCas } from './tls-failure.js';

const coded = (message: string, code: string, extra: Record<string, unknown> = {}): Error => Object.assign(new Error(message), { code }, extra);

describe(tlsFailure.name, () => {
  it('finds a verification failure down the cause chain, and says whether the chain led to no trusted CA', () => {
    const selfSigned = coded('self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(tlsFailure(new Error('fetch failed', { cause: selfSigned }))).toEqual({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', reason: 'self-signed certificate', untrusted: true });
    expect(tlsFailure(coded('certificate has expired', 'CERT_HAS_EXPIRED'))).toMatchObject({ untrusted: false });
    expect(tlsFailure(coded('wrong version number', 'ERR_SSL_WRONG_VERSION_NUMBER'))).toMatchObject({ code: 'ERR_SSL_WRONG_VERSION_NUMBER', untrusted: false });
    expect(tlsFailure(coded('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'))).toBeUndefined();
    expect(tlsFailure('not an error')).toBeUndefined();
  });

  it("names every name a certificate holds when the host is not one of them, as Go's client does", () => {
    const mismatch = coded("Hostname/IP does not match certificate's altnames: Host: localhost. is not cert's CN: 127.0.0.1", 'ERR_TLS_CERT_ALTNAME_INVALID', {
      host: 'localhost', cert: { subjectaltname: 'IP Address:127.0.0.1, DNS:api.example', subject: { CN: '127.0.0.1' } },
    });
    expect(tlsFailure(mismatch)).toEqual({ code: 'ERR_TLS_CERT_ALTNAME_INVALID', reason: 'certificate is valid for 127.0.0.1, api.example, not localhost', untrusted: false });
    // The Common Name is no name a host is checked against (Go since 1.15, core's checkServerIdentity): Go's words.
    const cnOnly = coded('x', 'ERR_TLS_CERT_ALTNAME_INVALID', { host: 'localhost', cert: { subject: { CN: 'api.example' } } });
    expect(tlsFailure(cnOnly)?.reason).toBe('certificate is not valid for any names, but wanted to match localhost');
    expect(tlsFailure(coded('x', 'ERR_TLS_CERT_ALTNAME_INVALID', { host: 'localhost', cert: {} }))?.reason).toBe(
      'certificate is not valid for any names, but wanted to match localhost',
    );
    expect(tlsFailure(coded('as Node.js says it', 'ERR_TLS_CERT_ALTNAME_INVALID'))?.reason).toBe('as Node.js says it');
  });

  it('words a failure with what was trusted only when the chain led to no trusted CA', () => {
    const untrusted = tlsFailure(coded('self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT'))!;
    const expired = tlsFailure(coded('certificate has expired', 'CERT_HAS_EXPIRED'))!;
    expect(tlsFailureText(untrusted, trustedCas('/etc/ca.pem'))).toBe('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate (trusted: the CA of /etc/ca.pem)');
    expect(tlsFailureText(untrusted, trustedCas(undefined, { execArgv: [], nodeOptions: undefined }))).toBe(
      "DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate (trusted: Node.js's bundled roots, not the system's store (NODE_EXTRA_CA_CERTS adds to them; NODE_OPTIONS=--use-openssl-ca reads the system's, and SSL_CERT_FILE))",
    );
    // With --use-openssl-ca, on the command line or in NODE_OPTIONS, Node.js reads the system's store.
    const openssl = [
      { execArgv: ['--use-openssl-ca'], nodeOptions: undefined },
      { execArgv: [], nodeOptions: '--max-old-space-size=512 --use-openssl-ca' },
      { execArgv: ['--use_openssl_ca'], nodeOptions: undefined }, // Node.js reads `_` as `-`
      { execArgv: [], nodeOptions: '--use-openssl-ca=true' },
    ];
    expect(trustedCas(undefined, { execArgv: ['--no-use-openssl-ca'], nodeOptions: undefined })).toMatch(/^Node\.js's bundled roots/);
    for (const runtime of openssl) {
      expect(trustedCas(undefined, runtime)).toBe("the system's OpenSSL store (--use-openssl-ca: SSL_CERT_FILE and SSL_CERT_DIR apply; NODE_EXTRA_CA_CERTS adds to it)");
    }
    expect(tlsFailureText(untrusted)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate');
    expect(tlsFailureText(expired, trustedCas('/etc/ca.pem'))).toBe('CERT_HAS_EXPIRED: certificate has expired');
  });
});
