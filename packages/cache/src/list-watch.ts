import { PodConfigError } from '@podconfig/core';
import { DeferredChangeEvent } from './deferred-change-event.js';
import type { BufferedIterator, ListerWatcher, ListOptions, ListResult, WatchOptions } from './lister-watcher.js';
import { isScannedEvent, type DecodedSpec, type ListBytes, type ResourceClient } from './resource-client.js';
import type { WatchEvent } from './watch-event.js';

export interface ListWatchOptions<T = unknown> {
  readonly client: ResourceClient;
  /** The collection path, e.g. `/api/v1/pods` or `/api/v1/namespaces/ns/pods`. */
  readonly path: string;
  /** e.g. `spec.nodeName=node-a`; sent on every list and watch. */
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
  /** The kind of the items (`Pod`): list items, which the API sends without `kind`, get it (and the list's `apiVersion`). */
  readonly kind: string;
  /**
   * client-go's `TransformFunc`: applied to every object before it reaches the caller (the Reflector),
   * i.e. to each list item (after `kind`/`apiVersion` are filled in) and to the object of each ADDED,
   * MODIFIED and DELETED watch event; never to BOOKMARK or ERROR objects. Typically drops fields nobody
   * reads to save memory (`stripManagedFields`). It sees the object first, so it may return it changed
   * or a new one; it should be idempotent and cheap (it runs once per object on the hot path). An exception
   * it throws becomes `PODCONFIG_WATCH_DECODE` (with the exception as `cause`) out of `list()` or the watch
   * stream, which the Reflector treats like an undecodable object: back off and relist.
   */
  readonly transform?: (object: T) => T;
  /**
   * Watch events in the API server's layout are decoded without `metadata.managedFields`: their bytes are
   * cut before parsing, which is cheaper than `stripManagedFields` after it (keep that as the `transform`
   * for lists and other layouts). Default false.
   */
  readonly dropManagedFields?: boolean;
}

const EVENT_TYPES: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function decodeError(message: string, cause?: unknown): PodConfigError {
  return new PodConfigError('PODCONFIG_WATCH_DECODE', message, cause === undefined ? {} : { cause });
}

/** Runs the caller's transform; its exception becomes `PODCONFIG_WATCH_DECODE` (message without the object). */
function transformed<T>(transform: (object: T) => T, object: T, what: string): T {
  try {
    return transform(object);
  } catch (err: unknown) {
    throw decodeError(`transform of a ${what} failed`, err);
  }
}

/**
 * A {@link ListerWatcher} over a {@link ResourceClient}: builds the query (selectors, resourceVersion, paging,
 * watch parameters) and checks the envelopes. Objects must be JSON objects; that they are `T` is the caller's
 * claim (the Reflector checks `kind` on watch events). A malformed list or watch envelope is `PODCONFIG_WATCH_DECODE`.
 */
export class ListWatch<T> implements ListerWatcher<T> {
  readonly #o: ListWatchOptions<T>;
  /**
   * The `spec`s watch events decoded, by `namespace/name`: a change that leaves an object's `spec` as it
   * was (a status change, most of a watch) reuses the decoded one instead of parsing it again. Emptied
   * when a list starts, so it holds at most the objects seen since the last list.
   */
  readonly #specMemo = new Map<string, DecodedSpec>();
  /**
   * The bytes the pages of the list in progress have read: a new tally at each list's first page (a request
   * without `continue`), handed with every page to the client, which holds the pages to its body limit together.
   */
  #listBytes: ListBytes = { bytes: 0, pages: 0 };

  constructor(options: ListWatchOptions<T>) {
    this.#o = options;
  }

  async list(options: ListOptions, signal: AbortSignal): Promise<ListResult<T>> {
    this.#specMemo.clear();
    const query = this.#selectors();
    if (options.resourceVersion !== undefined && options.resourceVersion !== '') {
      query.set('resourceVersion', options.resourceVersion);
    }
    if (options.resourceVersionMatch !== undefined) query.set('resourceVersionMatch', options.resourceVersionMatch);
    if (options.limit !== undefined && options.limit > 0) query.set('limit', String(options.limit));
    if (options.continue !== undefined && options.continue !== '') query.set('continue', options.continue);
    else this.#listBytes = { bytes: 0, pages: 0 };
    const body = await this.#o.client.getJSON(this.#o.path, query, signal, { listBytes: this.#listBytes });
    if (!isRecord(body) || !Array.isArray(body.items)) throw decodeError(`list of ${this.#o.kind} has no items array`);
    const metadata = isRecord(body.metadata) ? body.metadata : {};
    if (typeof metadata.resourceVersion !== 'string') {
      throw decodeError(`list of ${this.#o.kind} has no metadata.resourceVersion`);
    }
    const apiVersion = typeof body.apiVersion === 'string' ? body.apiVersion : undefined;
    const transform = this.#o.transform;
    const items: T[] = [];
    for (const item of body.items as unknown[]) {
      if (!isRecord(item)) throw decodeError(`list of ${this.#o.kind} has an item that is not an object`);
      if (item.kind === undefined) {
        item.kind = this.#o.kind;
        if (item.apiVersion === undefined && apiVersion !== undefined) item.apiVersion = apiVersion;
      }
      items.push(transform === undefined ? (item as T) : transformed(transform, item as T, `${this.#o.kind} list item`));
    }
    const token = typeof metadata.continue === 'string' && metadata.continue !== '' ? metadata.continue : undefined;
    return { items, resourceVersion: metadata.resourceVersion, ...(token === undefined ? {} : { continue: token }) };
  }

