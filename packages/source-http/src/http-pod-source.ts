import { createHash } from 'node:crypto';
import {
  ConfigInvalidError,
  checkNodeName,
  ConnectingSockets,
  EnvironmentProxy,
  httpProxyConnector,
  isSocks5Proxy,
  basicAuthFromUserinfo,
  proxySocketConnector,
  socks5Connector,
  toAbsoluteForm,
  HTTP_SOURCE,
  PodConfigError,
  PodSnapshot,
  errorMessage,
  exponentialBackoff,
  isLoopbackIp,
  linked,
  podKey,
  podRef,
  podUid,
  type Pod,
  safeUrl,
  trustedCas,
  withGoServerVerification,
  type Clock,
  podSetUpdate,
  type PodSetUpdate,
  type PodSource,
  type SourceName,
  type SourceStatus,
  type StatusReporter,
} from '@podconfig/core';
import { MAX_MANIFEST_BYTES, decodeManifestOffThread, hasLaterYamlDocuments } from '@podconfig/manifest';
import type { Logger } from 'pino';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { HttpStatusError } from './http-status-error.js';
import { retryAfterMs } from './retry-after.js';
import { fetchManifest, stripCredentials, type ManifestResponse } from './fetch-manifest.js';
import { checkHeader, headerWireValue } from './parse-manifest-url-headers.js';
import { whenClockReaches } from './when-clock-reaches.js';

/**
 * When the http source yields its first SET (decision D9):
 * - `definitive` (default): after the first definitive answer (a 200 with a valid body, an empty
 *   200, or a 404 = "no pods"), or, if none came within 2 × `periodMs`, an empty SET with a warning.
 * - `first-success` (`--http-ready=first-success`, the kubelet's rule): only after a 200 with a valid
 *   or empty body; a 404 is an error like any other status, and there is no grace SET.
 */
export type HttpReadiness = 'definitive' | 'first-success';

export interface HttpPodSourceOptions {
  /** The manifest URL (`--manifest-url`); `http:` or `https:` only. A string is parsed as `new URL()` does. */
  readonly url: URL | string;
  readonly nodeName: string;
  readonly logger: Logger;
  readonly clock: Clock;
  /** `httpCheckFrequency`: the next poll starts this long after the previous one completed. Default 20 s. */
  readonly periodMs?: number;
  /** `--manifest-url-header` pairs, sent in order; a repeated name sends every value in order. */
  readonly headers?: readonly (readonly [string, string])[];
  /**
   * PEM CA bundle (`--manifest-url-ca`): trusted **instead of** the system roots, as `curl --cacert` does; each
   * certificate in it a trust anchor, an intermediate CA too, as Go trusts its pool (core's `withGoServerVerification`).
   */
  readonly ca?: string | Buffer;
  /**
   * Where `ca` came from, named in a TLS error whose chain leads to no trusted CA (`--manifest-url-ca /etc/ca.pem`).
   * Default `the ca option`; without `ca`, the default roots are named (core's `trustedCas`).
   */
  readonly caSource?: string;
  /** `User-Agent` of the requests, unless a configured header sets one. Default `podconfig (<platform>/<arch>) node/<version>`. */
  readonly userAgent?: string;
  /** PEM client certificate and key; both or neither. */
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  /**
   * An undici dispatcher to send requests through (excludes `ca`/`cert`/`key`, and the environment's proxy is not
   * applied). Default: keep-alive `Agent`s owned by `updates()`, one direct and one per proxy in use.
   */
  readonly dispatcher?: Dispatcher;
  /**
   * Where `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` are read (core's `EnvironmentProxy`: Go's rules, as the kubelet's
   * client follows them; never for localhost or loopback). Default `process.env`. An http, https, socks5 or socks5h
   * proxy; a variable is read only for a URL (or redirect target) that would use it, as Go reads it.
   */
  readonly env?: NodeJS.ProcessEnv;
  /** Deadline for the whole exchange: redirects, headers and body. Default 10 s. */
  readonly timeoutMs?: number;
  /** Largest accepted (decompressed) body, at most `MAX_MANIFEST_BYTES` (10 MiB, the default). */
  readonly maxBytes?: number;
  /** Redirects followed per poll (http→https allowed, https→http refused). Default 9: Go's client stops when 10 requests were sent. */
  readonly maxRedirects?: number;
  /** Cap of the failure backoff (decision D8). Default 300 s; never below `periodMs`. */
  readonly maxBackoffMs?: number;
  /** Default `definitive` (decision D9). */
  readonly readiness?: HttpReadiness;
  /** Uniform [0, 1) source for the backoff jitter (tests). Default `Math.random`. */
  readonly random?: () => number;
}

