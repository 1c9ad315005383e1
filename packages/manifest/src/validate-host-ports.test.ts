import { describe, expect, it } from 'vitest';
import type { Container } from '@podconfig/core';
import { checkHostPortConflicts } from './validate-host-ports.js';

type Port = NonNullable<Container['ports']>[number];
const withPorts = (name: string, ...ports: Port[]): Container => ({ name, image: 'x', ports });
const run = (containers: Container[], first = 0): string[] => {
  const errors: string[] = [];
  checkHostPortConflicts(containers, 'spec.containers', first, errors);
  return errors;
};

describe(checkHostPortConflicts.name, () => {
  it('accepts host ports that differ in port, protocol or host IP, and ports without a host port', () => {
    expect(run([
      withPorts('a', { containerPort: 80, hostPort: 8080, protocol: 'TCP' }, { containerPort: 80, hostPort: 8080, protocol: 'UDP' }),
      withPorts('b', { containerPort: 80, hostPort: 8080, protocol: 'TCP', hostIP: '127.0.0.1' }, { containerPort: 81, protocol: 'TCP' }, { containerPort: 82, protocol: 'TCP' }),
    ])).toEqual([]);
  });

  it('refuses the same host port, protocol and host IP twice, across containers', () => {
    expect(run([
      withPorts('a', { containerPort: 80, hostPort: 8080, protocol: 'TCP' }),
      withPorts('b', { containerPort: 81, hostPort: 8080, protocol: 'TCP' }, { containerPort: 53, hostPort: 53, protocol: 'UDP', hostIP: '10.0.0.1' }),
      withPorts('c', { containerPort: 53, hostPort: 53, protocol: 'UDP', hostIP: '10.0.0.1' }),
    ])).toEqual([
      'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"',
      'spec.containers[2].ports[0].hostPort: Duplicate value: "UDP/10.0.0.1/53"',
    ]);
  });

  it('compares host IPs as written: 0.0.0.0 and no host IP do not collide', () => {
    expect(run([withPorts('a', { containerPort: 80, hostPort: 80, protocol: 'TCP' }, { containerPort: 81, hostPort: 80, protocol: 'TCP', hostIP: '0.0.0.0' })])).toEqual([]);
  });

  it('names a container by its index in the whole list', () => {
    expect(run([withPorts('init', { containerPort: 80, hostPort: 80, protocol: 'TCP' }, { containerPort: 81, hostPort: 80, protocol: 'TCP' })], 3))
      .toEqual(['spec.containers[3].ports[1].hostPort: Duplicate value: "TCP//80"']);
  });
});
