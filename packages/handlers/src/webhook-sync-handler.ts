import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { Agent, buildConnector, request } from 'undici';
import {
  ConnectingSockets, linked, PodConfigError, raceSignal, safeUrl, tlsFailure, tlsFailureText, trustedCas, withGoServerVerification,
  type ClosableHandler, type KillPodRequest, type Pod, type SyncHandler, type SyncPodRequest,
} from '@podconfig/core';
import { componentLogger } from './component-logger.js';
import { invalidOption, positiveMs } from './constructor-checks.js';
import { podDescription, podLogFields } from './pod-log-fields.js';

export interface WebhookSyncHandlerOptions {
  /** http or https. Userinfo (`https://user:pass@…`) is sent as a Basic `authorization` header. */
  readonly url: URL;
  /** Sent with every request, in this order; a name may repeat. Never logged. */
  readonly headers?: readonly (readonly [string, string])[];
  /** PEM CA certificates to verify the server with, instead of the system roots; each a trust anchor (an intermediate too, as in Go). */
  readonly ca?: string;
  /** Where `ca` came from (the `caFile` option's path), named in a TLS error whose chain leads to no trusted CA. */
  readonly caSource?: string;
  /** For the response headers and, separately, for the response body; default 10 s. */
  readonly timeoutMs?: number;
  readonly logger: Logger;
}

export const WEBHOOK_DEFAULT_TIMEOUT_MS = 10_000;

/** The JSON body of every webhook request. */
export interface WebhookPayload {
  readonly op: 'create' | 'update' | 'delete' | 'reconcile' | 'resync' | 'kill';
  readonly pod: Pod;
  /** syncPod only. */
  readonly source?: string;
  /** killPod only. */
  readonly reason?: string;
  /** killPod only. */
  readonly gracePeriodSeconds?: number;
}

const TIMEOUT_ERRORS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
/** How much of a response body is read (and dropped) before the connection is given up: undici's default. */
const DUMP_LIMIT_BYTES = 128 * 1024;

/**
 * POSTs `{ op, pod, source | reason, gracePeriodSeconds }` as JSON to a URL for every call, over
 * one pooled undici Agent owned by the handler and closed by `close()`. A 2xx answer is
 * success; any other status, a transport or TLS failure, or a timeout throws. The URL's userinfo
 * and query and the header values never reach logs or error messages.
 */
export class WebhookSyncHandler implements SyncHandler, ClosableHandler {
  readonly name = 'webhook';
  readonly #url: URL;
  readonly #where: string;
  readonly #headers: string[];
  readonly #timeoutMs: number;
  /** Which CAs are trusted, for a TLS error whose chain leads to none of them. */
  readonly #trusted: string;
  readonly #agent: Agent;
  readonly #log: Logger;
  /**
   * Aborted when close()'s signal aborts: every request listens to it. undici's destroy() after close() leaves
   * the requests in flight running; an aborted request signal ends them.
   */
  readonly #closing = new AbortController();
  /**
   * The pool's connects still pending. undici 7 ignores an aborted request during its connect, and neither close()
   * nor destroy() of the Agent ends that connect before its timeout: close() destroys them (after the last call, any
   * request still connecting was abandoned by its call).
   */
  readonly #connecting = new ConnectingSockets();
  #closed: Promise<void> | undefined;

