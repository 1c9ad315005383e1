import { wallNow } from './wall-clock.js';

/** What a client process writes to stdout, one JSON line each. */
export type ClientReport =
  | { readonly kind: 'first'; readonly t: number; readonly pods: number }
  | { readonly kind: 'edit'; readonly t: number; readonly seq: number }
  | { readonly kind: 'done'; readonly t: number; readonly seqTimes?: readonly (readonly [number, number])[];
      readonly extra?: Readonly<Record<string, number>> }
  | { readonly kind: 'error'; readonly message: string };

/** The arguments a client process gets (as JSON in argv[2]). */
export interface ClientArgs {
  readonly kubeconfig?: string;
  readonly server?: string;
  /** undefined: cluster-wide (no field selector). */
  readonly nodeName?: string;
  readonly events?: number;
  /** Report every seq's first handler time (latency scenarios). */
  readonly latency?: boolean;
  /** podconfig only: each handler call waits this long (a handler slower than the stream). */
  readonly slowHandlerMs?: number;
  /** podconfig only: keep `metadata.managedFields` (the agent's `--keep-managed-fields`), for a like-for-like memory figure. */
  readonly keepManagedFields?: boolean;
  /** File scenarios: the manifest directory. */
  readonly dir?: string;
  readonly pods?: number;
  /** Stop measuring this long after the first set (a client too slow to finish in the budget): `done` then carries `partialSeq`. */
  readonly maxStreamMs?: number;
}

export function clientArgs(): ClientArgs {
  return JSON.parse(process.argv[2] ?? '{}') as ClientArgs;
}

export function report(r: ClientReport): void {
  process.stdout.write(`${JSON.stringify(r)}\n`);
  // For profiling by hand (`node --cpu-prof …`): exit normally after the marker, so the profile is written.
  if (r.kind === 'done' && process.env.BENCH_EXIT_ON_DONE === '1') setImmediate(() => process.exit(0));
}

/** Records the first time each event sequence number reached the consumer. */
export class SeqTimes {
  readonly #times: Float64Array;

  constructor(events: number) {
    this.#times = new Float64Array(events + 2);
  }

  see(seq: number, t = wallNow()): void {
    if (seq > 0 && seq < this.#times.length && this.#times[seq] === 0) this.#times[seq] = t;
  }

  pairs(): [number, number][] {
    const out: [number, number][] = [];
    this.#times.forEach((t, seq) => {
      if (t > 0) out.push([seq, t]);
    });
    return out;
  }
}

/** Parks the process after its final report until the runner kills it (so it can read /proc first). */
export function parkUntilKilled(): void {
  setInterval(() => undefined, 60_000);
  process.once('SIGTERM', () => process.exit(0));
}

export function fail(err: unknown): never {
  report({ kind: 'error', message: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  process.exit(1);
}
