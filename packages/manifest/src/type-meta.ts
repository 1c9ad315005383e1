import type { JsonObject } from './json-object.js';
import { Rejection } from './rejection.js';

/**
 * `apiVersion` and `kind` of a decoded object; both are required (step 3). Without them the object may still be
 * a Pod's manifest with a mistake in it (`mayDefinePod`): one whose kind is `Pod`, or one with no kind but a
 * Pod's `metadata` or `spec`.
 */
export function typeMeta(object: JsonObject): { apiVersion: string; kind: string } {
  const { apiVersion, kind } = object;
  if (typeof kind !== 'string' || kind === '') {
    throw new Rejection('PODCONFIG_MANIFEST_INVALID', "Object 'Kind' is missing: a manifest needs `apiVersion: v1` and `kind: Pod`", {
      mayDefinePod: 'metadata' in object || 'spec' in object,
    });
  }
  if (typeof apiVersion !== 'string' || apiVersion === '') {
    throw new Rejection('PODCONFIG_MANIFEST_INVALID', "Object 'apiVersion' is missing: a manifest needs `apiVersion: v1` and `kind: Pod`", {
      mayDefinePod: kind === 'Pod',
    });
  }
  return { apiVersion, kind };
}

/** `kind/apiVersion` for messages. */
export function describeTypeMeta(meta: { apiVersion: string; kind: string }): string {
  return `kind ${JSON.stringify(meta.kind)} (apiVersion ${JSON.stringify(meta.apiVersion)})`;
}
