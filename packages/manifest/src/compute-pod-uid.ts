import { hash } from 'node:crypto';
import type { Pod } from '@podconfig/core';
import { canonicalJson } from './canonical-json.js';
import type { DecodeOptions } from './manifest-origin.js';

/**
 * D6: the UID of a decoded, API-defaulted pod (before the kubelet defaults), as a stable contract:
 *
 *     sha256( canonicalJson(pod) + "\n" + "host:" + nodeName + "\n" + ("file:" + path | "url:" + url) )
 *
 * over UTF-8 bytes; the UID is the first 16 bytes of the digest as 32 lowercase hex characters.
 * `nodeName` is used as given (not lowercased), `path`/`url` verbatim. The pod is hashed as given:
 * the pipeline calls this only when `metadata.uid` is empty (a pinned UID is used verbatim).
 */
export function computePodUid(pod: Pod, options: DecodeOptions): string {
  const { origin, nodeName } = options;
  const source = origin.kind === 'file' ? `file:${origin.path}` : `url:${origin.url}`;
  const input = `${canonicalJson(pod)}\nhost:${nodeName}\n${source}`;
  return hash('sha256', input, 'hex').slice(0, 32);
}
