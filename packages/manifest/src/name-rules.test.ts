import { describe, expect, it } from 'vitest';
import {
  configMapKeyProblems, dns1123LabelProblems, dns1123SubdomainProblems, dns1123SubdomainWithUnderscoreProblems, httpHeaderNameProblems,
  ipAddressProblems, labelValueProblems, portNameProblems, qualifiedNameProblems,
} from './name-rules.js';

// apimachinery 0.36's messages, as pkg/util/validation and pkg/api/validate/content write them.
const LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const KEY = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe(dns1123LabelProblems.name, () => {
  it('accepts a label of up to 63 characters', () => {
    expect(['a', '0', 'my-name', '123-abc', 'a'.repeat(63)].flatMap(dns1123LabelProblems)).toEqual([]);
  });

  it('says a valid subdomain "must not contain dots", and quotes the pattern with examples otherwise', () => {
    expect(dns1123LabelProblems('kube.system')).toEqual(['must not contain dots']);
    expect(dns1123LabelProblems('Kube')).toEqual([LABEL]);
    expect(dns1123LabelProblems('a..b')).toEqual([LABEL]);
    expect(dns1123LabelProblems('')).toEqual([LABEL]);
  });

  it('counts characters as Go does, in bytes, and reports the length before the pattern', () => {
    expect(dns1123LabelProblems('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(dns1123LabelProblems(`${'a'.repeat(61)}.bb`)).toEqual(['must be no more than 63 characters', 'must not contain dots']);
    expect(dns1123LabelProblems('é'.repeat(32))).toEqual(['must be no more than 63 characters', LABEL]);
  });
});

describe(dns1123SubdomainProblems.name, () => {
  it('accepts a subdomain of up to 253 characters', () => {
    expect(['example.com', 'a', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`].flatMap(dns1123SubdomainProblems)).toEqual([]);
  });

  it('refuses a longer one, and one off the pattern, with apimachinery\'s words', () => {
    expect(dns1123SubdomainProblems('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
    expect(dns1123SubdomainProblems('Example.com')).toEqual([SUBDOMAIN]);
  });
});

describe(dns1123SubdomainWithUnderscoreProblems.name, () => {
  it('takes labels starting with _ and quotes its own pattern', () => {
    expect(dns1123SubdomainWithUnderscoreProblems('_tcp.example.com')).toEqual([]);
    expect(dns1123SubdomainWithUnderscoreProblems('a..b')).toEqual([
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')",
    ]);
  });
});

describe(qualifiedNameProblems.name, () => {
  it('accepts a name part of up to 63 bytes with an optional subdomain prefix', () => {
    expect(['MyName', 'my.name', '123-abc', 'example.com/MyName', 'k'.repeat(63)].flatMap(qualifiedNameProblems)).toEqual([]);
  });

  it('reports the prefix, then the name part (content.IsLabelKey): bytes, and the pattern even for an empty or long name', () => {
    expect(qualifiedNameProblems('/x')).toEqual(['prefix part must be non-empty']);
    expect(qualifiedNameProblems('Example.com/-x')).toEqual([`prefix part ${SUBDOMAIN}`, `name part ${KEY}`]);
    expect(qualifiedNameProblems(`${'p'.repeat(254)}/x`)).toEqual(['prefix part must be no more than 253 bytes']);
    expect(qualifiedNameProblems('example.com/')).toEqual(['name part must be non-empty', `name part ${KEY}`]);
    expect(qualifiedNameProblems('')).toEqual(['name part must be non-empty', `name part ${KEY}`]);
    expect(qualifiedNameProblems('k'.repeat(64))).toEqual(['name part must be no more than 63 bytes']);
    expect(qualifiedNameProblems(`${'k'.repeat(63)}-`)).toEqual(['name part must be no more than 63 bytes', `name part ${KEY}`]);
  });

  it('calls a key with more than one slash no valid label key', () => {
    expect(qualifiedNameProblems('a/b/c')).toEqual([`a valid label key ${KEY} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]);
  });
});

describe(labelValueProblems.name, () => {
  const VALUE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

  it('accepts an empty value and one of up to 63 bytes', () => {
    expect(['', 'MyValue', 'my_value', '12345', 'v'.repeat(63)].flatMap(labelValueProblems)).toEqual([]);
  });

  it('counts bytes (content) and quotes the pattern', () => {
    expect(labelValueProblems('v'.repeat(64))).toEqual(['must be no more than 63 bytes']);
    expect(labelValueProblems('not ok!')).toEqual([VALUE]);
  });
});

describe(configMapKeyProblems.name, () => {
  it('accepts keys of letters, digits, -, _ and .', () => {
    expect(['key.name', 'KEY_NAME', 'key-name', '.hidden'].flatMap(configMapKeyProblems)).toEqual([]);
  });

  it('quotes the pattern, then refuses . and .. and a leading ..', () => {
    expect(configMapKeyProblems('a b')).toEqual([
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
    expect(['.', '..', '..data'].map(configMapKeyProblems)).toEqual([["must not be '.'"], ["must not be '..'"], ["must not start with '..'"]]);
    expect(configMapKeyProblems('k'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });
});

describe(httpHeaderNameProblems.name, () => {
  it('accepts letters, digits and -, and quotes the pattern otherwise', () => {
    expect(httpHeaderNameProblems('X-Header-Name')).toEqual([]);
    expect(httpHeaderNameProblems('X Bad')).toEqual(["a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"]);
  });
});

describe(portNameProblems.name, () => {
  it('keeps IsValidPortName\'s checks, none of which quotes a pattern', () => {
    expect(portNameProblems('metrics')).toEqual([]);
    expect(portNameProblems('-Web--')).toEqual([
      'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)', 'must not contain consecutive hyphens', 'must not begin or end with a hyphen',
    ]);
    expect(portNameProblems('a'.repeat(16))).toEqual(['must be no more than 15 characters']);
  });
});

describe(ipAddressProblems.name, () => {
  const INVALID = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

  it('accepts IPv4 and IPv6 addresses in any spelling netip reads', () => {
    expect(['10.0.0.1', '0.0.0.0', '2001:db8::1', 'FE80:0:0:0:0:0:0:0ABC', '::1', '::10.0.0.1'].flatMap(ipAddressProblems)).toEqual([]);
  });

  it('refuses what ParseIPSloppy does not read', () => {
    for (const ip of ['', 'localhost', '256.1.1.1', '1.2.3', 'fe80::1%eth0', '[::1]', '10.0.0.0/8']) expect(ipAddressProblems(ip)).toEqual([INVALID]);
  });

  it('refuses leading zeros and IPv4-mapped IPv6 addresses (StrictIPCIDRValidation, on by default in 1.36)', () => {
    expect(ipAddressProblems('010.0.0.1')).toEqual(['must not have leading 0s']);
    expect(ipAddressProblems('10.0.0.00')).toEqual(['must not have leading 0s']);
    expect(ipAddressProblems('::ffff:10.0.0.1')).toEqual(['must not be an IPv4-mapped IPv6 address']);
    expect(ipAddressProblems('::FFFF:a00:1')).toEqual(['must not be an IPv4-mapped IPv6 address']);
  });
});
