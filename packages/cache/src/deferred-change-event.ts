import type { ObjectHead, ScannedEvent } from './resource-client.js';
import type { ChangeEvent } from './watch-event.js';

/**
 * A watch change whose object is decoded (and transformed) the first time `object` is read. The
 * {@link Reflector} keys, checks and coalesces it by its `head`, so an event superseded by a later
 * change of the same object before the store is updated is never decoded (decision D16 reaching back
 * to the wire). Reading `object` throws `PODCONFIG_WATCH_DECODE` when the line does not decode.
 */
export class DeferredChangeEvent<T> implements ChangeEvent<T> {
  readonly type: ObjectHead['type'];
  readonly head: ObjectHead;
  readonly #scanned: ScannedEvent;
  readonly #transform: (object: Record<string, unknown>) => T;
  #decoded: { readonly object: T } | { readonly error: unknown } | undefined;

  constructor(scanned: ScannedEvent, transform: (object: Record<string, unknown>) => T) {
    this.type = scanned.type;
    this.head = scanned.head;
    this.#scanned = scanned;
    this.#transform = transform;
  }

  get object(): T {
    if (this.#decoded === undefined) {
      try {
        this.#decoded = { object: this.#transform(this.#scanned.decodeObject()) };
      } catch (error: unknown) {
        this.#decoded = { error };
      }
    }
    if ('error' in this.#decoded) throw this.#decoded.error;
    return this.#decoded.object;
  }

  /** Replaced before it was applied: never decoded (see {@link ChangeEvent.discard}). */
  discard(): void {
    if (this.#decoded === undefined) this.#scanned.discard?.();
  }
}
