import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, type Pod } from '@podconfig/core';
import { fixturePath, podManifestYaml } from '@podconfig/testing';
import { decodeFilePod } from './decode-file-pod.js';
import { decodeHttpPods } from './decode-http-pods.js';
import type { DecodeOptions } from './manifest-origin.js';
import { ManifestInvalidError } from './manifest-invalid-error.js';

const URL_WITH_SECRETS = 'https://user:s3cret@manifests.example/pods.yaml?token=abc123';
const http = (url = 'http://127.0.0.1:8080/pods', nodeName = 'Node-A'): DecodeOptions => ({ nodeName, origin: { kind: 'url', url } });

function rejection(run: () => unknown): ManifestInvalidError {
  try {
    run();
  } catch (err: unknown) {
    expect(err).toBeInstanceOf(ManifestInvalidError);
    return err as ManifestInvalidError;
  }
  throw new Error('expected the body to be rejected');
}

const fixture = (name: string): Promise<Buffer> => readFile(fixturePath('manifests', name));

describe(decodeHttpPods.name, () => {
  describe('a single Pod', () => {
    it('decodes a YAML pod with the kubelet defaults and without the NoExecute toleration (checklist 6)', () => {
      const pods = decodeHttpPods(podManifestYaml('web'), http());
      expect(pods).toHaveLength(1);
      const [pod] = pods as [Pod];
      expect(pod.metadata?.name).toBe('web-node-a');
      expect(pod.metadata?.namespace).toBe('default');
      expect(pod.spec?.nodeName).toBe('Node-A');
      expect(pod.status?.phase).toBe('Pending');
      expect(pod.metadata?.annotations?.[ANNOTATIONS.configHash]).toBe(pod.metadata?.uid);
      expect(pod.spec?.tolerations).toBeUndefined();
    });

    it('decodes a JSON pod', async () => {
      const pods = decodeHttpPods(await fixture('valid/pod.json'), http());
      expect(pods.map((p) => p.metadata?.name)).toEqual(['api-node-a']);
    });

    it('hashes the URL into the UID: another URL gives another UID, the same URL the same', () => {
      const a = decodeHttpPods(podManifestYaml('web'), http('http://127.0.0.1:8080/a'))[0];
      const a2 = decodeHttpPods(podManifestYaml('web'), http('http://127.0.0.1:8080/a'))[0];
      const b = decodeHttpPods(podManifestYaml('web'), http('http://127.0.0.1:8080/a?v=2'))[0];
      expect(a?.metadata?.uid).toMatch(/^[0-9a-f]{32}$/);
      expect(a2?.metadata?.uid).toBe(a?.metadata?.uid);
      expect(b?.metadata?.uid).not.toBe(a?.metadata?.uid);
    });

    it('gives an http pod another UID than the same manifest from a file', () => {
      const fromHttp = decodeHttpPods(podManifestYaml('web'), http('file:///m/web.yaml'))[0];
      const fromFile = decodeFilePod(podManifestYaml('web'), { nodeName: 'Node-A', origin: { kind: 'file', path: '/m/web.yaml' } });
      expect(fromHttp?.metadata?.uid).not.toBe(fromFile.metadata?.uid);
    });
  });

  describe('a PodList', () => {
    it('decodes every item, with or without item TypeMeta (checklist 11)', async () => {
      const pods = decodeHttpPods(await fixture('valid/pod-list.yaml'), http());
      expect(pods.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`)).toEqual(['default/alpha-node-a', 'kube-system/beta-node-a']);
      for (const pod of pods) {
        expect(pod.apiVersion).toBe('v1');
        expect(pod.kind).toBe('Pod');
        expect(pod.metadata?.annotations?.[ANNOTATIONS.configHash]).toBe(pod.metadata?.uid);
      }
      expect(new Set(pods.map((p) => p.metadata?.uid)).size).toBe(2);
    });

    it('decodes a JSON PodList to the same pods as the YAML one', async () => {
      const json = decodeHttpPods(await fixture('valid/pod-list.json'), http());
      expect(json.map((p) => p.metadata?.name)).toEqual(['alpha-node-a', 'beta-node-a']);
      const yaml = decodeHttpPods(await fixture('valid/pod-list.yaml'), http());
      expect(json[0]).toEqual(yaml[0]);
    });

    it('returns no pods for an empty list', () => {
      expect(decodeHttpPods('apiVersion: v1\nkind: PodList\nitems: []\n', http())).toEqual([]);
      expect(decodeHttpPods('{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"1"}}', http())).toEqual([]);
    });

    it('fails the whole body on the first invalid item (checklist 12)', async () => {
      const body = await fixture('invalid/pod-list-bad-item.yaml');
      const sync = rejection(() => decodeHttpPods(body, http()));
      expect(sync.code).toBe('PODCONFIG_MANIFEST_INVALID');
      expect(sync.reason).toBe('items[1]: invalid pod: name is needed for the pod');
    });

    it('names the item whose validation fails', () => {
      const body = JSON.stringify({
        apiVersion: 'v1', kind: 'PodList', items: [
          { metadata: { name: 'ok' }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
          { metadata: { name: 'bad' }, spec: { containers: [{ name: 'Bad_Name', image: 'registry.k8s.io/pause:3.10' }] } },
        ],
      });
      const err = rejection(() => decodeHttpPods(body, http()));
      expect(err.code).toBe('PODCONFIG_MANIFEST_INVALID');
      expect(err.reason.startsWith('items[1]: invalid pod: spec.containers[0].name: Invalid value: "Bad_Name"')).toBe(true);
    });

    it('fails the whole body on a forbidden reference in any item', () => {
      const body = JSON.stringify({
        apiVersion: 'v1', kind: 'PodList', items: [
          { metadata: { name: 'ok' }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
          { metadata: { name: 'sa' }, spec: { serviceAccountName: 'x', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
        ],
      });
      const err = rejection(() => decodeHttpPods(body, http()));
      expect(err.code).toBe('PODCONFIG_MANIFEST_FORBIDDEN_REFERENCE');
      expect(err.reason).toBe('items[1]: static pods may not reference serviceaccounts');
    });

    it('rejects unknown fields in items and items of another kind', () => {
      const typo = 'apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n  spec: {containers: [{name: c, image: i, portss: []}]}\n';
      expect(rejection(() => decodeHttpPods(typo, http())).reason).toBe('strict decoding error: unknown field "items[0].spec.containers[0].portss"');
      const service = 'apiVersion: v1\nkind: PodList\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: a}}\n';
      expect(rejection(() => decodeHttpPods(service, http())).reason).toMatch(/^items\[0\]: couldn't parse as pod: got kind "Service"/);
    });
  });

  describe('rejections', () => {
    it('rejects kinds that are neither Pod nor PodList', () => {
      const err = rejection(() => decodeHttpPods(podManifestYaml('web').replace('kind: Pod', 'kind: Deployment'), http()));
      expect(err.reason).toMatch(/^couldn't parse as single pod or multiple pods: got kind "Deployment"/);
      expect(rejection(() => decodeHttpPods(Buffer.from('apiVersion: v1\nkind: Service\nmetadata: {name: x}\n'), http())).reason)
        .toContain('"Service"');
    });

    it('names the URL without userinfo or query string, and never the secrets in it', () => {
      const err = rejection(() => decodeHttpPods('', http(URL_WITH_SECRETS)));
      expect(err.origin).toBe('https://manifests.example/pods.yaml?…');
      expect(err.message).toBe('https://manifests.example/pods.yaml?…: manifest is empty');
      expect(err.message).not.toContain('s3cret');
      expect(err.message).not.toContain('abc123');
    });

    it('still hashes the full URL into the UID', () => {
      const a = decodeHttpPods(podManifestYaml('web'), http(URL_WITH_SECRETS))[0];
      const b = decodeHttpPods(podManifestYaml('web'), http('https://manifests.example/pods.yaml'))[0];
      expect(a?.metadata?.uid).not.toBe(b?.metadata?.uid);
    });

    it('rejects the bad inputs a file rejects', async () => {
      for (const name of ['invalid/empty.yaml', 'invalid/binary-garbage.bin', 'invalid/alias-bomb.yaml', 'invalid/unknown-field.yaml',
        'invalid/missing-name.yaml', 'invalid/missing-kind.yaml', 'invalid/ephemeral-containers.yaml', 'invalid/name-too-long.yaml',
        'invalid/invalid-yaml.yaml', 'invalid/uid-path.yaml']) {
        const body = await fixture(name);
        expect(rejection(() => decodeHttpPods(body, http())).code).toBe('PODCONFIG_MANIFEST_INVALID');
      }
      for (const name of ['invalid/secret-volume.yaml', 'invalid/service-account.yaml', 'invalid/configmap-env.yaml']) {
        const body = await fixture(name);
        expect(rejection(() => decodeHttpPods(body, http())).code).toBe('PODCONFIG_MANIFEST_FORBIDDEN_REFERENCE');
      }
    });

    describe('duplicate YAML keys', () => {
      /** A pod whose labels mapping has `n` keys, `extra` appended to it. */
      const manyLabels = (n: number, extra = ''): string => {
        const lines = ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: web', '  labels:'];
        for (let i = 0; i < n; i++) lines.push(`    k${i}: v`);
        return [...lines, extra, 'spec:', '  containers:', '  - name: c', '    image: busybox:1', ''].join('\n');
      };

      it('accepts a mapping of many distinct keys', () => {
        expect(decodeHttpPods(manyLabels(1_000), http())[0]?.metadata?.labels?.k999).toBe('v');
      });

      // With the yaml library's own O(n²) check this one decode took about a minute, past the test
      // timeout; it is linear now. No timing is asserted: the point is that the repeat is still found.
      it('rejects a repeated key at the end of a mapping of 15,000 keys, naming the URL and the position', () => {
        // 45,000 tokens, under MAX_YAML_TOKENS (the 100,000-key case is go-yaml.test.ts's, below the token count).
        const err = rejection(() => decodeHttpPods(manyLabels(15_000, '    k7500: again'), http('https://u:pw@h.example/p?t=x')));
        expect(err.code).toBe('PODCONFIG_MANIFEST_INVALID');
        expect(err.message).toBe('https://h.example/p?…: invalid YAML at line 15006, column 5: Map keys must be unique: "k7500" is repeated');
      });

      it('checks every mapping, nested in sequences and flow style too, by resolved scalar value', () => {
        const containers = (list: string): string => `apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n${list}`;
        const nested = containers('  - name: c\n    image: i\n  - name: d\n    image: i\n    name: e\n');
        expect(rejection(() => decodeHttpPods(nested, http())).reason).toBe('invalid YAML at line 10, column 5: Map keys must be unique: "name" is repeated');
        const flow = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {1: a, 0x1: b}}\n';
        expect(rejection(() => decodeHttpPods(flow, http())).reason).toBe('invalid YAML at line 3, column 38: Map keys must be unique: "1" is repeated');
      });

      it('reports the first repeat in the text when two mappings repeat a key, and never takes NaN keys for repeats', () => {
        const two = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  name: again\nspec:\n  containers:\n  - {name: c, image: i, image: j}\n';
        expect(rejection(() => decodeHttpPods(two, http())).reason).toBe('invalid YAML at line 5, column 3: Map keys must be unique: "name" is repeated');
        const nan = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nx: {.nan: a, .NaN: b}\nspec: {containers: [{name: c, image: i}]}\n';
        expect(rejection(() => decodeHttpPods(nan, http())).reason).not.toMatch(/unique/);
      });

      it('lets keys that differ only as YAML types through, and merge keys repeat, as before', () => {
        const typed = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {"1": a, 1: b}}\nspec: {containers: [{name: c, image: i}]}\n';
        expect(decodeHttpPods(typed, http())[0]?.metadata?.labels).toEqual({ '1': 'b' });
        const merge = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nx: &c {name: c, image: i}\nspec:\n  containers:\n  - <<: *c\n    <<: *c\n';
        expect(rejection(() => decodeHttpPods(merge, http())).reason).not.toMatch(/unique/);
      });
    });

    it('rejects a body over 10 MiB (20 MiB generated here)', () => {
      const err = rejection(() => decodeHttpPods(Buffer.alloc(20 * 1024 * 1024, 0x20), http()));
      expect(err.code).toBe('PODCONFIG_MANIFEST_TOO_LARGE');
    });
  });
});
