import { constants as bufferConstants } from 'node:buffer';
import { posix } from 'node:path';
import { ConfigInvalidError, PodConfigError, REDIRECT_STATUSES, raceSignal, redirectTarget, safeUrl, systemClock, trustedCas, callHook, type Clock } from '@podconfig/core';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { Authenticator, type RequestCredentials } from './authenticator.js';
import type { ClusterConfig } from './cluster-config.js';
import { ConnectionPool } from './connection-pool.js';
import { headerValue, headerValueProblem, impersonationHeaders, impersonationProblem } from './impersonation-headers.js';
import { ResponseBody, type DispatchedResponse } from './response-body.js';
import { statusErrorFromResponse } from './status-error-from-response.js';
import { TokenBucket } from './token-bucket.js';
import { transportError } from './transport-error.js';
import type { WatchDecodeOptions } from './watch-decode-options.js';
import { WatchStream } from './watch-stream.js';

/**
 * The bytes the pages of one paginated list (`limit` + `continue`) have read so far: a `getJSON()` given it
 * holds its body and those pages to `maxResponseBytes` together, and adds its own. The caller makes a new
 * one (`{ bytes: 0, pages: 0 }`) for each list's first page and passes the same one with its continuations.
 */
export interface ListBytes {
  /** Body bytes read, as received, over the pages so far. */
  bytes: number;
  /** Pages read so far. */
  pages: number;
}

/** Options of {@link KubeClient.getJSON}. */
export interface GetJSONOptions {
  /** The response is a page of this list: see {@link ListBytes}. */
  readonly listBytes?: ListBytes;
}

/** Options of {@link KubeClient.watchJSON}. */
export interface WatchJSONOptions extends WatchDecodeOptions {
  /** Yield `ScannedWatchEvent`s for change events in the API server's layout (default false). */
  readonly scanHeads?: boolean;
}

export interface KubeClientOptions {
  readonly config: ClusterConfig;
  readonly logger: Logger;
  /** Client-side rate limit, requests per second (kubelet `kubeAPIQPS`, default 50; `Infinity`: none). */
  readonly qps?: number;
  /** Requests allowed at once after a quiet period (kubelet `kubeAPIBurst`, default 100). */
  readonly burst?: number;
  /** Default `podconfig (<platform>/<arch>) node/<version>`. */
  readonly userAgent?: string;
  /**
   * Send every request through this dispatcher (tests, a caller-managed pool). The client then
   * creates no pool of its own, so the config's TLS settings and client certificates are not
   * applied: they are the dispatcher's business.
   */
  readonly dispatcher?: Dispatcher;
  readonly clock?: Clock;
  /**
   * Time allowed for response headers, and between body chunks of non-watch requests (default 60 s). `0` means
   * no timeout (client-go's `rest.Config.Timeout`); negative or non-finite values throw `PODCONFIG_CONFIG_INVALID`.
   */
  readonly timeoutMs?: number;
  /**
   * The largest body of a non-watch response (a list) read (default {@link MAX_RESPONSE_BYTES}, the longest
   * string V8 holds: no longer body could be decoded anyway). Beyond it the request fails with
   * `PODCONFIG_BODY_TOO_LARGE`, at once when `Content-Length` says so. The pages of a paginated list are held
   * to it together ({@link GetJSONOptions.listBytes}), as are a watch-list's initial events. Watch lines have
   * their own cap.
   */
  readonly maxResponseBytes?: number;
  /**
   * Called once per request attempt (each `Retry-After` retry, each retry after a 401; watches included) with its
   * final status, as client-go's `rest_client_requests_total` counts: redirects are followed within the attempt.
   * Not called for an attempt the caller's signal aborted. A hook that throws is logged and ignored.
   */
  readonly onRequest?: (event: KubeRequestEvent) => void;
  /**
   * Called once per `getJSON()` / `requestJSON()` call (not for watches) with its whole duration: the rate
   * limiter's wait, every attempt and the body read, as client-go's `rest_client_request_duration_seconds`
   * times a request. Not called when the caller's signal aborted it. A hook that throws is logged and ignored.
   */
  readonly onRequestLatency?: (event: KubeRequestLatencyEvent) => void;
}

