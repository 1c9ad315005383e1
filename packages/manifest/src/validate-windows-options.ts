import type { Container, PodSpec } from '@podconfig/core';
import { containersWithPaths } from './containers-with-paths.js';
import { dns1123SubdomainProblems } from './name-rules.js';
import { goJsonString } from './validate-error-values.js';

type WindowsOptions = NonNullable<NonNullable<Container['securityContext']>['windowsOptions']>;

/** maxGMSACredentialSpecLengthInKiB: a credential spec of at most 64 KiB. */
const MAX_GMSA_SPEC_KIB = 64;
/** maxRunAsUserNameDomainLength and maxRunAsUserNameUserLength, in bytes. */
const MAX_DOMAIN_LENGTH = 256;
const MAX_USER_LENGTH = 104;
/** ctrlRegex: RE2's [[:cntrl:]], the ASCII control characters (U+0000 to U+001F and U+007F). */
const hasControlCharacter = (text: string): boolean => [...text].some((c) => (c.codePointAt(0) ?? 0) < 0x20 || c === '\u007f');
/** validNetBiosRegex: 1-15 characters, none of \ / : * ? " < > |, not starting with a dot. */
const NETBIOS_DOMAIN = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/u;
/** validWindowsUserDomainDNSRegex: dot-separated DNS labels of letters (either case), digits and inner dashes. */
const DNS_DOMAIN = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
/** invalidUserNameCharsRegex and invalidUserNameDotsSpacesRegex. */
const USER_NAME_FORBIDDEN = /["/\\:;|=,+*?<>@[\]]/;
const DOTS_AND_SPACES = /^[. ]+$/;

/**
 * validateWindowsSecurityContextOptions, for the pod's and each container's securityContext: a GMSA credential
 * spec name that is a DNS-1123 subdomain, a credential spec that is neither empty nor over 64 KiB, and a
 * runAsUserName of `[DOMAIN\]USER` (a NetBIOS or DNS domain under 256 bytes, a user of 1-104 bytes, not only dots
 * or spaces, without `"/\:;|=,+*?<>@[]`, no control characters). The API holds these fields as pointers, so
 * their values print as JSON; a credential spec's contents are never shown (the API shows all 64 KiB).
 */
export function validateWindowsOptions(options: WindowsOptions | undefined, at: string, errors: string[]): void {
  if (options === undefined) return;
  if (options.gmsaCredentialSpecName !== undefined) {
    const name = options.gmsaCredentialSpecName;
    for (const p of dns1123SubdomainProblems(name)) errors.push(`${at}.gmsaCredentialSpecName: Invalid value: ${goJsonString(name)}: ${p}`);
  }
  if (options.gmsaCredentialSpec !== undefined) {
    const spec = options.gmsaCredentialSpec;
    if (spec === '') errors.push(`${at}.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string`);
    else if (Buffer.byteLength(spec) > MAX_GMSA_SPEC_KIB * 1024) {
      errors.push(`${at}.gmsaCredentialSpec: Invalid value: gmsaCredentialSpec size must be under ${MAX_GMSA_SPEC_KIB} KiB`);
    }
  }
  if (options.runAsUserName !== undefined) validateRunAsUserName(options.runAsUserName, `${at}.runAsUserName`, errors);
}

function validateRunAsUserName(name: string, at: string, errors: string[]): void {
  const invalid = (detail: string): void => {
    errors.push(`${at}: Invalid value: ${goJsonString(name)}: ${detail}`);
  };
  const parts = name.split('\\');
  if (name === '') return invalid('runAsUserName cannot be an empty string');
  if (hasControlCharacter(name)) return invalid('runAsUserName cannot contain control characters');
  if (parts.length > 2) return invalid('runAsUserName cannot contain more than one backslash');
  const [domain, user] = parts.length === 2 ? [parts[0] ?? '', parts[1] ?? ''] : ['', parts[0] ?? ''];
  if (Buffer.byteLength(domain) >= MAX_DOMAIN_LENGTH) invalid(`runAsUserName's Domain length must be under ${MAX_DOMAIN_LENGTH} characters`);
  if (parts.length === 2 && !NETBIOS_DOMAIN.test(domain) && !DNS_DOMAIN.test(domain)) invalid("runAsUserName's Domain doesn't match the NetBios nor the DNS format");
  if (user === '') invalid("runAsUserName's User cannot be empty");
  else if (Buffer.byteLength(user) > MAX_USER_LENGTH) invalid(`runAsUserName's User length must not be longer than ${MAX_USER_LENGTH} characters`);
  if (DOTS_AND_SPACES.test(user)) invalid("runAsUserName's User cannot contain only periods or spaces");
  if (USER_NAME_FORBIDDEN.test(user)) invalid('runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]');
}

/**
 * validateWindowsHostProcessPod: a container's hostProcess agrees with the pod's when both are set; a pod with
 * one HostProcess container (set or inherited) has only HostProcess containers, and the host network. The API
 * checks this whatever `os.name` says. Its third rule, that the cluster policy allows privileged containers,
 * always holds on a kubelet, which allows them.
 */
export function validateWindowsHostProcessPod(spec: PodSpec, errors: string[]): void {
  const podHostProcess = spec.securityContext?.windowsOptions?.hostProcess;
  const containers = containersWithPaths(spec);
  let hostProcessContainers = 0;
  for (const [c, at] of containers) {
    const hostProcess = c.securityContext?.windowsOptions?.hostProcess;
    if (podHostProcess !== undefined && hostProcess !== undefined && podHostProcess !== hostProcess) {
      errors.push(`${at}.securityContext.windowsOptions.hostProcess: Invalid value: ${hostProcess}: pod hostProcess value must be identical if both are specified, was ${podHostProcess}`);
    }
    if (hostProcess ?? podHostProcess ?? false) hostProcessContainers++;
  }
  if (hostProcessContainers === 0) return;
  if (hostProcessContainers !== containers.length) {
    errors.push('spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers');
  }
  if (spec.hostNetwork !== true) errors.push('spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers');
}
