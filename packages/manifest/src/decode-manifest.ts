import type { Pod } from '@podconfig/core';
import { decodeFilePod } from './decode-file-pod.js';
import { decodeHttpPods } from './decode-http-pods.js';
import type { DecodeOptions } from './manifest-origin.js';

/** What each pipeline decodes a manifest into: `file` is {@link decodeFilePod}, `http` is {@link decodeHttpPods}. */
export interface DecodedManifest {
  readonly file: Pod;
  readonly http: Pod[];
}

export type ManifestPipeline = keyof DecodedManifest;

/** Runs the named pipeline on this thread: the worker's job, and the caller's when no worker can do it. */
export function decodeManifest<P extends ManifestPipeline>(data: Uint8Array, pipeline: P, options: DecodeOptions): DecodedManifest[P] {
  return (pipeline === 'file' ? decodeFilePod(data, options) : decodeHttpPods(data, options)) as DecodedManifest[P];
}
