import { describe, expect, it } from 'vitest';
import type { Container, PodSpec } from '@podconfig/core';
import { validateEnv, validateEnvFrom, validateFileKeyRefVolumes } from './validate-env.js';

type EnvVar = NonNullable<Container['env']>[number];
const env = (...vars: EnvVar[]): string[] => {
  const errors: string[] = [];
  validateEnv(vars, 'spec.containers[0].env', errors);
  return errors;
};
const envFrom = (...sources: NonNullable<Container['envFrom']>): string[] => {
  const errors: string[] = [];
  validateEnvFrom(sources, 'spec.containers[0].envFrom', errors);
  return errors;
};
const from = 'spec.containers[0].env[0].valueFrom';
const fieldRef = (fieldPath: string, apiVersion = 'v1'): EnvVar => ({ name: 'X', valueFrom: { fieldRef: { apiVersion, fieldPath } } });
const resourceRef = (resource: string, divisor?: string): EnvVar => ({ name: 'X', valueFrom: { resourceFieldRef: { resource, ...(divisor === undefined ? {} : { divisor }) } } });

describe(validateEnv.name, () => {
  it('accepts printable ASCII names other than =, and one source of each kind', () => {
    expect(env(
      { name: '1st.var-name with space', value: 'x' }, fieldRef('metadata.labels[\'app.kubernetes.io/name\']'), fieldRef('status.podIPs'),
      fieldRef('spec.host'), resourceRef('limits.memory', '1Mi'), resourceRef('requests.cpu', '1m'), resourceRef('limits.hugepages-2Mi', '1Ki'),
      { name: 'C', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'app.conf' } } }, { name: 'S', valueFrom: { secretKeyRef: { name: 'sec', key: 'password' } } },
    )).toEqual([]);
  });

  it('refuses names with characters other than printable ASCII', () => {
    expect(env({ name: 'tab\there', value: 'x' }, { name: 'ümlaut', value: 'x' })).toEqual([
      'spec.containers[0].env[0].name: Invalid value: "tab\\there": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
      'spec.containers[0].env[1].name: Invalid value: "ümlaut": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
    ]);
  });

  it('requires exactly one source, and no value beside it, without showing the value', () => {
    expect(env({ name: 'X', valueFrom: {} })).toEqual([
      `${from}: Invalid value: must specify one of: \`fieldRef\`, \`resourceFieldRef\`, \`configMapKeyRef\`, \`secretKeyRef\` or \`fileKeyRef\``,
    ]);
    const two = env({ name: 'X', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' }, resourceFieldRef: { resource: 'limits.cpu' } } });
    expect(two).toEqual([`${from}: Invalid value: may not have more than one field specified at a time`]);
    const withValue = env({ name: 'X', value: 'hunter2', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } });
    expect(withValue).toEqual([`${from}: Invalid value: may not be specified when \`value\` is not empty`]);
    expect(withValue.join()).not.toContain('hunter2');
    // An env file source (fileKeyRef, newer than the pod types) is a source.
    expect(env({ name: 'X', valueFrom: { fileKeyRef: { volumeName: 'v', path: 'a.env', key: 'K' } } as NonNullable<EnvVar['valueFrom']> })).toEqual([]);
  });

  it('checks field references: apiVersion, field path, and the key of a label or annotation', () => {
    expect(env(fieldRef('metadata.name', ''))).toEqual([`${from}.fieldRef.apiVersion: Required value`]);
    expect(env(fieldRef(''))).toEqual([`${from}.fieldRef.fieldPath: Required value`]);
    expect(env(fieldRef('metadata.name', 'v2'))).toEqual([`${from}.fieldRef.fieldPath: Invalid value: "metadata.name": error converting fieldPath: unsupported pod version: v2`]);
    expect(env(fieldRef('spec.containers'))).toEqual([`${from}.fieldRef.fieldPath: Invalid value: "spec.containers": error converting fieldPath: field label not supported: spec.containers`]);
    expect(env(fieldRef('metadata.name[\'x\']'))).toEqual([
      `${from}.fieldRef.fieldPath: Invalid value: "metadata.name['x']": error converting fieldPath: field label does not support subscript: metadata.name['x']`,
    ]);
    expect(env(fieldRef('status.phase'))).toEqual([
      `${from}.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`,
    ]);
    expect(env(fieldRef('metadata.labels[\'bad key\']'))).toEqual([
      `${from}.fieldRef: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });

  it('checks resource references: a container resource, and a unit divisor that suits it', () => {
    expect(env(resourceRef(''))).toEqual([`${from}.resourceFieldRef.resource: Required value`]);
    expect(env(resourceRef('limits.gpu'))).toEqual([
      `${from}.resourceFieldRef.resource: Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"`,
    ]);
    expect(env(resourceRef('limits.cpu', '2'))).toEqual([`${from}.resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`]);
    // 1024 keeps its decimal form, so it is no 1Ki.
    expect(env(resourceRef('requests.memory', '1024'))).toEqual([
      `${from}.resourceFieldRef.divisor: Invalid value: "requests.memory": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource`,
    ]);
    expect(env(resourceRef('limits.ephemeral-storage', '1m'))).toEqual([
      `${from}.resourceFieldRef.divisor: Invalid value: "limits.ephemeral-storage": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource`,
    ]);
    expect(env(resourceRef('limits.hugepages-1Gi', '3'))).toEqual([
      `${from}.resourceFieldRef.divisor: Invalid value: "limits.hugepages-1Gi": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource`,
    ]);
    expect(env(resourceRef('limits.cpu', '1000m'), resourceRef('limits.memory', '1000'))).toEqual([]);
  });

  it('checks ConfigMap and Secret key references: an object name and a key', () => {
    expect(env({ name: 'X', valueFrom: { configMapKeyRef: { name: 'Cfg', key: '' } } }, { name: 'Y', valueFrom: { secretKeyRef: { name: 'sec', key: '../k' } } })).toEqual([
      `${from}.configMapKeyRef.name: Invalid value: "Cfg": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `${from}.configMapKeyRef.key: Required value`,
      'spec.containers[0].env[1].valueFrom.secretKeyRef.key: Invalid value: "../k": a valid config key must consist of alphanumeric characters, \'-\', \'_\' or \'.\' (e.g. \'key.name\',  or \'KEY_NAME\',  or \'key-name\', regex used for validation is \'[-._a-zA-Z0-9]+\')',
      'spec.containers[0].env[1].valueFrom.secretKeyRef.key: Invalid value: "../k": must not start with \'..\'',
    ]);
  });
});

describe('fileKeyRef', () => {
  const fileRef = (ref: Record<string, string>): EnvVar => ({ name: 'X', valueFrom: { fileKeyRef: ref } as NonNullable<EnvVar['valueFrom']> });
  const at = `${from}.fileKeyRef`;

  it('accepts a key that is an environment variable name, a volume name and a path in it', () => {
    expect(env(fileRef({ volumeName: 'config', path: 'env/app.env', key: 'DB.HOST-1' }))).toEqual([]);
  });

  it('requires the key, the volume name and the path', () => {
    expect(env(fileRef({}))).toEqual([`${at}.key: Required value`, `${at}.volumeName: Required value`, `${at}.path: Required value`]);
  });

  it('checks the key as an env name, the volume name as a DNS-1123 label, and the path for backsteps', () => {
    expect(env(fileRef({ volumeName: 'Config', path: '../app.env', key: 'A=B' }))).toEqual([
      `${at}.key: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      `${at}.volumeName: Invalid value: "Config": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      `${at}.path: Invalid value: "../app.env": must not contain '..'`,
    ]);
  });
});

describe(validateFileKeyRefVolumes.name, () => {
  const spec = (volumes: NonNullable<PodSpec['volumes']>, volumeName: string): PodSpec => ({
    volumes,
    initContainers: [{ name: 'init', image: 'x' }],
    containers: [{ name: 'main', image: 'x', env: [{ name: 'A', value: 'a' }, { name: 'B', valueFrom: { fileKeyRef: { volumeName, path: 'a.env', key: 'B' } } as NonNullable<EnvVar['valueFrom']> }] }],
  });
  const run = (s: PodSpec): string[] => {
    const errors: string[] = [];
    validateFileKeyRefVolumes(s, errors);
    return errors;
  };

  it('accepts an env file read from an emptyDir volume of the pod', () => {
    expect(run(spec([{ name: 'config', emptyDir: {} }], 'config'))).toEqual([]);
  });

  it('requires the volume to exist and to be an emptyDir', () => {
    expect(run(spec([{ name: 'config', emptyDir: {} }], 'other'))).toEqual(['spec.containers[0].env[1].valueFrom.fileKeyRef.volumeName: Not found: "other"']);
    expect(run(spec([{ name: 'config', hostPath: { path: '/etc/app' } }], 'config')))
      .toEqual(['spec.containers[0].env[1].valueFrom.fileKeyRef.volumeName: Invalid value: "config": referenced volume must be of type emptyDir']);
  });
});

describe(validateEnvFrom.name, () => {
  it('accepts one source with a valid prefix; a name may end in - (a prefix)', () => {
    expect(envFrom({ prefix: 'APP_', configMapRef: { name: 'app-config' } }, { secretRef: { name: 'creds-' } })).toEqual([]);
    // maskTrailingDash replaces the last two characters: `a-.-` is checked as `a-a`, `a.-` as `a`.
    expect(envFrom({ configMapRef: { name: 'a-.-' } }, { secretRef: { name: 'a.-' } })).toEqual([]);
  });

  it('requires exactly one of configMapRef and secretRef, reported at the list', () => {
    expect(envFrom({ prefix: 'X_' })).toEqual(['spec.containers[0].envFrom: Invalid value: must specify one of: `configMapRef` or `secretRef`']);
    expect(envFrom({ configMapRef: { name: 'a' }, secretRef: { name: 'b' } })).toEqual(['spec.containers[0].envFrom: Invalid value: may not have more than one field specified at a time']);
  });

  it('checks the prefix and the referenced names', () => {
    expect(envFrom({ prefix: 'A=', configMapRef: {} }, { secretRef: { name: 'Bad_Name' } })).toEqual([
      'spec.containers[0].envFrom[0].prefix: Invalid value: "A=": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
      'spec.containers[0].envFrom[0].configMapRef.name: Required value',
      'spec.containers[0].envFrom[1].secretRef.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    ]);
  });
});
