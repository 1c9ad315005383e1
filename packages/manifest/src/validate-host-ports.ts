import type { Container } from '@podconfig/core';

/**
 * checkHostPortConflicts (AccumulateUniqueHostPorts): no two ports of `containers` may claim the same host
 * port for the same protocol and host IP. The pod's regular containers run together and are checked as one
 * group; init containers run one at a time, so the caller checks each alone. `at` is the list's path and
 * `first` the index of `containers[0]` in it. A host IP is compared as written, as the API compares it
 * (`0.0.0.0` and no IP do not collide), and is not itself checked: the API does not check it.
 */
export function checkHostPortConflicts(containers: readonly Container[], at: string, first: number, errors: string[]): void {
  const claimed = new Set<string>();
  containers.forEach((c, i) => {
    (c.ports ?? []).forEach((port, j) => {
      const hostPort = port.hostPort ?? 0;
      if (hostPort === 0) return;
      const claim = `${port.protocol ?? ''}/${port.hostIP ?? ''}/${hostPort}`;
      if (claimed.has(claim)) errors.push(`${at}[${first + i}].ports[${j}].hostPort: Duplicate value: ${JSON.stringify(claim)}`);
      claimed.add(claim);
    });
  });
}
