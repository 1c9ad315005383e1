import { checkNodeName, type Pod } from '@podconfig/core';
import { checkPodSchema } from './check-pod-schema.js';
import { decodePod } from './decode-pod.js';
import { isJsonObject } from './json-object.js';
import type { DecodeOptions } from './manifest-origin.js';
import { parseManifestDocument } from './parse-manifest-document.js';
import { reject } from './rejection.js';
import { describeTypeMeta, typeMeta } from './type-meta.js';
import { withOrigin } from './with-origin.js';

/**
 * The HTTP pipeline (spec §1.3, §3): a `v1` `Pod`, else a `v1` `PodList` (YAML or JSON, first document),
 * strictly decoded; steps 5–9 run per item and the first invalid item fails the whole body (no partial
 * sets). No toleration is added. An empty `items` gives `[]`. Throws only `ManifestInvalidError`.
 */
export function decodeHttpPods(data: Uint8Array | string, options: DecodeOptions): Pod[] {
  // A caller's mistake, not the manifest's: without this, an empty node name reads as an invalid pod name.
  checkNodeName(options.nodeName, 'decode options: nodeName');
  return withOrigin(options.origin, () => {
    const object = parseManifestDocument(data);
    const meta = typeMeta(object);
    if (meta.apiVersion === 'v1' && meta.kind === 'Pod') {
      const problems = checkPodSchema(object, 'Pod');
      if (problems.length > 0) reject(`strict decoding error: ${problems.join('; ')}`);
      return [decodePod(object, options)];
    }
    if (meta.apiVersion === 'v1' && meta.kind === 'PodList') {
      const problems = checkPodSchema(object, 'PodList');
      if (problems.length > 0) reject(`strict decoding error: ${problems.join('; ')}`);
      const items = Array.isArray(object.items) ? object.items : [];
      return items.map((item: unknown, i) => {
        if (!isJsonObject(item)) return reject(`items[${i}]: must be an object`);
        const { apiVersion = 'v1', kind = 'Pod' } = item;
        if (apiVersion !== 'v1' || kind !== 'Pod') {
          reject(`items[${i}]: couldn't parse as pod: got ${describeTypeMeta({ apiVersion: String(apiVersion), kind: String(kind) })}`);
        }
        return decodePod(item, options, `items[${i}]: `);
      });
    }
    return reject(`couldn't parse as single pod or multiple pods: got ${describeTypeMeta(meta)}; expected a v1 Pod or PodList`);
  });
}
