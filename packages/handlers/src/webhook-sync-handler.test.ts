import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { getEventListeners } from 'node:events';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { PodConfigError } from '@podconfig/core';
import { BlackholeServer, createTestPki, issueTestCertificate, makePod, type PemPair } from '@podconfig/testing';
import { WEBHOOK_DEFAULT_TIMEOUT_MS, WebhookSyncHandler, type WebhookSyncHandlerOptions } from './webhook-sync-handler.js';

interface Received {
  readonly method: string;
  readonly url: string;
  readonly rawHeaders: string[];
  readonly body: string;
}

interface TestServer {
  readonly origin: string;
  readonly requests: Received[];
  close(): Promise<void>;
}

type Respond = (req: Received, res: ServerResponse) => void;

async function startServer(respond: Respond, tls?: PemPair): Promise<TestServer> {
  const requests: Received[] = [];
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = { method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString('utf8') };
      requests.push(received);
      respond(received, res);
    });
  };
  const server: Server = tls === undefined ? createHttpServer(onRequest) : createHttpsServer({ ...tls }, onRequest);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function captureLogger(): { logger: pino.Logger; raw: string[] } {
  const raw: string[] = [];
  return { logger: pino({ level: 'trace' }, { write: (line: string) => raw.push(line) }), raw };
}

const status = (code: number): Respond => (_req, res) => {
  res.statusCode = code;
  res.end('{"message":"reply body"}');
};

const signal = new AbortController().signal;
const pod = makePod('web', { namespace: 'prod', uid: 'u-web' });

