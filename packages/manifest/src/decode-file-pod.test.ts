import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, ConfigInvalidError, PodConfigError, type Pod } from '@podconfig/core';
import { fixturePath, podManifestYaml } from '@podconfig/testing';
import { decodeFilePod } from './decode-file-pod.js';
import { decodeHttpPods } from './decode-http-pods.js';
import type { DecodeOptions } from './manifest-origin.js';
import { ManifestInvalidError } from './manifest-invalid-error.js';
import { MAX_MANIFEST_BYTES } from './max-manifest-bytes.js';

const file = (path: string, nodeName = 'Node-A'): DecodeOptions => ({ nodeName, origin: { kind: 'file', path } });
const NO_EXECUTE = { operator: 'Exists', effect: 'NoExecute' };

/** Decodes a fixture from its real path. */
async function decodeFixture(name: string, nodeName = 'Node-A'): Promise<Pod> {
  const path = fixturePath('manifests', name);
  return decodeFilePod(await readFile(path), file(path, nodeName));
}

/** The ManifestInvalidError a decode throws (fails the test if it does not throw one). */
function rejection(run: () => unknown): ManifestInvalidError {
  try {
    run();
  } catch (err: unknown) {
    expect(err).toBeInstanceOf(ManifestInvalidError);
    expect(PodConfigError.is(err)).toBe(true);
    return err as ManifestInvalidError;
  }
  throw new Error('expected the manifest to be rejected');
}

async function fixtureRejection(name: string): Promise<ManifestInvalidError> {
  const path = fixturePath('manifests', name);
  const data = await readFile(path);
  const err = rejection(() => decodeFilePod(data, file(path)));
  expect(err.origin).toBe(path);
  expect(err.message.startsWith(`${path}: `)).toBe(true);
  return err;
}

const withExtra = (extra: string, name = 'web'): string => podManifestYaml(name, { extra });

