// Name syntax rules of apimachinery 0.36, with its messages: k8s.io/apimachinery/pkg/util/validation (DNS-1123
// names, port names, config keys, HTTP header names, environment variable names, IP addresses), whose length messages
// say "characters", and pkg/api/validate/content (label keys and values, the prefix of a label key), whose say "bytes".
// Lengths are Go's len(): UTF-8 bytes.
import { isIPv6 } from 'node:net';

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_LABEL_WITH_UNDERSCORE_FMT = '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_WITH_UNDERSCORE_FMT = `${DNS1123_LABEL_WITH_UNDERSCORE_FMT}(\\.${DNS1123_LABEL_WITH_UNDERSCORE_FMT})*`;
const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const HTTP_HEADER_NAME_FMT = '[-A-Za-z0-9]+';

const DNS1123_LABEL_MESSAGE = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_WITH_UNDERSCORE_MESSAGE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_MESSAGE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MESSAGE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const CONFIG_MAP_KEY_MESSAGE = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const HTTP_HEADER_NAME_MESSAGE = "a valid HTTP header must consist of alphanumeric characters or '-'";

const anchored = (fmt: string): RegExp => new RegExp(`^${fmt}$`);
const DNS1123_LABEL = anchored(DNS1123_LABEL_FMT);
const DNS1123_SUBDOMAIN = anchored(DNS1123_SUBDOMAIN_FMT);
const DNS1123_SUBDOMAIN_WITH_UNDERSCORE = anchored(DNS1123_SUBDOMAIN_WITH_UNDERSCORE_FMT);
const LABEL_KEY = anchored(LABEL_KEY_FMT);
const LABEL_VALUE = anchored(LABEL_VALUE_FMT);
const CONFIG_MAP_KEY = anchored(CONFIG_MAP_KEY_FMT);
const HTTP_HEADER_NAME = anchored(HTTP_HEADER_NAME_FMT);

/** Go's len(): the UTF-8 length. */
const byteLength = (value: string): number => Buffer.byteLength(value);

/**
 * RegexError: the message, then the examples and the pattern, as apimachinery writes them (each example is followed
 * by a comma and a space, so two examples are joined by `',  or '`).
 */
