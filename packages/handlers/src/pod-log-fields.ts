import { podRef, podUid, type Pod } from '@podconfig/core';

/**
 * How a log line names a pod: `pod: 'ns/name'` and `uid`. An orphan a handler's `listPods()` reported by
 * UID alone has no namespace or name: it is logged by `uid` only, not as `pod: '/'`.
 */
export function podLogFields(pod: Pod): { readonly pod?: string; readonly uid: string } {
  const known = (pod.metadata?.namespace ?? '') !== '' || (pod.metadata?.name ?? '') !== '';
  return known ? { pod: podRef(pod), uid: podUid(pod) } : { uid: podUid(pod) };
}

/** `pod ns/name (uid …)` for error messages, or `pod with uid …` for an orphan known by UID alone. */
export function podDescription(pod: Pod): string {
  const fields = podLogFields(pod);
  return fields.pod === undefined ? `pod with uid ${fields.uid}` : `pod ${fields.pod} (uid ${fields.uid})`;
}
