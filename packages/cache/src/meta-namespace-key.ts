import type { ObjectHead } from './resource-client.js';
import type { KubeObject } from './watch-event.js';

/** `namespace/name`, or `name` for cluster-scoped objects (client-go `MetaNamespaceKeyFunc`). */
export function metaNamespaceKey(object: KubeObject): string {
  const namespace = object.metadata?.namespace ?? '';
  const name = object.metadata?.name ?? '';
  return namespace === '' ? name : `${namespace}/${name}`;
}

/** {@link metaNamespaceKey} of the object an undecoded event's head describes. */
export function headKey(head: ObjectHead): string {
  return head.namespace === '' ? head.name : `${head.namespace}/${head.name}`;
}
