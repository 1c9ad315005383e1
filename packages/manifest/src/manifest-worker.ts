// The worker thread of decodeManifestOffThread: decodes manifests off the event loop, one message at a time.
import { parentPort } from 'node:worker_threads';
import { errorMessage, type Pod } from '@podconfig/core';
import { decodeManifest, type ManifestPipeline } from './decode-manifest.js';
import { ManifestInvalidError, type ManifestInvalidCode } from './manifest-invalid-error.js';
import type { DecodeOptions } from './manifest-origin.js';

/** A request: the manifest's bytes and how to decode them (plain data: the node name was checked by the caller). */
export interface ManifestWorkerRequest {
  readonly id: number;
  readonly data: Uint8Array;
  readonly pipeline: ManifestPipeline;
  readonly options: DecodeOptions;
}

/**
 * The answer: the decoded pod(s), the `ManifestInvalidError` as its fields (`cause`: the message of the error an
 * internal failure carried), or a failure of the worker's own.
 */
export type ManifestWorkerAnswer =
  | { readonly id: number; readonly decoded: Pod | Pod[] }
  | {
    readonly id: number;
    readonly code: ManifestInvalidCode;
    readonly origin: string;
    readonly reason: string;
    readonly mayDefinePod: boolean;
    readonly cause?: string;
  }
  | { readonly id: number; readonly failed: string };

const port = parentPort;
port?.on('message', ({ id, data, pipeline, options }: ManifestWorkerRequest) => {
  let answer: ManifestWorkerAnswer;
  try {
    answer = { id, decoded: decodeManifest(data, pipeline, options) };
  } catch (err: unknown) {
    answer = err instanceof ManifestInvalidError
      ? {
        id, code: err.code as ManifestInvalidCode, origin: err.origin, reason: err.reason, mayDefinePod: err.mayDefinePod,
        ...(err.cause === undefined ? {} : { cause: errorMessage(err.cause) }),
      }
      : { id, failed: errorMessage(err) };
  }
  // Structured clone: the pods arrive as they were decoded (no JSON round trip), built on the caller's thread
  // from the serialized bytes.
  port.postMessage(answer);
});
