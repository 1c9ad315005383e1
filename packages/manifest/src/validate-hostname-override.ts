import type { PodSpec } from '@podconfig/core';
import { dns1123SubdomainProblems } from './name-rules.js';

/** HostnameOverride (1.34) is newer than the pod types (kubernetes-types 1.30). */
type PodSpecSince134 = PodSpec & { hostnameOverride?: string };

/** The longest hostname the API takes (a Linux host name, HOST_NAME_MAX). */
const MAX_HOSTNAME_OVERRIDE_LENGTH = 64;

/**
 * validatePodHostName: `spec.hostnameOverride` (HostnameOverride, alpha in 1.34, beta and on by default since
 * 1.35, so in 1.36) is not set with `setHostnameAsFQDN: true` nor on the host network, is at most 64 bytes,
 * and is a DNS-1123 subdomain. The kubelet does not drop the field when its gate is off, and validation does
 * not look at the gate.
 */
export function validateHostnameOverride(spec: PodSpec, errors: string[]): void {
  const override = (spec as PodSpecSince134).hostnameOverride;
  if (override === undefined) return;
  const at = 'spec.hostnameOverride';
  if (spec.setHostnameAsFQDN === true) errors.push(`${at}: Forbidden: may not be specified when setHostnameAsFQDN is true`);
  if (spec.hostNetwork === true) errors.push(`${at}: Forbidden: may not be specified when hostNetwork is true`);
  if (Buffer.byteLength(override) > MAX_HOSTNAME_OVERRIDE_LENGTH) errors.push(`${at}: Too long: may not be more than ${MAX_HOSTNAME_OVERRIDE_LENGTH} bytes`);
  for (const p of dns1123SubdomainProblems(override)) errors.push(`${at}: Invalid value: ${JSON.stringify(override)}: ${p}`);
}
