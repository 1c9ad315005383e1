import {
  errorMessage,
  exponentialBackoff,
  linked,
  PodConfigError,
  type Backoff,
  type Clock,
  type LinkedSignal,
  WARN_FAILURES,
  WARN_REMINDER_MS,
} from '@podconfig/core';
import type { Logger } from 'pino';
import { classifyError, isStatusError } from './classify-error.js';
import type { BufferedIterator, ListerWatcher, ListResult, WatchOptions } from './lister-watcher.js';
import { DeferredChangeEvent } from './deferred-change-event.js';
import { headKey, metaNamespaceKey } from './meta-namespace-key.js';
import { PaginationGuard } from './pagination-guard.js';
import { PendingChanges } from './pending-changes.js';
import type { ReflectorSink } from './reflector-sink.js';
import { statusErrorFromObject } from './status-error-from-object.js';
import {
  INITIAL_EVENTS_END_ANNOTATION,
  type BookmarkEvent,
  type ChangeEvent,
  type KubeObject,
  type UnknownEvent,
  type WatchEvent,
} from './watch-event.js';
import { Watchdog } from './watchdog.js';

export interface ReflectorOptions<T extends KubeObject> {
  readonly listerWatcher: ListerWatcher<T>;
  readonly sink: ReflectorSink<T>;
  readonly logger: Logger;
  /** Times backoff sleeps and measures watch durations (very short watches). */
  readonly clock: Clock;
  /** Decision D13: initial sync by streaming list (watch-list). Default true; false = classic LIST then WATCH. */
  readonly watchList?: boolean;
  /** Page size of classic lists (default 500). */
  readonly pageSize?: number;
  /** Default: `exponentialBackoff({ initialMs: 800, maxMs: 30_000, jitter: 1, resetAfterMs: 120_000, clock, random })` (D12). */
  readonly backoff?: Backoff;
  /** Source of randomness for watch timeouts and the default backoff's jitter (default `Math.random`). */
  readonly random?: () => number;
  /** Watch events whose object has another `kind` are skipped (logged; the RV is not advanced). */
  readonly expectedKind?: string;
  /** Log field `reflector` and `status().name` (default: `expectedKind`, else `objects`). */
  readonly name?: string;
  /** Watches ask for `timeoutSeconds` = floor(min · (1 + random())): [300, 599] by default (client-go `minWatchTimeout`). */
  readonly minWatchTimeoutSeconds?: number;
  /**
   * Stall detection (real time, default 30 s): a stream silent for `timeoutSeconds` + this is cut and re-watched;
   * during a streaming list, this long without an event before the initial-events-end bookmark means the
   * server ignores `sendInitialEvents`.
   */
  readonly stallTimeoutMs?: number;
  /**
   * A watch stream that has delivered a bookmark comes from a server that sends them (the apiserver: about once
   * a minute): from then on, this long without a byte (real time, default 150 s) means the connection is dead
   * (a host gone, a NAT or load-balancer entry dropped, with no FIN or RST), and it is cut and re-watched. client-go
   * finds that out with HTTP/2 pings (30 s idle + 15 s); over HTTP/1.1 a bookmark is the only sign of life.
   * Never longer than `timeoutSeconds` + `stallTimeoutMs`; a server that sends no bookmarks keeps that bound. Once
   * one stream has delivered a periodic bookmark, the rule holds from the start of every later watch. A streaming
   * list's initial-events-end bookmark is not one: a server without a watch cache sends it and no other.
   */
  readonly bookmarkSilenceMs?: number;
}

/** What the Reflector last did; JSON-serialisable, nothing secret. */
export interface ReflectorStatus {
  readonly name: string;
  /** The RV the next watch starts from (`""` before the first sync). */
  readonly lastSyncResourceVersion: string;
  /** A list or streaming list has completed (the sink has had its first `replace()`). */
  readonly synced: boolean;
  /** A watch stream is open. */
  readonly connected: boolean;
  /** Whether the initial sync still uses watch-list (false when disabled or after the server rejected it). */
  readonly watchList: boolean;
  /** Completed syncs (list or streaming list) after the first. */
  readonly relists: number;
  /** Watch requests made to resume after a stream ended or failed. */
  readonly watchRestarts: number;
  /**
   * ADDED / MODIFIED / DELETED events received from watch streams (after the initial sync), including those a
   * later change of the same object replaced before they were applied (see "Pending changes").
   */
  readonly events: number;
  /** Watch changes whose object did not decode when applied (each ended its stream with a relist). */
  readonly undecodableEvents: number;
  /**
   * Failures since the last success (the failure streak). A success is a completed sync (list or streaming
   * list), a watch request the server answered with a stream (200), or an accepted watch event.
   */
  readonly consecutiveFailures: number;
  /** Last successful sync, watch the server answered with a stream, or received watch event (bookmarks included). */
  readonly lastSyncTime?: Date;
  readonly lastError?: { readonly message: string; readonly code?: string; readonly time: Date };
}

/** Relist after this many consecutive failed watch attempts (decision D11). */
const MAX_FAILED_WATCH_ATTEMPTS = 5;
/** client-go: a watch that ends within 1 s having delivered nothing is a `VeryShortWatchError`. */
const VERY_SHORT_WATCH_MS = 1000;
/**
 * Fairness (real time): a stream that is read faster than it arrives is decoded in microtasks only,
 * and the sink's consumers (the apiserver source's mailbox, a LatestByKey, wakes its consumer on a
 * macrotask, and the merger behind it) would wait until the socket runs dry, seeing one huge, late
 * batch. The reflector lets macrotasks run once this long has passed since it last did (after an idle
 * gap that costs one extra setImmediate hop), and after every initial sync, so the first complete set
 * goes through the pipeline before the events that follow it.
 */
