/**
 * The REST client {@link ListWatch} needs (docs/architecture.md). kube-client's `KubeClient` satisfies it
 * structurally; the cache does not import kube-client.
 */
export interface ResourceClient {
  /**
   * GET `path?query` → the parsed JSON body of a 2xx; throws `StatusError` / `PodConfigError` otherwise. With
   * `listBytes`, the body is a page of a paginated list, held with the list's earlier pages to the client's
   * body limit (kube-client's `maxResponseBytes`): past it, `PODCONFIG_BODY_TOO_LARGE`. A client that ignores
   * the option (a test double) bounds each body alone, if at all.
   */
  getJSON(path: string, query: URLSearchParams, signal: AbortSignal, options?: GetJSONOptions): Promise<unknown>;
  /**
   * GET `path?query` (with `watch=true`) → each decoded watch event `{ type, object }`, one at a time, with
   * back-pressure. Ends when the server closes the stream; throws `PODCONFIG_WATCH_DECODE` on a bad line.
   * With `scanHeads`, a change event may instead come as a {@link ScannedEvent}, decoded on demand; a
   * client that ignores the option (a test double) yields decoded events only, which is as correct.
   * `dropManagedFields` and `specMemo` say how those decode (kube-client's `WatchDecodeOptions`).
   */
  watchJSON(path: string, query: URLSearchParams, signal: AbortSignal, options?: WatchJSONOptions): Promise<AsyncIterable<unknown>>;
}

/** What {@link ListWatch} asks of a list request (kube-client's `GetJSONOptions`). */
export interface GetJSONOptions {
  /** The pages of the list so far; one per list, new at its first page (kube-client's `ListBytes`). */
  readonly listBytes?: ListBytes;
}

/** Body bytes (as received) and pages a paginated list has read so far; the client adds each page's. */
export interface ListBytes {
  bytes: number;
  pages: number;
}

/** What {@link ListWatch} asks of a watch (kube-client's `WatchJSONOptions`). */
export interface WatchJSONOptions {
  readonly scanHeads?: boolean;
  /** Scanned events decode without `metadata.managedFields`. */
  readonly dropManagedFields?: boolean;
  /** `spec`s decoded so far by `namespace/name`, with the length and digest of their bytes: an unchanged `spec` is not parsed again. */
  readonly specMemo?: Map<string, DecodedSpec>;
}

/** A `spec` decoded earlier, with the digest and length of its bytes once known (kube-client's `DecodedSpec`). */
export interface DecodedSpec {
  readonly bytes?: { readonly digest: string; readonly length: number };
  readonly spec: unknown;
}

/** What a change event says about its object before it is decoded (kube-client's `WatchHead`). */
export interface ObjectHead {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
}

/** A change event not decoded yet (kube-client's `ScannedWatchEvent`). */
export interface ScannedEvent {
  readonly type: ObjectHead['type'];
  readonly head: ObjectHead;
  /** The event's object, parsed once; throws `PODCONFIG_WATCH_DECODE` when the line does not decode to its head. */
  decodeObject(): Record<string, unknown>;
  /**
   * It will not be decoded (a later change replaced it). Throws `PODCONFIG_WATCH_DECODE` when the line
   * holds another event too (a lost newline), which must not be lost unseen.
   */
  discard?(): void;
}

/** Whether a value a {@link ResourceClient} yielded is a {@link ScannedEvent}. */
export function isScannedEvent(value: unknown): value is ScannedEvent {
  return typeof value === 'object' && value !== null && typeof (value as { decodeObject?: unknown }).decodeObject === 'function';
}