describe(decodeFilePod.name, () => {
  describe('kubelet defaults', () => {
    it('suffixes the name, defaults the namespace, sets node, phase and the hash annotation (checklist 1)', () => {
      const pod = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml'));
      expect(pod.apiVersion).toBe('v1');
      expect(pod.kind).toBe('Pod');
      expect(pod.metadata?.name).toBe('web-node-a');
      expect(pod.metadata?.namespace).toBe('default');
      expect(pod.spec?.nodeName).toBe('Node-A');
      expect(pod.status?.phase).toBe('Pending');
      expect(pod.metadata?.annotations?.[ANNOTATIONS.configHash]).toBe(pod.metadata?.uid);
    });

    it('lowercases the node name in the suffix only (checklist 19)', () => {
      const pod = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml', 'Node-A'));
      expect(pod.metadata?.name).toBe('web-node-a');
      expect(pod.spec?.nodeName).toBe('Node-A');
    });

    it('keeps a namespace given in the manifest (checklist 18)', async () => {
      const pod = await decodeFixture('valid/kube-system.yaml');
      expect(pod.metadata?.namespace).toBe('kube-system');
    });

    it('computes a deterministic UID of 32 lowercase hex characters (checklist 2)', () => {
      const a = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml'));
      const b = decodeFilePod(Buffer.from(podManifestYaml('web')), file('/m/web.yaml'));
      expect(a.metadata?.uid).toMatch(/^[0-9a-f]{32}$/);
      expect(b.metadata?.uid).toBe(a.metadata?.uid);
    });

    it('gives different UIDs to the same content in different files (checklist 3)', () => {
      const a = decodeFilePod(podManifestYaml('a'), file('/m/a.yaml'));
      const b = decodeFilePod(podManifestYaml('b'), file('/m/b.yaml'));
      const sameContentOtherPath = decodeFilePod(podManifestYaml('a'), file('/m/b.yaml'));
      expect(a.metadata?.uid).not.toBe(b.metadata?.uid);
      expect(a.metadata?.uid).not.toBe(sameContentOtherPath.metadata?.uid);
    });

    it('gives different UIDs to the same manifest on different nodes (checklist 4)', () => {
      const a = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml', 'node-a'));
      const b = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml', 'node-b'));
      expect(a.metadata?.uid).not.toBe(b.metadata?.uid);
    });

    it('uses a pinned metadata.uid verbatim, also as the hash annotation (checklist 5)', async () => {
      const pod = await decodeFixture('valid/pinned-uid.yaml');
      expect(pod.metadata?.uid).toBe('3f1e2d4c-0000-4000-8000-00000000abcd');
      expect(pod.metadata?.annotations?.[ANNOTATIONS.configHash]).toBe('3f1e2d4c-0000-4000-8000-00000000abcd');
      const abc = decodeFilePod(podManifestYaml('web').replace('  name: web', '  name: web\n  uid: abc'), file('/m/web.yaml'));
      expect(abc.metadata?.uid).toBe('abc');
      expect(abc.metadata?.annotations?.[ANNOTATIONS.configHash]).toBe('abc');
    });

    it('adds exactly one NoExecute toleration to a file pod (checklist 6)', () => {
      const pod = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml'));
      expect(pod.spec?.tolerations).toEqual([NO_EXECUTE]);
    });

    it('does not duplicate an identical NoExecute toleration (checklist 7)', async () => {
      const pod = await decodeFixture('valid/existing-toleration.yaml');
      expect(pod.spec?.tolerations).toEqual([
        NO_EXECUTE,
        { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
      ]);
    });

    it('replaces a matching NoExecute toleration that differs only in tolerationSeconds', () => {
      const pod = decodeFilePod(withExtra('  tolerations:\n  - {operator: Exists, effect: NoExecute, tolerationSeconds: 60}'), file('/m/web.yaml'));
      expect(pod.spec?.tolerations).toEqual([NO_EXECUTE]);
    });

    it('keeps other status fields and sets the phase to Pending', () => {
      const pod = decodeFilePod(`${podManifestYaml('web')}status:\n  phase: Running\n  message: hello\n`, file('/m/web.yaml'));
      expect(pod.status).toEqual({ phase: 'Pending', message: 'hello' });
    });

    it('keeps existing annotations next to the hash annotation', () => {
      const pod = decodeFilePod(podManifestYaml('web').replace('  name: web', '  name: web\n  annotations: {team: infra}'), file('/m/web.yaml'));
      expect(pod.metadata?.annotations).toEqual({ team: 'infra', [ANNOTATIONS.configHash]: pod.metadata?.uid });
    });
  });

  describe('UID stability (D6, checklist 17)', () => {
    it('gives the same UID to a reformatted, commented copy with explicit defaults', async () => {
      const path = '/etc/kubernetes/manifests/web.yaml';
      const original = decodeFilePod(await readFile(fixturePath('manifests/valid/pod.yaml')), file(path));
      const reformatted = decodeFilePod(await readFile(fixturePath('manifests/valid/pod-reformatted.yaml')), file(path));
      expect(reformatted.metadata?.uid).toBe(original.metadata?.uid);
      expect(reformatted).toEqual(original);
    });

    it('gives the same UID to the JSON form of a YAML manifest', () => {
      const yaml = podManifestYaml('web');
      const json = JSON.stringify({
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
        spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
      });
      expect(decodeFilePod(json, file('/m/web.yaml')).metadata?.uid).toBe(decodeFilePod(yaml, file('/m/web.yaml')).metadata?.uid);
    });

    it('ignores comments, key order and empty values', () => {
      const base = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml')).metadata?.uid;
      const variants = [
        `# a comment\n${podManifestYaml('web')}# another\n`,
        'kind: Pod\napiVersion: v1\nspec:\n  containers:\n  - image: registry.k8s.io/pause:3.10\n    name: main\nmetadata:\n  name: web\n',
        `${podManifestYaml('web')}status: {}\n`,
        podManifestYaml('web').replace('  name: web', '  name: web\n  labels: {}\n  creationTimestamp: null'),
        withExtra('    args: []\n    workingDir: ""'),
      ];
      for (const yaml of variants) expect(decodeFilePod(yaml, file('/m/web.yaml')).metadata?.uid).toBe(base);
    });

    it('drops empty objects where the API types hold a struct value, so adding or removing `resources: {}` changes nothing', () => {
      const plain = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml'));
      const generated = decodeFilePod(withExtra('    resources: {}').replace('  name: web', '  name: web\n  creationTimestamp: null') + 'status: {}\n', file('/m/web.yaml'));
      // What the merger compares: the whole pod, not only the UID.
      expect(generated).toEqual(plain);
      expect(generated.spec?.containers[0]).not.toHaveProperty('resources');
      // A pointer-valued struct (securityContext) and a map (nodeSelector) keep their empty value: Go tells it from nil.
      const pointer = decodeFilePod(withExtra('    securityContext: {}\n  nodeSelector: {}'), file('/m/web.yaml'));
      expect(pointer.spec?.containers[0]?.securityContext).toEqual({});
      expect(pointer.spec?.nodeSelector).toEqual({});
    });

    it('drops empty strings where the API types hold a string value (workingDir), keeps them where a pointer (a DNS option value)', () => {
      const plain = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml'));
      const explicit = decodeFilePod(withExtra('    workingDir: ""\n    terminationMessagePath: ""\n  hostname: ""'), file('/m/web.yaml'));
      // terminationMessagePath "" is no value: it is defaulted as if absent, as the kubelet's defaulting does.
      expect(explicit).toEqual(plain);
      // A pointer no default fills (PodDNSConfigOption.Value is a *string): an empty string there is a value.
      const absent = decodeFilePod(withExtra('  dnsConfig: {options: [{name: ndots}]}'), file('/m/web.yaml'));
      const pointer = decodeFilePod(withExtra('  dnsConfig: {options: [{name: ndots, value: ""}]}'), file('/m/web.yaml'));
      expect(absent.spec?.dnsConfig?.options?.[0]).not.toHaveProperty('value');
      expect(pointer.spec?.dnsConfig?.options?.[0]?.value).toBe('');
      expect(pointer.metadata?.uid).toBe(absent.metadata?.uid); // the UID (D6) leaves every "" out
    });

    it('gives quantities written as numbers or strings the same UID', () => {
      const number = decodeFilePod(withExtra('    resources: {limits: {cpu: 1}}'), file('/m/web.yaml'));
      const string = decodeFilePod(withExtra('    resources: {limits: {cpu: "1"}}'), file('/m/web.yaml'));
      expect(number.spec?.containers[0]?.resources).toEqual({ limits: { cpu: '1' }, requests: { cpu: '1' } });
      expect(number.metadata?.uid).toBe(string.metadata?.uid);
    });

    it('ignores values written out that equal their API default', () => {
      const base = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml')).metadata?.uid;
      const explicit = [
        '  restartPolicy: Always',
        '  dnsPolicy: ClusterFirst',
        '  terminationGracePeriodSeconds: 30',
        '  schedulerName: default-scheduler',
        '  enableServiceLinks: true',
        '  securityContext: {}',
        '    imagePullPolicy: IfNotPresent',
        '    terminationMessagePath: /dev/termination-log',
        '    terminationMessagePolicy: File',
      ];
      for (const extra of explicit) expect(decodeFilePod(withExtra(extra), file('/m/web.yaml')).metadata?.uid).toBe(base);
    });

    it('changes the UID for any other change of content', () => {
      const base = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml')).metadata?.uid;
      const changes = [
        podManifestYaml('web', { image: 'registry.k8s.io/pause:3.9' }),
        podManifestYaml('web2'),
        podManifestYaml('web', { namespace: 'default' }),
        withExtra('  restartPolicy: Never'),
        withExtra('    args: ["x"]'),
        withExtra('  hostNetwork: true'),
        withExtra('  automountServiceAccountToken: false'),
        `${podManifestYaml('web')}status:\n  message: hi\n`,
      ];
      const uids = changes.map((yaml) => decodeFilePod(yaml, file('/m/web.yaml')).metadata?.uid);
      for (const uid of uids) expect(uid).not.toBe(base);
      expect(new Set(uids).size).toBe(uids.length);
    });

    it('keeps the UID and the pod when a Go bool or number value is written out at its zero value (spec §1.4: false and 0 are no field there)', () => {
      const plain = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml'));
      const explicit = decodeFilePod(withExtra('    tty: false\n    stdin: false\n  hostNetwork: false\n  hostPID: false'), file('/m/web.yaml'));
      expect(explicit).toEqual(plain);
      // A pointer's false is a value, told from no value by Go too.
      const pointer = decodeFilePod(withExtra('  automountServiceAccountToken: false'), file('/m/web.yaml'));
      expect(pointer.spec?.automountServiceAccountToken).toBe(false);
      // A required number (no omitempty) is written by Go at 0 too: it stays (an iSCSI volume's first LUN).
      const required = decodeFilePod(withExtra('  volumes: [{name: data, iscsi: {targetPortal: "10.0.0.1:3260", iqn: "iqn.2001-04.com.example:disk", lun: 0}}]'), file('/m/web.yaml'));
      expect(required.spec?.volumes?.[0]?.iscsi?.lun).toBe(0);
    });
  });

  describe('API defaults', () => {
    it('applies the pod, spec and container defaults', () => {
      const pod = decodeFilePod(podManifestYaml('web'), file('/m/web.yaml'));
      expect(pod.spec).toMatchObject({
        restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30,
        schedulerName: 'default-scheduler', enableServiceLinks: true, securityContext: {},
      });
      expect(pod.spec?.containers[0]).toEqual({
        name: 'main', image: 'registry.k8s.io/pause:3.10', imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
      });
    });

    it('derives imagePullPolicy from the tag', () => {
      const policy = (image: string): string | undefined =>
        decodeFilePod(podManifestYaml('web', { image }), file('/m/web.yaml')).spec?.containers[0]?.imagePullPolicy;
      expect(policy('nginx')).toBe('Always');
      expect(policy('nginx:latest')).toBe('Always');
      expect(policy('nginx:1.27')).toBe('IfNotPresent');
      expect(policy(`nginx@sha256:${'a'.repeat(64)}`)).toBe('IfNotPresent');
      expect(policy(`nginx:latest@sha256:${'a'.repeat(64)}`)).toBe('Always');
      expect(policy('localhost:5000/team/app')).toBe('Always');
      expect(policy('localhost:5000/team/app:v2')).toBe('IfNotPresent');
    });

    it('defaults dnsPolicy to ClusterFirst on the host network too (SetDefaults_PodSpec does not look at hostNetwork)', () => {
      const pod = decodeFilePod(withExtra('  hostNetwork: true'), file('/m/web.yaml'));
      expect(pod.spec?.hostNetwork).toBe(true);
      expect(pod.spec?.dnsPolicy).toBe('ClusterFirst');
    });

    it('keeps an explicit imagePullPolicy', () => {
      const pod = decodeFilePod(withExtra('    imagePullPolicy: Never'), file('/m/web.yaml'));
      expect(pod.spec?.containers[0]?.imagePullPolicy).toBe('Never');
    });

    it('defaults init containers, ports, probes, handlers and env field references', () => {
      const yaml = [
        'apiVersion: v1', 'kind: Pod', 'metadata: {name: web}', 'spec:',
        '  initContainers:', '  - {name: init, image: "busybox:1.36"}',
        '  containers:', '  - name: main', '    image: registry.k8s.io/pause:3.10',
        '    ports: [{containerPort: 8080}]',
        '    env: [{name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]',
        '    livenessProbe: {httpGet: {port: 8080}}',
        '    readinessProbe: {grpc: {port: 9090}}',
        '    lifecycle: {preStop: {httpGet: {port: 8080}}}',
        '    resources: {limits: {cpu: 500m, memory: 1Gi}, requests: {cpu: 100m}}',
        '',
      ].join('\n');
      const pod = decodeFilePod(yaml, file('/m/web.yaml'));
      const init = pod.spec?.initContainers?.[0];
      expect(init).toMatchObject({ imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' });
      const main = pod.spec?.containers[0];
      expect(main?.ports).toEqual([{ containerPort: 8080, protocol: 'TCP' }]);
      expect(main?.env?.[0]?.valueFrom?.fieldRef).toEqual({ fieldPath: 'spec.nodeName', apiVersion: 'v1' });
      expect(main?.livenessProbe).toEqual({
        httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3,
      });
      expect(main?.readinessProbe?.grpc).toEqual({ port: 9090, service: '' });
      expect(main?.lifecycle?.preStop?.httpGet).toEqual({ port: 8080, path: '/', scheme: 'HTTP' });
      expect(main?.resources).toEqual({ limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '100m', memory: '1Gi' } });
    });

    it('defaults host ports to container ports on the host network', () => {
      const yaml = 'apiVersion: v1\nkind: Pod\nmetadata: {name: etcd}\nspec:\n  hostNetwork: true\n' +
        '  containers:\n  - {name: etcd, image: "registry.k8s.io/etcd:3.5.21-0", ports: [{containerPort: 2379}]}\n';
      const pod = decodeFilePod(yaml, file('/m/etcd.yaml'));
      expect(pod.spec?.containers[0]?.ports).toEqual([{ containerPort: 2379, hostPort: 2379, protocol: 'TCP' }]);
    });

    it('defaults volumes: empty source, hostPath type, downwardAPI mode and field version', async () => {
      const pod = decodeFilePod(withExtra('  volumes:\n  - name: scratch\n  - {name: logs, hostPath: {path: /var/log}}\n  - {name: info, downwardAPI: {items: [{path: l, fieldRef: {fieldPath: metadata.labels}}]}}'), file('/m/web.yaml'));
      expect(pod.spec?.volumes).toEqual([
        { name: 'scratch', emptyDir: {} },
        { name: 'logs', hostPath: { path: '/var/log', type: '' } },
        { name: 'info', downwardAPI: { defaultMode: 0o644, items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels', apiVersion: 'v1' } }] } },
      ]);
      const fixture = await decodeFixture('valid/kube-system.yaml');
      expect(fixture.spec?.volumes?.map((v) => v.name)).toEqual(['logs', 'scratch', 'podinfo']);
    });
  });

  describe('YAML and JSON input', () => {
    it('decodes a JSON pod', async () => {
      const pod = await decodeFixture('valid/pod.json');
      expect(pod.metadata?.name).toBe('api-node-a');
      expect(pod.spec?.containers[0]?.args).toEqual(['--port=8080']);
    });

    it('reads only the first YAML document', async () => {
      const pod = await decodeFixture('valid/multi-document.yaml');
      expect(pod.metadata?.name).toBe('first-node-a');
    });

    it('ignores a broken document after the first one', () => {
      const pod = decodeFilePod(`${podManifestYaml('web')}---\n: : [\n`, file('/m/web.yaml'));
      expect(pod.metadata?.name).toBe('web-node-a');
    });

    it('reads YAML 1.1 like the kubelet: octal modes, and base-60 looking strings stay strings', () => {
      const pod = decodeFilePod(withExtra('    args: [22:22]\n  volumes:\n  - {name: info, downwardAPI: {defaultMode: 0600, items: []}}'), file('/m/web.yaml'));
      expect(pod.spec?.volumes?.[0]?.downwardAPI?.defaultMode).toBe(0o600);
      expect(pod.spec?.containers[0]?.args).toEqual(['22:22']);
    });

    it('reads plain scalars as go-yaml v2 does: `.`, `e1` and `.e5` are strings, `0o17` a number', () => {
      const pod = decodeFilePod(withExtra('    args: [find, ., -name, e1, .e5, E0]\n  volumes:\n  - {name: info, downwardAPI: {defaultMode: 0o17, items: []}}'), file('/m/web.yaml'));
      expect(pod.spec?.containers[0]?.args).toEqual(['find', '.', '-name', 'e1', '.e5', 'E0']);
      expect(pod.spec?.volumes?.[0]?.downwardAPI?.defaultMode).toBe(0o17);
    });

    it('strips a UTF-8 byte order mark', () => {
      const pod = decodeFilePod(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(podManifestYaml('web'))]), file('/m/web.yaml'));
      expect(pod.metadata?.name).toBe('web-node-a');
    });

    it('strips a UTF-8 byte order mark before JSON, given as bytes or as a string', () => {
      // JSON.parse takes no BOM for whitespace: only a stripped one lets the text through the JSON path.
      const json = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] } });
      const plain = decodeFilePod(json, file('/m/web.json'));
      const bytes = decodeFilePod(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)]), file('/m/web.json'));
      const string = decodeFilePod(`\uFEFF${json}`, file('/m/web.json'));
      expect(bytes.metadata?.uid).toBe(plain.metadata?.uid);
      expect(string.metadata?.uid).toBe(plain.metadata?.uid);
      expect(string).toEqual(plain);
    });

    it('reads CRLF line endings like LF: \\r is no control character to reject', () => {
      const lf = decodeFilePod(withExtra('    args: ["a b", c]'), file('/m/web.yaml'));
      const crlf = decodeFilePod(withExtra('    args: ["a b", c]').replaceAll('\n', '\r\n'), file('/m/web.yaml'));
      expect(crlf.metadata?.uid).toBe(lf.metadata?.uid);
      expect(crlf).toEqual(lf);
    });

    it('takes text starting with { after leading whitespace as JSON too: no trailing comma, the last of repeated keys wins', () => {
      // As YAML flow style the trailing comma would be fine and the repeated key an error: JSON is the other way round.
      const trailing = '\n{"apiVersion": "v1",\n "kind": "Pod",}';
      expect(rejection(() => decodeFilePod(trailing, file('/m/x.json'))).reason).toBe('invalid JSON at line 3, column 16: Expected double-quoted property name');
      const repeated = '\n  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "first", "name": "web"},'
        + ' "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]}}';
      expect(decodeFilePod(repeated, file('/m/x.json')).metadata?.name).toBe('web-node-a');
    });

    it('accepts a manifest of exactly MAX_MANIFEST_BYTES, the kubelet\'s 10 MiB, and rejects one byte more (checklist 16)', () => {
      expect(MAX_MANIFEST_BYTES).toBe(10_485_760);
      const json = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big' }, spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] } });
      const exact = json + ' '.repeat(MAX_MANIFEST_BYTES - json.length);
      expect(Buffer.byteLength(exact)).toBe(MAX_MANIFEST_BYTES);
      expect(decodeFilePod(exact, file('/m/big.json')).metadata?.name).toBe('big-node-a');
      const err = rejection(() => decodeFilePod(`${exact} `, file('/m/big.json')));
      expect(err.code).toBe('PODCONFIG_MANIFEST_TOO_LARGE');
    });
  });

  describe('rejections', () => {
    it('throws ConfigInvalidError, not a manifest error, for a node name that is not one (a caller mistake)', () => {
      for (const nodeName of ['', ' ', 'node_a']) {
        const decode = (): Pod => decodeFilePod(podManifestYaml('web'), { nodeName, origin: { kind: 'file', path: '/m/web.yaml' } });
        expect(decode, nodeName).toThrow(ConfigInvalidError);
        expect(decode, nodeName).toThrow(/^decode options: nodeName: /);
      }
      expect(() => decodeHttpPods(podManifestYaml('web'), { nodeName: '', origin: { kind: 'url', url: 'http://127.0.0.1/p' } })).toThrow(ConfigInvalidError);
    });

    it('rejects a manifest without a name (checklist 8)', async () => {
      const err = await fixtureRejection('invalid/missing-name.yaml');
      expect(err.code).toBe('PODCONFIG_MANIFEST_INVALID');
      expect(err.reason).toBe('invalid pod: name is needed for the pod');
    });

    it('rejects a manifest without kind or apiVersion (checklist 9)', async () => {
      expect((await fixtureRejection('invalid/missing-kind.yaml')).reason).toMatch(/Object 'Kind' is missing/);
      const noVersion = rejection(() => decodeFilePod(podManifestYaml('web').replace('apiVersion: v1\n', ''), file('/m/web.yaml')));
      expect(noVersion.reason).toMatch(/Object 'apiVersion' is missing/);
    });

    it('rejects a PodList in a file (checklist 10)', async () => {
      const err = await fixtureRejection('valid/pod-list.yaml');
      expect(err.reason).toMatch(/couldn't parse as pod/);
      expect(err.reason).toContain('"PodList"');
    });

    it('rejects other kinds and other API versions, naming them', async () => {
      expect((await fixtureRejection('invalid/non-pod-kind.yaml')).reason).toMatch(/couldn't parse as pod: got kind "Service"/);
      const apps = rejection(() => decodeFilePod(podManifestYaml('web').replace('apiVersion: v1', 'apiVersion: apps/v1'), file('/m/web.yaml')));
      expect(apps.reason).toContain('apiVersion "apps/v1"');
    });

    it('rejects unknown fields, naming their paths', async () => {
      expect((await fixtureRejection('invalid/unknown-field.yaml')).reason).toBe('strict decoding error: unknown field "spec.containers[0].imagee"');
      const err = rejection(() => decodeFilePod(`${podManifestYaml('web')}  restartPolicyy: Always\nstatuss: {}\n`, file('/m/web.yaml')));
      expect(err.reason).toContain('unknown field "spec.restartPolicyy"');
      expect(err.reason).toContain('unknown field "statuss"');
    });

    it('rejects values of the wrong type without quoting them', () => {
      const err = rejection(() => decodeFilePod(withExtra('    env: [{name: PASSWORD, value: 12345}]\n  hostNetwork: "yes"'), file('/m/web.yaml')));
      expect(err.reason).toContain('spec.containers[0].env[0].value: must be a string, got number');
      expect(err.reason).toContain('spec.hostNetwork: must be a boolean, got string');
      expect(err.message).not.toContain('12345');
    });

    it('hints at quoting when a string field got a YAML boolean or number', () => {
      const err = rejection(() => decodeFilePod(podManifestYaml('web').replace('metadata:\n', 'metadata:\n  labels: {canary: yes, port: 8080}\n'), file('/m/web.yaml')));
      expect(err.reason).toContain('metadata.labels["canary"]: must be a string, got boolean (unquoted, true, false, yes, no, on, off, y and n are booleans in YAML: quote the value)');
      expect(err.reason).toContain('metadata.labels["port"]: must be a string, got number (an unquoted number is a number in YAML: quote the value)');
    });

    it('says which rejections may be of a Pod manifest with a mistake in it (mayDefinePod)', () => {
      const mayDefinePod = (text: string | Uint8Array): boolean => rejection(() => decodeFilePod(text, file('/m/x.yaml'))).mayDefinePod;
      // A Pod's manifest with a typo, a bad value, broken YAML or JSON, a mistyped kind or apiVersion field.
      expect(mayDefinePod(`${podManifestYaml('web')}  restartPolicyy: Always\n`)).toBe(true);
      expect(mayDefinePod(withExtra('    env: [{name: A, value: 1}]'))).toBe(true);
      expect(mayDefinePod(podManifestYaml('web').replace('image: ', 'image: ['))).toBe(true);
      expect(mayDefinePod('{"apiVersion": "v1", "kind": "Pod",}')).toBe(true);
      expect(mayDefinePod(podManifestYaml('web').replace('apiVersion: v1', 'apiVersion: v2'))).toBe(true);
      expect(mayDefinePod(podManifestYaml('web').replace('apiVersion: v1\n', ''))).toBe(true);
      expect(mayDefinePod(podManifestYaml('web').replace('kind: Pod', 'kindd: Pod'))).toBe(true);
      expect(mayDefinePod(podManifestYaml('web').replace('  name: web\n', ''))).toBe(true);
      // What never defined a pod: notes, empty files, comments, lists, other kinds, binary data.
      expect(mayDefinePod('notes about this directory\n')).toBe(false);
      expect(mayDefinePod('')).toBe(false);
      expect(mayDefinePod('# only a comment\n')).toBe(false);
      expect(mayDefinePod('- a\n- b\n')).toBe(false);
      expect(mayDefinePod('apiVersion: v1\nkind: PodList\nitems: []\n')).toBe(false);
      expect(mayDefinePod('apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n')).toBe(false);
      expect(mayDefinePod('kind: Deployment\nmetadata: {name: x}\n')).toBe(false);
      expect(mayDefinePod('settings: {a: 1}\n')).toBe(false);
      expect(mayDefinePod(new Uint8Array([0x6b, 0x00, 0x01]))).toBe(false);
      expect(mayDefinePod(new Uint8Array(MAX_MANIFEST_BYTES + 1).fill(0x20))).toBe(false);
    });

    it('rejects malformed quantities', () => {
      const err = rejection(() => decodeFilePod(withExtra('    resources: {limits: {memory: 100MB}}'), file('/m/web.yaml')));
      expect(err.reason).toMatch(/spec\.containers\[0\]\.resources\.limits\["memory"\]: quantities must match/);
    });

    it('rejects a pinned UID that is not a plain token: handlers name files by it (podconfig\'s rule)', async () => {
      expect((await fixtureRejection('invalid/uid-path.yaml')).reason)
        .toBe('invalid pod: metadata.uid: Invalid value: "../../victim.txt": must be 1-128 letters, digits, \'-\', \'.\' or \'_\', starting with a letter or digit');
      for (const uid of ['a/b', '.hidden', '..', '"x\\ty"', `a${'b'.repeat(128)}`]) {
        const err = rejection(() => decodeFilePod(podManifestYaml('web').replace('  name: web', `  name: web\n  uid: ${uid}`), file('/m/web.yaml')));
        expect(err.reason).toMatch(/^invalid pod: metadata\.uid: Invalid value: /);
      }
      for (const uid of ['3f1e2d4c-0000-4000-8000-00000000abcd', 'web_1.v2', `a${'b'.repeat(127)}`]) {
        expect(decodeFilePod(podManifestYaml('web').replace('  name: web', `  name: web\n  uid: ${uid}`), file('/m/web.yaml')).metadata?.uid).toBe(uid);
      }
    });

    it('rejects a name that is too long once suffixed', async () => {
      expect((await fixtureRejection('invalid/name-too-long.yaml')).reason).toMatch(/^invalid pod: metadata\.name: Invalid value: "n{253}-node-a": must be no more than 253 characters$/);
    });

    it('rejects a spec without containers, or a container without a name, as invalid, not as an internal error', () => {
      const noContainers = rejection(() => decodeFilePod('apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {restartPolicy: Always}\n', file('/m/web.yaml')));
      expect(noContainers.reason).toBe('invalid pod: spec.containers: Required value');
      const noName = rejection(() => decodeFilePod('apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{image: nginx}]}\n', file('/m/web.yaml')));
      expect(noName.reason).toBe('invalid pod: spec.containers[0].name: Required value');
    });

    it('rejects ephemeral containers (checklist 15)', async () => {
      expect((await fixtureRejection('invalid/ephemeral-containers.yaml')).reason).toBe('invalid pod: spec.ephemeralContainers: Forbidden: cannot be set on create');
    });

    it('rejects references to API objects (checklist 13)', async () => {
      for (const [name, resource] of [
        ['invalid/secret-volume.yaml', 'secrets'],
        ['invalid/service-account.yaml', 'serviceaccounts'],
        ['invalid/configmap-env.yaml', 'configmaps'],
      ] as const) {
        const err = await fixtureRejection(name);
        expect(err.code).toBe('PODCONFIG_MANIFEST_FORBIDDEN_REFERENCE');
        expect(err.reason).toBe(`static pods may not reference ${resource}`);
      }
    });

    it('accepts hostPath, emptyDir and downwardAPI volumes (checklist 14)', async () => {
      const pod = await decodeFixture('valid/kube-system.yaml');
      expect(pod.spec?.volumes?.map((v) => Object.keys(v).filter((k) => k !== 'name')[0])).toEqual(['hostPath', 'emptyDir', 'downwardAPI']);
    });

    it('rejects empty input', async () => {
      expect((await fixtureRejection('invalid/empty.yaml')).reason).toBe('manifest is empty');
      expect(rejection(() => decodeFilePod('  \n\n', file('/m/x.yaml'))).reason).toBe('manifest is empty');
      expect(rejection(() => decodeFilePod('# only a comment\n', file('/m/x.yaml'))).reason).toMatch(/^manifest is empty/);
      expect(rejection(() => decodeFilePod('---\n---\n', file('/m/x.yaml'))).reason).toMatch(/^manifest is empty/);
    });

    it('rejects binary garbage', async () => {
      expect((await fixtureRejection('invalid/binary-garbage.bin')).reason).toMatch(/binary data/);
      expect(rejection(() => decodeFilePod('apiVersion: v1\u0001\u0002', file('/m/x.yaml'))).reason).toMatch(/control characters/);
    });

    it('rejects documents that are not mappings', () => {
      expect(rejection(() => decodeFilePod('just some words', file('/m/x.yaml'))).reason).toMatch(/not a mapping: the document is a scalar string/);
      expect(rejection(() => decodeFilePod('- a\n- b\n', file('/m/x.yaml'))).reason).toMatch(/not a mapping: the document is an array$/);
      expect(rejection(() => decodeFilePod('42', file('/m/x.yaml'))).reason).toMatch(/not a mapping: the document is a number/);
    });

    it('rejects a YAML alias bomb without expanding it', async () => {
      expect((await fixtureRejection('invalid/alias-bomb.yaml')).reason).toMatch(/alias bomb/);
    });

    it('rejects YAML syntax errors with a position and without quoting the source', async () => {
      const err = await fixtureRejection('invalid/invalid-yaml.yaml');
      expect(err.reason).toMatch(/^invalid YAML at line \d+, column \d+: /);
      expect(err.reason).not.toContain('spec:');
    });

    it('reads text starting with { as JSON only, as the kubelet does: YAML flow style, trailing commas and 010 are errors', () => {
      for (const [text, reason] of [
        ['{apiVersion: v1, kind: Pod}', 'invalid JSON at line 1, column 2: Expected property name or \'}\''],
        ['{"apiVersion": "v1",\n "kind": "Pod",}', 'invalid JSON at line 2, column 16: Expected double-quoted property name'],
        ['{"apiVersion": "v1", "n": 010}', 'invalid JSON at line 1, column 28: Unexpected number'],
        ['{"apiVersion": SECRET}', 'invalid JSON'],
      ] as const) {
        expect(rejection(() => decodeFilePod(text, file('/m/x.json'))).reason).toBe(reason);
      }
    });

    it('rejects duplicate keys and non-JSON YAML values', () => {
      expect(rejection(() => decodeFilePod(`${podManifestYaml('web')}kind: Pod\n`, file('/m/x.yaml'))).reason).toMatch(/invalid YAML.*unique/i);
      expect(rejection(() => decodeFilePod(withExtra('  hostNetwork: .inf'), file('/m/x.yaml'))).reason).toBe('invalid YAML at line 9, column 16: NaN or an infinity, which JSON cannot hold');
      // go-yaml v2 hands !!binary on as the decoded text.
      expect(decodeFilePod(withExtra('    args: [!!binary aGVsbG8=]'), file('/m/x.yaml')).spec?.containers[0]?.args).toEqual(['hello']);
    });

    it('rejects input over 10 MiB given as bytes or as a string (20 MiB generated here)', () => {
      const big = Buffer.alloc(20 * 1024 * 1024, 0x61);
      const bytes = rejection(() => decodeFilePod(big, file('/m/big.yaml')));
      expect(bytes.code).toBe('PODCONFIG_MANIFEST_TOO_LARGE');
      expect(bytes.reason).toBe(`manifest is ${big.length} bytes, more than the limit of ${MAX_MANIFEST_BYTES} bytes`);
      const text = rejection(() => decodeFilePod('é'.repeat(MAX_MANIFEST_BYTES / 2 + 1), file('/m/big.yaml')));
      expect(text.code).toBe('PODCONFIG_MANIFEST_TOO_LARGE');
    });

    it('rejects deeply nested input', () => {
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      expect(rejection(() => decodeFilePod(deep, file('/m/x.yaml'))).reason).toMatch(/nested/);
      const deepJson = `{"a":${'['.repeat(100)}${']'.repeat(100)}}`;
      expect(rejection(() => decodeFilePod(deepJson, file('/m/x.yaml'))).reason).toMatch(/nested more than 64 levels/);
    });
  });
});