const SLICE_MS = 10;

const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What a watch stream threw, as the Error that ends it. */
function streamError(err: unknown): Error {
  return err instanceof Error ? err : new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', errorMessage(err), { retryable: true, cause: err });
}

interface OpenStream<T> {
  readonly iterator: AsyncIterator<WatchEvent<T>>;
  /** The iterator's `nextBuffered`, when it has one (a {@link BufferedIterator}). */
  readonly buffered: (() => IteratorResult<WatchEvent<T>> | undefined) | undefined;
  readonly link: LinkedSignal;
  readonly watchdog: Watchdog;
  /** `clock.monotonic()` when the watch was opened. */
  readonly startedAt: number;
  readonly timeoutSeconds: number;
  /** Accepted events (including bookmarks) so far. */
  events: number;
  /** The silence that cuts the stream, in ms, once it has delivered a bookmark (else undefined). */
  bookmarkSilenceMs: number | undefined;
  /** While waiting for the initial-events-end bookmark of a streaming list. */
  initial: boolean;
  stalled: boolean;
  /** Unknown event types seen on this stream (each is warned about once). */
  unknownTypes: Set<string> | undefined;
}

/**
 * The Reflector's named states (kube-rs watcher style):
 * - `Syncing`: the store needs the full state: streaming list (watch-list) or paginated list (`via: 'list'`).
 * - `Watching`: synced, no stream open: open a watch at the last RV.
 * - `Streaming`: a stream is open: apply its events.
 * - `BackingOff`: sleep `delayMs` (a backoff step after a failure, or the rest of a watch's first second), then go to `then`.
 */
type ReflectorState<T> =
  | { readonly phase: 'Syncing'; readonly via?: 'list' }
  | { readonly phase: 'Watching' }
  | { readonly phase: 'Streaming'; readonly stream: OpenStream<T> }
  | { readonly phase: 'BackingOff'; readonly delayMs: number; readonly then: ReflectorState<T> };

/** The stream stalled (stall detection fired); during a streaming list this means `sendInitialEvents` is ignored. */
class StreamStalledError extends PodConfigError {
  constructor(message: string, cause: unknown) {
    super('PODCONFIG_TIMEOUT', message, { retryable: true, cause });
  }
}

/**
 * Keeps a {@link ReflectorSink} in sync with a resource (client-go `Reflector`, spec §5, decisions D11–D13).
 *
 * - Initial sync (D13): a streaming list (`sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan`,
 *   `allowWatchBookmarks=true`, RV `""` first) into a temporary map, ONE `sink.replace()` on the
 *   `k8s.io/initial-events-end` bookmark, and the same stream continues. If the server refuses the
 *   parameters (400 / 422) or ignores them (a bookmark without the annotation, or no event for
 *   `stallTimeoutMs`, before the end bookmark), watch-list is switched off for good and the reflector falls
 *   back to a paginated list in the same cycle; other non-retriable errors fall back for this cycle only.
 * - Paginated list (client-go pager): `limit=500`, continue tokens with the RV cleared; RV `"0"` first, the last
 *   synced RV later (unpaginated unless the RV `"0"` list came back paginated), RV `""` at once after a 410 or
 *   "too large"; one unpaginated list at the original RV when a continuation page returns 410. The pages of one
 *   list are held together to the client's body limit (`PODCONFIG_BODY_TOO_LARGE`, as one body past it), and a
 *   continue token seen twice, or 100 pages in a row without items (`MAX_EMPTY_PAGES`), end the list
 *   (`PODCONFIG_SOURCE_UNAVAILABLE`): like any failed list, the sink keeps its set and the list is retried after backoff.
 * - Watch at the last RV with bookmarks and `timeoutSeconds` in [300, 599]. BOOKMARK advances the RV and
 *   pushes nothing; objects of another `kind` are skipped without advancing it.
 * - D11: transport errors, resets, TLS errors, stalls, 5xx and any other API error (a 401, 403, 404 or 400; on
 *   open, mid-stream or as an ERROR event) re-watch at the last RV after one backoff step, without a relist; 429
 *   likewise (honouring Retry-After, and never counting towards a relist). Relist (after backoff) only on 410 /
 *   too-large, an undecodable stream, or after 5 consecutive failed watch attempts (an open that fails, or a
 *   stream that ends within 1 s without an event: the very short watch). A stream that ends normally re-watches
 *   at once.
 * - D12: every failure waits `backoff.next()` (at least Retry-After, up to 60 s); success never resets the backoff
 *   early, it goes back to 0.8 s only after 2 minutes without a failure.
 *
 * `run()` returns when `signal` aborts, closing the stream. Nothing reaches the sink before the first sync.
 * Errors thrown by the sink are bugs and propagate out of `run()`.
 */
export class Reflector<T extends KubeObject> {
  readonly #lw: ListerWatcher<T>;
  readonly #sink: ReflectorSink<T>;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #backoff: Backoff;
  readonly #random: () => number;
  readonly #pageSize: number;
  readonly #expectedKind: string | undefined;
  readonly #name: string;
  readonly #minWatchTimeoutSeconds: number;
  readonly #stallTimeoutMs: number;
  readonly #bookmarkSilenceMs: number;

