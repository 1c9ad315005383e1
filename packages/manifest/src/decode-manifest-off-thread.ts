import { Worker } from 'node:worker_threads';
import { checkNodeName, type Pod } from '@podconfig/core';
import { decodeManifest, type DecodedManifest, type ManifestPipeline } from './decode-manifest.js';
import { ManifestInvalidError } from './manifest-invalid-error.js';
import { describeOrigin, type DecodeOptions } from './manifest-origin.js';
import type { ManifestWorkerAnswer, ManifestWorkerRequest } from './manifest-worker.js';
import { MAX_MANIFEST_BYTES } from './max-manifest-bytes.js';

/**
 * Manifests from this size on are decoded on a worker thread. The YAML parser reads roughly 2 MB a second here, and
 * decoding a JSON pod of many small members (labels, env vars) about 3 MB a second, so this much would hold the event
 * loop (the status server, the watches, the handlers' calls) for about a tenth of a second; a 10 MiB manifest held it
 * for several.
 */
export const OFF_THREAD_MIN_BYTES = 256 * 1024;

/**
 * The worker runs built JavaScript: from the compiled package it sits next to this file; the tests run
 * this file from its TypeScript source (the `@podconfig/source` condition), where it is in `dist/`.
 */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../dist/manifest-worker.js', import.meta.url)
  : new URL('./manifest-worker.js', import.meta.url);

/**
 * The worker's heap, in MB: what decoding one manifest may take. The 10 MiB cap bounds the bytes, not the nodes: a
 * manifest of tiny collections (`[{},{},…]`, 3.5 million of them) needed over 4 GB and killed the process. The counts
 * before the parse refuse such manifests: YAML's tokens (yaml-token-budget.ts; within them a parse took at most
 * ~100 MB) and JSON's values (json-token-budget.ts: within them a decoding takes at most ~45 MB of this heap; before
 * it, a JSON map of 1.05 million members outgrew this heap in one allocation too large for V8 to grant a worker at its
 * limit, and V8 aborted the process). This is the net under both.
 */
export const MANIFEST_WORKER_HEAP_MB = 160;

/** A decoding's outcome as the worker gave it: `undefined` when the worker could not do it (the caller's thread then). */
type Outcome = { readonly decoded: Pod | Pod[] } | { readonly error: ManifestInvalidError } | undefined;

export interface ManifestWorkerOptions {
  /** The worker's heap cap, in MB. Default {@link MANIFEST_WORKER_HEAP_MB}. */
  readonly heapMb?: number;
  /** The worker's script. Default: the package's own; tests name one that cannot load. */
  readonly url?: URL;
}

interface Pending {
  readonly request: Omit<ManifestWorkerRequest, 'id'>;
  readonly resolve: (outcome: Outcome) => void;
}

/** One worker for the process, started on first use, held (`ref`) only while it has work. Exported for tests. */
export class ManifestWorker {
  readonly #heapMb: number;
  readonly #url: URL;
  #worker: Worker | undefined;
  #nextId = 0;
  readonly #pending = new Map<number, Pending>();
  /**
   * The ids posted to the current worker and not answered yet, in the order it decodes them, those whose caller
   * gave up (aborted) among them: the worker decodes those too, so when it runs out of heap the first of these is
   * the manifest it was decoding, whoever still waits for it.
   */
  #posted = new Set<number>();

  constructor(options: ManifestWorkerOptions = {}) {
    this.#heapMb = options.heapMb ?? MANIFEST_WORKER_HEAP_MB;
    this.#url = options.url ?? WORKER_URL;
  }

