import { podFullName, podUid, type Pod } from '@podconfig/core';
import { parseApiTime } from './api-time.js';

/** How the pods of one emitted operation are ordered (decision D15). */
export type EmissionOrder = 'full-name' | 'creation';

const NO_TIME = Number.NEGATIVE_INFINITY;

function creationTime(pod: Pod): number {
  const value = pod.metadata?.creationTimestamp;
  if (value === undefined || value === null) return NO_TIME;
  const ms = parseApiTime(String(value));
  return Number.isNaN(ms) ? NO_TIME : ms;
}

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

interface Keyed {
  readonly pod: Pod;
  readonly time: number;
  readonly name: string;
  readonly uid: string;
}

/**
 * Sorts `pods` in place per D15: ADDs by creationTimestamp (missing or unparsable first), then
 * full name, then UID; every other operation by full name, then UID. The keys are computed once
 * per pod, not per comparison (an initial ADD of 50,000 pods made ~1.6 million comparisons).
 */
export function sortForEmission(pods: Pod[], order: EmissionOrder): Pod[] {
  if (pods.length < 2) return pods;
  const keyed: Keyed[] = pods.map((pod) => ({
    pod, time: order === 'creation' ? creationTime(pod) : 0, name: podFullName(pod), uid: podUid(pod),
  }));
  keyed.sort((a, b) => (a.time === b.time ? 0 : a.time < b.time ? -1 : 1) || compareStrings(a.name, b.name) || compareStrings(a.uid, b.uid));
  for (let i = 0; i < keyed.length; i++) pods[i] = keyed[i]!.pod;
  return pods;
}
