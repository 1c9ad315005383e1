import { podRef, podUid, type Pod } from '@podconfig/core';

/**
 * How a log line names a pod: `pod: 'ns/name'` and `uid`. An orphan a handler's `listPods()` reported by
 * UID alone has no namespace or name: it is logged by `uid` only, not as `pod: '/'`.
 */
export function podLogFields(pod: Pod): { readonly pod?: string; readonly uid: string } {
  const known = (pod.metadata?.namespace ?? '') !== '' || (pod.metadata?.name ?? '') !== '';
  return known ? { pod: podRef(pod), uid: podUid(pod) } : { uid: podUid(pod) };
}
