import { describe, expect, it } from 'vitest';
import type { Container, PodSpec } from '@podconfig/core';
import { validateWindowsHostProcessPod, validateWindowsOptions } from './validate-windows-options.js';

type WindowsOptions = NonNullable<NonNullable<Container['securityContext']>['windowsOptions']>;

const at = 'spec.securityContext.windowsOptions';
const options = (value: WindowsOptions): string[] => {
  const errors: string[] = [];
  validateWindowsOptions(value, at, errors);
  return errors;
};
const user = (runAsUserName: string): string[] => options({ runAsUserName });
const hostProcess = (spec: Partial<PodSpec>): string[] => {
  const errors: string[] = [];
  validateWindowsHostProcessPod({ containers: [{ name: 'main', image: 'x' }], ...spec }, errors);
  return errors;
};
const withHostProcess = (name: string, value?: boolean): Container =>
  ({ name, image: 'x', ...(value === undefined ? {} : { securityContext: { windowsOptions: { hostProcess: value } } }) });

describe(validateWindowsOptions.name, () => {
  it('accepts a GMSA credential spec and its name, and user names with a NetBIOS or DNS domain', () => {
    expect(options({ gmsaCredentialSpecName: 'webapp1', gmsaCredentialSpec: '{"ActiveDirectoryConfig":{}}', runAsUserName: 'ContainerUser' })).toEqual([]);
    expect(user('NT AUTHORITY\\NETWORK SERVICE')).toEqual([]);
    expect(user('contoso.com\\svc-app')).toEqual([]);
    expect(options({ gmsaCredentialSpec: 'x'.repeat(64 * 1024) })).toEqual([]);
  });

  it('requires a GMSA credential spec name that is a DNS-1123 subdomain, and a spec of 1 byte to 64 KiB, never shown', () => {
    expect(options({ gmsaCredentialSpecName: 'Bad_Name', gmsaCredentialSpec: '' })).toEqual([
      `${at}.gmsaCredentialSpecName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `${at}.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string`,
    ]);
    expect(options({ gmsaCredentialSpec: 'x'.repeat(64 * 1024 + 1) })).toEqual([`${at}.gmsaCredentialSpec: Invalid value: gmsaCredentialSpec size must be under 64 KiB`]);
  });

  it('refuses an empty user name, control characters and more than one backslash, one error each', () => {
    expect(user('')).toEqual([`${at}.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string`]);
    expect(user('user\tname')).toEqual([`${at}.runAsUserName: Invalid value: "user\\tname": runAsUserName cannot contain control characters`]);
    expect(user('a\\b\\c')).toEqual([`${at}.runAsUserName: Invalid value: "a\\\\b\\\\c": runAsUserName cannot contain more than one backslash`]);
  });

  it('checks the domain and the user part, the value written as encoding/json writes it', () => {
    const longDomain = 'd'.repeat(256);
    expect(user(`${longDomain}\\u`)).toEqual([
      `${at}.runAsUserName: Invalid value: "${longDomain}\\\\u": runAsUserName's Domain length must be under 256 characters`,
      `${at}.runAsUserName: Invalid value: "${longDomain}\\\\u": runAsUserName's Domain doesn't match the NetBios nor the DNS format`,
    ]);
    expect(user('.bad\\u')).toEqual([`${at}.runAsUserName: Invalid value: ".bad\\\\u": runAsUserName's Domain doesn't match the NetBios nor the DNS format`]);
    expect(user('corp\\')).toEqual([`${at}.runAsUserName: Invalid value: "corp\\\\": runAsUserName's User cannot be empty`]);
    expect(user('u'.repeat(105))).toEqual([`${at}.runAsUserName: Invalid value: "${'u'.repeat(105)}": runAsUserName's User length must not be longer than 104 characters`]);
    expect(user('. .')).toEqual([`${at}.runAsUserName: Invalid value: ". .": runAsUserName's User cannot contain only periods or spaces`]);
    expect(user('us<er')).toEqual([`${at}.runAsUserName: Invalid value: "us\\u003cer": runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`]);
  });
});

describe(validateWindowsHostProcessPod.name, () => {
  it('accepts HostProcess containers on the host network, set on the pod or on every container', () => {
    expect(hostProcess({ hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true } }, containers: [withHostProcess('a'), withHostProcess('b', true)] })).toEqual([]);
    expect(hostProcess({ hostNetwork: true, initContainers: [withHostProcess('init', true)], containers: [withHostProcess('a', true)] })).toEqual([]);
    expect(hostProcess({ containers: [withHostProcess('a', false)] })).toEqual([]);
  });

  it('requires the pod\'s and a container\'s hostProcess to agree, all containers HostProcess, and the host network', () => {
    expect(hostProcess({ securityContext: { windowsOptions: { hostProcess: true } }, containers: [withHostProcess('a'), withHostProcess('b', false)] })).toEqual([
      'spec.containers[1].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true',
      'spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers',
      'spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers',
    ]);
  });
});
