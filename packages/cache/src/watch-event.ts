/** The watch event types of the Kubernetes wire protocol. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** The fields of a Kubernetes object the cache reads; `Pod` (and every API object) satisfies it. */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

/** A change to one object: what a {@link ReflectorSink} applies. */
export interface ChangeEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: T;
  /**
   * Called instead of reading `object` when a later change of the object replaced this one before it was
   * applied. May throw `PODCONFIG_WATCH_DECODE`: the event's line holds another event too (a lost newline).
   */
  discard?(): void;
}

/** A bookmark: only `metadata.resourceVersion` (and annotations) of `object` are meaningful. */
export interface BookmarkEvent<T> {
  readonly type: 'BOOKMARK';
  readonly object: T;
}

/** An error the server reports inside the stream; `object` is a `Status` (the Reflector decodes it to `StatusError`). */
export interface ErrorEvent {
  readonly type: 'ERROR';
  readonly object: unknown;
}

/**
 * An event whose wire `type` is none of the above (a newer server's, or a broken one's): `type` is `UNKNOWN`
 * and `wireType` says what the server sent (`UNKNOWN` included). The Reflector logs it and goes on, as client-go
 * does (spec §5.3), advancing the RV when `object` has one.
 */
export interface UnknownEvent {
  readonly type: 'UNKNOWN';
  readonly wireType: string;
  readonly object: unknown;
}

/** One decoded event of a watch stream. */
export type WatchEvent<T> = ChangeEvent<T> | BookmarkEvent<T> | ErrorEvent | UnknownEvent;

/** The bookmark annotation that ends the initial events of a streaming list (watch-list). */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';
