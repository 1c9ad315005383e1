import type { Container } from '@podconfig/core';
import { validateHandler } from './validate-probe-handler.js';

type Probe = NonNullable<Container['livenessProbe']>;

const PROBE_NUMBERS = ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'] as const;

/**
 * validateLifecycle and validateLivenessProbe / validateReadinessProbe / validateStartupProbe, in the API's
 * order, for a container that may have them (a regular container or a sidecar). `gracePeriod` is the pod's
 * terminationGracePeriodSeconds.
 */
export function validateProbesAndLifecycle(c: Container, gracePeriod: number | undefined, at: string, errors: string[]): void {
  for (const hook of ['postStart', 'preStop'] as const) {
    const handler = c.lifecycle?.[hook];
    if (handler !== undefined) validateHandler(handler, gracePeriod, `${at}.lifecycle.${hook}`, errors);
  }
  for (const field of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
    const probe = c[field];
    if (probe === undefined) continue;
    const path = `${at}.${field}`;
    validateProbe(probe, gracePeriod, path, errors);
    if (field === 'readinessProbe') {
      if (probe.terminationGracePeriodSeconds !== undefined) {
        errors.push(`${path}.terminationGracePeriodSeconds: Invalid value: ${probe.terminationGracePeriodSeconds}: must not be set for readinessProbes`);
      }
    } else if (probe.successThreshold !== undefined && probe.successThreshold !== 1) {
      // Only readiness may need several successes in a row.
      errors.push(`${path}.successThreshold: Invalid value: ${probe.successThreshold}: must be 1`);
    }
  }
}

/** validateProbe: the handler, non-negative numbers, and a probe's own grace period (for the kill after it fails) > 0. */
function validateProbe(probe: Probe, gracePeriod: number | undefined, at: string, errors: string[]): void {
  validateHandler(probe, gracePeriod, at, errors);
  for (const number of PROBE_NUMBERS) {
    const value = probe[number];
    if (value !== undefined && value < 0) errors.push(`${at}.${number}: Invalid value: ${value}: must be greater than or equal to 0`);
  }
  const grace = probe.terminationGracePeriodSeconds;
  if (grace !== undefined && grace <= 0) errors.push(`${at}.terminationGracePeriodSeconds: Invalid value: ${grace}: must be greater than 0`);
}
