import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createTestPki } from '@podconfig/testing';
import { pino } from 'pino';
import { request } from 'undici';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { ClusterConfig } from './cluster-config.js';
import { ConnectionPool } from './connection-pool.js';

describe(ConnectionPool.name, () => {
  describe('dispatcher()', () => {
    it("sends tls-server-name as SNI and checks the certificate against it, even when a request's Host header names another host", async () => {
      // undici takes a request's Host header as its server name, ahead of the connector's `servername`.
      const pki = await createTestPki({ hosts: ['kube.internal'] }); // also valid for localhost
      const server = createServer({ cert: pki.server.cert, key: pki.server.key }, (req, res) => {
        res.end(JSON.stringify({ servername: (req.socket as TLSSocket).servername }));
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      onTestFinished(async () => {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      });
      const { port } = server.address() as AddressInfo;
      const get = async (serverName: string): Promise<unknown> => {
        const config: ClusterConfig = {
          server: new URL(`https://127.0.0.1:${port}`),
          tls: { ca: pki.ca.cert, insecureSkipVerify: false, serverName },
          auth: { type: 'none' },
          source: 'test',
          identity: 'test',
          warnings: [],
        };
        const pool = new ConnectionPool({ config, logger: pino({ level: 'silent' }) });
        onTestFinished(() => pool.close());
        const res = await request(config.server, { dispatcher: pool.dispatcher(undefined), headers: { host: `localhost:${port}` } });
        return res.body.json();
      };
      expect(await get('kube.internal')).toEqual({ servername: 'kube.internal' });
      // localhost, the Host header's name, is in the certificate: the check must be against tls-server-name.
      await expect(get('wrong.example')).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    });
  });
});
