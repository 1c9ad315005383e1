import { LinkedQueue, type QueueEntry } from './linked-queue.js';

export interface DispatcherOptions<T extends QueueEntry<T>> {
  /** Calls in flight at most, across all lanes. */
  readonly concurrency: number;
  /** Number of lanes (one per handler). */
  readonly lanes: number;
  /**
   * Runs one item; the slot is free again once it calls `done` (exactly once; synchronously when it
   * had nothing to run). A callback, not a promise: the reconciler runs one per handler call.
   */
  readonly run: (lane: number, item: T, done: () => void) => void;
}

/**
 * Hands out a bounded number of slots to items waiting in per-lane FIFO queues (one lane per
 * handler). Lanes take turns (round robin), and one lane may hold at most
 * `max(1, concurrency − lanes + 1)` slots, so every other lane keeps at least one slot even
 * while one handler's calls hang until their timeout. Each item is queued at most once; memory is
 * bounded by the number of items (pod workers), never by the number of events.
 */
export class Dispatcher<T extends QueueEntry<T>> {
  readonly #concurrency: number;
  readonly #laneCap: number;
  readonly #run: (lane: number, item: T, done: () => void) => void;
  readonly #queues: LinkedQueue<T>[];
  readonly #inFlight: number[];
  /** Each lane's `done`: one function per lane, not a closure per item. */
  readonly #done: (() => void)[];
  #total = 0;
  #next = 0;
  #paused = false;
  /** In #pump: a `done` called from `run` itself leaves the loop to start the next item. */
  #pumping = false;
  readonly #drainWaiters: (() => void)[] = [];

  constructor(options: DispatcherOptions<T>) {
    this.#concurrency = options.concurrency;
    this.#laneCap = Math.max(1, options.concurrency - options.lanes + 1);
    this.#run = options.run;
    this.#queues = Array.from({ length: options.lanes }, () => new LinkedQueue<T>());
    this.#inFlight = Array.from({ length: options.lanes }, () => 0);
    this.#done = Array.from({ length: options.lanes }, (_, lane) => (): void => this.#finished(lane));
  }

  /** Calls in flight across all lanes. */
  get inFlight(): number {
    return this.#total;
  }

  /** Queues `item` on `lane` (no-op when it is already queued) and dispatches what fits. */
  enqueue(lane: number, item: T): void {
    this.#queues[lane]?.add(item);
    this.#pump();
  }

  /** Takes `item` out of `lane`'s queue; returns whether it was queued. */
  dequeue(lane: number, item: T): boolean {
    return this.#queues[lane]?.delete(item) ?? false;
  }

  isQueued(lane: number, item: T): boolean {
    return this.#queues[lane]?.has(item) ?? false;
  }

  /** Resolves once no call is in flight (at once when none is). */
  drained(): Promise<void> {
    if (this.#total === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Stops dispatching for good (shutdown); queued items stay where they are. */
  pause(): void {
    this.#paused = true;
  }

  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (!this.#paused && this.#total < this.#concurrency) {
        const lane = this.#pickLane();
        const item = lane === undefined ? undefined : this.#queues[lane]?.shift();
        if (lane === undefined || item === undefined) break;
        this.#total += 1;
        this.#inFlight[lane] = (this.#inFlight[lane] ?? 0) + 1;
        this.#run(lane, item, this.#done[lane]!);
      }
    } finally {
      this.#pumping = false;
    }
    // Here, not in #finished: a run that ended synchronously inside the loop is followed by the next.
    if (this.#total === 0) for (const resolve of this.#drainWaiters.splice(0)) resolve();
  }

  #finished(lane: number): void {
    this.#total -= 1;
    this.#inFlight[lane] = (this.#inFlight[lane] ?? 1) - 1;
    this.#pump();
  }

  /** The next lane, in turn, that has work and a slot of its own left. */
  #pickLane(): number | undefined {
    const lanes = this.#queues.length;
    for (let i = 0; i < lanes; i += 1) {
      const lane = (this.#next + i) % lanes;
      if ((this.#queues[lane]?.size ?? 0) > 0 && (this.#inFlight[lane] ?? 0) < this.#laneCap) {
        this.#next = (lane + 1) % lanes;
        return lane;
      }
    }
    return undefined;
  }
}
