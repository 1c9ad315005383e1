import { FifoSet } from './fifo-set.js';

export interface DispatcherOptions<T> {
  /** Calls in flight at most, across all lanes. */
  readonly concurrency: number;
  /** Number of lanes (one per handler). */
  readonly lanes: number;
  /** Runs one item; the slot is free again when the promise settles. Must not reject. */
  readonly run: (lane: number, item: T) => Promise<void>;
}

/**
 * Hands out a bounded number of slots to items waiting in per-lane FIFO queues (one lane per
 * handler). Lanes take turns (round robin), and one lane may hold at most
 * `max(1, concurrency − lanes + 1)` slots, so every other lane keeps at least one slot even
 * while one handler's calls hang until their timeout. Each item is queued at most once; memory is
 * bounded by the number of items (pod workers), never by the number of events.
 */
export class Dispatcher<T> {
  readonly #concurrency: number;
  readonly #laneCap: number;
  readonly #run: (lane: number, item: T) => Promise<void>;
  readonly #queues: FifoSet<T>[];
  readonly #inFlight: number[];
  #total = 0;
  #next = 0;
  #paused = false;
  readonly #drainWaiters: (() => void)[] = [];

  constructor(options: DispatcherOptions<T>) {
    this.#concurrency = options.concurrency;
    this.#laneCap = Math.max(1, options.concurrency - options.lanes + 1);
    this.#run = options.run;
    this.#queues = Array.from({ length: options.lanes }, () => new FifoSet<T>());
    this.#inFlight = Array.from({ length: options.lanes }, () => 0);
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
    while (!this.#paused && this.#total < this.#concurrency) {
      const lane = this.#pickLane();
      if (lane === undefined) return;
      const item = this.#queues[lane]?.shift();
      if (item === undefined) return;
      this.#total += 1;
      this.#inFlight[lane] = (this.#inFlight[lane] ?? 0) + 1;
      // then(done, done), not finally(done): finally makes two more promises and closures per call.
      const done = (): void => {
        this.#total -= 1;
        this.#inFlight[lane] = (this.#inFlight[lane] ?? 1) - 1;
        this.#pump();
        if (this.#total === 0) for (const resolve of this.#drainWaiters.splice(0)) resolve();
      };
      void this.#run(lane, item).then(done, done);
    }
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