  /**
   * Decodes on the worker. Resolves with the pod(s) or the rejection, or with `undefined` when no worker can do it
   * (Node.js refused to start one, or it failed): the caller decodes on its own thread then. Rejects only with
   * `signal.reason`.
   */
  decode(data: Uint8Array, pipeline: ManifestPipeline, options: DecodeOptions, signal: AbortSignal | undefined): Promise<Outcome> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    const worker = this.#start();
    if (worker === undefined) return Promise.resolve(undefined);
    // Plain data only: the options object may carry more than the pipeline reads, which a worker could not receive.
    const { nodeName, origin } = options;
    const request: Omit<ManifestWorkerRequest, 'id'> = {
      data,
      pipeline,
      options: { nodeName, origin: origin.kind === 'file' ? { kind: 'file', path: origin.path } : { kind: 'url', url: origin.url } },
    };
    return new Promise<Outcome>((resolve, reject) => {
      const id = this.#nextId++;
      const onAbort = (): void => {
        // The worker finishes the decoding anyway; its answer finds no one waiting.
        this.#settle(id);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        request,
        resolve: (outcome) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      });
      this.#post(worker, id, request);
    });
  }

  #start(): Worker | undefined {
    if (this.#worker !== undefined) return this.#worker;
    let worker: Worker;
    try {
      // None of the process's own flags: Node.js refuses per-process ones in a worker (`--max-old-space-size`,
      // `--title`, …), and a condition that picks TypeScript sources (the tests' `@podconfig/source`) would
      // point the worker's imports at files it cannot load.
      worker = new Worker(this.#url, { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: this.#heapMb } });
    } catch {
      return undefined;
    }
    worker.on('message', (answer: ManifestWorkerAnswer) => {
      this.#posted.delete(answer.id);
      const pending = this.#settle(answer.id);
      if ('decoded' in answer) pending?.resolve({ decoded: answer.decoded });
      else if ('code' in answer) {
        const cause = answer.cause === undefined ? {} : { cause: new Error(answer.cause) };
        pending?.resolve({ error: new ManifestInvalidError(answer.code, answer.origin, answer.reason, { mayDefinePod: answer.mayDefinePod, ...cause }) });
      } else pending?.resolve(undefined);
    });
    // A worker that fails or exits leaves its requests to the caller's thread (undefined: decode it there), but for
    // one that ran out of its heap: the manifest it was decoding (the first one posted and not answered: they run
    // in order) is refused, never decoded again where nothing bounds it, and the others go to a new worker. When
    // that manifest's caller had given up on it, no other is blamed for it.
    const lost = (err?: unknown): void => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      const culprit = this.#posted.values().next().value;
      this.#posted = new Set();
      const requests = [...this.#pending];
      if ((err as { code?: unknown } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY' && culprit !== undefined) {
        const pending = this.#settle(culprit);
        const reason = `decoding it needed more than ${this.#heapMb} MB of memory (a manifest built to exhaust memory within the size and token limits)`;
        pending?.resolve({
          error: new ManifestInvalidError('PODCONFIG_MANIFEST_TOO_LARGE', describeOrigin(pending.request.options.origin), reason, { mayDefinePod: false }),
        });
        const others = requests.filter(([id]) => id !== culprit);
        const next = others.length > 0 ? this.#start() : undefined;
        for (const [otherId, other] of others) {
          if (next === undefined) {
            this.#settle(otherId);
            other.resolve(undefined);
          } else {
            this.#post(next, otherId, other.request);
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

  /** Holds the process while the worker has work. A copy, not a transfer: the caller keeps its bytes (both sources hash them). */
  #post(worker: Worker, id: number, request: Omit<ManifestWorkerRequest, 'id'>): void {
    this.#posted.add(id);
    worker.ref();
    worker.postMessage({ id, ...request } satisfies ManifestWorkerRequest);
  }

  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
    return pending;
  }
}


const shared = new ManifestWorker();

/**
 * `decodeFilePod(data, options)` (`pipeline` `'file'`) or `decodeHttpPods(data, options)` (`'http'`), with the same
 * pods and the same rejections, but for a manifest of {@link OFF_THREAD_MIN_BYTES} or more (YAML or JSON) run on a
 * worker thread, so that the event loop stays free meanwhile: this thread only builds the decoded pods from the
 * worker's message. Smaller input and input over the size cap (rejected at once) are decoded here, and so is all
 * input should the worker fail. Rejects with the pipeline's `ManifestInvalidError`, its `ConfigInvalidError` for a
 * bad `nodeName`, or `signal.reason` when `signal` aborts.
 */
export async function decodeManifestOffThread<P extends ManifestPipeline>(
  data: Uint8Array,
  pipeline: P,
  options: DecodeOptions,
  signal?: AbortSignal,
): Promise<DecodedManifest[P]> {
  signal?.throwIfAborted();
  if (data.byteLength < OFF_THREAD_MIN_BYTES || data.byteLength > MAX_MANIFEST_BYTES) return decodeManifest(data, pipeline, options);
  // A caller's mistake, thrown here as the pipelines throw it: the worker could only report it as a failure.
  checkNodeName(options.nodeName, 'decode options: nodeName');
  const outcome = await shared.decode(data, pipeline, options, signal);
  if (outcome === undefined) return decodeManifest(data, pipeline, options);
  if ('error' in outcome) throw outcome.error;
  return outcome.decoded as DecodedManifest[P];
}
