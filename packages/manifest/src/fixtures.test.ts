import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '@podconfig/testing';
import { decodeFilePod } from './decode-file-pod.js';
import { decodeHttpPods } from './decode-http-pods.js';
import { ManifestInvalidError } from './manifest-invalid-error.js';

const options = (path: string) => ({ nodeName: 'controlplane', origin: { kind: 'file', path } }) as const;

describe('fixtures', () => {
  it('static-pods/: every kubeadm-style manifest passes the file pipeline', async () => {
    const dir = fixturePath('static-pods');
    const files = (await readdir(dir)).sort();
    expect(files).toEqual(['etcd.yaml', 'kube-apiserver.yaml', 'kube-controller-manager.yaml', 'kube-scheduler.yaml']);
    for (const name of files) {
      const path = `${dir}/${name}`;
      const pod = decodeFilePod(await readFile(path), options(path));
      expect(pod.metadata?.namespace).toBe('kube-system');
      expect(pod.metadata?.name).toBe(`${name.replace('.yaml', '')}-controlplane`);
      expect(pod.spec?.hostNetwork).toBe(true);
      expect(pod.spec?.priorityClassName).toBe('system-node-critical');
      expect(pod.spec?.volumes?.every((v) => v.hostPath !== undefined)).toBe(true);
    }
  });

  it('manifests/valid/: every file decodes from a manifest URL, and every file but the PodLists from a file', async () => {
    const dir = fixturePath('manifests/valid');
    const files = (await readdir(dir)).sort();
    expect(files).toEqual([
      'existing-toleration.yaml', 'kube-system.yaml', 'multi-document.yaml', 'pinned-uid.yaml', 'pod-list.json',
      'pod-list.yaml', 'pod-reformatted.yaml', 'pod.json', 'pod.yaml',
    ]);
    for (const name of files) {
      const data = await readFile(`${dir}/${name}`);
      expect(decodeHttpPods(data, { nodeName: 'n', origin: { kind: 'url', url: `http://127.0.0.1/${name}` } }).length).toBeGreaterThan(0);
      if (!name.startsWith('pod-list')) expect(decodeFilePod(data, options(`${dir}/${name}`)).kind).toBe('Pod');
    }
  });

  it('manifests/invalid/: every file is rejected by both pipelines', async () => {
    const dir = fixturePath('manifests/invalid');
    const files = (await readdir(dir)).sort();
    expect(files).toEqual([
      'alias-bomb.yaml', 'binary-garbage.bin', 'configmap-env.yaml', 'empty.yaml', 'ephemeral-containers.yaml',
      'invalid-yaml.yaml', 'missing-kind.yaml', 'missing-name.yaml', 'name-too-long.yaml', 'non-pod-kind.yaml',
      'pod-list-bad-item.yaml', 'secret-volume.yaml', 'service-account.yaml', 'uid-path.yaml', 'unknown-field.yaml',
    ]);
    for (const name of files) {
      const data = await readFile(`${dir}/${name}`);
      expect(() => decodeFilePod(data, options(`${dir}/${name}`))).toThrow(ManifestInvalidError);
      expect(() => decodeHttpPods(data, { nodeName: 'n', origin: { kind: 'url', url: 'http://127.0.0.1/' } })).toThrow(ManifestInvalidError);
    }
  });
});
