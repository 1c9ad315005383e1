import { describe, expect, it } from 'vitest';
import { decodeFilePod } from './decode-file-pod.js';
import { decodeHttpPods } from './decode-http-pods.js';
import { jsonBudget, JSON_VALUE_COUNT_MIN_CHARS, MAX_JSON_VALUES } from './json-token-budget.js';
import { ManifestInvalidError } from './manifest-invalid-error.js';
import type { DecodeOptions } from './manifest-origin.js';
import { MAX_MANIFEST_BYTES } from './max-manifest-bytes.js';
import { parseManifestDocument } from './parse-manifest-document.js';
import { Rejection } from './rejection.js';

const file: DecodeOptions = { nodeName: 'node-a', origin: { kind: 'file', path: '/etc/kubernetes/manifests/big.json' } };
const http: DecodeOptions = { nodeName: 'node-a', origin: { kind: 'url', url: 'https://u:pw@h.example/pods?token=x' } };

const TOO_MANY = `its JSON has more than ${MAX_JSON_VALUES} values (objects, arrays and scalars; a pod has a few hundred): decoding it could take hundreds of megabytes of memory`;

/** The Rejection `parseManifestDocument` throws for `text`. */
function rejectionOf(text: string): Rejection {
  try {
    parseManifestDocument(text);
  } catch (err: unknown) {
    if (err instanceof Rejection) return err;
    throw err;
  }
  return expect.unreachable('accepted');
}

/** The ManifestInvalidError `run` throws. */
function invalid(run: () => unknown): ManifestInvalidError {
  try {
    run();
  } catch (err: unknown) {
    if (err instanceof ManifestInvalidError) return err;
    throw err;
  }
  return expect.unreachable('accepted');
}

/** `{"":[0,0,…]}` of `values` values (the object, the array and its items): the densest JSON a manifest can be. */
const zeros = (values: number): string => `{"":[${Array<string>(values - 2).fill('0').join(',')}]}`;

/** `{"a":[[…]]}` with `levels` nested arrays under the root. */
const nested = (levels: number, inner = ''): string => `{"a":${'['.repeat(levels)}${inner}${']'.repeat(levels)}}`;

/** A pod of empty labels with the shortest keys, as many as fit in `MAX_MANIFEST_BYTES`: 1.05 million. */
function labelBomb(): { readonly text: string; readonly labels: number } {
  const head = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bomb","labels":{';
  const tail = '}},"spec":{"containers":[{"name":"c","image":"i"}]}}';
  const labels: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const label = `"${i.toString(36)}":""`;
    if (size + label.length + 1 > MAX_MANIFEST_BYTES) break;
    labels.push(label);
    size += label.length + 1;
  }
  return { text: `${head}${labels.join(',')}${tail}`, labels: labels.length };
}

/**
 * A pod as an API server would serve it on a busy node (managedFields, owner, probes, resources, mounts, a Running
 * status with conditions and container statuses; ~5 KB of JSON), without what a static pod may not reference.
 */