  constructor(options: WebhookSyncHandlerOptions) {
    // Never quoted: the URL may carry a secret.
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw invalidOption('webhook', 'url', 'must be an absolute http or https URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidOption('webhook', 'url', 'must be an absolute http or https URL');
    const timeoutMs = positiveMs('webhook', 'timeoutMs', options.timeoutMs, WEBHOOK_DEFAULT_TIMEOUT_MS);
    const headers = (options.headers ?? []).flatMap(([name, value]) => [name, value]);
    const has = (name: string): boolean => (options.headers ?? []).some(([n]) => n.toLowerCase() === name);
    if ((url.username !== '' || url.password !== '') && !has('authorization')) {
      const [user, pass] = [url.username, url.password].map((part) => {
        try {
          return decodeURIComponent(part);
        } catch {
          throw invalidOption('webhook', 'url', 'has user info that is not valid percent-encoding');
        }
      });
      headers.unshift('authorization', `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`);
    }
    url.username = '';
    url.password = '';
    if (!has('content-type')) headers.unshift('content-type', 'application/json');
    this.#url = url;
    this.#where = safeUrl(url);
    this.#headers = headers;
    this.#timeoutMs = timeoutMs;
    this.#trusted = trustedCas(options.ca === undefined ? undefined : (options.caSource ?? 'the ca option'));
    // Verified as Go verifies a server (core's withGoServerVerification): no Common Name fallback, every CA an anchor.
    const connector = buildConnector({ timeout: this.#timeoutMs, ...withGoServerVerification(options.ca === undefined ? {} : { ca: options.ca }) });
    this.#agent = new Agent({
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      connect: this.#connecting.wrap(connector),
    });
    this.#log = componentLogger(options.logger, 'sync.webhook', { url: this.#where });
    // One listener per call in flight, each removed when its call ends: no leak for Node.js to warn of.
    setMaxListeners(0, this.#closing.signal);
  }

  async syncPod(request: SyncPodRequest, signal: AbortSignal): Promise<void> {
    await this.#post({ op: request.type, source: request.source, pod: request.pod }, signal);
  }

  async killPod(request: KillPodRequest, signal: AbortSignal): Promise<void> {
    const { reason, gracePeriodSeconds, pod } = request;
    await this.#post({ op: 'kill', reason, gracePeriodSeconds, pod }, signal);
  }

  /**
   * Closes the connection pool and its pending connects; on abort, destroys it (in-flight requests fail).
   * A second call waits for the first one's close (its own signal can still cut that short).
   */
  async close(signal: AbortSignal): Promise<void> {
    const onAbort = (): void => {
      this.#closing.abort(signal.reason);
      this.#agent.destroy().catch(ignore);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      await (this.#closed ??= this.#shutDown());
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async #shutDown(): Promise<void> {
    this.#connecting.destroy(new Error('the webhook handler is closed'));
    if (this.#closing.signal.aborted) await this.#agent.destroy();
    else await this.#agent.close();
  }

  async #post(payload: WebhookPayload, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const { op, pod } = payload;
    const fields = { op, ...podLogFields(pod) };
    const what = `${op} of ${podDescription(pod)}`;
    let status: number;
    // The request ends when the call's signal or close()'s aborts. Not AbortSignal.any([signal, closing]): on
    // Node.js 20 the handler-long closing signal keeps every signal derived from it (nodejs/node#55351), one per
    // call. Both listeners go in `finally`.
    const link = linked(this.#closing.signal);
    const onAbort = (): void => link.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // raceSignal: undici 7 ignores the signal while the TCP/TLS connect is pending (a blackholed URL held the call,
      // and shutdown, for timeoutMs). The abandoned request ends at its connect timeout or at close().
      const response = await raceSignal(request(this.#url, {
        method: 'POST',
        dispatcher: this.#agent,
        headers: this.#headers,
        body: JSON.stringify(payload),
        signal: link.signal,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      }), link.signal);
      status = response.statusCode;
      // The status decides. The rest of the body is read and dropped for at most timeoutMs: undici's bodyTimeout
      // bounds only the gap between chunks, and a server that trickles its body must not hold the call.
      await response.body.dump({ limit: DUMP_LIMIT_BYTES, signal: AbortSignal.timeout(this.#timeoutMs) }).catch(ignore);
    } catch (err: unknown) {
      if (signal.aborted) return;
      throw this.#transportError(err, what);
    } finally {
      signal.removeEventListener('abort', onAbort);
      link.dispose();
    }
    if (signal.aborted) return;
    if (status < 200 || status > 299) {
      throw new PodConfigError('PODCONFIG_HANDLER_FAILED', `webhook ${this.#where} answered ${status} for ${what}`, {
        retryable: true,
      });
    }
    this.#log.debug({ ...fields, status }, 'webhook delivered');
  }

  #transportError(err: unknown, what: string): PodConfigError {
    const code = (err as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && TIMEOUT_ERRORS.has(code)) {
      return new PodConfigError('PODCONFIG_HANDLER_TIMEOUT',
        `webhook ${this.#where} timed out after ${this.#timeoutMs} ms for ${what}`, { cause: err, retryable: true });
    }
    // Read as kube-client and the http source read it (core's tlsFailure): every name a certificate holds, what was trusted.
    const tls = tlsFailure(err);
    if (tls !== undefined) {
      return new PodConfigError('PODCONFIG_TLS', `webhook ${this.#where}: TLS verification failed for ${what}: ${tlsFailureText(tls, this.#trusted)}`,
        { cause: err, retryable: true });
    }
    return new PodConfigError('PODCONFIG_HANDLER_FAILED', `webhook ${this.#where} failed for ${what}`, {
      cause: err,
      retryable: true,
    });
  }
}

function ignore(): void {
  // destroy() after an abort, a body cut short after its status: nothing left to report.
}