describe(WebhookSyncHandler.name, () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const serve = async (respond: Respond, tls?: PemPair): Promise<TestServer> => {
    const server = await startServer(respond, tls);
    cleanups.push(() => server.close());
    return server;
  };
  const webhook = (o: Partial<WebhookSyncHandlerOptions> & { url: URL }): WebhookSyncHandler => {
    const handler = new WebhookSyncHandler({ logger: pino({ level: 'silent' }), ...o });
    cleanups.push(() => handler.close(new AbortController().signal));
    return handler;
  };

  describe('syncPod()', () => {
    it('POSTs the operation, source and pod as JSON and succeeds on a 2xx', async () => {
      const server = await serve(status(204));
      await webhook({ url: new URL(`${server.origin}/hooks/pods`) })
        .syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);

      expect(server.requests).toHaveLength(1);
      const [request] = server.requests;
      expect(request).toMatchObject({ method: 'POST', url: '/hooks/pods' });
      expect(request!.rawHeaders).toContain('application/json');
      expect(JSON.parse(request!.body)).toEqual({ op: 'create', source: 'file', pod });
    });

    it('throws PODCONFIG_HANDLER_FAILED naming the status and pod on a 500', async () => {
      const server = await serve(status(500));
      const err: unknown = await webhook({ url: new URL(`${server.origin}/hook`) })
        .syncPod({ type: 'update', pod, source: 'api', attempt: 1 }, signal).catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_FAILED')).toBe(true);
      expect((err as PodConfigError).retryable).toBe(true);
      expect((err as Error).message).toBe(`webhook ${server.origin}/hook answered 500 for update of pod prod/web (uid u-web)`);
    });

    it('treats a redirect as a failure', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(302, { location: '/elsewhere' });
        res.end();
      });
      await expect(webhook({ url: new URL(`${server.origin}/hook`) }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal))
        .rejects.toMatchObject({ code: 'PODCONFIG_HANDLER_FAILED', message: expect.stringContaining('answered 302') });
      expect(server.requests).toHaveLength(1);
    });

    it('throws PODCONFIG_HANDLER_TIMEOUT when the server does not answer in time', async () => {
      const server = await serve(() => undefined); // never answers
      const err: unknown = await webhook({ url: new URL(`${server.origin}/hook`), timeoutMs: 200 })
        .syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal).catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_TIMEOUT')).toBe(true);
      expect((err as Error).message).toContain('timed out after 200 ms');
    });

    it(`gives up on a silent server after ${WEBHOOK_DEFAULT_TIMEOUT_MS} ms by default`, { timeout: WEBHOOK_DEFAULT_TIMEOUT_MS + 10_000 }, async () => {
      expect(WEBHOOK_DEFAULT_TIMEOUT_MS).toBe(10_000); // the default the handlers README and docs/handlers.md give
      const server = await serve(() => undefined); // never answers
      await expect(webhook({ url: new URL(`${server.origin}/hook`) }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal))
        .rejects.toMatchObject({ code: 'PODCONFIG_HANDLER_TIMEOUT', message: expect.stringContaining(`timed out after ${WEBHOOK_DEFAULT_TIMEOUT_MS} ms`) as unknown });
    });

    it('takes a 2xx status as delivered though the body trickles on: the call ends after timeoutMs of body', async () => {
      const server = await serve((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const drip = setInterval(() => res.write('.'), 50); // each chunk within the body timeout, never ending
        res.on('close', () => clearInterval(drip));
      });
      // The call's own signal never aborts: before, the call hung as long as the server dripped (here: for ever).
      await expect(webhook({ url: new URL(`${server.origin}/hook`), timeoutMs: 300 })
        .syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal)).resolves.toBeUndefined();
    });

    it('returns without an error when the signal aborts mid-request', async () => {
      let arrived!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      const server = await serve(() => arrived());
      const controller = new AbortController();
      const call = webhook({ url: new URL(`${server.origin}/hook`) })
        .syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, controller.signal);
      await arrival;
      controller.abort();
      await expect(call).resolves.toBeUndefined();
    });

    it('leaves no per-call dependant or listener on the handler\'s signals after the calls end', async () => {
      const server = await serve(status(204));
      const handler = webhook({ url: new URL(`${server.origin}/hook`) });
      const callSignal = new AbortController().signal; // shared by all calls, as the reconciler shares one per deadline
      // On Node.js 20, a signal derived with AbortSignal.any stays in its sources' dependant sets for as long as
      // they live (nodejs/node#55351): one entry per call on the handler's closing signal.
      const any = vi.spyOn(AbortSignal, 'any');
      const added = vi.spyOn(EventTarget.prototype, 'addEventListener');
      try {
        for (let i = 0; i < 50; i++) await handler.syncPod({ type: 'resync', pod, source: 'file', attempt: 1 }, callSignal);
        expect(any).not.toHaveBeenCalled();
        const listenedTo = new Set(added.mock.contexts.filter((t): t is AbortSignal => t instanceof AbortSignal));
        expect(listenedTo.size).toBeGreaterThan(0); // the call signal and the closing signal at least
        for (const target of listenedTo) expect(getEventListeners(target, 'abort')).toHaveLength(0);
      } finally {
        any.mockRestore();
        added.mockRestore();
      }
      expect(server.requests).toHaveLength(50);
    });

    it('runs more than ten calls at once without a MaxListenersExceededWarning', async () => {
      const calls = 12;
      const held: ServerResponse[] = [];
      const server = await serve((_req, res) => {
        held.push(res);
        if (held.length === calls) for (const r of held) r.end(); // answer once all are in flight
      });
      const handler = webhook({ url: new URL(`${server.origin}/hook`) });
      const warnings: Error[] = [];
      const onWarning = (w: Error): void => void warnings.push(w);
      process.on('warning', onWarning);
      try {
        await Promise.all(Array.from({ length: calls }, () =>
          handler.syncPod({ type: 'resync', pod, source: 'file', attempt: 1 }, new AbortController().signal)));
        await new Promise<void>((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
      } finally {
        process.off('warning', onWarning);
      }
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    });

    it('sends the configured headers in order, repeated names included', async () => {
      const server = await serve(status(200));
      await webhook({
        url: new URL(`${server.origin}/hook`),
        headers: [['X-B', 'first'], ['X-A', 'second'], ['X-B', 'third']],
      }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      const raw = server.requests[0]!.rawHeaders;
      const custom: string[][] = [];
      for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase().startsWith('x-')) custom.push([raw[i]!, raw[i + 1]!]);
      expect(custom).toEqual([['X-B', 'first'], ['X-A', 'second'], ['X-B', 'third']]);
    });

    it('sends URL userinfo as Basic authorization and keeps it out of the request line', async () => {
      const server = await serve(status(200));
      const url = new URL(server.origin);
      url.pathname = '/hook';
      url.username = 'agent';
      url.password = 'p@ss';
      await webhook({ url }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      const { rawHeaders, url: path } = server.requests[0]!;
      expect(rawHeaders[rawHeaders.findIndex((h) => h.toLowerCase() === 'authorization') + 1])
        .toBe(`Basic ${Buffer.from('agent:p@ss').toString('base64')}`);
      expect(path).toBe('/hook');
    });

    it('sends a configured authorization header alone, without the URL userinfo\'s Basic one', async () => {
      const server = await serve(status(200));
      const url = new URL(`${server.origin}/hook`);
      url.username = 'agent';
      url.password = 'secret';
      await webhook({ url, headers: [['Authorization', 'Bearer t']] }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      const raw = server.requests[0]!.rawHeaders;
      const authorization: string[] = [];
      for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') authorization.push(raw[i + 1]!);
      expect(authorization).toEqual(['Bearer t']);
    });

    it('keeps secrets in the URL and headers out of logs and errors', async () => {
      const server = await serve(status(500));
      const { logger, raw } = captureLogger();
      const url = new URL(`${server.origin}/hook?token=query-secret`);
      url.username = 'user';
      url.password = 'userinfo-secret';
      const handler = new WebhookSyncHandler({ url, headers: [['Authorization', 'Bearer header-secret']], logger });
      cleanups.push(() => handler.close(new AbortController().signal));
      const failed: unknown = await handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal)
        .catch((e: unknown) => e);
      expect(PodConfigError.is(failed, 'PODCONFIG_HANDLER_FAILED')).toBe(true); // the 500 path's error is what is checked below
      expect(server.requests[0]!.url).toBe('/hook?token=query-secret'); // the query is still sent
      expect(server.requests[0]!.rawHeaders).toContain('Bearer header-secret');

      const dead = await startServer(status(200));
      await dead.close();
      const deadUrl = new URL(`${dead.origin}/hook?token=query-secret`);
      deadUrl.password = 'userinfo-secret';
      const unreachable = new WebhookSyncHandler({ url: deadUrl, headers: [['Authorization', 'Bearer header-secret']], logger });
      cleanups.push(() => unreachable.close(new AbortController().signal));
      const refused: unknown = await unreachable.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal)
        .catch((e: unknown) => e);
      expect(PodConfigError.is(refused, 'PODCONFIG_HANDLER_FAILED')).toBe(true);

      const success = new WebhookSyncHandler({ url: new URL(`${(await serve(status(200))).origin}/?token=query-secret`),
        headers: [['Authorization', 'Bearer header-secret']], logger });
      cleanups.push(() => success.close(new AbortController().signal));
      await success.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);

      expect(raw.some((line) => line.includes('webhook delivered'))).toBe(true);
      for (const text of [...raw, inspect(failed, { depth: 10 }), inspect(refused, { depth: 10 }), JSON.stringify(failed)]) {
        for (const secret of ['query-secret', 'userinfo-secret', 'header-secret']) expect(text).not.toContain(secret);
      }
    });
  });

  describe('killPod()', () => {
    it('POSTs op kill with the reason and grace period', async () => {
      const server = await serve(status(200));
      await webhook({ url: new URL(`${server.origin}/hook`) })
        .killPod({ reason: 'removed', pod, gracePeriodSeconds: 30, attempt: 1 }, signal);
      expect(JSON.parse(server.requests[0]!.body)).toEqual({ op: 'kill', reason: 'removed', gracePeriodSeconds: 30, pod });
    });
  });

  describe('https', () => {
    it('verifies the server with the configured CA, and fails with PODCONFIG_TLS without it', async () => {
      const pki = await createTestPki();
      const server = await serve(status(200), pki.server);
      await webhook({ url: new URL(`${server.origin}/hook`), ca: pki.ca.cert })
        .syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      expect(server.requests).toHaveLength(1);

      await expect(webhook({ url: new URL(`${server.origin}/hook`) }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal))
        .rejects.toMatchObject({ code: 'PODCONFIG_TLS', message: expect.stringMatching(/\(trusted: Node\.js's bundled roots, not the system's store \(NODE_EXTRA_CA_CERTS adds to them; NODE_OPTIONS=--use-openssl-ca reads the system's, and SSL_CERT_FILE\)\)$/) });
      const other = await createTestPki({ caName: 'some other CA' });
      await expect(webhook({ url: new URL(`${server.origin}/hook`), ca: other.ca.cert, caSource: '/etc/hook-ca.pem' })
        .syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal)).rejects.toMatchObject({
        // With every CA an anchor (allowPartialTrustChain), OpenSSL says it found no issuer among them.
        code: 'PODCONFIG_TLS', message: expect.stringMatching(/^webhook .*: TLS verification failed for create of pod .*: UNABLE_TO_GET_ISSUER_CERT_LOCALLY: .* \(trusted: the CA of \/etc\/hook-ca\.pem\)$/),
      });
      expect(server.requests).toHaveLength(1);
    });

    it('refuses a server certificate that names its host only in the Common Name, as Go does', async () => {
      const pki = await createTestPki();
      const commonNameOnly = await issueTestCertificate(pki.ca, { commonName: 'localhost' });
      const server = await serve(status(200), commonNameOnly);
      const url = new URL(`https://localhost:${new URL(server.origin).port}/hook`);
      await expect(webhook({ url, ca: pki.ca.cert }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal)).rejects.toMatchObject({
        code: 'PODCONFIG_TLS',
        message: expect.stringMatching(
          /: ERR_TLS_CERT_ALTNAME_INVALID: certificate relies on legacy Common Name field \(CN localhost\), use SANs instead: it has no subjectAltName to match localhost$/,
        ),
      });
      expect(server.requests).toHaveLength(0);
      const sans = await serve(status(200), pki.server);
      await webhook({ url: new URL(`https://localhost:${new URL(sans.origin).port}/hook`), ca: pki.ca.cert })
        .syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      expect(sans.requests).toHaveLength(1);
    });

    it('trusts a caFile that is an intermediate CA, as Go does', async () => {
      const pki = await createTestPki();
      const intermediate = await issueTestCertificate(pki.ca, { commonName: 'podconfig test intermediate CA', role: 'ca' });
      const leaf = await issueTestCertificate(intermediate, { commonName: '127.0.0.1', hosts: ['127.0.0.1'] });
      const server = await serve(status(200), { cert: leaf.cert + intermediate.cert, key: leaf.key });
      await webhook({ url: new URL(`${server.origin}/hook`), ca: intermediate.cert }).syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      expect(server.requests).toHaveLength(1);
    });
  });

  describe('close()', () => {
    it('ends the requests in flight when close()\'s signal aborts', async () => {
      let arrived!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      const server = await serve(() => arrived()); // never answers
      const handler = new WebhookSyncHandler({ url: new URL(`${server.origin}/hook`), logger: pino({ level: 'silent' }) });
      const call = handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal).then(() => 'ok', (e: unknown) => e);
      await arrival;
      const controller = new AbortController();
      const closed = handler.close(controller.signal);
      controller.abort();
      await closed;
      expect(await call).toMatchObject({ code: 'PODCONFIG_HANDLER_FAILED' }); // it stayed pending before
    });

    it('a call returns when its signal aborts during the TLS connect to a blackholed URL, and close() ends that connect', async () => {
      const blackhole = await BlackholeServer.listen();
      cleanups.push(() => blackhole.close());
      // A connect timeout far beyond the test's: only the abort and close() can end the call and the socket.
      const handler = new WebhookSyncHandler({ url: new URL(`${blackhole.url}/hook`), timeoutMs: 3_600_000, logger: pino({ level: 'silent' }) });
      const controller = new AbortController();
      const accepted = blackhole.nextConnection();
      const call = handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, controller.signal);
      await accepted; // the TCP connection is up; the TLS handshake never answers
      controller.abort(new Error('shutdown'));
      await expect(call).resolves.toBeUndefined();
      await handler.close(new AbortController().signal); // the graceful close, not the destroying one
      await blackhole.allClosed();
    });

    it('closes the pool, after which calls fail', async () => {
      const server = await serve(status(200));
      const handler = new WebhookSyncHandler({ url: new URL(`${server.origin}/hook`), logger: pino({ level: 'silent' }) });
      await handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      await handler.close(signal);
      await expect(handler.syncPod({ type: 'resync', pod, source: 'file', attempt: 1 }, signal))
        .rejects.toMatchObject({ code: 'PODCONFIG_HANDLER_FAILED' });
      expect(server.requests).toHaveLength(1);
    });

    it('can be called again, at once or after the first close (the second waits for the first)', async () => {
      const server = await serve(status(200));
      const handler = new WebhookSyncHandler({ url: new URL(`${server.origin}/hook`), logger: pino({ level: 'silent' }) });
      await handler.syncPod({ type: 'create', pod, source: 'file', attempt: 1 }, signal);
      await Promise.all([handler.close(signal), handler.close(signal)]);
      await handler.close(signal);
      const aborted = new AbortController();
      aborted.abort();
      await handler.close(aborted.signal);
    });
  });
});
