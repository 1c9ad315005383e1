import type { Container, Pod, PodSpec, Volume } from '@podconfig/core';
import { defaultImagePullPolicy } from './image-pull-policy.js';

type Probe = NonNullable<Container['livenessProbe']>;
type HttpGet = NonNullable<Probe['httpGet']>;
type LifecycleHandler = NonNullable<NonNullable<Container['lifecycle']>['postStart']>;
/** Fields newer than the `kubernetes-types` release core uses. */
type ImageVolumeSource = { reference?: string; pullPolicy?: string };

/**
 * The registered API defaulting of a v1 Pod (pkg/apis/core/v1 defaults.go and zz_generated.defaults.go),
 * applied in place to a schema-checked pod. Not applied: the PodLevelResources aggregation of pod-level
 * requests/limits and the rounding of quantities to milli-units.
 */
export function applyApiDefaults(pod: Pod): void {
  const spec: PodSpec = (pod.spec ??= { containers: [] });
  // Left out of a manifest, `containers` is a nil slice to Go: nothing to default (validation requires one).
  const containers = (spec.containers as Container[] | undefined) ?? [];
  // SetDefaults_Pod
  for (const c of [...containers, ...(spec.initContainers ?? [])]) defaultRequestsToLimits(c);
  spec.enableServiceLinks ??= true;
  if (spec.hostNetwork === true) {
    for (const c of [...containers, ...(spec.initContainers ?? [])]) {
      for (const port of c.ports ?? []) if ((port.hostPort ?? 0) === 0) port.hostPort = port.containerPort;
    }
  }
  // SetDefaults_PodSpec
  if (!spec.dnsPolicy) spec.dnsPolicy = 'ClusterFirst';
  if (!spec.restartPolicy) spec.restartPolicy = 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  if (!spec.schedulerName) spec.schedulerName = 'default-scheduler';
  // Nested objects
  for (const volume of spec.volumes ?? []) defaultVolume(volume);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const c of containers) defaultContainer(c);
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c);
}

function defaultRequestsToLimits(c: Container): void {
  const limits = c.resources?.limits;
  if (c.resources === undefined || limits === undefined) return;
  const requests = (c.resources.requests ??= {});
  for (const [name, value] of Object.entries(limits)) if (!Object.hasOwn(requests, name)) requests[name] = value;
}

function defaultContainer(c: Container): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = defaultImagePullPolicy(c.image ?? '');
  if (!c.terminationMessagePath) c.terminationMessagePath = '/dev/termination-log';
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  for (const port of c.ports ?? []) if (!port.protocol) port.protocol = 'TCP';
  for (const env of c.env ?? []) {
    const fieldRef = env.valueFrom?.fieldRef;
    if (fieldRef !== undefined && !fieldRef.apiVersion) fieldRef.apiVersion = 'v1';
  }
  for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) if (probe !== undefined) defaultProbe(probe);
  for (const handler of [c.lifecycle?.postStart, c.lifecycle?.preStop]) if (handler !== undefined) defaultHandler(handler);
}

function defaultProbe(probe: Probe): void {
  if (!probe.timeoutSeconds) probe.timeoutSeconds = 1;
  if (!probe.periodSeconds) probe.periodSeconds = 10;
  if (!probe.successThreshold) probe.successThreshold = 1;
  if (!probe.failureThreshold) probe.failureThreshold = 3;
  if (probe.httpGet !== undefined) defaultHttpGet(probe.httpGet);
  if (probe.grpc !== undefined) probe.grpc.service ??= '';
}

function defaultHandler(handler: LifecycleHandler): void {
  if (handler.httpGet !== undefined) defaultHttpGet(handler.httpGet);
}

function defaultHttpGet(action: HttpGet): void {
  if (!action.path) action.path = '/';
  if (!action.scheme) action.scheme = 'HTTP';
}

function defaultVolume(volume: Volume): void {
  const sources = Object.keys(volume).filter((key) => key !== 'name');
  if (sources.length === 0) volume.emptyDir = {};
  if (volume.hostPath !== undefined) volume.hostPath.type ??= '';
  if (volume.secret !== undefined) volume.secret.defaultMode ??= 0o644;
  if (volume.configMap !== undefined) volume.configMap.defaultMode ??= 0o644;
  if (volume.downwardAPI !== undefined) {
    volume.downwardAPI.defaultMode ??= 0o644;
    for (const item of volume.downwardAPI.items ?? []) if (item.fieldRef !== undefined && !item.fieldRef.apiVersion) item.fieldRef.apiVersion = 'v1';
  }
  if (volume.projected !== undefined) {
    volume.projected.defaultMode ??= 0o644;
    for (const source of volume.projected.sources ?? []) {
      for (const item of source.downwardAPI?.items ?? []) if (item.fieldRef !== undefined && !item.fieldRef.apiVersion) item.fieldRef.apiVersion = 'v1';
      if (source.serviceAccountToken !== undefined) source.serviceAccountToken.expirationSeconds ??= 3600;
    }
  }
  if (volume.iscsi !== undefined && !volume.iscsi.iscsiInterface) volume.iscsi.iscsiInterface = 'default';
  if (volume.rbd !== undefined) {
    if (!volume.rbd.pool) volume.rbd.pool = 'rbd';
    if (!volume.rbd.user) volume.rbd.user = 'admin';
    if (!volume.rbd.keyring) volume.rbd.keyring = '/etc/ceph/keyring';
  }
  if (volume.azureDisk !== undefined) {
    volume.azureDisk.cachingMode ??= 'ReadWrite';
    volume.azureDisk.kind ??= 'Shared';
    volume.azureDisk.fsType ??= 'ext4';
    volume.azureDisk.readOnly ??= false;
  }
  if (volume.scaleIO !== undefined) {
    if (!volume.scaleIO.storageMode) volume.scaleIO.storageMode = 'ThinProvisioned';
    if (!volume.scaleIO.fsType) volume.scaleIO.fsType = 'xfs';
  }
  const image = (volume as { image?: ImageVolumeSource }).image;
  if (image !== undefined && !image.pullPolicy) image.pullPolicy = defaultImagePullPolicy(image.reference ?? '');
}