function apiShapedPod(i: number): Record<string, unknown> {
  const at = new Date(1_700_000_000_000 + i * 1000).toISOString();
  const names = ['main', 'sidecar', 'metrics'].slice(0, 1 + (i % 3));
  const keyed = (fields: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(names.map((c) => [`k:{"name":"${c}"}`, fields]));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-${i}`, namespace: 'apps', uid: `0000${i}-aaaa-4bbb-8ccc-dddddddddddd`, resourceVersion: String(1000 + i),
      creationTimestamp: at, labels: { app: `app-${i % 97}`, 'pod-template-hash': `h${i}`, tier: 'web' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': at, 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `app-${i}`, uid: `owner-${i}`, controller: true, blockOwnerDeletion: true }],
      managedFields: [
        { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: at, fieldsType: 'FieldsV1', fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {} }, 'f:ownerReferences': {} },
          'f:spec': { 'f:containers': keyed({ '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': {}, 'f:resources': {} }), 'f:volumes': {} } } },
        { manager: 'kubelet', operation: 'Update', apiVersion: 'v1', time: at, fieldsType: 'FieldsV1', subresource: 'status', fieldsV1: {
          'f:status': { 'f:conditions': {}, 'f:containerStatuses': keyed({}), 'f:phase': {}, 'f:podIP': {}, 'f:startTime': {} } } },
      ],
    },
    spec: {
      volumes: [{ name: 'cache', emptyDir: {} }, { name: 'config', hostPath: { path: `/etc/app-${i % 97}`, type: 'Directory' } }],
      containers: names.map((c, k) => ({
        name: c, image: `registry.example.com/app-${i % 97}/${c}:v1.${i % 13}.${k}`,
        ports: [{ name: k === 0 ? 'http' : `p${k}`, containerPort: 8080 + k, protocol: 'TCP' }],
        env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        resources: { limits: { memory: `${128 << k}Mi` }, requests: { cpu: `${100 + 50 * k}m`, memory: `${64 << k}Mi` } },
        volumeMounts: [{ name: 'config', mountPath: '/etc/app', readOnly: true }, { name: 'cache', mountPath: '/var/cache/app' }],
        readinessProbe: { httpGet: { path: '/healthz', port: 8080 + k, scheme: 'HTTP' }, periodSeconds: 10 },
        livenessProbe: { tcpSocket: { port: 8080 + k }, initialDelaySeconds: 15 },
        imagePullPolicy: 'IfNotPresent',
      })),
      restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      priority: 0, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: 'Running',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: at })),
      hostIP: '192.168.0.10', hostIPs: [{ ip: '192.168.0.10' }], podIP: `10.1.${i >> 8}.${i & 255}`, podIPs: [{ ip: `10.1.${i >> 8}.${i & 255}` }],
      startTime: at, qosClass: 'Burstable',
      containerStatuses: names.map((c, k) => ({
        name: c, state: { running: { startedAt: at } }, lastState: {}, ready: true, restartCount: 0, started: true,
        image: `registry.example.com/app-${i % 97}/${c}:v1.${i % 13}.${k}`,
        imageID: `registry.example.com/app-${i % 97}/${c}@sha256:${'0123456789abcdef'.repeat(4)}`,
        containerID: `containerd://${'fedcba9876543210'.repeat(4)}`,
      })),
    },
  };
}

describe(jsonBudget.name, () => {
  it('counts every value (objects, arrays, scalars), up to the limit and not one past it', () => {
    expect(jsonBudget(zeros(MAX_JSON_VALUES))).toEqual({ kind: 'within' });
    expect(jsonBudget(zeros(MAX_JSON_VALUES + 1))).toEqual({ kind: 'too-many-values', reason: TOO_MANY });
    // Members count by their values; empty arrays and objects are values too, and white space is nothing.
    expect(jsonBudget('{"a":"x","b":{},"c":[],"d":[true,null,-1.5e3]}', 8).kind).toBe('within');
    expect(jsonBudget('{"a":"x","b":{},"c":[],"d":[true,null,-1.5e3]}', 7).kind).toBe('too-many-values');
    expect(jsonBudget(' {\n  "a" : [ 1 , { "b" : [ ] } ] ,\r\n\t"c":{ }\n}\n', 6).kind).toBe('within');
    expect(jsonBudget(' {\n  "a" : [ 1 , { "b" : [ ] } ] ,\r\n\t"c":{ }\n}\n', 5).kind).toBe('too-many-values');
  });

  it('counts no structure inside strings: brackets, commas, colons, escaped quotes and backslashes', () => {
    const strings = [
      '{,[:]}',
      String.raw`\"{\"a\":[1,2]}\"`, // escaped quotes do not end it
      String.raw`\\`, // an escaped backslash: the quote after it ends the string
      String.raw`a\\\"b,c\\\\`, // three backslashes escape the quote, four do not
      String.raw`\u0022,\/\n{`,
    ];
    for (const value of strings) {
      const text = `{"${value}":"${value}","k":["${value}"]}`;
      expect(JSON.parse(text)).toBeTypeOf('object'); // valid JSON, so the count is exact: 4 values
      expect(jsonBudget(text, 4).kind, value).toBe('within');
      expect(jsonBudget(text, 3).kind, value).toBe('too-many-values');
    }
    // Large: one string of structure characters is one value.
    expect(jsonBudget(`{"a":"${'{[,\\",'.repeat(MAX_JSON_VALUES)}"}`).kind).toBe('within');
  });

  it('names the line and column of the first value nested more than 64 levels deep, as parseManifestDocument refuses it', () => {
    expect(jsonBudget(`{\n "spec":\n  ${'['.repeat(65)}0${']'.repeat(65)}\n}`)).toEqual({
      kind: 'too-deep', reason: 'invalid JSON at line 3, column 67: nested more than 64 levels deep',
    });
    // 64 levels hold a value, the 65th only an empty array: what parseManifestDocument takes when it counts nothing.
    for (const text of [nested(63, '0'), nested(64)]) {
      expect(jsonBudget(text).kind).toBe('within');
      expect(() => parseManifestDocument(text)).not.toThrow();
    }
    for (const text of [nested(64, '0'), nested(65)]) {
      expect(jsonBudget(text).kind).toBe('too-deep');
      expect(rejectionOf(text).message).toMatch(/^a(\[0\]){64}: nested more than 64 levels deep$/);
    }
  });

  it('counts no text shorter than JSON_VALUE_COUNT_MIN_CHARS: the densest JSON passes the limit only from there on', () => {
    expect(jsonBudget(zeros(MAX_JSON_VALUES)).kind).toBe('within');
    const shortest = zeros(MAX_JSON_VALUES + 1);
    expect(jsonBudget(shortest).kind).toBe('too-many-values');
    expect(shortest.length).toBeGreaterThanOrEqual(JSON_VALUE_COUNT_MIN_CHARS);
  });
});