/** One request attempt, as {@link KubeClientOptions.onRequest} sees it. */
export interface KubeRequestEvent {
  /** The caller's HTTP method (a 303 that turns a `POST` into a `GET` still counts as the `POST`). */
  readonly method: string;
  /** `host:port` of the configured server (a redirect's target is not another host here, as in client-go). */
  readonly host: string;
  /** The final response's status code; undefined when none came (connection refused, TLS, a timeout, a refused redirect). */
  readonly statusCode: number | undefined;
}

/** One request's duration, as {@link KubeClientOptions.onRequestLatency} sees it. */
export interface KubeRequestLatencyEvent {
  readonly method: string;
  /** As {@link KubeRequestEvent.host}. */
  readonly host: string;
  /** From the call to its parsed body or its failure, on the clock's monotonic time. */
  readonly durationMs: number;
}

/**
 * The default {@link KubeClientOptions.maxResponseBytes}: Node.js's `buffer.constants.MAX_STRING_LENGTH`
 * (~512 MiB on 64-bit), so that a body that never ends costs that much, not the process.
 */
export const MAX_RESPONSE_BYTES = bufferConstants.MAX_STRING_LENGTH;

/** Redirects one request follows: Go's client sends at most 10 requests (`len(via) >= 10` stops it), so 9. */
export const MAX_REDIRECTS = 9;
/** Retries of one request that the server answered 429 / 5xx with a `Retry-After` header. */
export const MAX_RETRY_AFTER_RETRIES = 3;
/**
 * The longest one of those waits, whatever the header says: the reflector's own cap on a Retry-After (one
 * backoff step). client-go waits the full value; a broken proxy's `3600` would hold a list three hours.
 */
export const MAX_RETRY_AFTER_SECONDS = 60;
/** Extra time beyond a watch's `timeoutSeconds` before an idle stream counts as dead. */
const WATCH_IDLE_GRACE_MS = 60_000;
/** Error bodies beyond this are cut: a Status is small. */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

const noop = (): void => undefined;

/**
 * The Kubernetes REST client of podconfig: JSON over one keep-alive undici pool per cluster,
 * with the config's TLS and credentials, a client-side token-bucket rate limit on every request
 * (watch opens and retries included), `Retry-After` honoured on 429/5xx for plain requests, and
 * non-2xx answers decoded into {@link StatusError}. It is the `ResourceClient` of
 * docs/architecture.md. The constructor does no I/O; {@link close} releases the pool.
 */
export class KubeClient {
  readonly #o: KubeClientOptions;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #limiter: TokenBucket;
  readonly #auth: Authenticator;
  readonly #pool: ConnectionPool | undefined;
  readonly #base: string;
  readonly #server: string;
  /** Which CAs verify the server, for a TLS error's message. */
  readonly #trusted: string;
  readonly #staticHeaders: Record<string, string | string[]>;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  #started = false;
  #closed = false;