  #watchList: boolean;
  #lastSyncRV = '';
  #rvUnavailable = false;
  #paginatedResult = false;
  #synced = false;
  #resume = false;
  #failedWatchAttempts = 0;
  #open: OpenStream<T> | undefined;
  /** Watch changes not applied yet (one per key), applied by `#applyPendingNow` on the next macrotask or sooner. */
  readonly #pending = new PendingChanges<T>();
  #applyScheduled = false;
  /** An object of a pending change that did not decode when applied on a macrotask: ends the stream, relists. */
  #pendingError: Error | undefined;
  /** What the sink threw when applying pending changes on a macrotask: rethrown by `run()` (a bug). */
  #sinkFailure: { readonly error: unknown } | undefined;

  #relists = 0;
  #watchRestarts = 0;
  #events = 0;
  #undecodable = 0;
  /** performance.now() when the reflector last let macrotasks run (SLICE_MS). */
  #sliceStart = 0;
  #consecutiveFailures = 0;
  /** Failures of the streak a re-watch ended, until its first event confirms the recovery. */
  #unconfirmedFailures = 0;
  /** `clock.monotonic()` of the last failure warned about. */
  #lastWarnAt: number | undefined;
  /** Clock milliseconds; a number, not a Date: it is set on every watch event. */
  #lastSyncTime: number | undefined;
  /** A stream has delivered a periodic bookmark: later watches get the silence cut from their start. */
  #serverSendsBookmarks = false;
  #lastError: { message: string; code?: string; time: Date } | undefined;

