import type { PodSpec } from '@podconfig/core';
import { dns1123SubdomainWithUnderscoreProblems, ipAddressProblems } from './name-rules.js';

/** Limits of the Linux libc resolver (MaxDNSNameservers, MaxDNSSearchPaths, MaxDNSSearchListChars). */
const MAX_NAMESERVERS = 3;
const MAX_SEARCH_PATHS = 32;
const MAX_SEARCH_LIST_CHARS = 2048;

/**
 * validatePodDNSConfig: dnsPolicy None needs a dnsConfig with a nameserver; at most 3 nameservers, each an IP
 * (strictly read in 1.36: see ipAddressProblems); at most 32 search domains of at most 2048 characters in all, each a
 * domain that may hold '_' and end in '.' (RelaxedDNSSearchValidation, GA in 1.34); options with names.
 */
export function validatePodDnsConfig(spec: PodSpec, errors: string[]): void {
  const at = 'spec.dnsConfig';
  const config = spec.dnsConfig;
  const nameservers = config?.nameservers ?? [];
  if (spec.dnsPolicy === 'None') {
    if (config === undefined) {
      errors.push(`${at}: Required value: must provide \`dnsConfig\` when \`dnsPolicy\` is None`);
      return;
    }
    if (nameservers.length === 0) {
      errors.push(`${at}.nameservers: Required value: must provide at least one DNS nameserver when \`dnsPolicy\` is None`);
      return;
    }
  }
  if (config === undefined) return;
  if (nameservers.length > MAX_NAMESERVERS) errors.push(`${at}.nameservers: Invalid value: must not have more than ${MAX_NAMESERVERS} nameservers`);
  nameservers.forEach((ip, i) => {
    for (const p of ipAddressProblems(ip)) errors.push(`${at}.nameservers[${i}]: Invalid value: ${JSON.stringify(ip)}: ${p}`);
  });
  const searches = config.searches ?? [];
  if (searches.length > MAX_SEARCH_PATHS) errors.push(`${at}.searches: Invalid value: must not have more than ${MAX_SEARCH_PATHS} search paths`);
  // resolv.conf holds them on one line, spaces between; Go counts bytes.
  if (Buffer.byteLength(searches.join(' ')) > MAX_SEARCH_LIST_CHARS) {
    errors.push(`${at}.searches: Invalid value: must not have more than ${MAX_SEARCH_LIST_CHARS} characters (including spaces) in the search list`);
  }
  searches.forEach((search, i) => {
    if (search === '.') return;
    const domain = search.endsWith('.') ? search.slice(0, -1) : search;
    for (const p of dns1123SubdomainWithUnderscoreProblems(domain)) errors.push(`${at}.searches[${i}]: Invalid value: ${JSON.stringify(domain)}: ${p}`);
  });
  (config.options ?? []).forEach((option, i) => {
    if (!option.name) errors.push(`${at}.options[${i}]: Required value: must not be empty`);
  });
}
