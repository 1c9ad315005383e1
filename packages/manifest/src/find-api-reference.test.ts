import { describe, expect, it } from 'vitest';
import type { Container, Pod, PodSpec } from '@podconfig/core';
import { podManifestYaml } from '@podconfig/testing';
import { decodeFilePod } from './decode-file-pod.js';
import { findApiReference } from './find-api-reference.js';
import { ManifestInvalidError } from './manifest-invalid-error.js';
import { Rejection } from './rejection.js';

const main = (extra: Partial<Container> = {}): Container => ({ name: 'main', image: 'registry.k8s.io/pause:3.10', ...extra });
const pod = (spec: Partial<PodSpec>): Pod => ({ metadata: { name: 'p' }, spec: { containers: [main()], ...spec } });
const withVolume = (volume: Record<string, unknown>): Pod => pod({ volumes: [{ name: 'v', ...volume }] });

describe(findApiReference.name, () => {
  it('finds nothing in a pod without references', () => {
    expect(findApiReference(pod({}))).toBeUndefined();
  });

  it('names service accounts, also through the deprecated serviceAccount field', () => {
    expect(findApiReference(pod({ serviceAccountName: 'x' }))).toBe('serviceaccounts');
    expect(findApiReference(pod({ serviceAccount: 'x' }))).toBe('serviceaccounts');
  });

  it('names secrets referenced from pull secrets, env, envFrom and volumes', () => {
    expect(findApiReference(pod({ imagePullSecrets: [{ name: 'reg' }] }))).toBe('secrets');
    expect(findApiReference(pod({ containers: [main({ env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] })] }))).toBe('secrets');
    expect(findApiReference(pod({ initContainers: [main({ envFrom: [{ secretRef: { name: 's' } }] })] }))).toBe('secrets');
    expect(findApiReference(withVolume({ secret: { secretName: 's' } }))).toBe('secrets');
    expect(findApiReference(withVolume({ projected: { sources: [{ secret: { name: 's' } }] } }))).toBe('secrets');
    expect(findApiReference(withVolume({ azureFile: { secretName: 's', shareName: 'x' } }))).toBe('secrets');
    expect(findApiReference(withVolume({ csi: { driver: 'd', nodePublishSecretRef: { name: 's' } } }))).toBe('secrets');
    for (const type of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos']) {
      expect(findApiReference(withVolume({ [type]: { secretRef: { name: 's' } } }))).toBe('secrets');
    }
  });

  it('names config maps referenced from env, envFrom and volumes', () => {
    expect(findApiReference(pod({ containers: [main({ env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } }] })] }))).toBe('configmaps');
    expect(findApiReference(pod({ containers: [main({ envFrom: [{ configMapRef: { name: 'c' } }] })] }))).toBe('configmaps');
    expect(findApiReference(withVolume({ configMap: { name: 'c' } }))).toBe('configmaps');
    expect(findApiReference(withVolume({ projected: { sources: [{ configMap: { name: 'c' } }] } }))).toBe('configmaps');
  });

  it('allows env values from fields and resources', () => {
    const env = [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }, { name: 'M', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } }];
    expect(findApiReference(pod({ containers: [main({ env })] }))).toBeUndefined();
  });

  it('names resource claims', () => {
    expect(findApiReference(pod({ resourceClaims: [{ name: 'gpu' }] }))).toBe('resourceclaims');
  });

  it('names the volume types that reference API objects', () => {
    expect(findApiReference(withVolume({ csi: { driver: 'd' } }))).toBe('csidrivers (via CSI volumes)');
    expect(findApiReference(withVolume({ glusterfs: { endpoints: 'e', path: 'p' } }))).toBe('endpoints (via glusterFS volumes)');
    expect(findApiReference(withVolume({ persistentVolumeClaim: { claimName: 'c' } }))).toBe('persistentvolumeclaims');
    expect(findApiReference(withVolume({ ephemeral: { volumeClaimTemplate: { spec: {} } } }))).toBe('persistentvolumeclaims (via ephemeral volumes)');
  });

  it('names projected sources that need the API and allows downwardAPI ones', () => {
    expect(findApiReference(withVolume({ projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }))).toBe('serviceaccounts (via projected volumes)');
    expect(findApiReference(withVolume({ projected: { sources: [{ clusterTrustBundle: { path: 'b', name: 'x' } }] } }))).toBe('clustertrustbundles');
    expect(findApiReference(withVolume({ projected: { sources: [{ podCertificate: { signerName: 'a/b', keyType: 'ED25519' } }] } }))).toBe('podcertificates');
    expect(findApiReference(withVolume({ projected: { sources: [{ downwardAPI: { items: [] } }] } }))).toBeUndefined();
  });

  it('allows local volume types', () => {
    for (const volume of [{ hostPath: { path: '/x' } }, { emptyDir: {} }, { downwardAPI: {} }, { image: { reference: 'x' } }, { nfs: { server: 's', path: '/' } }]) {
      expect(findApiReference(withVolume(volume))).toBeUndefined();
    }
  });

  it('rejects volume and projection types it does not know', () => {
    expect(() => findApiReference(withVolume({ teleport: {} }))).toThrow(new Rejection('PODCONFIG_MANIFEST_INVALID', 'unknown volume type for volume "v"'));
    expect(() => findApiReference(withVolume({ projected: { sources: [{ hologram: {} }] } }))).toThrow('unknown source for projected volume "v"');
  });

  it('makes the decoder reject a forbidden reference with PODCONFIG_MANIFEST_FORBIDDEN_REFERENCE (checklist 13)', () => {
    const cases: Array<[string, string]> = [
      ['  volumes:\n  - {name: data, persistentVolumeClaim: {claimName: data}}', 'persistentvolumeclaims'],
      ['  resourceClaims:\n  - {name: gpu, resourceClaimName: gpu}', 'resourceclaims'],
      ['    envFrom: [{secretRef: {name: creds}}]', 'secrets'],
      ['  imagePullSecrets: [{name: registry}]', 'secrets'],
    ];
    for (const [extra, resource] of cases) {
      let caught: unknown;
      try {
        decodeFilePod(podManifestYaml('web', { extra }), { nodeName: 'n', origin: { kind: 'file', path: '/m/web.yaml' } });
      } catch (err: unknown) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ManifestInvalidError);
      expect((caught as ManifestInvalidError).code).toBe('PODCONFIG_MANIFEST_FORBIDDEN_REFERENCE');
      expect((caught as ManifestInvalidError).message).toBe(`/m/web.yaml: static pods may not reference ${resource}`);
    }
  });

  it('leaves a projected service account token to validation, which refuses it first (no serviceAccountName) or after it (one names the service account)', () => {
    const token = '  volumes:\n  - {name: token, projected: {sources: [{serviceAccountToken: {path: token}}]}}';
    const decode = (extra: string): unknown => {
      try {
        return decodeFilePod(podManifestYaml('web', { extra }), { nodeName: 'n', origin: { kind: 'file', path: '/m/web.yaml' } });
      } catch (err: unknown) {
        return err;
      }
    };
    const unnamed = decode(token) as ManifestInvalidError;
    expect(unnamed.code).toBe('PODCONFIG_MANIFEST_INVALID');
    expect(unnamed.message).toContain('spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set');
    const named = decode(`${token}\n  serviceAccountName: builder`) as ManifestInvalidError;
    expect(named.code).toBe('PODCONFIG_MANIFEST_FORBIDDEN_REFERENCE');
    expect(named.message).toBe('/m/web.yaml: static pods may not reference serviceaccounts');
  });
});
