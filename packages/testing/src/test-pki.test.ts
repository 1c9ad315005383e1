import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createTestPki } from './test-pki.js';

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