interface Applied {
  readonly pods: PodSnapshot;
  /** sha256 of the applied body, or {@link EMPTY} for an empty body, a 404 or the grace SET. */
  readonly key: string;
  /** Validators of the response that was applied (or of a later one with the same body); none for an empty answer. */
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
}

/** What a poll that did not throw leaves applied, and whether that differs from before. */
interface PollOutcome {
  readonly pods: PodSnapshot;
  readonly changed: boolean;
  readonly notModified: boolean;
}

type ApplyReason = 'body' | 'empty body' | 'not found' | 'grace period';

const EMPTY = 'empty';
/** Reaching a proxy and, through its tunnel, the origin's TLS handshake: undici's own connect timeout. */
const CONNECT_TIMEOUT_MS = 10_000;
const JITTER = 0.5;
/**
 * Every this many polls one is sent without validators (D7), the first poll of a run included: a
 * server that only compares `If-Modified-Since` answers 304 to a file restored with an older mtime
 * (`cp -p`, `rsync -a`), and this bounds how long it can hide such a rollback.
 */
export const UNCONDITIONAL_POLL_EVERY = 10;

/**
 * The `http` source (spec §3, decisions D7–D9, D18): polls a manifest URL and yields a SET of the
 * pods it serves whenever that set changes. Failures never yield a SET: the last applied set
 * stays until the URL gives a definitive answer.
 */
export class HttpPodSource implements PodSource, StatusReporter {
  readonly name: SourceName = HTTP_SOURCE;

  /** The URL requested: without userinfo (sent as basic auth) and fragment. */
  readonly #requestUrl: URL;
  /** The URL the pods' identity (UID, D6) is derived from: without userinfo, with the query. */
  readonly #identity: string;
  readonly #safeUrl: string;
  readonly #headers: readonly (readonly [string, string])[];
  /** `Authorization: Basic …` from the URL's userinfo, decoded once at construction. */
  readonly #basicAuth: string | undefined;
  readonly #nodeName: string;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #periodMs: number;
  readonly #timeoutMs: number;
  readonly #trusted: string;
  readonly #userAgent: string;
  readonly #maxBytes: number;
  readonly #maxRedirects: number;
  readonly #maxBackoffMs: number;
  readonly #readiness: HttpReadiness;
  readonly #random: () => number;
  readonly #dispatcher: Dispatcher | undefined;
  /** `undefined` with an injected dispatcher. */
  readonly #proxies: EnvironmentProxy | undefined;
  /** The configured URL's proxy from the environment, as `status()` shows it (no credentials). */
  readonly #proxy: string | undefined;
  /** `ca`, `cert`, `key`, with Go's server verification (core's `withGoServerVerification`), for every connection. */
  readonly #tls: { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer };

  #applied: Applied | undefined;
  /** The last body the decoder rejected, and how: the same body again fails the same way without re-decoding. */
  #rejected: { readonly key: string; readonly error: unknown } | undefined;
  #seen = false;
  /** True once the URL gave a definitive answer (D9): a 200 with a valid or empty body, or a 404 under `definitive`. */
  #definitive = false;
  #healthy = false;
  #lastSuccess: number | undefined;
  #lastError: { message: string; code?: string; time: number } | undefined;
  #lastStatusCode: number | undefined;
  /** When the next poll is due (the clock's monotonic reading): `nextPollInMs` counts down to it. */
  #nextPollAt: number | undefined;
  #consecutiveFailures = 0;
  #lastFailureMessage: string | undefined;
  readonly #counters = { polls_success: 0, polls_not_modified: 0, polls_error: 0 };

