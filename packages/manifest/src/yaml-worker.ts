// The worker thread of parseManifestOffThread: parses manifests off the event loop, one message at a time.
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '@podconfig/core';
import { parseManifestDocument } from './parse-manifest-document.js';
import { Rejection } from './rejection.js';

/** A request: the manifest's bytes. */
export interface YamlWorkerRequest {
  readonly id: number;
  readonly data: Uint8Array;
}

/** The answer: the document as JSON text, its rejection, or a failure of the worker's own. */
export type YamlWorkerAnswer =
  | { readonly id: number; readonly json: string }
  | { readonly id: number; readonly code: Rejection['code']; readonly reason: string; readonly mayDefinePod: boolean }
  | { readonly id: number; readonly failed: string };

const port = parentPort;
port?.on('message', ({ id, data }: YamlWorkerRequest) => {
  let answer: YamlWorkerAnswer;
  try {
    answer = { id, json: JSON.stringify(parseManifestDocument(data)) };
  } catch (err: unknown) {
    answer = err instanceof Rejection ? { id, code: err.code, reason: err.message, mayDefinePod: err.mayDefinePod } : { id, failed: errorMessage(err) };
  }
  port.postMessage(answer);
});
