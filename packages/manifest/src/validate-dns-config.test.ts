import { describe, expect, it } from 'vitest';
import type { PodSpec } from '@podconfig/core';
import { validatePodDnsConfig } from './validate-dns-config.js';

const run = (spec: Partial<PodSpec>): string[] => {
  const errors: string[] = [];
  validatePodDnsConfig({ containers: [], dnsPolicy: 'ClusterFirst', ...spec }, errors);
  return errors;
};
const at = 'spec.dnsConfig';

describe(validatePodDnsConfig.name, () => {
  it('accepts a well-formed dnsConfig: IPv4 and IPv6 nameservers, searches with _ and a final dot', () => {
    expect(run({ dnsPolicy: 'None', dnsConfig: {
      nameservers: ['10.0.0.10', '2001:db8::1', '0.0.0.0'], searches: ['_tcp.example.com.', 'svc.cluster.local', '.'],
      options: [{ name: 'ndots', value: '2' }],
    } })).toEqual([]);
  });

  it('requires a dnsConfig with a nameserver for dnsPolicy None', () => {
    expect(run({ dnsPolicy: 'None' })).toEqual([`${at}: Required value: must provide \`dnsConfig\` when \`dnsPolicy\` is None`]);
    expect(run({ dnsPolicy: 'None', dnsConfig: { searches: ['Bad_'] } })).toEqual([
      `${at}.nameservers: Required value: must provide at least one DNS nameserver when \`dnsPolicy\` is None`,
    ]);
  });

  it('allows at most 3 nameservers, each an IP address', () => {
    expect(run({ dnsConfig: { nameservers: ['1.1.1.1', '8.8.8.8', '9.9.9.9', 'dns.example.com'] } })).toEqual([
      `${at}.nameservers: Invalid value: must not have more than 3 nameservers`,
      `${at}.nameservers[3]: Invalid value: "dns.example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
    ]);
    for (const ip of ['256.1.1.1', 'fe80::1%eth0', '[::1]', '10.0.0.0/8', '1.2.3']) {
      expect(run({ dnsConfig: { nameservers: [ip] } })).toEqual([
        `${at}.nameservers[0]: Invalid value: ${JSON.stringify(ip)}: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
      ]);
    }
  });

  it('refuses IPv4 octets with leading zeros and IPv4-mapped IPv6 nameservers (StrictIPCIDRValidation, on in 1.36)', () => {
    expect(run({ dnsConfig: { nameservers: ['010.000.000.001', '::ffff:10.0.0.1', '0:0:0:0:0:FFFF:0A00:0001'] } })).toEqual([
      `${at}.nameservers[0]: Invalid value: "010.000.000.001": must not have leading 0s`,
      `${at}.nameservers[1]: Invalid value: "::ffff:10.0.0.1": must not be an IPv4-mapped IPv6 address`,
      `${at}.nameservers[2]: Invalid value: "0:0:0:0:0:FFFF:0A00:0001": must not be an IPv4-mapped IPv6 address`,
    ]);
    // Not mapped: IPv4-compatible and other IPv6 addresses that end in a dotted quad.
    expect(run({ dnsConfig: { nameservers: ['::10.0.0.1', '64:ff9b::10.0.0.1', '::ffff:0:10.0.0.1'] } })).toEqual([]);
  });

  it('allows at most 32 search domains of 2048 characters in all, each a domain', () => {
    expect(run({ dnsConfig: { searches: Array.from({ length: 33 }, (_, i) => `d${i}.example.com`) } })).toEqual([
      `${at}.searches: Invalid value: must not have more than 32 search paths`,
    ]);
    expect(run({ dnsConfig: { searches: Array.from({ length: 9 }, () => `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(35)}`) } })).toEqual([
      `${at}.searches: Invalid value: must not have more than 2048 characters (including spaces) in the search list`,
    ]);
    expect(run({ dnsConfig: { searches: ['Example.com.', 'a..b'] } })).toEqual([
      `${at}.searches[0]: Invalid value: "Example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')`,
      `${at}.searches[1]: Invalid value: "a..b": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });

  it('requires option names', () => {
    expect(run({ dnsConfig: { options: [{ name: 'rotate' }, { value: '1' }] } })).toEqual([`${at}.options[1]: Required value: must not be empty`]);
  });
});