describe('parseManifestDocument() with a large JSON manifest', () => {
  it('refuses a pod of 1.05 million labels (10 MiB) before parsing it, as too large and no pod, where V8 aborted the process', () => {
    const { text: bomb, labels } = labelBomb();
    expect(labels).toBeGreaterThan(1_050_000);
    const rejection = rejectionOf(bomb);
    expect(rejection).toMatchObject({ code: 'PODCONFIG_MANIFEST_TOO_LARGE', mayDefinePod: false, message: TOO_MANY });
    const err = invalid(() => decodeFilePod(bomb, file));
    expect(err).toMatchObject({ code: 'PODCONFIG_MANIFEST_TOO_LARGE', mayDefinePod: false });
    expect(err.message).toBe(`/etc/kubernetes/manifests/big.json: ${TOO_MANY}`);
    expect(invalid(() => decodeHttpPods(bomb, http)).message).toBe(`https://h.example/pods?…: ${TOO_MANY}`);
  });

  it('refuses 10 MiB of nested arrays as invalid JSON, without parsing them (JSON.parse builds them all: 530 MB)', () => {
    const levels = (MAX_MANIFEST_BYTES - 6) / 2;
    const err = invalid(() => decodeFilePod(nested(levels), file));
    expect(err).toMatchObject({ code: 'PODCONFIG_MANIFEST_INVALID', reason: 'invalid JSON at line 1, column 70: nested more than 64 levels deep' });
  });

  it('refuses a pod of 600,000 labels (8 MB, 130 MB to decode) as too large: no pod has that many', () => {
    const labels = Array.from({ length: 600_000 }, (_, i) => `"l${i.toString(36)}":"v${i % 10}"`).join(',');
    const text = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"big","labels":{${labels}}},"spec":{"containers":[{"name":"c","image":"i"}]}}`;
    expect(text.length).toBeLessThan(MAX_MANIFEST_BYTES);
    expect(rejectionOf(text)).toMatchObject({ code: 'PODCONFIG_MANIFEST_TOO_LARGE', message: TOO_MANY });
  });

  it('decodes a PodList of 110 API-shaped pods (the kubelet\'s maxPods; managedFields and status, ~5 KB each)', () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: Array.from({ length: 110 }, (_, i) => apiShapedPod(i)) });
    expect(body.length).toBeGreaterThan(JSON_VALUE_COUNT_MIN_CHARS); // counted
    expect(body.length / 110).toBeGreaterThan(4_000);
    const pods = decodeHttpPods(body, http);
    expect(pods).toHaveLength(110);
    expect(pods[109]?.metadata?.name).toBe('web-109-node-a');
    // Pretty-printed, as a person or a tool may write it: white space is no value.
    expect(decodeHttpPods(JSON.stringify(JSON.parse(body), null, 2), http)).toStrictEqual(pods);
  });

  it('decodes a pod of 5,000 labels and 5,000 env vars', () => {
    const labels = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`app.example/l${i}`, `v${i}`]));
    const env = Array.from({ length: 5_000 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` }));
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big', labels }, spec: { containers: [{ name: 'c', image: 'i', env }] } });
    expect(text.length).toBeGreaterThan(JSON_VALUE_COUNT_MIN_CHARS);
    const pod = decodeFilePod(text, file);
    expect(Object.keys(pod.metadata?.labels ?? {})).toHaveLength(5_000);
    expect(pod.spec?.containers[0]?.env).toHaveLength(5_000);
  });
});