function regexError(message: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${fmt}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** util/validation's MaxLenError. */
const maxLenError = (length: number): string => `must be no more than ${length} characters`;
/** content's MaxLenError. */
const maxBytesError = (length: number): string => `must be no more than ${length} bytes`;

/** Problems with a DNS-1123 label (IsDNS1123Label: at most 63 characters, no dots); empty when valid. */
export function dns1123LabelProblems(value: string): string[] {
  const problems: string[] = [];
  if (byteLength(value) > 63) problems.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    // A valid subdomain that is not a label has dots (the length was checked above).
    problems.push(DNS1123_SUBDOMAIN.test(value) ? 'must not contain dots' : regexError(DNS1123_LABEL_MESSAGE, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return problems;
}

/** Problems with a DNS-1123 subdomain (IsDNS1123Subdomain: at most 253 characters); empty when valid. */
export function dns1123SubdomainProblems(value: string): string[] {
  const problems: string[] = [];
  if (byteLength(value) > 253) problems.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value)) problems.push(regexError(DNS1123_SUBDOMAIN_MESSAGE, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return problems;
}

/** content.IsDNS1123Subdomain: the rule above with content's length message, for the prefix of a label key. */
function contentDns1123SubdomainProblems(value: string): string[] {
  const problems: string[] = [];
  if (byteLength(value) > 253) problems.push(maxBytesError(253));
  if (!DNS1123_SUBDOMAIN.test(value)) problems.push(regexError(DNS1123_SUBDOMAIN_MESSAGE, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return problems;
}

/** A label key's pattern message, built once: every label and annotation key is checked. */
const LABEL_KEY_PATTERN_ERROR = regexError(LABEL_KEY_MESSAGE, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc');

/**
 * Problems with a qualified name (`[prefix/]name`), the syntax of label and annotation keys (IsQualifiedName, which
 * is content.IsLabelKey): a name part of at most 63 bytes, checked against its pattern even when empty or too long.
 */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  const keyPattern = LABEL_KEY_PATTERN_ERROR;
  if (parts.length > 2) return [`a valid label key ${keyPattern} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const problems: string[] = [];
  let name = value;
  if (parts.length === 2) {
    const [prefix = '', rest = ''] = parts;
    name = rest;
    if (prefix === '') problems.push('prefix part must be non-empty');
    else problems.push(...contentDns1123SubdomainProblems(prefix).map((p) => `prefix part ${p}`));
  }
  if (name === '') problems.push('name part must be non-empty');
  else if (byteLength(name) > 63) problems.push(`name part ${maxBytesError(63)}`);
  if (!LABEL_KEY.test(name)) problems.push(`name part ${keyPattern}`);
  return problems;
}

/** Problems with a label value (content.IsLabelValue: at most 63 bytes, may be empty). */
export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (byteLength(value) > 63) problems.push(maxBytesError(63));
  if (!LABEL_VALUE.test(value)) problems.push(regexError(LABEL_VALUE_MESSAGE, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return problems;
}

/** Problems with an HTTP header name (IsHTTPHeaderName). */
export function httpHeaderNameProblems(value: string): string[] {
  return HTTP_HEADER_NAME.test(value) ? [] : [regexError(HTTP_HEADER_NAME_MESSAGE, HTTP_HEADER_NAME_FMT, 'X-Header-Name')];
}

/** Problems with a port name (IsValidPortName: an IANA service name, at most 15 characters with a letter, no '--'). */
export function portNameProblems(value: string): string[] {
  // IsValidPortName's checks and words, in its order (apimachinery 0.36).
  const problems: string[] = [];
  if (byteLength(value) > 15) problems.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(value)) problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(value)) problems.push('must contain at least one letter (a-z)');
  if (value.includes('--')) problems.push('must not contain consecutive hyphens');
  if (value.startsWith('-') || value.endsWith('-')) problems.push('must not begin or end with a hyphen');
  return problems;
}

const IPV4_SLOPPY = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/;
/**
 * SysctlContainSlashFmt: dot- or slash-separated segments of lowercase letters, digits, '-' and '_'. Built from
 * the API's own text so that its `source` reads as the API's message quotes it.
 */
export const SYSCTL_NAME_PATTERN = new RegExp('^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$');
/** SysctlMaxLength. */
export const SYSCTL_NAME_MAX_LENGTH = 253;

/**
 * Problems with a DNS-1123 subdomain whose labels may hold '_' (IsDNS1123SubdomainWithUnderscore, for a DNS search
 * domain: `_tcp.example.com`).
 */
export function dns1123SubdomainWithUnderscoreProblems(value: string): string[] {
  const problems: string[] = [];
  if (byteLength(value) > 253) problems.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_WITH_UNDERSCORE.test(value)) {
    problems.push(regexError(DNS1123_SUBDOMAIN_WITH_UNDERSCORE_MESSAGE, DNS1123_SUBDOMAIN_WITH_UNDERSCORE_FMT, 'example.com'));
  }
  return problems;
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
  if (byteLength(value) > 253) problems.push(maxLenError(253));
  if (!CONFIG_MAP_KEY.test(value)) problems.push(regexError(CONFIG_MAP_KEY_MESSAGE, CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  if (value === '.') problems.push("must not be '.'");
  else if (value === '..') problems.push("must not be '..'");
  else if (value.startsWith('..')) problems.push("must not start with '..'");
  return problems;
}

/**
 * Problems with an IP address in a field the API checks with IsValidIPForLegacyField, with StrictIPCIDRValidation
 * on (beta, on by default since 1.36): an address netutils.ParseIPSloppy reads (no zone `%eth0`, no brackets, no
 * prefix length), then neither an IPv4 octet with a leading zero (`010.0.0.1`, which netip.ParseAddr refuses) nor an
 * IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, in any spelling).
 */
export function ipAddressProblems(value: string): string[] {
  if (!isSloppyIp(value)) return ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'];
  const problems: string[] = [];
  const v4 = IPV4_SLOPPY.exec(value);
  if (v4 !== null && v4.slice(1).some((octet) => octet.length > 1 && octet.startsWith('0'))) problems.push('must not have leading 0s');
  if (v4 === null && isIpv4MappedIpv6(value)) problems.push('must not be an IPv4-mapped IPv6 address');
  return problems;
}

function isSloppyIp(value: string): boolean {
  const v4 = IPV4_SLOPPY.exec(value);
  if (v4 !== null) return v4.slice(1).every((octet) => Number(octet) <= 255);
  if (!value.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(value)) return false;
  return isIPv6(value);
}

/** netip.Addr.Is4In6: in ::ffff:0:0/96, read from the address's canonical (WHATWG URL) form. */
function isIpv4MappedIpv6(value: string): boolean {
  try {
    return /^\[::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}\]$/.test(new URL(`http://[${value}]/`).hostname);
  } catch {
    return false;
  }
}
