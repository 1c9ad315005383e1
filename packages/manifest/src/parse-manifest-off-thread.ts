import { Worker } from 'node:worker_threads';
import { MAX_MANIFEST_BYTES } from './max-manifest-bytes.js';
import { ParsedManifest } from './parsed-manifest.js';
import type { YamlWorkerAnswer, YamlWorkerRequest } from './yaml-worker.js';

/**
 * YAML manifests from this size on are parsed on a worker thread. The YAML parser reads roughly 2 MB a
 * second here, so this much would hold the event loop (the status server, the watches, the handlers'
 * calls) for about a tenth of a second; a 10 MiB manifest held it for five.
 */
export const OFF_THREAD_MIN_BYTES = 256 * 1024;

/**
 * The worker runs built JavaScript: from the compiled package it sits next to this file; the tests run
 * this file from its TypeScript source (the `@podconfig/source` condition), where it is in `dist/`.
 */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../dist/yaml-worker.js', import.meta.url)
  : new URL('./yaml-worker.js', import.meta.url);

/**
 * The worker's heap, in MB: what a YAML parse may take. The 10 MiB cap bounds the bytes, not the nodes: a manifest of
 * tiny collections (`[{},{},…]`, 3.5 million of them) needed over 4 GB and killed the process. The token count
 * (yaml-token-budget.ts) refuses those before the parse, within it a parse took at most ~100 MB: this is the net
 * under that rope.
 */
export const YAML_WORKER_HEAP_MB = 160;

interface Pending {
  readonly data: Uint8Array;
  readonly resolve: (value: ParsedManifest | undefined) => void;
}

/** One worker for the process, started on first use, held (`ref`) only while it has work. Exported for tests. */
export class YamlWorker {
  readonly #heapMb: number;
  #worker: Worker | undefined;
  #nextId = 0;
  readonly #pending = new Map<number, Pending>();

  constructor(heapMb = YAML_WORKER_HEAP_MB) {
    this.#heapMb = heapMb;
  }

  parse(data: Uint8Array, signal: AbortSignal | undefined): Promise<ParsedManifest | undefined> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    const worker = this.#start();
    // No worker (Node.js refused to start one): the caller parses on its own thread.
    if (worker === undefined) return Promise.resolve(undefined);
    return new Promise<ParsedManifest | undefined>((resolve, reject) => {
      const id = this.#nextId++;
      const onAbort = (): void => {
        // The worker finishes the parse anyway; its answer finds no one waiting.
        this.#settle(id);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        data,
        resolve: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
      });
      post(worker, id, data);
    });
  }

  #start(): Worker | undefined {
    if (this.#worker !== undefined) return this.#worker;
    let worker: Worker;
    try {
      // None of the process's own flags: Node.js refuses per-process ones in a worker (`--max-old-space-size`,
      // `--title`, …), and a condition that picks TypeScript sources (the tests' `@podconfig/source`) would
      // point the worker's imports at files it cannot load.
      worker = new Worker(WORKER_URL, { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: this.#heapMb } });
    } catch {
      return undefined;
    }
    worker.on('message', (answer: YamlWorkerAnswer) => {
      const pending = this.#settle(answer.id);
      if ('json' in answer) pending?.resolve(ParsedManifest.document(answer.json));
      else if ('code' in answer) pending?.resolve(ParsedManifest.rejected(answer.code, answer.reason, answer.mayDefinePod));
      else pending?.resolve(undefined);
    });
    // A worker that fails or exits leaves its requests to the caller's thread (undefined: parse it there), but for
    // one that ran out of its heap: the manifest it was parsing (the oldest request: they run in order) is refused,
    // never parsed again where nothing bounds it, and the others go to a new worker.
    const lost = (err?: unknown): void => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      const requests = [...this.#pending];
      if ((err as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY' && requests.length > 0) {
        const [[id, pending]] = requests as [[number, Pending]];
        this.#settle(id);
        pending.resolve(ParsedManifest.rejected('PODCONFIG_MANIFEST_TOO_LARGE',
          `parsing its YAML needed more than ${this.#heapMb} MB of memory (a YAML bomb within the size and token limits)`, false));
        const next = requests.length > 1 ? this.#start() : undefined;
        for (const [otherId, other] of requests.slice(1)) {
          if (next === undefined) {
            this.#settle(otherId);
            other.resolve(undefined);
          } else {
            post(next, otherId, other.data);
          }
        }
        return;
      }
      for (const [id, pending] of requests) {
        this.#settle(id);
        pending.resolve(undefined);
      }
    };
    worker.on('error', lost);
    worker.on('exit', () => lost());
    this.#worker = worker;
    return worker;
  }

  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
    return pending;
  }
}

/** Holds the process while the worker has work. A copy, not a transfer: the caller keeps its bytes (the http source hashes them, errors name them). */
function post(worker: Worker, id: number, data: Uint8Array): void {
  worker.ref();
  worker.postMessage({ id, data } satisfies YamlWorkerRequest);
}

const shared = new YamlWorker();

/**
 * Parses a large YAML manifest on a worker thread, so that the event loop stays free meanwhile; hand the
 * result to `decodeFilePod` / `decodeHttpPods` in place of `data` (they go on from the parsed document, or
 * throw the parse's `ManifestInvalidError` naming the origin, as for bytes). Anything else comes back as it
 * is, to be decoded on this thread: input under {@link OFF_THREAD_MIN_BYTES}, JSON (`JSON.parse` is fast),
 * input over the size cap (rejected at once) — and all input should the worker fail. Rejects only with
 * `signal.reason` when `signal` aborts.
 */
export async function parseManifestOffThread(data: Uint8Array, signal?: AbortSignal): Promise<Uint8Array | ParsedManifest> {
  if (data.byteLength < OFF_THREAD_MIN_BYTES || data.byteLength > MAX_MANIFEST_BYTES || startsLikeJson(data)) return data;
  return (await shared.parse(data, signal)) ?? data;
}

/** The first non-whitespace byte is `{` (a UTF-8 byte order mark skipped): the JSON path of the pipeline. */
function startsLikeJson(data: Uint8Array): boolean {
  let i = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? 3 : 0;
  while (i < data.length && (data[i] === 0x20 || data[i] === 0x09 || data[i] === 0x0a || data[i] === 0x0d)) i++;
  return data[i] === 0x7b;
}
