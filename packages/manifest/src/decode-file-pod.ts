import { checkNodeName, type Pod } from '@podconfig/core';
import { checkPodSchema } from './check-pod-schema.js';
import { decodePod } from './decode-pod.js';
import type { DecodeOptions } from './manifest-origin.js';
import { parseManifestDocument } from './parse-manifest-document.js';
import { reject, Rejection } from './rejection.js';
import { describeTypeMeta, typeMeta } from './type-meta.js';
import { withOrigin } from './with-origin.js';

/**
 * The file pipeline (spec §1.3): exactly one `v1` `Pod` from the first YAML document (a PodList or any
 * other kind is rejected), strictly decoded, defaulted, validated, with the NoExecute toleration added.
 * Throws only `ManifestInvalidError`.
 */
export function decodeFilePod(data: Uint8Array | string, options: DecodeOptions): Pod {
  // A caller's mistake, not the manifest's: without this, an empty node name reads as an invalid pod name.
  checkNodeName(options.nodeName, 'decode options: nodeName');
  return withOrigin(options.origin, () => {
    const object = parseManifestDocument(data);
    const meta = typeMeta(object);
    if (meta.kind !== 'Pod' || meta.apiVersion !== 'v1') {
      const reason = `couldn't parse as pod: got ${describeTypeMeta(meta)}; a file holds exactly one v1 Pod`;
      // A Pod of a mistyped apiVersion is a Pod's manifest with a mistake; a PodList or a Deployment never ran here.
      throw new Rejection('PODCONFIG_MANIFEST_INVALID', reason, { mayDefinePod: meta.kind === 'Pod' });
    }
    const problems = checkPodSchema(object, 'Pod');
    if (problems.length > 0) reject(`strict decoding error: ${problems.join('; ')}`);
    return decodePod(object, options);
  });
}
