import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createTestPki, issueTestCertificate } from './test-pki.js';

describe('createTestPki()', () => {
  it('issues a server certificate that verifies against its CA in a real TLS handshake', async () => {
    const pki = await createTestPki();
    const server = createServer({ cert: pki.server.cert, key: pki.server.key }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const trusted = new Agent({ connect: { ca: pki.ca.cert } });
    const untrusted = new Agent({ connect: { ca: (await createTestPki()).ca.cert } });
    try {
      const ok = await request(`https://127.0.0.1:${port}/`, { dispatcher: trusted });
      expect(await ok.body.text()).toBe('ok');
      await expect(request(`https://127.0.0.1:${port}/`, { dispatcher: untrusted })).rejects.toMatchObject({
        code: expect.stringMatching(/^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/) as unknown,
      });
    } finally {
      await trusted.close();
      await untrusted.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('issueTestCertificate()', () => {
  it('issues a serving certificate with the SANs asked for, or none at all, and an intermediate CA that issues in turn', async () => {
    const pki = await createTestPki();
    const commonNameOnly = new X509Certificate((await issueTestCertificate(pki.ca, { commonName: 'localhost' })).cert);
    expect([commonNameOnly.subject, commonNameOnly.subjectAltName, commonNameOnly.ca]).toEqual(['CN=localhost', undefined, false]);
    expect(commonNameOnly.checkIssued(new X509Certificate(pki.ca.cert))).toBe(true);
    const intermediate = await issueTestCertificate(pki.ca, { commonName: 'intermediate', role: 'ca' });
    expect(new X509Certificate(intermediate.cert).ca).toBe(true);
    const leaf = await issueTestCertificate(intermediate, { commonName: 'kube.test', hosts: ['kube.test', '127.0.0.1'] });
    const cert = new X509Certificate(leaf.cert);
    expect(cert.subjectAltName).toBe('DNS:kube.test, IP Address:127.0.0.1');
    expect(cert.checkIssued(new X509Certificate(intermediate.cert))).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(leaf.key))).toBe(true);
    // PEM that ends in a newline: a chain is the certificates joined.
    expect(leaf.cert + intermediate.cert).toMatch(/^(-----BEGIN CERTIFICATE-----\n[^-]+-----END CERTIFICATE-----\n){2}$/);
  });
});
