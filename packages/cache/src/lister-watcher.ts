import type { WatchEvent } from './watch-event.js';

/** Query options of a list request (metav1.ListOptions, list side). Empty strings mean "unset". */
export interface ListOptions {
  /** Unset or `""`: a consistent read. `"0"`: any (possibly stale). Otherwise "not older than" (or exact, see below). */
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Page size; unset or 0 = no pagination. */
  readonly limit?: number;
  /** The continue token of the previous page; `resourceVersion` must then be unset. */
  readonly continue?: string;
}

/** Query options of a watch request (metav1.ListOptions, watch side). */
export interface WatchOptions {
  /** Unset or `""`: start at the most recent state (with synthetic ADDED events). Otherwise start after this RV. */
  readonly resourceVersion?: string;
  /** Required by `sendInitialEvents`. */
  readonly resourceVersionMatch?: 'NotOlderThan';
  readonly allowWatchBookmarks: boolean;
  /** The server ends the watch after this many seconds. */
  readonly timeoutSeconds: number;
  /** Streaming list (watch-list): initial state as ADDED events, then a `k8s.io/initial-events-end` bookmark. */
  readonly sendInitialEvents?: boolean;
}

/** One page (or the whole) of a list response. */
export interface ListResult<T> {
  readonly items: readonly T[];
  readonly resourceVersion: string;
  /** Present when more pages follow. */
  readonly continue?: string;
}

/**
 * Lists and watches one resource (client-go `ListerWatcher`). Both reject with `StatusError` for API errors
 * and `PodConfigError` for transport and decode failures; the watch stream throws the same while iterating.
 * The watch's iterator may be a {@link BufferedIterator}; a wrapper should pass `nextBuffered` on.
 */
export interface ListerWatcher<T> {
  list(options: ListOptions, signal: AbortSignal): Promise<ListResult<T>>;
  watch(options: WatchOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<T>>>;
}

/**
 * An async iterator that can also hand out, without a promise, a value it already has: `nextBuffered()`
 * returns what `next()` would resolve with when that needs no waiting (a watch event whose line is already
 * read), else `undefined`; it throws what `next()` would reject with. The Reflector calls it before `next()`,
 * so that a chunk of several watch events costs one promise chain instead of one per event.
 */
export interface BufferedIterator<T> extends AsyncIterator<T> {
  nextBuffered?(): IteratorResult<T> | undefined;
}
