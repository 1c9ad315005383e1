import type { Container, PodSpec } from '@podconfig/core';
import { oneOf } from './validate-one-of.js';

/** supportedResizeResources and supportedResizePolicies, sorted as the API lists them. */
const RESIZE_RESOURCES = ['cpu', 'memory'];
const RESIZE_RESTART_POLICIES = ['NotRequired', 'RestartContainer'];

/**
 * validateResizePolicy, for regular and init containers alike: at most one policy per resource, for cpu or memory,
 * with a known restart policy; a pod that never restarts cannot restart a container to resize it. The API reports
 * these at the list; the item is named here.
 */
export function validateResizePolicy(c: Container, spec: PodSpec, at: string, errors: string[]): void {
  const seen = new Set<string>();
  (c.resizePolicy ?? []).forEach((policy, i) => {
    const itemAt = `${at}[${i}]`;
    const resource = (policy.resourceName as string | undefined) ?? '';
    const restart = (policy.restartPolicy as string | undefined) ?? '';
    if (seen.has(resource)) errors.push(`${itemAt}: Duplicate value: ${JSON.stringify(resource)}`);
    seen.add(resource);
    if (resource === '') errors.push(`${itemAt}.resourceName: Required value`);
    else oneOf(resource, RESIZE_RESOURCES, `${itemAt}.resourceName`, errors);
    if (restart === '') errors.push(`${itemAt}.restartPolicy: Required value`);
    else oneOf(restart, RESIZE_RESTART_POLICIES, `${itemAt}.restartPolicy`, errors);
    if (spec.restartPolicy === 'Never' && restart !== 'NotRequired') {
      errors.push(`${itemAt}.restartPolicy: Invalid value: ${JSON.stringify(restart)}: must be 'NotRequired' when pod \`restartPolicy\` is 'Never'`);
    }
  });
}
