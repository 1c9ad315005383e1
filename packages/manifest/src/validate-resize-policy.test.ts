import { describe, expect, it } from 'vitest';
import type { Container, PodSpec } from '@podconfig/core';
import { validateResizePolicy } from './validate-resize-policy.js';

type ResizePolicy = NonNullable<Container['resizePolicy']>;
const run = (resizePolicy: ResizePolicy, restartPolicy = 'Always'): string[] => {
  const errors: string[] = [];
  const c: Container = { name: 'main', image: 'x', resizePolicy };
  const spec: PodSpec = { containers: [c], restartPolicy };
  validateResizePolicy(c, spec, 'spec.containers[0].resizePolicy', errors);
  return errors;
};

describe(validateResizePolicy.name, () => {
  it('accepts one policy each for cpu and memory', () => {
    expect(run([{ resourceName: 'cpu', restartPolicy: 'NotRequired' }, { resourceName: 'memory', restartPolicy: 'RestartContainer' }])).toEqual([]);
    expect(run([{ resourceName: 'memory', restartPolicy: 'NotRequired' }], 'Never')).toEqual([]);
  });

  it('checks resource names and restart policies, and refuses a resource twice', () => {
    expect(run([
      { resourceName: 'cpu', restartPolicy: 'NotRequired' }, { resourceName: 'cpu', restartPolicy: 'Sometimes' },
      { resourceName: 'ephemeral-storage', restartPolicy: 'NotRequired' }, { resourceName: '', restartPolicy: '' },
    ])).toEqual([
      'spec.containers[0].resizePolicy[1]: Duplicate value: "cpu"',
      'spec.containers[0].resizePolicy[1].restartPolicy: Unsupported value: "Sometimes": supported values: "NotRequired", "RestartContainer"',
      'spec.containers[0].resizePolicy[2].resourceName: Unsupported value: "ephemeral-storage": supported values: "cpu", "memory"',
      'spec.containers[0].resizePolicy[3].resourceName: Required value',
      'spec.containers[0].resizePolicy[3].restartPolicy: Required value',
    ]);
  });

  it('requires NotRequired in a pod that never restarts', () => {
    expect(run([{ resourceName: 'memory', restartPolicy: 'RestartContainer' }], 'Never')).toEqual([
      'spec.containers[0].resizePolicy[0].restartPolicy: Invalid value: "RestartContainer": must be \'NotRequired\' when pod `restartPolicy` is \'Never\'',
    ]);
  });
});
