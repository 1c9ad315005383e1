import type { Clock } from '@podconfig/core';
import type { ClockTimers, Timer } from './clock-timers.js';
import { LinkedQueue, type QueueEntry } from './linked-queue.js';

/** An entry's place in a {@link TimerLists}: made on its first wait and reused for every later one. */
export class TimerLink<T> implements QueueEntry<TimerLink<T>> {
  readonly entry: T;
  /** The clock's `monotonic()` reading when the entry is due. */
  due = 0;
  queuePrev: TimerLink<T> | undefined;
  queueNext: TimerLink<T> | undefined;
  /** The list it waits in (set by the list, a {@link LinkedQueue}); undefined while it waits in none. */
  queuedIn: DelayList<T> | undefined;

  constructor(entry: T) {
    this.entry = entry;
  }
}

/** What an object keeps to wait in a {@link TimerLists}: its link, so that a wait allocates nothing. */
export interface TimerListEntry<T> {
  timerLink: TimerLink<T> | undefined;
}

/** Every entry waiting for one delay, in the order they began to wait (so in order of due time). */
class DelayList<T> extends LinkedQueue<TimerLink<T>> {
  readonly delayMs: number;
  /** Armed for the head's due time (or an earlier head's, which finds it not due yet and re-arms). */
  timer: Timer | undefined;

  constructor(delayMs: number) {
    super();
    this.delayMs = delayMs;
  }
}

export interface TimerListsOptions<T> {
  readonly timers: ClockTimers;
  readonly clock: Clock;
  /** An entry's wait ended; it waits in no list any more (and may be scheduled again). Must not throw. */
  readonly onDue: (entry: T) => void;
}

/**
 * Many entries each waiting for one of a few delays, as Node keeps its own timers: one list and one
 * timer per distinct delay, the entries of a list in the order they began to wait, which is the order
 * they are due in. Waiting and cancelling are O(1) and allocate nothing once an entry has its link.
 * The reconciler's resyncs wait here: a timer per pod (a `Timeout`, its closures and a set entry) held
 * ~420 bytes per pod and handler at 50,000 pods, all of it copied by young-generation GCs during the
 * first set. Due times are on the clock's `monotonic()` reading: a wall clock stepped backwards or
 * forwards moves none of them.
 */
export class TimerLists<T extends TimerListEntry<T>> {
  readonly #o: TimerListsOptions<T>;
  readonly #lists = new Map<number, DelayList<T>>();
  #size = 0;

  constructor(options: TimerListsOptions<T>) {
    this.#o = options;
  }

  /** Entries waiting. */
  get size(): number {
    return this.#size;
  }

  /** Lists (so timers) in use: one per distinct delay with an entry waiting. */
  get lists(): number {
    return this.#lists.size;
  }

  /** Whether `entry` is waiting. */
  has(entry: T): boolean {
    return entry.timerLink?.queuedIn !== undefined;
  }

  /** `entry` waits `delayMs` from now, instead of whatever it waited for before. */
  schedule(entry: T, delayMs: number): void {
    this.cancel(entry);
    const link = (entry.timerLink ??= new TimerLink(entry));
    let list = this.#lists.get(delayMs);
    if (list === undefined) {
      list = new DelayList<T>(delayMs);
      this.#lists.set(delayMs, list);
    }
    link.due = this.#o.clock.monotonic() + delayMs;
    list.add(link);
    this.#size++;
    list.timer ??= this.#o.timers.after(delayMs, () => this.#fire(list));
  }

  /** `entry` stops waiting; no-op when it is not. */
  cancel(entry: T): void {
    const link = entry.timerLink;
    const list = link?.queuedIn;
    if (link === undefined || list === undefined) return;
    this.#unlink(list, link);
    if (list.size === 0) this.#retire(list);
  }

  #unlink(list: DelayList<T>, link: TimerLink<T>): void {
    list.delete(link);
    this.#size--;
  }

  /** An empty list gives up its timer and its place (unless a new list for its delay took that already). */
  #retire(list: DelayList<T>): void {
    list.timer?.cancel();
    list.timer = undefined;
    if (this.#lists.get(list.delayMs) === list) this.#lists.delete(list.delayMs);
  }

  #fire(list: DelayList<T>): void {
    list.timer = undefined;
    const now = this.#o.clock.monotonic();
    for (let link = list.first; link !== undefined && link.due <= now; link = list.first) {
      this.#unlink(list, link);
      // May schedule entries again, into this list too: they go behind, due later than now.
      this.#o.onDue(link.entry);
    }
    const head = list.first;
    if (head === undefined) {
      this.#retire(list);
      return;
    }
    // An entry scheduled from onDue armed the list for itself: the head, not yet due, may be due sooner.
    const armed = list.timer as Timer | undefined; // onDue may have armed it
    if (armed !== undefined && armed.due <= head.due) return;
    armed?.cancel();
    list.timer = this.#o.timers.after(head.due - now, () => this.#fire(list));
  }
}
