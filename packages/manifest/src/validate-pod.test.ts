import { describe, expect, it } from 'vitest';
import type { Container, Pod, PodSpec } from '@podconfig/core';
import { validatePod } from './validate-pod.js';

const container = (name = 'main', extra: Partial<Container> = {}): Container => ({
  name, image: 'registry.k8s.io/pause:3.10', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File', ...extra,
});

/** apimachinery 0.36's messages for a DNS-1123 label and subdomain and a label key's name part and value. */
const LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const KEY = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function pod(spec: Partial<PodSpec> = {}, metadata: Pod['metadata'] = {}): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: 'web-node-a', namespace: 'default', ...metadata },
    spec: { containers: [container()], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, ...spec },
  };
}

describe(validatePod.name, () => {
  it('accepts a well-formed pod', () => {
    expect(validatePod(pod())).toEqual([]);
  });

  describe('metadata', () => {
    it('requires a DNS-1123 subdomain name of at most 253 characters', () => {
      expect(validatePod(pod({}, { name: 'Web_1' }))).toEqual([expect.stringMatching(/^metadata\.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain/)]);
      expect(validatePod(pod({}, { name: 'a'.repeat(254) }))).toEqual([expect.stringMatching(/^metadata\.name: .*must be no more than 253 characters$/)]);
      expect(validatePod(pod({}, { name: 'a.b-c' }))).toEqual([]);
    });

    it('rejects empty labels and labels that start or end with a hyphen inside a dotted name', () => {
      // Each dot-separated label is checked on its own: the dot may not sit next to another dot or a hyphen.
      for (const name of ['a..b', 'a.-b', 'a-.b']) {
        expect(validatePod(pod({}, { name }))).toEqual([expect.stringMatching(new RegExp(`^metadata\\.name: Invalid value: "${name.replaceAll('.', '\\.')}": a lowercase RFC 1123 subdomain`))]);
      }
    });

    it('requires a DNS-1123 label namespace, with apimachinery\'s messages (characters, examples and pattern; dots named)', () => {
      expect(validatePod(pod({}, { namespace: 'kube.system' }))).toEqual(['metadata.namespace: Invalid value: "kube.system": must not contain dots']);
      expect(validatePod(pod({}, { namespace: 'Kube' }))).toEqual([
        `metadata.namespace: Invalid value: "Kube": ${LABEL}`,
      ]);
      expect(validatePod(pod({}, { namespace: 'n'.repeat(64) }))).toEqual([`metadata.namespace: Invalid value: "${'n'.repeat(64)}": must be no more than 63 characters`]);
    });

    it('checks label keys and values with apimachinery\'s messages (content: lengths in bytes)', () => {
      expect(validatePod(pod({}, { labels: { 'app.kubernetes.io/name': 'web', tier: '' } }))).toEqual([]);
      const errors = validatePod(pod({}, { labels: { '-bad': 'ok', good: 'not ok!', 'a/b/c': 'x', 'Example.com/x': 'y', '/x': 'é'.repeat(32) } }));
      expect(errors).toEqual([
        `metadata.labels["-bad"]: Invalid value: "-bad": name part ${KEY}`,
        `metadata.labels["good"]: Invalid value: "not ok!": ${VALUE}`,
        `metadata.labels["a/b/c"]: Invalid value: "a/b/c": a valid label key ${KEY} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
        `metadata.labels["Example.com/x"]: Invalid value: "Example.com/x": prefix part ${SUBDOMAIN}`,
        'metadata.labels["/x"]: Invalid value: "/x": prefix part must be non-empty',
        // 32 × "é" is 64 bytes.
        `metadata.labels["/x"]: Invalid value: "${'é'.repeat(32)}": must be no more than 63 bytes`,
        `metadata.labels["/x"]: Invalid value: "${'é'.repeat(32)}": ${VALUE}`,
      ]);
      const prefix = `${'p'.repeat(250)}.com`;
      expect(validatePod(pod({}, { labels: { [`${prefix}/x`]: 'v' } }))).toEqual([`metadata.labels["${prefix}/x"]: Invalid value: "${prefix}/x": prefix part must be no more than 253 bytes`]);
    });

    it('requires a pod deletion cost annotation to be a 32-bit integer without + or leading zeros, never showing it', () => {
      const cost = (value: string): string[] => validatePod(pod({}, { annotations: { 'controller.kubernetes.io/pod-deletion-cost': value } }));
      expect(['0', '-5', '2147483647', '-2147483648', '-007'].flatMap(cost)).toEqual([]);
      for (const value of ['+1', '007', '2147483648', '1.5', '', 'ten']) {
        expect(cost(value)).toEqual(['metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: must be a 32bit integer']);
      }
    });

    it('allows a key name part of 63 characters, not 64, with or without a prefix', () => {
      const [ok, long] = ['k'.repeat(63), 'k'.repeat(64)];
      expect(validatePod(pod({}, { labels: { [ok]: 'v', [`example.com/${ok}`]: 'v' }, annotations: { [ok]: 'v' } }))).toEqual([]);
      expect(validatePod(pod({}, { labels: { [long]: 'v', [`example.com/${long}`]: 'v' }, annotations: { [long]: 'v' } }))).toEqual([
        `metadata.labels["${long}"]: Invalid value: "${long}": name part must be no more than 63 bytes`,
        `metadata.labels["example.com/${long}"]: Invalid value: "example.com/${long}": name part must be no more than 63 bytes`,
        `metadata.annotations: Invalid value: "${long}": name part must be no more than 63 bytes`,
      ]);
    });

    it('checks annotation keys without quoting annotation values, and their total size', () => {
      const errors = validatePod(pod({}, { annotations: { 'bad key': 'SECRET-VALUE', 'Kubernetes.io/Config.Hash': 'x' } }));
      expect(errors).toEqual([expect.stringMatching(/^metadata\.annotations: Invalid value: "bad key": name part must consist/)]);
      expect(errors.join()).not.toContain('SECRET-VALUE');
      const big = validatePod(pod({}, { annotations: { a: 'x'.repeat(256 * 1024) } }));
      expect(big).toEqual(['metadata.annotations: Too long: may not be more than 262144 bytes']);
      // Bytes, not UTF-16 units: 100,000 × "€" is 300,000 bytes.
      expect(validatePod(pod({}, { annotations: { a: '€'.repeat(100_000) } }))).toEqual(['metadata.annotations: Too long: may not be more than 262144 bytes']);
    });
  });

  describe('containers', () => {
    it('requires at least one container', () => {
      expect(validatePod(pod({ containers: [] }))).toEqual(['spec.containers: Required value']);
    });

    it('reports a required name or field a manifest left out as such, not as an internal error', () => {
      const without = <T extends object>(value: T, key: keyof T): T => {
        const { [key]: _dropped, ...rest } = value;
        return rest as T;
      };
      expect(validatePod(pod({ containers: undefined as unknown as Container[] }))).toEqual(['spec.containers: Required value']);
      expect(validatePod(pod({ containers: [without(container(), 'name')] }))).toEqual(['spec.containers[0].name: Required value']);
      expect(validatePod(pod({ containers: [container('main', { env: [{ value: 'x' } as unknown as NonNullable<Container['env']>[number]] })] })))
        .toEqual(['spec.containers[0].env[0].name: Required value']);
      expect(validatePod(pod({ volumes: [{ emptyDir: {} } as unknown as NonNullable<PodSpec['volumes']>[number]] })))
        .toEqual(['spec.volumes[0].name: Required value']);
      expect(validatePod(pod({ containers: [container('main', {
        ports: [{} as unknown as NonNullable<Container['ports']>[number]],
        volumeMounts: [{} as unknown as NonNullable<Container['volumeMounts']>[number]],
      })] }))).toEqual([
        'spec.containers[0].ports[0].containerPort: Required value',
        'spec.containers[0].volumeMounts[0].name: Required value',
        'spec.containers[0].volumeMounts[0].mountPath: Required value',
      ]);
    });

    it('requires unique DNS-1123 label names across init and regular containers', () => {
      const errors = validatePod(pod({ initContainers: [container('setup')], containers: [container('setup'), container('Main'), container('')] }));
      expect(errors).toEqual([
        'spec.containers[0].name: Duplicate value: "setup"',
        expect.stringMatching(/^spec\.containers\[1\]\.name: Invalid value: "Main": a lowercase RFC 1123 label/),
        'spec.containers[2].name: Required value',
      ]);
    });

    it('requires an image without surrounding whitespace', () => {
      const noImage: Container = { name: 'main', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' };
      expect(validatePod(pod({ containers: [noImage] }))).toEqual(['spec.containers[0].image: Required value']);
      expect(validatePod(pod({ containers: [container('main', { image: ' nginx' })] })))
        .toEqual(['spec.containers[0].image: Invalid value: must not have leading or trailing whitespace']);
    });

    it('checks pull and termination message policies', () => {
      expect(validatePod(pod({ containers: [container('main', { imagePullPolicy: 'Sometimes', terminationMessagePolicy: 'Maybe' })] }))).toEqual([
        'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
        'spec.containers[0].terminationMessagePolicy: Unsupported value: "Maybe": supported values: "File", "FallbackToLogsOnError"',
      ]);
    });

    it('takes a container-level restartPolicy and restartPolicyRules on regular and init containers (ContainerRestartRules, on in 1.36)', () => {
      const rules = [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }];
      expect(validatePod(pod({
        restartPolicy: 'Never',
        initContainers: [
          container('sidecar', { restartPolicy: 'Always', restartPolicyRules: [{ action: 'RestartAllContainers', exitCodes: { operator: 'NotIn', values: [0] } }] } as Partial<Container>),
          container('try-once', { restartPolicy: 'Never' }), container('retry', { restartPolicy: 'OnFailure', restartPolicyRules: rules } as Partial<Container>),
        ],
        containers: [container('main', { restartPolicy: 'OnFailure', restartPolicyRules: rules } as Partial<Container>), container('always', { restartPolicy: 'Always' })],
      }))).toEqual([]);
      expect(validatePod(pod({
        initContainers: [container('init', { restartPolicy: 'Sometimes' }), container('rules', { restartPolicyRules: [{ action: 'Stop' }] } as Partial<Container>)],
        containers: [container('main', { restartPolicyRules: [{ action: 'Stop' }] } as Partial<Container>)],
      }))).toEqual([
        'spec.initContainers[0].restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
        // An init container's rules are not looked at without a restartPolicy; a regular container's are.
        'spec.initContainers[1].restartPolicy: Required value: must specify restartPolicy when restart rules are used',
        'spec.containers[0].restartPolicy: Required value: must specify restartPolicy when restart rules are used',
        'spec.containers[0].restartPolicyRules[0].action: Unsupported value: "Stop": supported values: "Restart", "RestartAllContainers"',
        'spec.containers[0].restartPolicyRules[0].exitCodes: Required value: must be specified',
      ]);
    });

    it('probes only the sidecars among init containers: restartPolicy Never or OnFailure does not make one', () => {
      const probe = { exec: { command: ['true'] } };
      expect(validatePod(pod({ initContainers: [container('init', { restartPolicy: 'OnFailure', readinessProbe: probe })] }))).toEqual([
        'spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      ]);
      expect(validatePod(pod({ initContainers: [container('sidecar', { restartPolicy: 'Always', readinessProbe: probe })] }))).toEqual([]);
    });

    it('checks ports: range, protocol, names, and host ports on the host network', () => {
      const ports = [
        { containerPort: 0, protocol: 'TCP' }, { containerPort: 80, protocol: 'HTTP' }, { containerPort: 81, protocol: 'TCP', name: 'Web' },
        { containerPort: 82, protocol: 'TCP', name: 'metrics' }, { containerPort: 83, protocol: 'UDP', name: 'metrics', hostPort: 70000 },
      ];
      expect(validatePod(pod({ containers: [container('main', { ports })] }))).toEqual([
        'spec.containers[0].ports[0].containerPort: Invalid value: 0: must be between 1 and 65535, inclusive',
        'spec.containers[0].ports[1].protocol: Unsupported value: "HTTP": supported values: "TCP", "UDP", "SCTP"',
        'spec.containers[0].ports[2].name: Invalid value: "Web": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
        'spec.containers[0].ports[4].name: Duplicate value: "metrics"',
        'spec.containers[0].ports[4].hostPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      ]);
      expect(validatePod(pod({ hostNetwork: true, containers: [container('main', { ports: [{ containerPort: 80, hostPort: 8080, protocol: 'TCP' }] })] })))
        .toEqual(['spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true']);
    });

    it('accepts host port 65535 and rejects 65536', () => {
      const hostPort = (port: number): string[] =>
        validatePod(pod({ containers: [container('main', { ports: [{ containerPort: 80, hostPort: port, protocol: 'TCP' }] })] }));
      expect(hostPort(65535)).toEqual([]);
      expect(hostPort(65536)).toEqual(['spec.containers[0].ports[0].hostPort: Invalid value: 65536: must be between 1 and 65535, inclusive']);
    });

    it('checks env names and value/valueFrom exclusivity without quoting values', () => {
      const env = [{ name: '' }, { name: 'A=B', value: 'x' }, { name: 'PW', value: 'hunter2', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }];
      const errors = validatePod(pod({ containers: [container('main', { env })] }));
      expect(errors).toEqual([
        'spec.containers[0].env[0].name: Required value',
        'spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
        'spec.containers[0].env[2].valueFrom: Invalid value: may not be specified when `value` is not empty',
      ]);
      expect(errors.join()).not.toContain('hunter2');
    });

    it('checks resource names, signs, and requests against limits, in the API\'s paths and canonical quantities', () => {
      expect(validatePod(pod({ containers: [container('main', { resources: {
        limits: { cpu: '1', memory: '1Gi', 'nvidia.com/gpu': '1', 'hugepages-2Mi': '4Mi' }, requests: { cpu: '500m', memory: '1073741824' },
      } })] }))).toEqual([]);
      expect(validatePod(pod({ containers: [container('main', { resources: {
        limits: { cpu: '1', mem: '1Gi' }, requests: { cpu: '1500m', 'ephemeral-storage': '-1' },
      } })] }))).toEqual([
        'spec.containers[0].resources.limits[mem]: Invalid value: "mem": must be a standard resource type or fully qualified',
        'spec.containers[0].resources.limits[mem]: Invalid value: "mem": must be a standard resource for containers',
        // A request above its limit is reported at the requests.
        'spec.containers[0].resources.requests: Invalid value: "1500m": must be less than or equal to cpu limit of 1',
        'spec.containers[0].resources.requests[ephemeral-storage]: Invalid value: "-1": must be greater than or equal to 0',
      ]);
    });

    it('checks the resources of init containers too, and quantities as the API defaults round them (up to milli-units)', () => {
      expect(validatePod(pod({ initContainers: [container('init', { resources: { limits: { cpu: '0.0001' }, requests: { cpu: '2m' } } })] }))).toEqual([
        'spec.initContainers[0].resources.requests: Invalid value: "2m": must be less than or equal to cpu limit of 1m',
      ]);
    });

    it('compares binary-suffixed requests with plain limits in bytes: 1Ki is 1024, more than a limit of 1000', () => {
      const memory = (request: string, limit: string): string[] =>
        validatePod(pod({ containers: [container('main', { resources: { limits: { memory: limit }, requests: { memory: request } } })] }));
      expect(memory('1Ki', '1024')).toEqual([]);
      expect(memory('1Ki', '1000')).toEqual(['spec.containers[0].resources.requests: Invalid value: "1Ki": must be less than or equal to memory limit of 1k']);
      // The exa suffixes: 2E and 1Ei are far more than 1G (they were read as 2 and NaN, and passed).
      expect(memory('2E', '1G')).toEqual(['spec.containers[0].resources.requests: Invalid value: "2E": must be less than or equal to memory limit of 1G']);
      expect(memory('1Ei', '1Ki')).toEqual(['spec.containers[0].resources.requests: Invalid value: "1Ei": must be less than or equal to memory limit of 1Ki']);
    });

    it('refuses a negative exa quantity', () => {
      expect(validatePod(pod({ containers: [container('main', { resources: { requests: { memory: '-1Ei' } } })] })))
        .toEqual(['spec.containers[0].resources.requests[memory]: Invalid value: "-1Ei": must be greater than or equal to 0']);
    });

    it('requires non-negative probe numbers', () => {
      expect(validatePod(pod({ containers: [container('main', { readinessProbe: { exec: { command: ['true'] }, initialDelaySeconds: -1 } })] })))
        .toEqual(['spec.containers[0].readinessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0']);
    });

    it('requires volume mounts to name a volume', () => {
      expect(validatePod(pod({ volumes: [{ name: 'data', emptyDir: {} }], containers: [container('main', { volumeMounts: [{ name: 'data', mountPath: '/d' }, { name: 'logs', mountPath: '' }] })] }))).toEqual([
        'spec.containers[0].volumeMounts[1].name: Not found: "logs"',
        'spec.containers[0].volumeMounts[1].mountPath: Required value',
      ]);
    });

    it('requires exactly one handler per probe and lifecycle hook, refusing each extra one at its own path', () => {
      const errors = validatePod(pod({ containers: [container('main', {
        livenessProbe: { successThreshold: 2, exec: { command: ['true'] } },
        readinessProbe: { exec: { command: ['true'] }, tcpSocket: { port: 80 }, grpc: { port: 9090 } },
        startupProbe: {},
        lifecycle: { preStop: {}, postStart: { exec: { command: ['true'] }, sleep: { seconds: 1 } } },
      })] }));
      // The API's order: hooks first, then liveness, readiness and startup probes.
      expect(errors).toEqual([
        'spec.containers[0].lifecycle.postStart.sleep: Forbidden: may not specify more than 1 handler type',
        'spec.containers[0].lifecycle.preStop: Required value: must specify a handler type',
        'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
        'spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type',
        'spec.containers[0].readinessProbe.grpc: Forbidden: may not specify more than 1 handler type',
        'spec.containers[0].startupProbe: Required value: must specify a handler type',
      ]);
    });
  });

  describe('paths, IDs and init containers (ValidatePodCreate)', () => {
    it('refuses a host path or a sub-path that climbs out with .., and an absolute sub-path', () => {
      const volumes = [{ name: 'data', hostPath: { path: '/var/lib/../../etc' } }, { name: 'ok', hostPath: { path: '/var/lib/app..d' } }];
      const mounts = [
        { name: 'ok', mountPath: '/a', subPath: '../../etc' },
        { name: 'ok', mountPath: '/b', subPath: '/etc' },
        { name: 'ok', mountPath: '/c', subPathExpr: 'logs/$(POD_NAME)' },
      ];
      expect(validatePod(pod({ volumes, containers: [container('main', { volumeMounts: mounts })] }))).toEqual([
        'spec.volumes[0].hostPath.path: Invalid value: "/var/lib/../../etc": must not contain \'..\'',
        'spec.containers[0].volumeMounts[0].subPath: Invalid value: "../../etc": must not contain \'..\'',
        'spec.containers[0].volumeMounts[1].subPath: Invalid value: "/etc": must be a relative path',
      ]);
    });

    it('requires a container\'s mount paths to be unique', () => {
      const volumes = [{ name: 'a', emptyDir: {} }, { name: 'b', emptyDir: {} }];
      const mounts = [{ name: 'a', mountPath: '/data' }, { name: 'b', mountPath: '/data' }];
      expect(validatePod(pod({ volumes, containers: [container('main', { volumeMounts: mounts })] }))).toEqual([
        'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique',
      ]);
    });

    it('requires user and group IDs between 0 and 2147483647, in the pod\'s and a container\'s security context', () => {
      const spec = {
        securityContext: { runAsUser: -1, runAsGroup: 2147483648, fsGroup: 0, supplementalGroups: [1000, -5] },
        containers: [container('main', { securityContext: { runAsUser: 2147483647, runAsGroup: -1 } })],
      };
      expect(validatePod(pod(spec))).toEqual([
        'spec.containers[0].securityContext.runAsGroup: Invalid value: -1: must be between 0 and 2147483647, inclusive',
        'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
        'spec.securityContext.runAsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive',
        'spec.securityContext.supplementalGroups[1]: Invalid value: -5: must be between 0 and 2147483647, inclusive',
      ]);
    });

    it('forbids probes and lifecycle hooks on an init container that is not a sidecar (restartPolicy Always)', () => {
      const probe = { exec: { command: ['true'] } };
      const init = container('init', { livenessProbe: probe, lifecycle: { preStop: { exec: { command: ['true'] } } } });
      const sidecar = container('sidecar', { restartPolicy: 'Always', livenessProbe: probe, readinessProbe: probe, startupProbe: probe });
      expect(validatePod(pod({ initContainers: [init, sidecar] }))).toEqual([
        'spec.initContainers[0].lifecycle: Forbidden: may not be set for init containers without restartPolicy=Always',
        'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      ]);
    });

    it('checks a gRPC probe\'s port: a 0 written out is kept by the decoder and refused here, as by the API', () => {
      expect(validatePod(pod({ containers: [container('main', { readinessProbe: { grpc: { port: 0 } } })] }))).toEqual([
        'spec.containers[0].readinessProbe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive',
      ]);
      expect(validatePod(pod({ containers: [container('main', { readinessProbe: { grpc: { port: 9090 } } })] }))).toEqual([]);
    });

    it('checks runtimeClassName as a DNS-1123 subdomain and preemptionPolicy\'s values', () => {
      expect(validatePod(pod({ runtimeClassName: 'gvisor', preemptionPolicy: 'Never' }))).toEqual([]);
      const errors = validatePod(pod({ runtimeClassName: 'Bad_Name', preemptionPolicy: 'Sometimes' }));
      expect(errors[0]).toMatch(/^spec\.runtimeClassName: Invalid value: "Bad_Name": /);
      expect(errors.slice(1)).toEqual(['spec.preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"']);
      expect(validatePod(pod({ runtimeClassName: '', preemptionPolicy: '' }))[0]).toMatch(/^spec\.runtimeClassName: Invalid value: "": /);
      expect(validatePod(pod({ preemptionPolicy: '' }))).toEqual(['spec.preemptionPolicy: Required value']);
    });
  });

  describe('probe handlers, host ports, volumes and mounts (wiring)', () => {
    it('checks probe and hook actions, bounding a preStop sleep by the pod\'s grace period', () => {
      expect(validatePod(pod({ terminationGracePeriodSeconds: 10, containers: [container('main', {
        livenessProbe: { httpGet: { host: '127.0.0.1', path: '/livez', port: 6443, scheme: 'HTTPS' } },
        readinessProbe: { tcpSocket: { port: 'web' } },
        lifecycle: { preStop: { sleep: { seconds: 10 } } },
      })] }))).toEqual([]);
      expect(validatePod(pod({ terminationGracePeriodSeconds: 10, containers: [container('main', {
        livenessProbe: { httpGet: { path: '/livez', port: 70000, scheme: 'HTTPS' } },
        lifecycle: { preStop: { sleep: { seconds: 11 } }, postStart: { exec: { command: [] } } },
      })] }))).toEqual([
        'spec.containers[0].lifecycle.postStart.exec.command: Required value',
        'spec.containers[0].lifecycle.preStop.sleep: Invalid value: 11: must be non-negative and less than terminationGracePeriodSeconds (10)',
        'spec.containers[0].livenessProbe.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      ]);
    });

    it('checks the probes of a sidecar, and only refuses those of another init container', () => {
      const badProbe = { tcpSocket: { port: 0 }, initialDelaySeconds: -1 };
      expect(validatePod(pod({ initContainers: [
        container('init', { livenessProbe: badProbe }), container('sidecar', { restartPolicy: 'Always', livenessProbe: badProbe }),
      ] }))).toEqual([
        'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
        'spec.initContainers[1].livenessProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive',
        'spec.initContainers[1].livenessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0',
      ]);
    });

    it('refuses a host port claimed twice by the regular containers, or twice by one init container', () => {
      const port = (hostPort: number, containerPort = 80): NonNullable<Container['ports']>[number] => ({ containerPort, hostPort, protocol: 'TCP' });
      expect(validatePod(pod({
        initContainers: [container('init-a', { ports: [port(9000)] }), container('init-b', { ports: [port(9000)] })],
        containers: [container('a', { ports: [port(8080)] }), container('b', { ports: [port(9000)] })],
      }))).toEqual([]);
      expect(validatePod(pod({
        initContainers: [container('init-a', { ports: [port(9000)] }), container('init-b', { ports: [port(9000), port(9000, 81)] })],
        containers: [container('a', { ports: [port(8080)] }), container('b', { ports: [port(8080, 81)] })],
      }))).toEqual([
        'spec.initContainers[1].ports[1].hostPort: Duplicate value: "TCP//9000"',
        'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"',
      ]);
    });

    it('checks the resize policies of init containers, and lets one that is no sidecar ask for RestartContainer (not confirmed refused in 1.36)', () => {
      const resizePolicy = [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }];
      expect(validatePod(pod({ initContainers: [container('sidecar', { restartPolicy: 'Always', resizePolicy })] }))).toEqual([]);
      expect(validatePod(pod({ initContainers: [container('init', { resizePolicy })] }))).toEqual([]);
      expect(validatePod(pod({ restartPolicy: 'Never', initContainers: [container('init', { resizePolicy })] }))).toEqual([
        'spec.initContainers[0].resizePolicy[0].restartPolicy: Invalid value: "RestartContainer": must be \'NotRequired\' when pod `restartPolicy` is \'Never\'',
      ]);
    });

    it('checks volume sources, mounts and resize policies', () => {
      const errors = validatePod(pod({
        restartPolicy: 'Never',
        volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '-1' } }, { name: 'info', downwardAPI: { items: [{ path: '/labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' } }] } }],
        containers: [container('main', {
          volumeMounts: [{ name: 'scratch', mountPath: '/scratch', mountPropagation: 'Bidirectional' }],
          resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }],
        })],
      }));
      expect(errors).toEqual([
        'spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity',
        'spec.volumes[1].downwardAPI.items[0].path: Invalid value: "/labels": must be a relative path',
        // As in the API, a volume with errors is not one a mount can name.
        'spec.containers[0].volumeMounts[0].name: Not found: "scratch"',
        'spec.containers[0].volumeMounts[0].mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers',
        'spec.containers[0].resizePolicy[0].restartPolicy: Invalid value: "RestartContainer": must be \'NotRequired\' when pod `restartPolicy` is \'Never\'',
      ]);
    });
  });

  describe('pod spec', () => {
    it('forbids ephemeral containers on create', () => {
      expect(validatePod(pod({ ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }))).toEqual(['spec.ephemeralContainers: Forbidden: cannot be set on create']);
    });

    it('checks restart and DNS policies', () => {
      expect(validatePod(pod({ restartPolicy: 'Sometimes', dnsPolicy: 'Google' }))).toEqual([
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
        'spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
      ]);
      expect(validatePod(pod({ dnsPolicy: 'None' }))).toEqual(['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None']);
      expect(validatePod(pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['127.0.0.53'] } }))).toEqual([]);
    });

    it('checks volume names, duplicates, multiple sources and hostPath', () => {
      expect(validatePod(pod({ volumes: [
        { name: 'data', emptyDir: {} }, { name: 'data', emptyDir: {} }, { name: 'Bad', emptyDir: {} },
        { name: 'two', emptyDir: {}, hostPath: { path: '/x' } }, { name: 'hp', hostPath: { path: '', type: 'Folder' } },
        { name: 'hp-type', hostPath: { path: '/x', type: 'Folder' } },
      ] }))).toEqual([
        'spec.volumes[1].name: Duplicate value: "data"',
        expect.stringMatching(/^spec\.volumes\[2\]\.name: Invalid value: "Bad"/),
        'spec.volumes[3].hostPath: Forbidden: may not specify more than 1 volume type',
        // validateHostPathVolumeSource stops at a missing path: the type is checked only with one.
        'spec.volumes[4].hostPath.path: Required value',
        'spec.volumes[5].hostPath.type: Unsupported value: "Folder": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
      ]);
    });

    it('checks tolerations', () => {
      expect(validatePod(pod({ tolerations: [
        { operator: 'Exists', effect: 'NoExecute' }, { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' },
        { operator: 'Equal' }, { key: 'k', operator: 'Exists', value: 'v' }, { key: 'k', operator: 'Exists', effect: 'Evict' },
        { key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 },
      ] }))).toEqual([
        'spec.tolerations[2].operator: Invalid value: operator must be Exists when `key` is empty, which means "match all values and all keys"',
        "spec.tolerations[3].operator: Invalid value: value must be empty when `operator` is 'Exists'",
        'spec.tolerations[4].effect: Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        "spec.tolerations[5].effect: Invalid value: effect must be 'NoExecute' when `tolerationSeconds` is set",
      ]);
    });

    it('checks a toleration\'s value as a label value (an empty operator is Equal), and lists the operators as the API does', () => {
      expect(validatePod(pod({ tolerations: [{ key: 'k', value: 'v' }, { key: 'k', operator: 'Equal', value: '' }] }))).toEqual([]);
      expect(validatePod(pod({ tolerations: [
        { key: 'k', value: 'not ok!' }, { key: 'k', operator: 'Equal', value: 'v'.repeat(64) }, { key: 'k', operator: 'Lt', value: '5' },
        { key: 'k', operator: 'Like', value: 'v' },
      ] }))).toEqual([
        `spec.tolerations[0].operator: Invalid value: "not ok!": ${VALUE}`,
        `spec.tolerations[1].operator: Invalid value: "${'v'.repeat(64)}": must be no more than 63 bytes`,
        // Lt and Gt need TaintTolerationComparisonOperators, alpha and off in 1.36.
        'spec.tolerations[2].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"',
        'spec.tolerations[3].operator: Unsupported value: "Like": supported values: "Equal", "Exists"',
      ]);
    });

    it('requires terminationGracePeriodSeconds (the API defaults fill it), and checks probes\' own grace periods', () => {
      const withoutGracePeriod = pod();
      delete withoutGracePeriod.spec!.terminationGracePeriodSeconds;
      expect(validatePod(withoutGracePeriod)).toEqual(['spec.terminationGracePeriodSeconds: Required value']);
      const probe = { exec: { command: ['true'] } };
      expect(validatePod(pod({ containers: [container('main', {
        livenessProbe: { ...probe, terminationGracePeriodSeconds: 10 }, startupProbe: { ...probe, terminationGracePeriodSeconds: 0 },
        readinessProbe: { ...probe, terminationGracePeriodSeconds: 5 },
      })] }))).toEqual([
        'spec.containers[0].readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes',
        'spec.containers[0].startupProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0',
      ]);
    });

    it('checks readiness gate condition types as qualified names', () => {
      expect(validatePod(pod({ readinessGates: [{ conditionType: 'example.com/ready' }, { conditionType: 'not ready' }] }))).toEqual([
        'spec.readinessGates[1].conditionType: Invalid value: "not ready": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
      ]);
    });

    it('checks scheduling gates, and refuses any on a pod bound to a node, as every static pod is', () => {
      expect(validatePod(pod({ schedulingGates: [{ name: 'example.com/quota' }, { name: 'example.com/quota' }, { name: 'bad gate' }] }))).toEqual([
        'spec.schedulingGates[1]: Duplicate value: "example.com/quota"',
        'spec.schedulingGates[2]: Invalid value: "bad gate": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
      ]);
      expect(validatePod(pod({ nodeName: 'node-a', schedulingGates: [{ name: 'example.com/quota' }] }))).toEqual([
        'spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared',
      ]);
      expect(validatePod(pod({ nodeName: 'node-a', schedulingGates: [] }))).toEqual([]);
    });

    it('checks host aliases: an IP and DNS-1123 subdomain host names', () => {
      expect(validatePod(pod({ hostAliases: [{ ip: '127.0.0.1', hostnames: ['foo.local', 'bar'] }, { ip: 'localhost', hostnames: ['Foo_Bar'] }] }))).toEqual([
        'spec.hostAliases[1].ip: Invalid value: "localhost": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        'spec.hostAliases[1].hostnames[0]: Invalid value: "Foo_Bar": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      ]);
    });

    it('runs the affinity, topology spread, DNS, security context, env and OS checks on the pod (wiring)', () => {
      const errors = validatePod(pod({
        hostUsers: false, hostPID: true, os: { name: 'plan9' }, dnsConfig: { options: [{}] },
        securityContext: { fsGroupChangePolicy: 'Never' },
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'Later' }],
        containers: [container('main', { securityContext: { procMount: 'Unmasked', allowPrivilegeEscalation: false, privileged: true }, envFrom: [{}] })],
      }));
      expect(errors).toEqual([
        'spec.containers[0].envFrom: Invalid value: must specify one of: `configMapRef` or `secretRef`',
        'spec.containers[0].securityContext: Invalid value: cannot set `allowPrivilegeEscalation` to false and `privileged` to true',
        'spec.securityContext.fsGroupChangePolicy: Unsupported value: "Never": supported values: "Always", "OnRootMismatch"',
        'spec.HostPID: Forbidden: when `hostUsers` is false',
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term',
        'spec.dnsConfig.options[0]: Required value: must not be empty',
        'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Later": supported values: "DoNotSchedule", "ScheduleAnyway"',
        'spec.os: Unsupported value: "plan9": supported values: "linux", "windows"',
      ]);
    });

    it('checks hostname, subdomain, priority class, node selector and active deadline', () => {
      expect(validatePod(pod({
        hostname: 'Host', subdomain: 'sub', priorityClassName: 'system-node-critical', nodeSelector: { 'kubernetes.io/os': 'linux', bad_: 'x' },
        activeDeadlineSeconds: 0,
      }))).toEqual([
        'spec.activeDeadlineSeconds: Invalid value: must be between 1 and 2147483647, inclusive',
        expect.stringMatching(/^spec\.hostname: Invalid value: "Host"/),
        expect.stringMatching(/^spec\.nodeSelector\["bad_"\]: Invalid value: "bad_"/),
      ]);
      expect(validatePod(pod({ activeDeadlineSeconds: 3_000_000_000 }))).toEqual(['spec.activeDeadlineSeconds: Invalid value: must be between 1 and 2147483647, inclusive']);
      expect(validatePod(pod({ activeDeadlineSeconds: 2_147_483_647 }))).toEqual([]);
    });
  });

  describe('pod resources, Windows options, hostname override, security annotations, env files, projections (wiring)', () => {
    // fileKeyRef (EnvFiles, 1.34) is newer than the pod types (kubernetes-types 1.30).
    const fileEnv = { name: 'DB', valueFrom: { fileKeyRef: { volumeName: 'env', path: 'db.env', key: 'DB' } } } as NonNullable<Container['env']>[number];

    it('accepts a pod using them as the API takes them', () => {
      expect(validatePod(pod({
        resources: { requests: { cpu: '500m' }, limits: { cpu: '1', memory: '1Gi' } },
        hostnameOverride: 'web-0.example.com',
        securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
        volumes: [{ name: 'env', emptyDir: {} }],
        containers: [container('main', { env: [fileEnv] })],
      } as Partial<PodSpec>, { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default' } }))).toEqual([]);
      expect(validatePod(pod({
        os: { name: 'windows' }, hostNetwork: true,
        securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } },
      }))).toEqual([]);
    });

    it('reports their errors among the pod\'s', () => {
      const errors = validatePod(pod({
        resources: { limits: { 'ephemeral-storage': '1Gi' } },
        hostnameOverride: 'web', hostNetwork: true,
        securityContext: { seccompProfile: { type: 'Unconfined' }, windowsOptions: { hostProcess: true } },
        volumes: [{ name: 'env', hostPath: { path: '/etc/env' } }],
        containers: [container('main', {
          securityContext: { windowsOptions: { runAsUserName: '' } },
          env: [fileEnv],
        })],
      } as Partial<PodSpec>, { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default' } }));
      expect(errors).toEqual([
        'spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string',
        'spec.resources.limits[ephemeral-storage]: Unsupported value: "ephemeral-storage": supported values: "cpu", "hugepages-", "memory"',
        'spec.hostnameOverride: Forbidden: may not be specified when hostNetwork is true',
        'spec.containers[0].env[0].valueFrom.fileKeyRef.volumeName: Invalid value: "env": referenced volume must be of type emptyDir',
        'spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match',
      ]);
    });

    it('forbids a projected service account token in a pod without a service account, and a claim an ephemeral volume creates', () => {
      const token = { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] } };
      expect(validatePod(pod({ volumes: [token] })))
        .toEqual(['spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set']);
      expect(validatePod(pod({ volumes: [token], serviceAccountName: 'web' }))).toEqual([]);
      const scratch = { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } };
      expect(validatePod(pod({ volumes: [scratch, { name: 'data', persistentVolumeClaim: { claimName: 'web-node-a-scratch' } }] }))).toEqual([
        'spec.volumes[1].persistentVolumeClaim.claimName: Invalid value: "web-node-a-scratch": must not reference a PVC that gets created for an ephemeral volume',
      ]);
    });
  });
});
