import type { ObjectHead } from './resource-client.js';
import type { KubeObject } from './watch-event.js';

/** `namespace/name`, or `name` for cluster-scoped objects (client-go `MetaNamespaceKeyFunc`). */
export function metaNamespaceKey(object: KubeObject): string {
  return namespacedKey(object.metadata?.namespace ?? '', object.metadata?.name ?? '');
}

/** {@link metaNamespaceKey} of the object an undecoded event's head describes. */
export function headKey(head: ObjectHead): string {
  return namespacedKey(head.namespace, head.name);
}

const namespacedKey = (namespace: string, name: string): string => (namespace === '' ? name : `${namespace}/${name}`);
