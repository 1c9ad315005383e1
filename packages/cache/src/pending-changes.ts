import type { ChangeEvent } from './watch-event.js';

/**
 * Watch changes read but not yet applied to the sink, at most one per object key: the latest. The
 * store's state after applying them is the state after applying every change they replaced, so an
 * object changed several times between two pushes is applied (and, for a {@link DeferredChangeEvent},
 * decoded) once. How they coalesce: the latest change wins, except that an ADDED followed by
 * MODIFIEDs stays an ADDED (of the latest object), and nothing replaces a pending DELETED but another.
 */
export class PendingChanges<T> {
  // Replaced, never `clear()`ed: see `drain()`.
  #byKey = new Map<string, ChangeEvent<T>>();

  get size(): number {
    return this.#byKey.size;
  }

  /**
   * Keeps `event` as the pending change of `key`. Returns false, keeping nothing, when a DELETED is pending
   * for `key` and `event` is not one: the object came back (a new UID), and a sink keyed by something other
   * than namespace/name must see the delete; apply the pending changes first, then add it again.
   * The change it replaces is discarded (`ChangeEvent.discard`), which throws for a line holding two
   * events: then nothing is kept, and the caller relists.
   */
  add(key: string, event: ChangeEvent<T>): boolean {
    const pending = this.#byKey.get(key);
    if (pending?.type === 'DELETED' && event.type !== 'DELETED') return false;
    pending?.discard?.();
    this.#byKey.set(key, pending?.type === 'ADDED' && event.type === 'MODIFIED' ? new AddedAs(event) : event);
    return true;
  }

  /**
   * Removes every pending change and gives each to `apply`, oldest key first. When `apply` throws (an
   * object that does not decode, a failing sink), the changes after it are dropped: the caller relists.
   */
  drain(apply: (event: ChangeEvent<T>) => void): void {
    try {
      for (const event of this.#byKey.values()) apply(event);
    } finally {
      this.clear();
    }
  }

  clear(): void {
    // A new map, not `Map.prototype.clear()`: V8 clears a map by giving it a new table and leaving the old
    // one, entries and all, pointing to it. Once this long-lived map is in the old generation, that old table
    // keeps every drained event (and its decoded pod) alive through young-generation GCs until the next full
    // GC, so each is copied, then promoted: at 2,000 events/s, 3 MB per scavenge and 8 ms pauses.
    this.#byKey = new Map();
  }
}

/** A MODIFIED applied as the ADDED it coalesced with; its object is read (decoded) only when applied. */
class AddedAs<T> implements ChangeEvent<T> {
  readonly type = 'ADDED';
  readonly #event: ChangeEvent<T>;

  constructor(event: ChangeEvent<T>) {
    this.#event = event;
  }

  get object(): T {
    return this.#event.object;
  }

  discard(): void {
    this.#event.discard?.();
  }
}