  constructor(options: HttpPodSourceOptions) {
    const url = manifestUrl(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ConfigInvalidError(`manifest URL: scheme ${url.protocol} is not supported (http: or https: only)`);
    }
    checkNodeName(options.nodeName, 'http source: nodeName');
    this.#periodMs = positive('periodMs', options.periodMs ?? 20_000);
    this.#timeoutMs = positive('timeoutMs', options.timeoutMs ?? 10_000);
    this.#trusted = trustedCas(options.ca === undefined ? undefined : (options.caSource ?? 'the ca option'));
    this.#userAgent = options.userAgent ?? `podconfig (${process.platform}/${process.arch}) node/${process.version}`;
    this.#maxBytes = positive('maxBytes', options.maxBytes ?? MAX_MANIFEST_BYTES);
    if (this.#maxBytes > MAX_MANIFEST_BYTES) {
      throw new ConfigInvalidError(`http source: maxBytes must not exceed ${MAX_MANIFEST_BYTES} (the decoder's limit)`);
    }
    this.#maxBackoffMs = Math.max(this.#periodMs, positive('maxBackoffMs', options.maxBackoffMs ?? 300_000));
    this.#maxRedirects = options.maxRedirects ?? 9;
    if (!Number.isInteger(this.#maxRedirects) || this.#maxRedirects < 0) {
      throw new ConfigInvalidError('http source: maxRedirects must be a non-negative integer');
    }
    this.#readiness = options.readiness ?? 'definitive';
    if (this.#readiness !== 'definitive' && this.#readiness !== 'first-success') {
      throw new ConfigInvalidError("http source: readiness must be 'definitive' or 'first-success'");
    }
    const headers = (options.headers ?? []).map(([name, value], i) => {
      checkHeader([name, value], `manifest URL header ${i + 1}`);
      return [name, headerWireValue(value)] as const;
    });
    let basicAuth: string | undefined;
    try {
      basicAuth = basicAuthFromUserinfo(url);
    } catch (err: unknown) {
      // Never quote the userinfo: it holds the password.
      throw new ConfigInvalidError('manifest URL: the userinfo (user:password@) has a malformed percent escape or is not UTF-8', { cause: err });
    }
    if ((options.cert === undefined) !== (options.key === undefined)) {
      throw new ConfigInvalidError('http source: a client certificate needs both cert and key');
    }
    const tls = {
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      ...(options.cert === undefined ? {} : { cert: options.cert }),
      ...(options.key === undefined ? {} : { key: options.key }),
    };
    if (options.dispatcher !== undefined && Object.keys(tls).length > 0) {
      throw new ConfigInvalidError('http source: ca, cert and key cannot be combined with an injected dispatcher');
    }
    this.#requestUrl = stripCredentials(url);
    this.#identity = this.#requestUrl.href;
    this.#safeUrl = safeUrl(url);
    this.#headers = headers;
    this.#basicAuth = basicAuth;
    this.#nodeName = options.nodeName;
    this.#clock = options.clock;
    this.#random = options.random ?? Math.random;
    this.#dispatcher = options.dispatcher;
    this.#proxies = options.dispatcher === undefined ? new EnvironmentProxy(options.env ?? process.env) : undefined;
    const proxy = this.#proxies?.proxyFor(this.#requestUrl);
    this.#proxy = proxy === undefined ? undefined : safeUrl(proxy.url);
    this.#tls = withGoServerVerification(tls);
    this.#log = options.logger.child({ component: 'source.http', url: this.#safeUrl });
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (url.protocol === 'http:' && host !== 'localhost' && !isLoopbackIp(host) && (headers.length > 0 || basicAuth !== undefined)) {
      // Allowed, as the kubelet allows it (a metadata server on a trusted network), but a credential goes in clear.
      this.#log.warn({ headers: headers.map(([name]) => name) }, 'manifest URL is http:// beyond loopback: its headers and credentials are sent unencrypted');
    }
  }

  /**
   * Polls until `signal` aborts: at once, then `periodMs` after each completed poll, or after a
   * backoff delay following a failure. Yields a SET when the served set changes (and per
   * `readiness` for the first one; D9's grace SET at its deadline, even while a poll is in flight).
   * Returns on abort; never throws for a failed poll.
   */
  async *updates(signal: AbortSignal): AsyncGenerator<PodSetUpdate, void, undefined> {
    // undici's Agent leaves a pending connect open when destroyed (until its connect timeout): tracked to end it too.
    const connecting = new ConnectingSockets();
    const owned = new Map<string, Dispatcher>();
    const dispatcher = (url: URL): Dispatcher => this.#dispatcherFor(url, owned, connecting);
    const backoff = exponentialBackoff({
      initialMs: this.#periodMs,
      maxMs: this.#maxBackoffMs,
      jitter: JITTER,
      random: this.#random,
    });
    // Due time on the monotonic clock: a wall-clock step must neither hurry nor hold back the grace SET.
    const graceAt = this.#readiness === 'definitive' ? this.#clock.monotonic() + 2 * this.#periodMs : undefined;
    // Per run (PodSource contract): a new consumer gets a first SET even when nothing changed since
    // the previous run, and the first poll of a run is unconditional.
    let yielded = false;
    let polls = 0;
    // Ends the poll in flight when the run ends, also when the consumer stops at the grace SET without aborting.
    const run = linked(signal);
    let inFlight: Promise<PollOutcome> | undefined;
    this.#log.info({ periodMs: this.#periodMs, readiness: this.#readiness }, 'polling manifest URL');
    try {
      while (!signal.aborted) {
        let wait = this.#periodMs;
        let outcome: PollOutcome | undefined;
        const conditional = polls % UNCONDITIONAL_POLL_EVERY !== 0;
        polls++;
        const poll = this.#poll(dispatcher, conditional, run.signal);
        inFlight = poll;
        if (!yielded && graceAt !== undefined && (await this.#graceFirst(poll, graceAt, signal)) && !signal.aborted) {
          // D9's deadline passed while the poll is still in flight (a server that holds the request): the grace
          // SET goes out on time; the poll goes on, and its answer is applied below as usual.
          yielded = this.#seen = true;
          yield podSetUpdate(this.name, this.#grace());
        }
        try {
          outcome = await poll;
          backoff.reset();
          this.#succeeded(outcome.notModified);
        } catch (err: unknown) {
          if (signal.aborted) return;
          wait = Math.min(this.#maxBackoffMs, Math.max(backoff.next(), err instanceof HttpStatusError ? (err.retryAfterMs ?? 0) : 0));
          this.#failed(err, wait);
        }
        this.#nextPollAt = this.#clock.monotonic() + wait;
        if (outcome !== undefined && (outcome.changed || !yielded)) {
          yielded = this.#seen = true;
          yield podSetUpdate(this.name, outcome.pods);
        }
        if (!yielded && graceAt !== undefined && graceAt - this.#clock.monotonic() <= wait) {
          const early = Math.max(0, graceAt - this.#clock.monotonic());
          if (early > 0) await this.#clock.sleep(early, signal);
          if (signal.aborted) return;
          wait -= early;
          yielded = this.#seen = true;
          yield podSetUpdate(this.name, this.#grace());
        }
        await this.#clock.sleep(wait, signal);
      }
    } finally {
      // A poll may still be in flight (on abort, or when the consumer stopped at a grace SET): aborted, its
      // sockets destroyed, a connect still pending too, then awaited, so nothing of this run goes on after it.
      run.abort();
      run.dispose();
      connecting.destroy(new Error('the manifest source stopped'));
      await Promise.all([...owned.values()].map((d) => d.destroy()));
      await inFlight?.catch(() => undefined);
    }
  }

  /**
   * Awaits `poll` or D9's grace deadline, whichever comes first; `true` when the deadline came with the poll
   * still in flight, `false` when the poll settled first or `signal` aborted. The deadline is the clock's (see
   * {@link whenClockReaches}: not `clock.sleep()`, which a virtual clock ends at once); its timer ends with this call.
   */
  async #graceFirst(poll: Promise<PollOutcome>, graceAt: number, signal: AbortSignal): Promise<boolean> {
    const wait = linked(signal);
    try {
      const settled = poll.then(() => false, () => false);
      return await Promise.race([settled, whenClockReaches(this.#clock, graceAt, wait.signal)]);
    } finally {
      wait.abort();
      wait.dispose();
    }
  }

  status(): SourceStatus {
    const lastError = this.#lastError;
    return {
      seen: this.#seen,
      provisional: this.#seen && !this.#definitive,
      healthy: this.#healthy,
      pods: this.#seen ? (this.#applied?.pods.size ?? 0) : 0,
      ...(this.#lastSuccess === undefined ? {} : { lastSuccessTime: new Date(this.#lastSuccess) }),
      ...(lastError === undefined
        ? {}
        : {
            lastError: {
              message: lastError.message,
              ...(lastError.code === undefined ? {} : { code: lastError.code }),
              time: new Date(lastError.time),
            },
          }),
      counters: { ...this.#counters },
      details: {
        url: this.#safeUrl,
        proxy: this.#proxy ?? null,
        lastStatusCode: this.#lastStatusCode ?? null,
        etag: this.#applied?.etag ?? null,
        lastModified: this.#applied?.lastModified ?? null,
        nextPollInMs: this.#nextPollAt === undefined ? null : Math.max(0, Math.round(this.#nextPollAt - this.#clock.monotonic())),
        consecutiveFailures: this.#consecutiveFailures,
      },
    };
  }

  /**
   * The injected dispatcher, or one of the run's own `Agent`s: direct, or one per proxy and scheme, as Go's transport
   * goes through a proxy: an https URL through a CONNECT tunnel (core's `httpProxyConnector`), an http URL sent to the
   * proxy in absolute form. Every connect, to a proxy too, is tracked, so the end of the run ends it.
   */
  #dispatcherFor(url: URL, owned: Map<string, Dispatcher>, connecting: ConnectingSockets): Dispatcher {
    if (this.#dispatcher !== undefined) return this.#dispatcher;
    const proxy = this.#proxies?.proxyFor(url);
    const key = proxy === undefined ? '' : `${url.protocol} ${proxy.url.href}`;
    let dispatcher = owned.get(key);
    if (dispatcher === undefined) {
      const timeouts = { headersTimeout: this.#timeoutMs, bodyTimeout: this.#timeoutMs };
      const proxyOptions = { tls: this.#tls, timeoutMs: Math.min(this.#timeoutMs, CONNECT_TIMEOUT_MS) };
      if (proxy === undefined) {
        dispatcher = new Agent({ connect: connecting.wrap(buildConnector(this.#tls)), ...timeouts });
      } else if (isSocks5Proxy(proxy.url)) {
        // A tunnel for either scheme: requests go through it as on a direct connection, as Go sends them.
        dispatcher = new Agent({ connect: connecting.wrap(socks5Connector(proxy.url, proxyOptions)), ...timeouts });
      } else if (url.protocol === 'https:') {
        dispatcher = new Agent({ connect: connecting.wrap(httpProxyConnector(proxy.url, proxyOptions)), ...timeouts });
      } else {
        const connect = proxySocketConnector(proxy.url, proxyOptions);
        dispatcher = new Agent({ connect: connecting.wrap(connect), ...timeouts }).compose(absoluteForm(basicAuthFromUserinfo(proxy.url)));
      }
      owned.set(key, dispatcher);
    }
    return dispatcher;
  }

  /**
   * One GET and its meaning (spec §3 as amended by D7/D9). Throws on anything but a usable answer.
   * `conditional: false` sends no validators (the first poll of a run, and every
   * {@link UNCONDITIONAL_POLL_EVERY}th).
   */
  async #poll(dispatcher: (url: URL) => Dispatcher, conditional: boolean, signal: AbortSignal): Promise<PollOutcome> {
    const applied = this.#applied;
    const etag = conditional ? applied?.etag : undefined;
    const lastModified = conditional ? applied?.lastModified : undefined;
    let res: ManifestResponse;
    let status: number | undefined;
    try {
      res = await fetchManifest(
        {
          url: this.#requestUrl,
          basicAuth: this.#basicAuth,
          headers: this.#headers,
          etag,
          lastModified,
          dispatcher,
          timeoutMs: this.#timeoutMs,
          maxBytes: this.#maxBytes,
          maxRedirects: this.#maxRedirects,
          trusted: this.#trusted,
          userAgent: this.#userAgent,
          onStatus: (statusCode) => { status = statusCode; },
        },
        signal,
      );
    } catch (err: unknown) {
      // Only a poll that ended changes lastStatusCode: this one's, if a response came (a 200 whose body failed).
      if (!signal.aborted) this.#lastStatusCode = status;
      throw err;
    }
    this.#lastStatusCode = res.statusCode;
    if (res.statusCode === 304 && applied !== undefined && (etag !== undefined || lastModified !== undefined)) {
      return { pods: applied.pods, changed: false, notModified: true };
    }
    if (res.statusCode === 404 && this.#readiness === 'definitive') {
      return this.#apply(PodSnapshot.empty, EMPTY, undefined, undefined, 'not found');
    }
    if (res.statusCode !== 200 || res.body === undefined) {
      // A server that says when to come back (a 429 or 503 with Retry-After) is not asked sooner.
      const after = res.statusCode === 429 || res.statusCode >= 500 ? retryAfterMs(res.retryAfter, this.#clock.now()) : undefined;
      throw new HttpStatusError(`${this.#safeUrl}: HTTP ${res.statusCode}`, after);
    }
    if (res.body.length === 0) {
      // No validators for an empty answer: "changed since it was empty?" is what a server answers
      // 304 to when the old file is put back with its old mtime, and the pods must come back (D7).
      return this.#apply(PodSnapshot.empty, EMPTY, undefined, undefined, 'empty body');
    }
    const key = createHash('sha256').update(res.body).digest('hex');
    if (applied?.key === key) {
      // The body that is applied already: nothing to parse or send; keep the newest validators.
      this.#applied = { ...applied, etag: res.etag, lastModified: res.lastModified };
      return { pods: applied.pods, changed: false, notModified: false };
    }
    // The body rejected last time, byte for byte: the same error, without decoding it again.
    if (this.#rejected?.key === key) throw this.#rejected.error;
    // A large body (YAML or JSON) is decoded on the manifest package's worker thread, off the event loop.
    let decoded: Pod[];
    try {
      decoded = await this.#decode(res.body, signal);
    } catch (err: unknown) {
      if (!signal.aborted) this.#rejected = { key, error: err };
      throw err;
    }
    // Duplicates are settled here, in PodList order (D14: the first wins), in the merger's two stages: by
    // namespace/name, then by UID among the survivors. The merger, given a keyed snapshot without an order, would
    // keep the pod with the smallest namespace/name of a UID instead. Logged once per new body, like the rest.
    const { snapshot, duplicates } = PodSnapshot.from(decoded);
    for (const pod of duplicates) {
      this.#log.warn({ pod: podRef(pod), uid: podUid(pod) }, 'duplicate pod in manifest, the first one wins');
    }
    const { pods, sameUid } = firstPerUid(decoded, snapshot);
    for (const { pod, winner } of sameUid) {
      this.#log.warn({ pod: podRef(pod), winner: podRef(winner), uid: podUid(pod) }, 'duplicate pod UID in manifest, the first one wins');
    }
    // Once per new body. The kubelet drops them without a word: a pod written in a second document would vanish.
    if (hasLaterYamlDocuments(res.body)) {
      this.#log.warn({}, 'manifest has YAML documents after the first; only the first is read (a Pod or a PodList)');
    }
    return this.#apply(pods, key, res.etag, res.lastModified, 'body');
  }

  async #decode(body: Uint8Array, signal: AbortSignal): Promise<Pod[]> {
    try {
      return await decodeManifestOffThread(body, 'http', { nodeName: this.#nodeName, origin: { kind: 'url', url: this.#identity } }, signal);
    } catch (err: unknown) {
      // A ManifestInvalidError names the URL through safeUrl() and never quotes values: pass it on, as the abort.
      if (PodConfigError.is(err) || signal.aborted) throw err;
      throw new PodConfigError('PODCONFIG_MANIFEST_INVALID', `${this.#safeUrl}: could not decode the body: ${errorMessage(err)}`);
    }
  }

  /**
   * The pods of a run's grace SET (D9): the applied set if an earlier run applied one (an error
   * never drops pods, D18), else an empty set, applied provisionally.
   */
  #grace(): PodSnapshot {
    const applied = this.#applied;
    if (applied !== undefined) {
      this.#log.warn({ graceMs: 2 * this.#periodMs, pods: applied.pods.size }, 'no answer from the manifest URL yet, reporting the last applied http pods');
      return applied.pods;
    }
    return this.#apply(PodSnapshot.empty, EMPTY, undefined, undefined, 'grace period').pods;
  }

  /** Makes `pods` the applied set; `changed` is false when the set is the same (then nothing needs yielding). */
  #apply(
    pods: PodSnapshot,
    key: string,
    etag: string | undefined,
    lastModified: string | undefined,
    reason: ApplyReason,
  ): PollOutcome {
    const previous = this.#applied;
    const same = previous !== undefined && (previous.key === key || (pods.size === 0 && previous.pods.size === 0));
    // The first definitive answer after the grace SET ends the provisional state: it is yielded even
    // when it repeats the grace SET's empty set, so a consumer re-reads status() on that SET.
    const settles = reason !== 'grace period' && this.#seen && !this.#definitive;
    if (reason !== 'grace period') this.#definitive = true;
    const applied = same ? previous.pods : pods;
    this.#applied = { pods: applied, key, etag, lastModified };
    if (same && !settles) return { pods: applied, changed: false, notModified: false };
    const removed = previous?.pods.size ?? 0;
    if (reason === 'grace period') {
      this.#log.warn({ graceMs: 2 * this.#periodMs }, 'no definitive answer from the manifest URL yet, reporting no http pods');
    } else if (pods.size === 0 && removed > 0) {
      this.#log.warn({ reason, removed }, 'manifest URL serves no pods, removing the http pods');
    } else if (reason === 'not found') {
      // A definitive "no pods" (D9), yet as often a mistyped URL: worth an operator's look, once per change.
      this.#log.warn({ reason }, 'manifest URL not found (404): no http pods');
    } else {
      this.#log.info({ pods: pods.size, reason }, 'manifest applied');
    }
    return { pods, changed: true, notModified: false };
  }

  #succeeded(notModified: boolean): void {
    if (notModified) this.#counters.polls_not_modified++;
    else this.#counters.polls_success++;
    if (this.#consecutiveFailures > 0) {
      this.#log.info({ failures: this.#consecutiveFailures }, 'manifest URL recovered');
    }
    this.#consecutiveFailures = 0;
    this.#lastFailureMessage = undefined;
    this.#healthy = true;
    this.#lastSuccess = this.#clock.now();
  }

  #failed(err: unknown, retryInMs: number): void {
    this.#counters.polls_error++;
    this.#consecutiveFailures++;
    this.#healthy = false;
    const message = errorMessage(err);
    this.#lastError = { message, ...(PodConfigError.is(err) ? { code: err.code } : {}), time: this.#clock.now() };
    const fields = { err, retryInMs: Math.round(retryInMs), consecutiveFailures: this.#consecutiveFailures };
    // Once per state change (D8): the first failure, and a failure that differs from the previous one.
    if (message !== this.#lastFailureMessage) this.#log.warn(fields, 'manifest poll failed');
    else this.#log.debug(fields, 'manifest poll failed again');
    this.#lastFailureMessage = message;
  }
}

/**
 * `snapshot` (the PodList's first pod per `namespace/name`) without every pod whose UID an earlier pod of `list`
 * kept in it has (D14: first wins, in PodList order), and the pods dropped so, each with the pod that kept the UID.
 * The snapshot itself when no UID repeats (the usual case: only a pinned `metadata.uid` can, D6).
 */
function firstPerUid(list: readonly Pod[], snapshot: PodSnapshot): { pods: PodSnapshot; sameUid: { pod: Pod; winner: Pod }[] } {
  const winners = new Map<string, Pod>();
  const sameUid: { pod: Pod; winner: Pod }[] = [];
  let pods = snapshot;
  for (const pod of list) {
    const key = podKey(pod);
    // A pod that lost on its name is not in the snapshot: it takes no UID from anyone.
    if (snapshot.get(key) !== pod) continue;
    const uid = podUid(pod);
    const winner = winners.get(uid);
    if (winner === undefined) {
      winners.set(uid, pod);
      continue;
    }
    sameUid.push({ pod, winner });
    pods = pods.without(key);
  }
  return { pods, sameUid };
}

/** Sends each plain-http request to the proxy in absolute form (core's `toAbsoluteForm`). */
function absoluteForm(authorization: string | undefined): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => dispatch(toAbsoluteForm(opts, authorization), handler);
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new ConfigInvalidError(`http source: ${name} must be a positive number`);
  return value;
}

/** A copy of the `url` option. An unparsable string is not quoted: its userinfo may hold a password. */
function manifestUrl(given: URL | string): URL {
  if (given instanceof URL) return new URL(given.href);
  const url = typeof given === 'string' ? URL.parse(given) : null;
  if (url === null) throw new ConfigInvalidError('manifest URL (the url option): not an absolute URL, such as http://127.0.0.1:8080/pods.yaml');
  return url;
}
