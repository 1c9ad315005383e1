/**
 * An insertion-ordered set with O(1) `add`, `delete`, `has` and amortised O(1) `shift`. A JS `Set`
 * keeps deleted entries as holes until it shrinks, so taking its first element after many
 * deletions from the front (`values().next()`) scans them all: with 50,000 queued pods the
 * dispatcher spent more time skipping holes than running calls.
 */
export class FifoSet<T> {
  /** Each member's ticket: an entry of `#order` counts only while its ticket is the current one. */
  readonly #tickets = new Map<T, number>();
  #order: { readonly item: T; readonly ticket: number }[] = [];
  #head = 0;
  #nextTicket = 0;

  get size(): number {
    return this.#tickets.size;
  }

  has(item: T): boolean {
    return this.#tickets.has(item);
  }

  /** Adds `item` at the end; no-op when it is a member already (it keeps its place). */
  add(item: T): void {
    if (this.#tickets.has(item)) return;
    const ticket = this.#nextTicket++;
    this.#tickets.set(item, ticket);
    this.#order.push({ item, ticket });
    // Deleted members leave stale entries that only shift() skips: compact when they pile up (a lane
    // at its cap may see many deletes and adds and no shift for a while).
    if (this.#order.length - this.#head > 2 * this.#tickets.size + 1024) this.#compact();
  }

  delete(item: T): boolean {
    const deleted = this.#tickets.delete(item);
    if (this.#tickets.size === 0) this.#reset();
    return deleted;
  }

  /** Removes and returns the oldest member. */
  shift(): T | undefined {
    while (this.#head < this.#order.length) {
      const entry = this.#order[this.#head++]!;
      if (this.#tickets.get(entry.item) !== entry.ticket) continue; // deleted (and maybe re-added later)
      this.#tickets.delete(entry.item);
      if (this.#tickets.size === 0) this.#reset();
      else if (this.#head > 1024 && this.#head * 2 > this.#order.length) this.#compact();
      return entry.item;
    }
    return undefined;
  }

  #reset(): void {
    this.#order = [];
    this.#head = 0;
  }

  /** Drops the consumed and stale entries, so memory stays O(size). */
  #compact(): void {
    this.#order = this.#order.slice(this.#head).filter((e) => this.#tickets.get(e.item) === e.ticket);
    this.#head = 0;
  }
}
