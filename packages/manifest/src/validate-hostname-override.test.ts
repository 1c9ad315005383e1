import { describe, expect, it } from 'vitest';
import type { PodSpec } from '@podconfig/core';
import { validateHostnameOverride } from './validate-hostname-override.js';

const run = (hostnameOverride: string | undefined, spec: Partial<PodSpec> = {}): string[] => {
  const errors: string[] = [];
  validateHostnameOverride({ containers: [{ name: 'main', image: 'x' }], ...spec, ...(hostnameOverride === undefined ? {} : { hostnameOverride }) }, errors);
  return errors;
};

describe(validateHostnameOverride.name, () => {
  it('accepts a DNS-1123 subdomain of at most 64 bytes, or none', () => {
    expect(run('web-0.db.example.com')).toEqual([]);
    expect(run('a'.repeat(64))).toEqual([]);
    expect(run(undefined, { hostNetwork: true, setHostnameAsFQDN: true })).toEqual([]);
  });

  it('refuses it with setHostnameAsFQDN or on the host network', () => {
    expect(run('web', { setHostnameAsFQDN: true, hostNetwork: true })).toEqual([
      'spec.hostnameOverride: Forbidden: may not be specified when setHostnameAsFQDN is true',
      'spec.hostnameOverride: Forbidden: may not be specified when hostNetwork is true',
    ]);
    expect(run('web', { setHostnameAsFQDN: false })).toEqual([]);
  });

  it('refuses one over 64 bytes, and one that is no DNS-1123 subdomain', () => {
    expect(run('a'.repeat(65))).toEqual(['spec.hostnameOverride: Too long: may not be more than 64 bytes']);
    expect(run('Web_1')).toEqual([
      'spec.hostnameOverride: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    ]);
  });
});