  async watch(options: WatchOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<T>>> {
    const query = this.#selectors();
    query.set('watch', 'true');
    if (options.resourceVersion !== undefined && options.resourceVersion !== '') {
      query.set('resourceVersion', options.resourceVersion);
    }
    if (options.resourceVersionMatch !== undefined) query.set('resourceVersionMatch', options.resourceVersionMatch);
    if (options.allowWatchBookmarks) query.set('allowWatchBookmarks', 'true');
    if (options.sendInitialEvents !== undefined) query.set('sendInitialEvents', String(options.sendInitialEvents));
    query.set('timeoutSeconds', String(options.timeoutSeconds));
    // A streaming list is a list: it starts the memo afresh.
    if (options.sendInitialEvents === true) this.#specMemo.clear();
    const raw = await this.#o.client.watchJSON(this.#o.path, query, signal, {
      scanHeads: true, dropManagedFields: this.#o.dropManagedFields === true, specMemo: this.#specMemo,
    });
    return decodeEvents<T>(raw, this.#o.transform);
  }

  #selectors(): URLSearchParams {
    const query = new URLSearchParams();
    if (this.#o.fieldSelector !== undefined && this.#o.fieldSelector !== '') query.set('fieldSelector', this.#o.fieldSelector);
    if (this.#o.labelSelector !== undefined && this.#o.labelSelector !== '') query.set('labelSelector', this.#o.labelSelector);
    return query;
  }
}

const CHANGE_TYPES: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED']);

/**
 * The watch envelopes of `raw`, checked and transformed; change events the client only scanned become
 * {@link DeferredChangeEvent}s (checked and transformed when decoded). A plain iterator rather than an async
 * generator: one promise per event instead of a generator's several (this runs for every event), and none
 * through `nextBuffered()` when the client's stream has one. A malformed envelope rejects `next()` (throws
 * out of `nextBuffered()`); the caller then closes the stream with `return()`.
 */
function decodeEvents<T>(
  raw: AsyncIterable<unknown>,
  transform: ((object: T) => T) | undefined,
): AsyncIterableIterator<WatchEvent<T>> & BufferedIterator<WatchEvent<T>> {
  const inner = raw[Symbol.asyncIterator]();
  const finish = (object: Record<string, unknown>): T =>
    transform === undefined ? (object as T) : transformed(transform, object as T, 'watch event object');
  const decode = (result: IteratorResult<unknown>): IteratorResult<WatchEvent<T>> => {
    if (result.done === true) return { done: true, value: undefined };
    const value = result.value;
    if (isScannedEvent(value)) return { done: false, value: new DeferredChangeEvent<T>(value, finish) };
    if (!isRecord(value) || typeof value.type !== 'string') throw decodeError('watch event has no type');
    if (!EVENT_TYPES.has(value.type)) return { done: false, value: { type: 'UNKNOWN', wireType: value.type, object: value.object } };
    if (!isRecord(value.object)) throw decodeError(`watch ${value.type} event has no object`);
    const object =
      transform !== undefined && CHANGE_TYPES.has(value.type) ? transformed(transform, value.object as T, `watch ${value.type} object`) : value.object;
    return { done: false, value: { type: value.type, object } as WatchEvent<T> };
  };
  const buffered = (inner as BufferedIterator<unknown>).nextBuffered?.bind(inner);
  const iterator: AsyncIterableIterator<WatchEvent<T>> & BufferedIterator<WatchEvent<T>> = {
    next: () => inner.next().then(decode),
    ...(buffered === undefined ? {} : {
      nextBuffered: () => {
        const result = buffered();
        return result === undefined ? undefined : decode(result);
      },
    }),
    return: async () => {
      await inner.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
