// Name syntax rules of apimachinery's validation package, with its messages.
import { isIPv6 } from 'node:net';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** apimachinery's shape of a name rule: `MaxLenError` past `max`, then the pattern's message when it does not match. */
function lengthAndPatternProblems(value: string, max: number, pattern: RegExp, message: string): string[] {
  const problems: string[] = [];
  if (value.length > max) problems.push(`must be no more than ${max} characters`);
  if (!pattern.test(value)) problems.push(message);
  return problems;
}

/** Problems with a DNS-1123 label (at most 63 characters); empty when valid. */
export function dns1123LabelProblems(value: string): string[] {
  return lengthAndPatternProblems(value, 63, DNS1123_LABEL,
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character");
}

/** Problems with a DNS-1123 subdomain (at most 253 characters); empty when valid. */
export function dns1123SubdomainProblems(value: string): string[] {
  return lengthAndPatternProblems(value, 253, DNS1123_SUBDOMAIN,
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character");
}

/** Problems with a qualified name (`[prefix/]name`), the syntax of label and annotation keys. */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  let name = value;
  const problems: string[] = [];
  if (parts.length === 2) {
    const [prefix = '', rest = ''] = parts;
    name = rest;
    if (prefix === '') problems.push('prefix part must be non-empty');
    else problems.push(...dns1123SubdomainProblems(prefix).map((p) => `prefix part ${p}`));
  } else if (parts.length > 2) {
    return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'"];
  }
  if (name === '') problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  if (name !== '' && !QUALIFIED_NAME_PART.test(name)) {
    problems.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  }
  return problems;
}

/** Problems with a label value (at most 63 characters, may be empty). */
export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) {
    problems.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  }
  return problems;
}

/** Problems with a port name (IsValidPortName: an IANA service name, at most 15 characters with a letter, no '--'). */
export function portNameProblems(value: string): string[] {
  // IsValidPortName's checks and words, in its order (apimachinery 0.36).
  const problems: string[] = [];
  if (value.length > 15) problems.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(value)) problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(value)) problems.push('must contain at least one letter (a-z)');
  if (value.includes('--')) problems.push('must not contain consecutive hyphens');
  if (value.startsWith('-') || value.endsWith('-')) problems.push('must not begin or end with a hyphen');
  return problems;
}

const DNS1123_SUBDOMAIN_WITH_UNDERSCORE = /^_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*$/;
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;
const IPV4_SLOPPY = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/;
/**
 * SysctlContainSlashFmt: dot- or slash-separated segments of lowercase letters, digits, '-' and '_'. Built from
 * the API's own text so that its `source` reads as the API's message quotes it.
 */
export const SYSCTL_NAME_PATTERN = new RegExp('^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$');
/** SysctlMaxLength. */
export const SYSCTL_NAME_MAX_LENGTH = 253;

/** Problems with a DNS-1123 subdomain whose labels may hold '_' (a DNS search domain: `_tcp.example.com`). */
export function dns1123SubdomainWithUnderscoreProblems(value: string): string[] {
  return lengthAndPatternProblems(value, 253, DNS1123_SUBDOMAIN_WITH_UNDERSCORE,
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character");
}

/**
 * Problems with an environment variable name or envFrom prefix (IsRelaxedEnvVarName, the rule of
 * RelaxedEnvironmentVariableValidation, on by default since 1.32 and GA since 1.34).
 */
export function envVarNameProblems(value: string): string[] {
  if (value === '') return ['environment variable name must be non-empty'];
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20 || code > 0x7e || char === '=') {
      return ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
    }
  }
  return [];
}

/** Problems with a ConfigMap or Secret key (IsConfigMapKey). */
export function configMapKeyProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 253) problems.push('must be no more than 253 characters');
  if (!CONFIG_MAP_KEY.test(value)) problems.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.'");
  if (value === '.') problems.push("must not be '.'");
  else if (value === '..') problems.push("must not be '..'");
  else if (value.startsWith('..')) problems.push("must not start with '..'");
  return problems;
}

/**
 * Problems with an IP address as the API reads one (netutils.ParseIPSloppy): IPv4 octets may carry leading
 * zeros, IPv6 may embed IPv4; no zone (`%eth0`), no brackets, no prefix length.
 */
export function ipAddressProblems(value: string): string[] {
  return isSloppyIp(value) ? [] : ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
}

function isSloppyIp(value: string): boolean {
  const v4 = IPV4_SLOPPY.exec(value);
  if (v4 !== null) return v4.slice(1).every((octet) => Number(octet) <= 255);
  if (!value.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(value)) return false;
  return isIPv6(value);
}
