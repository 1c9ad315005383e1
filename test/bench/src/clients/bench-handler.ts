import type { KillPodRequest, Pod, PodUpdate, SyncHandler, SyncPodRequest } from '@podconfig/core';
import { report, SeqTimes } from '../client-report.js';
import { wallNow } from '../wall-clock.js';

const SEQ = 'bench/seq';
const FINAL = 'bench/final';

/**
 * The no-op sync handler of the podconfig bench clients. It notes when the first complete set has
 * reached it (every pod of the merger's first ADD got its call, or was removed before), the first time
 * each event sequence number arrived, and the marker (`bench/final`), then reports.
 */
export class BenchHandler implements SyncHandler {
  readonly name = 'bench';
  readonly seqTimes: SeqTimes;
  calls = 0;
  #initial: Set<string> | undefined;
  #firstReported = false;
  #done = false;
  readonly #slowMs: number;
  readonly #onDone: () => Record<string, number>;
  readonly #latency: boolean;

  constructor(o: { events: number; slowHandlerMs: number; latency: boolean; onDone: () => Record<string, number> }) {
    this.seqTimes = new SeqTimes(o.events);
    this.#slowMs = o.slowHandlerMs;
    this.#onDone = o.onDone;
    this.#latency = o.latency;
  }

  /** The reconciler's observer hook: the first non-empty ADD defines the initial set. */
  operation(update: PodUpdate): void {
    if (this.#initial === undefined && update.op === 'ADD' && update.pods.length > 0) {
      // A loop, not `new Set(pods.map(…))`: no array of 50,000 UIDs on the way (bookkeeping the limit has not).
      const initial = new Set<string>();
      for (const p of update.pods) initial.add(p.metadata?.uid ?? '');
      this.#initial = initial;
      this.#initialCount = update.pods.length;
    } else if (update.op === 'REMOVE' && this.#initial !== undefined && !this.#firstReported) {
      for (const p of update.pods) this.#initialDone(p.metadata?.uid ?? '');
    }
  }

  #initialCount = 0;

  syncPod(request: SyncPodRequest): Promise<void> {
    this.#see(request.pod);
    return this.#slowMs > 0 ? new Promise((resolve) => setTimeout(resolve, this.#slowMs)) : Promise.resolve();
  }

  killPod(request: KillPodRequest): Promise<void> {
    this.#see(request.pod);
    return Promise.resolve();
  }

  #see(pod: Pod): void {
    this.calls++;
    // The clock is read only for a figure: at 50,000 pods a read per call was ~20 ms of the first set.
    if (!this.#firstReported) this.#initialDone(pod.metadata?.uid ?? '');
    const annotations = pod.metadata?.annotations;
    if (annotations === undefined) return;
    const seq = annotations[SEQ];
    let t: number | undefined;
    if (seq !== undefined) {
      t = wallNow();
      this.seqTimes.see(Number(seq), t);
    }
    if (annotations[FINAL] === 'true' && !this.#done) {
      this.#done = true;
      report({ kind: 'done', t: t ?? wallNow(), extra: { calls: this.calls, ...this.#onDone() }, ...(this.#latency ? { seqTimes: this.seqTimes.pairs() } : {}) });
    }
  }

  #initialDone(uid: string): void {
    const initial = this.#initial;
    if (initial === undefined || !initial.delete(uid) || initial.size > 0) return;
    this.#firstReported = true;
    report({ kind: 'first', t: wallNow(), pods: this.#initialCount });
  }
}
