import { podFullName, podUid, type Pod } from '@podconfig/core';

/** How the pods of one emitted operation are ordered (decision D15). */
export type EmissionOrder = 'full-name' | 'creation';

const NO_TIME = Number.NEGATIVE_INFINITY;

/**
 * `Date.parse`, which reads the API server's `YYYY-MM-DDTHH:MM:SSZ` natively: a digit-by-digit reader in
 * JavaScript was slower at every size measured (110 to 50,000 pods), most of all on a cold runtime.
 */
function creationTime(pod: Pod): number {
  const value = pod.metadata?.creationTimestamp;
  if (value === undefined || value === null) return NO_TIME;
  const ms = Date.parse(String(value));
  return Number.isNaN(ms) ? NO_TIME : ms;
}

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

interface Keyed {
  readonly pod: Pod;
  readonly time: number;
  /** The full name, read when a comparison needs it. */
  name: string | undefined;
}

const nameOf = (keyed: Keyed): string => (keyed.name ??= podFullName(keyed.pod));

function compareKeyed(a: Keyed, b: Keyed): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1;
  return compareStrings(nameOf(a), nameOf(b)) || compareStrings(podUid(a.pod), podUid(b.pod));
}

/**
 * Sorts `pods` in place per D15: ADDs by creationTimestamp (missing or unparsable first), then
 * full name, then UID; every other operation by full name, then UID. The creation time is read once
 * per pod, not per comparison (an initial ADD of 50,000 pods made ~1.6 million comparisons), and the
 * full name only when two times tie: building 50,000 of them for a first ADD whose pods were created at
 * different times cost ~30 ms.
 */
export function sortForEmission(pods: Pod[], order: EmissionOrder): Pod[] {
  if (pods.length < 2) return pods;
  const keyed: Keyed[] = pods.map((pod) => ({ pod, time: order === 'creation' ? creationTime(pod) : 0, name: undefined }));
  keyed.sort(compareKeyed);
  for (let i = 0; i < keyed.length; i++) pods[i] = keyed[i]!.pod;
  return pods;
}