  constructor(options: ReflectorOptions<T>) {
    this.#lw = options.listerWatcher;
    this.#sink = options.sink;
    this.#clock = options.clock;
    this.#random = options.random ?? Math.random;
    this.#backoff =
      options.backoff ??
      exponentialBackoff({ initialMs: 800, maxMs: 30_000, jitter: 1, resetAfterMs: 120_000, clock: options.clock, random: this.#random });
    this.#pageSize = options.pageSize ?? 500;
    this.#expectedKind = options.expectedKind;
    this.#name = options.name ?? options.expectedKind ?? 'objects';
    this.#minWatchTimeoutSeconds = options.minWatchTimeoutSeconds ?? 300;
    this.#stallTimeoutMs = options.stallTimeoutMs ?? 30_000;
    this.#bookmarkSilenceMs = options.bookmarkSilenceMs ?? 150_000;
    this.#watchList = options.watchList ?? true;
    this.#log = options.logger.child({ component: 'cache.reflector', reflector: this.#name });
  }

  status(): ReflectorStatus {
    return {
      name: this.#name,
      lastSyncResourceVersion: this.#lastSyncRV,
      synced: this.#synced,
      connected: this.#open !== undefined,
      watchList: this.#watchList,
      relists: this.#relists,
      watchRestarts: this.#watchRestarts,
      events: this.#events,
      undecodableEvents: this.#undecodable,
      consecutiveFailures: this.#consecutiveFailures,
      ...(this.#lastSyncTime === undefined ? {} : { lastSyncTime: new Date(this.#lastSyncTime) }),
      ...(this.#lastError === undefined ? {} : { lastError: { ...this.#lastError } }),
    };
  }

  /** Lists and watches until `signal` aborts; then closes the stream and returns. */
  async run(signal: AbortSignal): Promise<void> {
    this.#log.info({ watchList: this.#watchList }, 'reflector started');
    let state: ReflectorState<T> = { phase: 'Syncing' };
    this.#pendingError = undefined;
    this.#sinkFailure = undefined;
    try {
      while (!signal.aborted) state = await this.#step(state, signal);
    } finally {
      this.#pending.clear();
      if (this.#open !== undefined) await this.#close(this.#open);
      this.#log.info({ resourceVersion: this.#lastSyncRV }, 'reflector stopped');
    }
  }

  #step(state: ReflectorState<T>, signal: AbortSignal): Promise<ReflectorState<T>> {
    switch (state.phase) {
      case 'Syncing':
        return this.#watchList && state.via !== 'list' ? this.#syncByWatchList(signal) : this.#syncByList(signal);
      case 'Watching':
        return this.#openWatch(signal);
      case 'Streaming':
        return this.#consume(state.stream, signal);
      case 'BackingOff':
        return this.#clock.sleep(state.delayMs, signal).then(() => state.then);
    }
  }

  // ── classic list (client-go pager) ────────────────────────────────────────────────────────────

  async #syncByList(signal: AbortSignal): Promise<ReflectorState<T>> {
    const rv = this.#relistResourceVersion();
    let result: PagedList<T>;
    try {
      try {
        result = await this.#pagedList(rv, signal);
      } catch (err: unknown) {
        const kind = classifyError(err);
        if (signal.aborted || (kind !== 'expired' && kind !== 'too-large')) throw err;
        // The RV is gone or not yet known: retry at once with a consistent read (RV "").
        this.#rvUnavailable = true;
        this.#log.debug({ err, resourceVersion: rv }, 'list resourceVersion unavailable, listing the most recent');
        result = await this.#pagedList(this.#relistResourceVersion(), signal);
      }
    } catch (err: unknown) {
      if (signal.aborted) return { phase: 'Syncing', via: 'list' };
      return this.#failed(err, { phase: 'Syncing' }, 'list failed');
    }
    if (rv === '0' && result.paginated) this.#paginatedResult = true;
    this.#sink.replace(result.items, result.resourceVersion);
    this.#markSynced(result.resourceVersion, result.items.length, 'list');
    await this.#letConsumersRun();
    return { phase: 'Watching' };
  }

  async #pagedList(rv: string, signal: AbortSignal): Promise<PagedList<T>> {
    // client-go: a list at a specific RV goes unpaginated so the watch cache can serve it, unless an RV "0"
    // list came back paginated (no watch cache).
    const limit = this.#paginatedResult || rv === '' || rv === '0' ? this.#pageSize : 0;
    const first = await this.#lw.list({ resourceVersion: rv, ...(limit > 0 ? { limit } : {}) }, signal);
    if (first.continue === undefined) return { items: first.items, resourceVersion: first.resourceVersion, paginated: false };
    // The pages' bytes are bounded together by the client (ListWatch hands kube-client one tally per list); the
    // guard ends a chain of continue tokens that does not advance, which bytes alone would stop only after a day.
    const guard = new PaginationGuard(`${this.#name} list`);
    guard.page(first.items.length, first.continue);
    const items: T[] = [...first.items];
    let token: string | undefined = first.continue;
    while (token !== undefined) {
      let page: ListResult<T>;
      try {
        page = await this.#lw.list({ limit, continue: token }, signal);
      } catch (err: unknown) {
        if (signal.aborted || classifyError(err) !== 'expired') throw err;
        // pager FullListIfExpired: the continue token expired: one unpaginated list at the original RV.
        this.#log.debug({ err }, 'continue token expired, listing in one request');
        items.length = 0; // not held while the full list, as large, is read
        const full = await this.#lw.list({ resourceVersion: rv }, signal);
        return { items: full.items, resourceVersion: full.resourceVersion, paginated: true };
      }
      guard.page(page.items.length, page.continue);
      for (const item of page.items) items.push(item);
      token = page.continue;
    }
    return { items, resourceVersion: first.resourceVersion, paginated: true };
  }

  #relistResourceVersion(): string {
    if (this.#rvUnavailable) return '';
    return this.#lastSyncRV === '' ? '0' : this.#lastSyncRV;
  }

  // ── streaming list (watch-list, D13) ──────────────────────────────────────────────────────────

  async #syncByWatchList(signal: AbortSignal): Promise<ReflectorState<T>> {
    const rv = this.#rvUnavailable ? '' : this.#lastSyncRV;
    let stream: OpenStream<T>;
    try {
      stream = await this.#openStream({ resourceVersion: rv, resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true }, signal);
    } catch (err: unknown) {
      if (signal.aborted) return { phase: 'Syncing' };
      return this.#watchListFailed(err, rv);
    }
    stream.initial = true;
    stream.watchdog.arm(this.#stallTimeoutMs);
    const initial = new Map<string, T>();
    for (;;) {
      const next = this.#nextBuffered(stream) ?? (await this.#next(stream));
      if (next instanceof Error || next.done === true) {
        await this.#close(stream);
        if (signal.aborted) return { phase: 'Syncing' };
        const err =
          next instanceof Error
            ? next
            : new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', 'watch-list stream ended before the initial-events-end bookmark', {
                retryable: true,
              });
        return this.#watchListFailed(err, rv);
      }
      const event = next.value;
      stream.watchdog.touch();
      if (event.type === 'ERROR') {
        await this.#close(stream);
        return this.#watchListFailed(statusErrorFromObject(event.object, `${this.#name} watch`), rv);
      }
      if (event.type === 'UNKNOWN') {
        this.#unknown(stream, event); // its RV does not matter before the end bookmark
        continue;
      }
      if (!this.#accepts(event)) continue;
      stream.events++;
      if (event.type === 'BOOKMARK') {
        if (event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== 'true') {
          // A real watch-list server sends no other bookmark before the end marker: this one ignores it.
          await this.#close(stream);
          return this.#abandonWatchList('the server sent a bookmark without k8s.io/initial-events-end: it ignores sendInitialEvents');
        }
        const resourceVersion = event.object.metadata.resourceVersion ?? '';
        const items = [...initial.values()];
        this.#sink.replace(items, resourceVersion);
        this.#markSynced(resourceVersion, items.length, 'watch-list');
        stream.initial = false;
        // The silence cut starts here only once a periodic bookmark has come (a relist): an API server without a
        // watch cache (--watch-cache=false) streams the list from etcd, ends it with this bookmark and sends no
        // periodic one (checked against a 1.36 apiserver). A watch cache sends the first about a minute in (#consume).
        stream.watchdog.arm(stream.timeoutSeconds * 1000 + this.#stallTimeoutMs);
        if (this.#serverSendsBookmarks) this.#expectBookmarks(stream);
        await this.#letConsumersRun();
        return { phase: 'Streaming', stream };
      }
      if (event.type !== 'ADDED') {
        // A streaming list's initial events are all ADDED (the state at its RV), then the end bookmark, however
        // busy the objects (checked against a 1.36 apiserver under 600 changes/s): a change before the bookmark
        // comes from a plain watch, a server that ignores sendInitialEvents.
        await this.#close(stream);
        return this.#abandonWatchList(`the server sent a ${event.type} event before k8s.io/initial-events-end: it ignores sendInitialEvents`);
      }
      const key = event instanceof DeferredChangeEvent ? headKey(event.head) : metaNamespaceKey(event.object);
      // Decoded as it arrives, not at the end bookmark: a deferred event holds its network chunk until then
      // (50,000 pods: hundreds of MB), and initial events are rarely replaced.
      const object = this.#decode(event);
      if (object instanceof Error) {
        await this.#close(stream);
        return this.#watchListFailed(object, rv);
      }
      initial.set(key, object);
    }
  }

  /** The event's object, or the error decoding it (counted). */
  #decode(event: ChangeEvent<T>): T | Error {
    try {
      return event.object;
    } catch (err: unknown) {
      this.#undecodable++;
      return asError(err);
    }
  }

  #watchListFailed(err: unknown, rv: string): ReflectorState<T> {
    // A stall proves nothing about the server (a connection that died looks the same as a server that ignores
    // sendInitialEvents and has nothing to send): as client-go, LIST/WATCH for this sync only.
    if (err instanceof StreamStalledError) return this.#fallBackToList(err);
    const kind = classifyError(err);
    switch (kind) {
      case 'expired':
      case 'too-large':
        if (rv !== '') {
          // client-go: flag the RV unavailable and retry the streaming list at once from the most recent state.
          this.#rvUnavailable = true;
          this.#log.debug({ err, resourceVersion: rv }, 'watch-list resourceVersion unavailable, retrying from the most recent');
          return { phase: 'Syncing' };
        }
        return this.#fallBackToList(err);
      case 'throttled':
      case 'transient': {
        if (kind === 'transient') this.#failedWatchAttempts++;
        const then: ReflectorState<T> =
          this.#failedWatchAttempts >= MAX_FAILED_WATCH_ATTEMPTS ? { phase: 'Syncing', via: 'list' } : { phase: 'Syncing' };
        return this.#failed(err, then, 'watch-list failed');
      }
      case 'rejected':
        return this.#abandonWatchList('the server rejected the watch-list parameters', err);
      case 'decode':
      case 'fatal':
        return this.#fallBackToList(err);
    }
  }

  #fallBackToList(err: unknown): ReflectorState<T> {
    // Throttled as failures are: a cause that lasts (a 403) falls back at every sync.
    this.#logFailure({ err }, 'watch-list failed, falling back to LIST/WATCH for this sync', this.#consecutiveFailures < WARN_FAILURES);
    this.#noteError(err);
    return { phase: 'Syncing', via: 'list' };
  }

