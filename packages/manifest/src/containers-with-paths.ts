import type { Container, PodSpec } from '@podconfig/core';

/**
 * The pod's containers with their field paths, in the API's visiting order (VisitContainersWithPath): init,
 * regular, ephemeral. For the rules the API checks over every container of the pod at once.
 */
export function containersWithPaths(spec: PodSpec): [Container, string][] {
  return [
    ...(spec.initContainers ?? []).map((c, i): [Container, string] => [c, `spec.initContainers[${i}]`]),
    ...((spec.containers as readonly Container[] | undefined) ?? []).map((c, i): [Container, string] => [c, `spec.containers[${i}]`]),
    ...(spec.ephemeralContainers ?? []).map((c, i): [Container, string] => [c as Container, `spec.ephemeralContainers[${i}]`]),
  ];
}