  constructor(options: KubeClientOptions) {
    const config = options.config;
    const problem = impersonationProblem(config.impersonate);
    if (problem !== undefined) {
      throw new PodConfigError('PODCONFIG_CONFIG_INVALID', `the impersonation of ${config.source} cannot be sent: ${problem}`);
    }
    const tokenProblem = config.auth.type === 'token' ? headerValueProblem(config.auth.token.reveal()) : undefined;
    if (tokenProblem !== undefined) throw new PodConfigError('PODCONFIG_CONFIG_INVALID', `the token of ${config.identity} ${tokenProblem}`);
    const timeoutMs = options.timeoutMs ?? 60_000;
    // undici refuses these per request (a retryable UND_ERR_INVALID_ARG: an endless "outage"), so here, at once.
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
      throw new ConfigInvalidError(`timeoutMs must be a finite number of milliseconds >= 0 (0 = no timeout), got ${timeoutMs}`);
    }
    this.#o = options;
    this.#server = safeUrl(config.server);
    this.#trusted = config.tls.ca === undefined
      ? `${trustedCas(undefined)}, as ${config.source} names no certificate-authority`
      : `the certificate-authority of ${config.source}`;
    this.#log = options.logger.child({ component: 'kube.client', server: this.#server });
    this.#clock = options.clock ?? systemClock;
    this.#limiter = new TokenBucket({ qps: options.qps ?? 50, burst: options.burst ?? 100, clock: this.#clock });
    this.#auth = new Authenticator({ config, clock: this.#clock, logger: this.#log });
    this.#pool = options.dispatcher === undefined ? new ConnectionPool({ config, logger: this.#log }) : undefined;
    // client-go joins the server's path and the request's with path.Join, which cleans them: `//a//b/` → `/a/b`.
    this.#base = `${config.server.origin}${posix.normalize(config.server.pathname).replace(/\/+$/, '')}`;
    this.#timeoutMs = timeoutMs;
    const maxResponseBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
    if (!Number.isInteger(maxResponseBytes) || maxResponseBytes < 1 || maxResponseBytes > MAX_RESPONSE_BYTES) {
      throw new ConfigInvalidError(`maxResponseBytes must be a whole number of bytes from 1 to ${MAX_RESPONSE_BYTES}, got ${maxResponseBytes}`);
    }
    this.#maxResponseBytes = maxResponseBytes;
    this.#staticHeaders = {
      accept: 'application/json',
      'user-agent': options.userAgent ?? `podconfig (${process.platform}/${process.arch}) node/${process.version}`,
      ...impersonationHeaders(config.impersonate),
    };
  }

  /**
   * GET `path?query` → the parsed JSON body of a 2xx. Throws `StatusError` or `PodConfigError`. With
   * `listBytes` (a page of a paginated list), the body and the list's earlier pages are held to
   * `maxResponseBytes` together.
   */
  async getJSON(path: string, query: URLSearchParams, signal: AbortSignal, options: GetJSONOptions = {}): Promise<unknown> {
    const started = this.#clock.monotonic();
    try {
      const res = await this.#send('GET', path, query, undefined, signal, false);
      return await this.#json(res, `GET ${path}`, signal, options.listBytes);
    } finally {
      this.#observeLatency('GET', started, signal);
    }
  }

  /**
   * GET `path?query&watch=true` → the decoded watch events `{ type, object }`, one at a time with
   * back-pressure. The iterator ends when the server closes the stream or `signal` aborts; it
   * throws `PODCONFIG_WATCH_DECODE` for a line that is not an event and
   * `PODCONFIG_SOURCE_UNAVAILABLE` when the connection breaks. Iterate it or abort `signal`:
   * either releases the connection. Watch opens are not retried: the reflector decides.
   * With `scanHeads`, change events whose head can be read without decoding come as
   * `ScannedWatchEvent`s (decoded on demand, as `dropManagedFields` and `specMemo` say).
   */
  async watchJSON(path: string, query: URLSearchParams, signal: AbortSignal, options: WatchJSONOptions = {}): Promise<AsyncIterable<unknown>> {
    const q = new URLSearchParams(query);
    q.set('watch', 'true');
    const res = await this.#send('GET', path, q, undefined, signal, true);
    const body = res.body;
    const describe = `GET ${path}`;
    return new WatchStream({
      chunks: body,
      release: () => body.destroy(),
      readError: (err) => transportError(err, describe, this.#server, this.#trusted),
      describe,
      signal,
      scanHeads: options.scanHeads === true,
      // client-go logs io.ErrUnexpectedEOF at V(1) and closes the watch; the reflector re-watches at the last RV.
      onUnexpectedEof: ({ line, bytes }) => this.#log.info({ path, line, bytes }, 'watch stream ended mid-line (unexpected EOF)'),
      ...(q.get('sendInitialEvents') === 'true' ? { initialEventsMaxBytes: this.#maxResponseBytes } : {}),
      decode: {
        dropManagedFields: options.dropManagedFields === true,
        ...(options.specMemo === undefined ? {} : { specMemo: options.specMemo }),
      },
    });
  }

  /**
   * Sends `body` as JSON with `method` (POST, PUT, PATCH, DELETE; for tests and tools) and returns
   * the parsed response, or `undefined` for an empty one. PATCH bodies are JSON patches when
   * they are arrays, else merge patches.
   */
  async requestJSON(method: string, path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const verb = method.toUpperCase();
    const started = this.#clock.monotonic();
    try {
      const res = await this.#send(verb, path, new URLSearchParams(), payload, signal, false, contentType(method, body));
      return await this.#json(res, `${verb} ${path}`, signal);
    } finally {
      this.#observeLatency(verb, started, signal);
    }
  }

  /** Stops an exec plugin run and destroys the pool (requests in flight fail). An injected dispatcher is left open. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#auth.close();
    await this.#pool?.close();
  }

  async #send(
    method: string,
    path: string,
    query: URLSearchParams,
    body: string | undefined,
    signal: AbortSignal,
    watch: boolean,
    bodyType?: string,
  ): Promise<DispatchedResponse> {
    if (this.#closed) throw new PodConfigError('PODCONFIG_INTERNAL', 'the Kubernetes client is closed');
    if (!path.startsWith('/') || path.startsWith('//')) {
      throw new PodConfigError('PODCONFIG_INTERNAL', `request path must start with a single "/": ${path}`);
    }
    this.#start();
    const describe = `${method} ${path}`;
    const search = query.toString();
    const url = `${this.#base}${path}${search === '' ? '' : `${path.includes('?') ? '&' : '?'}${search}`}`;
    const bodyTimeout = watch ? watchIdleTimeout(query) : this.#timeoutMs;
    let retries = 0;
    let reauthenticated = false;
    for (;;) {
      await this.#limiter.take(signal);
      const credentials = await this.#auth.credentials(signal);
      let res: DispatchedResponse;
      try {
        res = await this.#request(url, method, body, bodyType, credentials, bodyTimeout, describe, signal);
      } catch (err: unknown) {
        if (!signal.aborted) this.#observe(method, undefined);
        throw err;
      }
      this.#observe(method, res.statusCode);
      const status = res.statusCode;
      if (status >= 200 && status < 300) return res;

      const retryAfter = retryAfterSeconds(res.headers['retry-after']);
      if (!watch && retryAfter !== undefined && (status === 429 || status >= 500) && retries < MAX_RETRY_AFTER_RETRIES) {
        retries++;
        await this.#discard(res, describe);
        this.#log.debug({ method, path, statusCode: status, retryAfterSeconds: retryAfter, retry: retries }, 'server asked to retry later');
        await this.#clock.sleep(Math.min(retryAfter, MAX_RETRY_AFTER_SECONDS) * 1000, signal);
        signal.throwIfAborted();
        continue;
      }
      const text = await this.#errorBody(res, describe, signal);
      if (status === 401 && !reauthenticated) {
        reauthenticated = true;
        if (await this.#auth.refreshAfterUnauthorized(credentials, signal)) {
          this.#log.debug({ method, path }, 'unauthorized; retrying with refreshed credentials');
          continue;
        }
      }
      const type = res.headers['content-type'];
      throw statusErrorFromResponse({
        statusCode: status,
        body: text,
        retryAfterSeconds: retryAfter,
        describe,
        identity: this.#o.config.identity,
        noCredentials: credentials.authorization === undefined && credentials.clientCertificate === undefined ? this.#noCredentialsReason() : undefined,
        contentType: Array.isArray(type) ? type[0] : type,
      });
    }
  }

  /**
   * One attempt, redirects followed as Go's client does: 301/302/303/307/308 with a Location, at
   * most {@link MAX_REDIRECTS} hops; 301/302/303 turn anything but GET/HEAD into a GET without
   * body, 307/308 keep method and body. The Authorization header is dropped from the first hop
   * that leaves the origin on (client certificates belong to connections, and only the cluster's
   * pool is used); https → http is refused.
   */
  async #request(
    url: string,
    method: string,
    body: string | undefined,
    bodyType: string | undefined,
    credentials: RequestCredentials,
    bodyTimeout: number,
    describe: string,
    signal: AbortSignal,
  ): Promise<DispatchedResponse> {
    const headers: Record<string, string | string[]> = { ...this.#staticHeaders };
    if (credentials.authorization !== undefined) headers.authorization = headerValue(credentials.authorization);
    if (body !== undefined) headers['content-type'] = bodyType ?? 'application/json';
    const dispatcher = this.#o.dispatcher ?? this.#pool!.dispatcher(credentials.clientCertificate);
    let target = new URL(url);
    let hopMethod = method;
    let hopBody = body;
    for (let redirects = 0; ; redirects++) {
      let res: DispatchedResponse;
      try {
        // raceSignal: undici 7 cannot abort a request while its TCP/TLS connect is pending (a blackholed apiserver
        // held shutdown for the connect timeout, 10 s). The abandoned request ends when close() destroys the pool,
        // or at its connect timeout; once connected it sees the aborted signal and ends at once.
        res = await raceSignal(
          ResponseBody.dispatch(dispatcher, {
            origin: target.origin, path: `${target.pathname}${target.search}`, method: hopMethod, headers, body: hopBody ?? null,
            headersTimeout: this.#timeoutMs, bodyTimeout,
          }, signal),
          signal,
        );
      } catch (err: unknown) {
        if (signal.aborted) throw err;
        // After a redirect the failing server is the hop's (its certificate, say), not the configured one.
        throw transportError(err, describe, redirects === 0 ? this.#server : safeUrl(target), this.#trusted);
      }
      this.#log.trace({ method: hopMethod, path: describe.slice(method.length + 1), statusCode: res.statusCode }, 'response');
      const location = res.headers.location;
      if (!REDIRECT_STATUSES.has(res.statusCode) || typeof location !== 'string') return res;
      await this.#discard(res, describe);
      const next = redirectTarget(target, location, { redirectsFollowed: redirects, maxRedirects: MAX_REDIRECTS, describe });
      if (res.statusCode <= 303 && hopMethod !== 'GET' && hopMethod !== 'HEAD') {
        hopMethod = 'GET';
        hopBody = undefined;
        delete headers['content-type'];
      } else if (res.statusCode <= 303) {
        hopBody = undefined;
      }
      if (next.origin !== target.origin && headers.authorization !== undefined) {
        delete headers.authorization;
        this.#log.debug({ method, path: describe.slice(method.length + 1), to: safeUrl(next) }, 'redirected to another origin; credentials dropped');
      }
      target = next;
    }
  }

  /** Why a request went out without credentials (for a 401's message). */
  #noCredentialsReason(): string {
    const auth = this.#o.config.auth;
    // kubeconfig-cluster-config says which credentials it does not send (a plain-http server, as client-go).
    return auth.type === 'none' && auth.unsent !== undefined ? auth.unsent : 'the configuration names none';
  }

  #observe(method: string, statusCode: number | undefined): void {
    const hook = this.#o.onRequest;
    if (hook !== undefined) callHook(this.#log, 'onRequest hook', () => hook({ method, host: this.#o.config.server.host, statusCode }));
  }

  #observeLatency(method: string, started: number, signal: AbortSignal): void {
    const hook = this.#o.onRequestLatency;
    if (hook === undefined || signal.aborted) return;
    const durationMs = this.#clock.monotonic() - started;
    callHook(this.#log, 'onRequestLatency hook', () => hook({ method, host: this.#o.config.server.host, durationMs }));
  }

  async #json(res: DispatchedResponse, describe: string, signal: AbortSignal, listBytes?: ListBytes): Promise<unknown> {
    const text = await this.#bodyText(res, describe, signal, listBytes);
    if (text === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', `${describe}: the response (${res.statusCode}) is not JSON`, { retryable: true });
    }
  }

  /**
   * The body of a non-watch response, at most `maxResponseBytes` of it, within `timeoutMs` of its headers (the
   * undici body timeout is only the longest gap between chunks: a server trickling a byte a minute would hold
   * a list for good; client-go's `Timeout` bounds the whole exchange too, and the API server ends a list at
   * its own request timeout, 60 s by default). A page of a list (`listBytes`) gets what its earlier pages
   * left of it, and adds the bytes it read: a server that keeps answering with continue tokens is stopped
   * where one body as long as the pages together would be.
   */
  async #bodyText(res: DispatchedResponse, describe: string, signal: AbortSignal, listBytes: ListBytes | undefined): Promise<string> {
    const max = this.#maxResponseBytes;
    const before = listBytes?.bytes ?? 0;
    const page = (listBytes?.pages ?? 0) + 1;
    const tooLarge = (): PodConfigError =>
      new PodConfigError(
        'PODCONFIG_BODY_TOO_LARGE',
        page === 1
          ? `${describe}: the response is larger than the limit of ${max} bytes`
          : `${describe}: the list's pages together are larger than the limit of ${max} bytes: page ${page} took it past (${before} bytes before it)`,
      );
    const left = Math.max(0, max - before);
    const body = res.body;
    const declared = res.headers['content-length'];
    if (typeof declared === 'string' && Number(declared) > left) {
      body.destroy();
      throw tooLarge();
    }
    const bytes = await this.#readBody(res, describe, signal, left, tooLarge);
    if (listBytes !== undefined) {
      listBytes.bytes = before + bytes.length;
      listBytes.pages = page;
    }
    return bytes.toString('utf8');
  }

  /**
   * Gives a response's whole body `timeoutMs` from now (its headers' arrival): then it is destroyed with a
   * retryable `PODCONFIG_TIMEOUT`. Returns what clears the deadline. Not for watch streams.
   */
  #bodyDeadline(body: ResponseBody, describe: string): () => void {
    const ms = this.#timeoutMs;
    if (ms === 0) return noop;
    const timer = setTimeout(() => {
      body.destroy(new PodConfigError('PODCONFIG_TIMEOUT', `${describe}: the response's body took longer than ${ms} ms`, { retryable: true }));
    }, ms);
    return () => clearTimeout(timer);
  }

  /** Reads up to 1 MiB of an error response (a Status), within `timeoutMs`, and releases the rest. */
  async #errorBody(res: DispatchedResponse, describe: string, signal: AbortSignal): Promise<string> {
    return (await this.#readBody(res, describe, signal, MAX_ERROR_BODY_BYTES, undefined)).toString('utf8');
  }

  /**
   * A response's body as received, within `timeoutMs` of its headers and up to `max` bytes: past them `tooLarge`
   * is thrown, or, without it, the body is cut there and released (an error Status needs no more).
   */
  async #readBody(res: DispatchedResponse, describe: string, signal: AbortSignal, max: number, tooLarge: (() => PodConfigError) | undefined): Promise<Buffer> {
    const body = res.body;
    const clearDeadline = this.#bodyDeadline(body, describe);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const buf of body) {
        size += buf.length;
        if (size > max && tooLarge !== undefined) throw tooLarge(); // leaving the loop destroys the body
        chunks.push(buf);
        if (size >= max && tooLarge === undefined) {
          body.destroy();
          break;
        }
      }
    } catch (err: unknown) {
      if (signal.aborted || PodConfigError.is(err)) throw err;
      throw transportError(err, describe, this.#server, this.#trusted);
    } finally {
      clearDeadline();
    }
    return Buffer.concat(chunks, size);
  }

  /** Drops a body not read (a redirect's, a retried 429's), within `timeoutMs`: the connection may go with it. */
  async #discard(res: DispatchedResponse, describe: string): Promise<void> {
    const clearDeadline = this.#bodyDeadline(res.body, describe);
    try {
      await res.body.dump();
    } catch {
      // The connection is gone; the retry opens another.
    } finally {
      clearDeadline();
    }
  }

  /** Logs the config's warnings once, at the first request (the constructor stays silent). */
  #start(): void {
    if (this.#started) return;
    this.#started = true;
    const config = this.#o.config;
    for (const warning of config.warnings) this.#log.warn({ source: config.source, warning }, 'cluster config warning');
    if (config.tls.insecureSkipVerify && config.server.protocol === 'https:') {
      this.#log.warn({ source: config.source }, 'TLS verification is disabled (insecure-skip-tls-verify): the server is not authenticated');
    }
  }
}

/** client-go `retryAfterSeconds`: whole seconds only (an HTTP date is not honoured). */
function retryAfterSeconds(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number.parseInt(value, 10);
}

/** A watch may stay quiet for its whole `timeoutSeconds`; without one, only the server ends it. */
function watchIdleTimeout(query: URLSearchParams): number {
  const seconds = Number(query.get('timeoutSeconds') ?? Number.NaN);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 + WATCH_IDLE_GRACE_MS : 0;
}

function contentType(method: string, body: unknown): string {
  if (method.toUpperCase() !== 'PATCH') return 'application/json';
  return Array.isArray(body) ? 'application/json-patch+json' : 'application/merge-patch+json';
}