  #abandonWatchList(reason: string, err?: unknown): ReflectorState<T> {
    this.#watchList = false;
    this.#log.warn({ reason, ...(err === undefined ? {} : { err }) }, 'watch-list not supported, using LIST/WATCH from now on');
    return { phase: 'Syncing', via: 'list' };
  }

  // ── watch ─────────────────────────────────────────────────────────────────────────────────────

  async #openWatch(signal: AbortSignal): Promise<ReflectorState<T>> {
    if (this.#resume) this.#watchRestarts++;
    this.#resume = true;
    try {
      const stream = await this.#openStream({ resourceVersion: this.#lastSyncRV }, signal);
      stream.watchdog.arm(stream.timeoutSeconds * 1000 + this.#stallTimeoutMs);
      // A server that sent bookmarks before sends them on this watch too (within a minute of its start): a
      // connection that dies before the first one is cut after the silence too, not at the watch's timeout.
      if (this.#serverSendsBookmarks) this.#expectBookmarks(stream);
      // The server answered from lastSyncRV: the cache is current as of now, though a quiet node's watch may bring
      // no event before its timeout (a staleness alert on lastSyncTime would fire on a healthy, quiet node).
      this.#lastSyncTime = this.#clock.now();
      this.#watchEstablished();
      return { phase: 'Streaming', stream };
    } catch (err: unknown) {
      if (signal.aborted) return { phase: 'Watching' };
      return this.#watchFailed(err, true);
    }
  }

  async #consume(stream: OpenStream<T>, signal: AbortSignal): Promise<ReflectorState<T>> {
    for (;;) {
      // Here, not after an applied event: skipped events (unknown types, other kinds) end a slice too, or a
      // lister-watcher that answers without I/O would never let a timer run.
      if (performance.now() - this.#sliceStart >= SLICE_MS) {
        const undecodable = this.#applyPendingNow();
        if (undecodable !== undefined) return this.#undecodableFailed(stream, undecodable);
        await this.#letConsumersRun();
      }
      const next = this.#nextBuffered(stream) ?? (await this.#next(stream));
      if (this.#sinkFailure !== undefined) {
        const { error } = this.#sinkFailure;
        this.#sinkFailure = undefined;
        throw error;
      }
      if (signal.aborted) {
        // Stopping: nothing more reaches the sink, and no failure is recorded.
        this.#pending.clear();
        this.#pendingError = undefined;
        await this.#close(stream);
        return { phase: 'Watching' };
      }
      // The stream's end applies what it delivered first; an object that does not decode relists.
      const undecodable = this.#pendingError ?? (next instanceof Error || next.done === true ? this.#applyPendingNow() : undefined);
      if (undecodable !== undefined) {
        this.#pendingError = undefined;
        return this.#undecodableFailed(stream, undecodable);
      }
      if (next instanceof Error) {
        await this.#close(stream);
        if (signal.aborted) return { phase: 'Watching' };
        return this.#watchFailed(next, this.#isShort(stream));
      }
      if (next.done === true) {
        await this.#close(stream);
        if (signal.aborted) return { phase: 'Watching' };
        if (this.#isShort(stream)) {
          return this.#watchFailed(new PodConfigError('PODCONFIG_WATCH_SHORT', 'very short watch: the stream ended within 1 s without an event'), true);
        }
        this.#failedWatchAttempts = 0;
        const lived = this.#clock.monotonic() - stream.startedAt;
        if (lived < VERY_SHORT_WATCH_MS) {
          // Not a failure (it delivered), but a server or proxy that ends every watch right after an event would be
          // re-watched back to back, held back only by the client's QPS limit: one watch a second at most.
          this.#log.debug({ resourceVersion: this.#lastSyncRV, events: stream.events }, 'watch ended within 1 s, re-watching after the rest of that second');
          return { phase: 'BackingOff', delayMs: VERY_SHORT_WATCH_MS - lived, then: { phase: 'Watching' } };
        }
        this.#log.debug({ resourceVersion: this.#lastSyncRV, events: stream.events }, 'watch ended, re-watching');
        return { phase: 'Watching' };
      }
      const event = next.value;
      stream.watchdog.touch();
      if (event.type === 'ERROR') {
        const undecodable = this.#applyPendingNow();
        await this.#close(stream);
        return this.#watchFailed(undecodable ?? statusErrorFromObject(event.object, `${this.#name} watch`), this.#isShort(stream));
      }
      if (event.type === 'UNKNOWN') {
        // client-go's watchHandler: logged, nothing applied, but an event like any other (its RV is taken).
        const rv = this.#unknown(stream, event);
        if (rv === undefined) continue;
        if (stream.events++ === 0) this.#healthy();
        this.#lastSyncTime = this.#clock.now();
        if (rv !== '') this.#lastSyncRV = rv;
        continue;
      }
      if (!this.#accepts(event)) continue;
      const head = event instanceof DeferredChangeEvent ? event.head : undefined;
      if (stream.events++ === 0) {
        // Healthy means a stream that delivers: its first object is decoded now, not when applied.
        const undecodable = head === undefined ? undefined : this.#decode(event as ChangeEvent<T>);
        if (undecodable instanceof Error) return this.#undecodableFailed(stream, undecodable);
        this.#healthy();
      }
      const rv = head === undefined ? event.object.metadata?.resourceVersion : head.resourceVersion;
      // Every received event counts, bookmarks included: they prove the stream is alive and current.
      this.#lastSyncTime = this.#clock.now();
      if (event.type === 'BOOKMARK') this.#expectBookmarks(stream);
      else {
        const key = head === undefined ? metaNamespaceKey(event.object) : headKey(head);
        const replaced = this.#addPending(key, event);
        if (replaced instanceof Error) return this.#undecodableFailed(stream, replaced);
        if (!replaced) {
          // A DELETED is pending for this key and the object is back (a new UID): apply the delete first.
          const undecodable = this.#applyPendingNow();
          if (undecodable !== undefined) return this.#undecodableFailed(stream, undecodable);
          this.#pending.add(key, event);
        }
        this.#scheduleApply();
        this.#events++;
        if (this.#log.isLevelEnabled('trace')) this.#log.trace({ type: event.type, resourceVersion: rv }, 'watch event');
      }
      if (rv !== undefined && rv !== '') this.#lastSyncRV = rv;
    }
  }

  /**
   * Pending watch changes are applied on the next macrotask (or at the end of the decoding slice, or of the
   * stream): changes of one object in between coalesce, and a {@link DeferredChangeEvent} that a later
   * change replaced is never decoded. Consumers only run on macrotasks, so they see the same states.
   */
  #scheduleApply(): void {
    if (this.#applyScheduled) return;
    this.#applyScheduled = true;
    setImmediate(this.#applyPendingSoon);
  }

  readonly #applyPendingSoon = (): void => {
    this.#applyScheduled = false;
    if (this.#pendingError !== undefined || this.#sinkFailure !== undefined || this.#pending.size === 0) return;
    let undecodable: Error | undefined;
    try {
      undecodable = this.#applyPendingNow();
    } catch (error: unknown) {
      this.#sinkFailure = { error };
    }
    if (undecodable === undefined && this.#sinkFailure === undefined) return;
    // The loop is waiting for the stream: end it; the loop relists (or rethrows the sink's error).
    this.#pendingError = undecodable;
    this.#open?.link.abort(undecodable);
  };

  /** `PendingChanges.add`, with the decode error of the change it discarded (a line holding two events) returned. */
  #addPending(key: string, event: ChangeEvent<T>): boolean | Error {
    try {
      return this.#pending.add(key, event);
    } catch (err: unknown) {
      return err instanceof Error ? err : new PodConfigError('PODCONFIG_WATCH_DECODE', String(err));
    }
  }

  /** Applies the pending changes; returns the decode error that stopped it (a sink's error propagates). */
  #applyPendingNow(): Error | undefined {
    let undecodable: Error | undefined;
    this.#pending.drain((event) => {
      if (undecodable !== undefined) return;
      // Decoded here, so that only a decode error is caught: the sink sees the (memoised) object.
      const object = this.#decode(event);
      if (object instanceof Error) undecodable = object;
      else this.#sink.apply(event);
    });
    return undecodable;
  }

  /** A watch object did not decode: the stream ends (its pending changes with it) and the reflector relists. */
  async #undecodableFailed(stream: OpenStream<T>, err: Error): Promise<ReflectorState<T>> {
    await this.#close(stream);
    return this.#watchFailed(err, false);
  }

  /** A failed watch open or stream: re-watch (D11) or relist. `attemptFailed`: counts towards the relist after 5. */
  #watchFailed(err: unknown, attemptFailed: boolean): ReflectorState<T> {
    const kind = classifyError(err);
    if (kind === 'throttled') return this.#failed(err, { phase: 'Watching' }, 'watch throttled');
    // D11: relist only for expiry, an undecodable stream or repeated failure. Any other error (a 5xx, a reset,
    // but also a 401 while a rotated token is picked up, a 403 while RBAC is updated) re-watches at the last
    // RV: a relist would not cure it, and it costs the apiserver the node's whole list.
    if (kind !== 'expired' && kind !== 'too-large' && kind !== 'decode') {
      if (attemptFailed) this.#failedWatchAttempts++;
      else this.#failedWatchAttempts = 0;
      if (this.#failedWatchAttempts >= MAX_FAILED_WATCH_ATTEMPTS) {
        return this.#failed(err, { phase: 'Syncing' }, `${MAX_FAILED_WATCH_ATTEMPTS} consecutive watch attempts failed, relisting`, true);
      }
      return this.#failed(err, { phase: 'Watching' }, 'watch failed, re-watching at the last resourceVersion');
    }
    return this.#failed(err, { phase: 'Syncing' }, 'watch failed, relisting', true);
  }

  async #letConsumersRun(): Promise<void> {
    await nextMacrotask();
    this.#sliceStart = performance.now();
  }

  #isShort(stream: OpenStream<T>): boolean {
    return stream.events === 0 && this.#clock.monotonic() - stream.startedAt < VERY_SHORT_WATCH_MS;
  }

  // ── streams ───────────────────────────────────────────────────────────────────────────────────

  async #openStream(
    params: Pick<WatchOptions, 'resourceVersion' | 'resourceVersionMatch' | 'sendInitialEvents'>,
    signal: AbortSignal,
  ): Promise<OpenStream<T>> {
    const timeoutSeconds = Math.floor(this.#minWatchTimeoutSeconds * (1 + this.#random()));
    const startedAt = this.#clock.monotonic(); // a duration: a wall-clock step must not make a short watch long
    const link = linked(signal);
    try {
      const options: WatchOptions = { ...params, allowWatchBookmarks: true, timeoutSeconds };
      this.#log.debug({ resourceVersion: params.resourceVersion, timeoutSeconds, watchList: params.sendInitialEvents === true }, 'opening watch');
      const iterable = await this.#lw.watch(options, link.signal);
      const iterator: BufferedIterator<WatchEvent<T>> = iterable[Symbol.asyncIterator]();
      const stream: OpenStream<T> = {
        iterator,
        buffered: iterator.nextBuffered?.bind(iterator),
        link,
        watchdog: new Watchdog(() => {
          stream.stalled = true;
          link.abort(new PodConfigError('PODCONFIG_TIMEOUT', 'watch stream stalled', { retryable: true }));
        }),
        startedAt,
        timeoutSeconds,
        events: 0,
        bookmarkSilenceMs: undefined,
        initial: false,
        stalled: false,
        unknownTypes: undefined,
      };
      this.#open = stream;
      return stream;
    } catch (err: unknown) {
      link.dispose();
      throw err;
    }
  }

  /**
   * The next event when the stream already holds it (its `nextBuffered`), or the error that ended it; else
   * undefined, and {@link #next} waits for it. A chunk of several events then costs one promise chain, not
   * one per event. A stalled stream takes the waiting path, which reports the stall.
   */
  #nextBuffered(stream: OpenStream<T>): IteratorResult<WatchEvent<T>> | Error | undefined {
    if (stream.buffered === undefined || stream.stalled) return undefined;
    try {
      return stream.buffered();
    } catch (err: unknown) {
      return streamError(err);
    }
  }

  /** The stream's server sends bookmarks: from now on, a silence of {@link ReflectorOptions.bookmarkSilenceMs} cuts it. */
  #expectBookmarks(stream: OpenStream<T>): void {
    this.#serverSendsBookmarks = true;
    if (stream.bookmarkSilenceMs !== undefined) return;
    const limit = Math.min(this.#bookmarkSilenceMs, stream.timeoutSeconds * 1000 + this.#stallTimeoutMs);
    stream.bookmarkSilenceMs = limit;
    stream.watchdog.arm(limit);
  }

  /** The next event, or the error that ended the stream (a stall becomes {@link StreamStalledError}). */
  async #next(stream: OpenStream<T>): Promise<IteratorResult<WatchEvent<T>> | Error> {
    let result: IteratorResult<WatchEvent<T>> | Error;
    try {
      result = await stream.iterator.next();
    } catch (err: unknown) {
      result = streamError(err);
    }
    if (stream.stalled) {
      const message = stream.initial
        ? `no watch-list event for ${this.#stallTimeoutMs} ms before the initial-events-end bookmark (a stalled connection, or a server that ignores sendInitialEvents)`
        : stream.bookmarkSilenceMs !== undefined
          ? `watch stream silent for ${stream.bookmarkSilenceMs} ms, though its server sends bookmarks: the connection is taken for dead`
          : `watch stream silent for ${stream.timeoutSeconds} s + ${this.#stallTimeoutMs} ms`;
      return new StreamStalledError(message, result instanceof Error ? result : undefined);
    }
    return result;
  }

  async #close(stream: OpenStream<T>): Promise<void> {
    // Every path out of a stream has applied or dropped its pending changes; none may outlive it.
    this.#pending.clear();
    if (this.#open === stream) this.#open = undefined;
    stream.watchdog.disarm();
    stream.link.abort();
    try {
      await stream.iterator.return?.();
    } catch {
      // The stream is being discarded; how it fails to close does not matter.
    } finally {
      stream.link.dispose();
    }
  }

  // ── bookkeeping ───────────────────────────────────────────────────────────────────────────────

  /**
   * Logs an event of a type this version does not know (warn once per type and stream, then debug) and returns
   * its object's RV (`""` when it has none), or undefined when the object has no metadata (client-go: "unable to
   * understand watch event", skipped).
   */
  #unknown(stream: OpenStream<T>, event: UnknownEvent): string | undefined {
    const metadata = (event.object as KubeObject | null | undefined)?.metadata;
    const rv = typeof metadata === 'object' && metadata !== null ? (typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : '') : undefined;
    const fields = { type: event.wireType, ...(rv === undefined ? {} : { resourceVersion: rv }) };
    stream.unknownTypes ??= new Set();
    if (stream.unknownTypes.has(event.wireType)) {
      this.#log.debug(fields, 'unknown watch event type, ignored');
    } else {
      stream.unknownTypes.add(event.wireType);
      this.#log.warn(fields, 'unknown watch event type, ignored');
    }
    return rv;
  }

  #accepts(event: ChangeEvent<T> | BookmarkEvent<T>): boolean {
    if (event instanceof DeferredChangeEvent) {
      // Its head was read from the object's metadata: only the kind is left to check.
      if (this.#expectedKind === undefined || event.head.kind === this.#expectedKind) return true;
      this.#log.warn({ type: event.type, kind: event.head.kind, expectedKind: this.#expectedKind }, 'unexpected watch event object kind, skipped');
      return false;
    }
    const { object } = event;
    if (typeof object.metadata !== 'object') {
      this.#log.warn({ type: event.type }, 'watch event object has no metadata, skipped');
      return false;
    }
    if (this.#expectedKind !== undefined && object.kind !== undefined && object.kind !== this.#expectedKind) {
      this.#log.warn({ type: event.type, kind: object.kind, expectedKind: this.#expectedKind }, 'unexpected watch event object kind, skipped');
      return false;
    }
    return true;
  }

  #markSynced(resourceVersion: string, items: number, via: 'list' | 'watch-list'): void {
    this.#lastSyncRV = resourceVersion;
    this.#rvUnavailable = false;
    // After a streaming list its stream is the first watch: the next watch request is a restart.
    this.#resume = via === 'watch-list';
    if (this.#synced) this.#relists++;
    const first = !this.#synced;
    this.#synced = true;
    this.#lastSyncTime = this.#clock.now();
    this.#healthy();
    this.#log[first ? 'info' : 'debug']({ items, resourceVersion, via }, first ? 'initial sync complete' : 'resynced');
  }

  /**
   * The server answered a watch request (200, the stream is open): the watch is re-established, as client-go's
   * reflector counts it (its `Watch()` returned a watcher), so the failure streak ends here. A watch that rarely
   * sees an event (one Node) would otherwise stay "failing" until its next bookmark. The count of failed watch
   * attempts is left alone: a stream that then ends within 1 s without an event is still a failed attempt (the
   * very short watch), and 5 of them in a row relist. Only an event proves the stream delivers: "recovered" is
   * told then, by {@link #healthy}, not here.
   */
  #watchEstablished(): void {
    if (this.#consecutiveFailures === 0) return;
    this.#log.debug({ failures: this.#consecutiveFailures }, 'watch re-established');
    this.#unconfirmedFailures = this.#consecutiveFailures;
    this.#consecutiveFailures = 0;
  }

  /** A success after failures: clear the streak (the backoff itself resets only after 2 quiet minutes, D12). */
  #healthy(): void {
    const failures = Math.max(this.#consecutiveFailures, this.#unconfirmedFailures);
    if (failures > 0) this.#log.info({ failures }, 'reflector recovered');
    this.#consecutiveFailures = 0;
    this.#unconfirmedFailures = 0;
    this.#failedWatchAttempts = 0;
  }

  #noteError(err: unknown): void {
    this.#lastError = {
      message: errorMessage(err),
      ...(PodConfigError.is(err) ? { code: err.code } : {}),
      time: new Date(this.#clock.now()),
    };
  }

  /** `relisting`: a watch gave up for a relist (410, undecodable, 5 failed attempts), warned whatever the streak. */
  #failed(err: unknown, then: ReflectorState<T>, message: string, relisting = false): ReflectorState<T> {
    this.#consecutiveFailures++;
    this.#noteError(err);
    let delayMs = this.#backoff.next();
    if (isStatusError(err) && err.retryAfterSeconds !== undefined) {
      delayMs = Math.max(delayMs, Math.min(err.retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS));
    }
    const fields = { err, retryInMs: Math.round(delayMs), failures: this.#consecutiveFailures, next: then.phase };
    // A watch that opens and then fails at once (very short) ends each streak after one failure: its failed
    // attempts keep the warnings throttled until a relist. The move to a relist is always told: the cache is stale
    // until it is done, and the last line before it may have said "recovered".
    this.#logFailure(fields, message, relisting || (this.#consecutiveFailures <= WARN_FAILURES && this.#failedWatchAttempts <= WARN_FAILURES));
    return { phase: 'BackingOff', delayMs, then };
  }

  /** At warn when `warn`, else at debug but for one warn every WARN_REMINDER_MS: a long outage stays visible at the default level. */
  #logFailure(fields: object, message: string, warn: boolean): void {
    const now = this.#clock.monotonic();
    if (warn || this.#lastWarnAt === undefined || now - this.#lastWarnAt >= WARN_REMINDER_MS) {
      this.#lastWarnAt = now;
      this.#log.warn(fields, message);
    } else {
      this.#log.debug(fields, message);
    }
  }
}

/**
 * The longest a server's Retry-After (a header, or `details.retryAfterSeconds` of an ERROR event) holds the
 * reflector: the longest backoff step (30 s with its jitter). An unbounded one (`3600`, a broken proxy's) would
 * leave the source unseen for as long.
 */
const MAX_RETRY_AFTER_MS = 60_000;

const asError = (err: unknown): Error => (err instanceof Error ? err : new PodConfigError('PODCONFIG_WATCH_DECODE', errorMessage(err)));

interface PagedList<T> {
  readonly items: readonly T[];
  readonly resourceVersion: string;
  readonly paginated: boolean;
}
