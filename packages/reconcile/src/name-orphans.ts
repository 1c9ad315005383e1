/**
 * Orphans a handler's `listPods()` reported by namespace/name alone, while their kill is owed or running, and
 * the workers whose sync waits for such a kill, both by full name (on one handler). A handler that knows its
 * pods by name would otherwise let a kill of `default/web` run beside the create of a new desired
 * `default/web` (a StatefulSet pod made again under a new UID), and remove it.
 */
export class NameOrphans<W> {
  readonly #orphans = new Map<string, W>();
  readonly #waiting = new Map<string, Set<W>>();

  get size(): number {
    return this.#orphans.size;
  }

  add(fullName: string, orphan: W): void {
    this.#orphans.set(fullName, orphan);
  }

  /** The orphan being killed under `fullName`, if any. */
  get(fullName: string): W | undefined {
    return this.#orphans.get(fullName);
  }

  /** `worker`'s sync waits for the orphan's kill under `fullName` to end. */
  wait(fullName: string, worker: W): void {
    let set = this.#waiting.get(fullName);
    if (set === undefined) this.#waiting.set(fullName, (set = new Set()));
    set.add(worker);
  }

  /** The workers whose sync waits for the orphan's kill under `fullName` (few: pods wanted under that one name). */
  waiters(fullName: string): readonly W[] {
    const set = this.#waiting.get(fullName);
    return set === undefined ? [] : [...set];
  }

  isWaiting(fullName: string, worker: W): boolean {
    return this.#waiting.size > 0 && this.#waiting.get(fullName)?.has(worker) === true;
  }

  /** `worker` no longer waits (dropped). */
  stopWaiting(fullName: string, worker: W): void {
    const set = this.#waiting.get(fullName);
    if (set === undefined) return;
    set.delete(worker);
    if (set.size === 0) this.#waiting.delete(fullName);
  }

  /** The orphan's kill ended (it may be retried): the workers that waited for it, to schedule again. */
  ended(fullName: string): readonly W[] {
    const set = this.#waiting.get(fullName);
    if (set === undefined) return [];
    this.#waiting.delete(fullName);
    return [...set];
  }

  /** The orphan is gone (killed, or its kill dropped): the workers that waited for it. */
  remove(fullName: string, orphan: W): readonly W[] {
    if (this.#orphans.get(fullName) !== orphan) return [];
    this.#orphans.delete(fullName);
    return this.ended(fullName);
  }
}
