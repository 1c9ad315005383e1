import type { Container, Pod, PodSpec, Volume } from '@podconfig/core';
import {
  dns1123LabelProblems, dns1123SubdomainProblems, ipAddressProblems, labelValueProblems, portNameProblems, qualifiedNameProblems,
} from './name-rules.js';
import { validateAffinity } from './validate-affinity.js';
import { validateContainerRestartPolicy, validateInitContainerRestartPolicy } from './validate-container-restart-policy.js';
import { validatePodDnsConfig } from './validate-dns-config.js';
import { validateEnv, validateEnvFrom, validateFileKeyRefVolumes } from './validate-env.js';
import { checkHostPortConflicts } from './validate-host-ports.js';
import { validateHostnameOverride } from './validate-hostname-override.js';
import { goJsonString } from './validate-error-values.js';
import { oneOf } from './validate-one-of.js';
import { validatePodOs } from './validate-pod-os.js';
import { validatePodResources } from './validate-pod-resources.js';
import { validateProbesAndLifecycle } from './validate-probes.js';
import { validateResizePolicy } from './validate-resize-policy.js';
import { validateContainerResources } from './validate-resource-requirements.js';
import { validateSecurityAnnotations, validateSecurityAnnotationsMatchFields } from './validate-security-annotations.js';
import { usesHostUsers, validateContainerSecurityContext, validatePodSecurityContext } from './validate-security-context.js';
import { validateTopologySpreadConstraints } from './validate-topology-spread.js';
import { validateVolumeMountsAndDevices } from './validate-volume-mounts.js';
import { validateVolumeSource } from './validate-volume-sources.js';
import { validateWindowsHostProcessPod } from './validate-windows-options.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
/** supportedPullPolicies, sorted as the API lists them. */
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
/** The operators ValidateTolerations lists for an unknown one, in its order; for Lt or Gt, it lists those too. */
const TOLERATION_OPERATORS = ['Equal', 'Exists'];
const TOLERATION_OPERATORS_WITH_COMPARISONS = ['Equal', 'Exists', 'Lt', 'Gt'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];
/**
 * A UID a manifest pins (podconfig's rule, not the API's, which never takes a UID from a client): handlers
 * name files, directories and cgroups by it, so `../x` or `a/b` must not get that far.
 */
const SAFE_UID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** v1.PodDeletionCost. */
const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
/** TotalAnnotationSizeLimitB: the summed length of annotation keys and values. */
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/**
 * A subset of the API's ValidatePodCreate (step 7), run on the pod after the kubelet defaults: metadata
 * names, labels and annotations (the seccomp and AppArmor ones too); containers, init containers and their
 * ports, env, probes, policies and security contexts; volumes and mounts; the pod's resources, security
 * context, Windows options, affinity, topology spread, DNS, host aliases, hostname override, gates, OS and
 * tolerations. Returns the errors as `<field path>: <problem>`; values are quoted only for names and keys,
 * never for env values, commands or annotation values.
 */
export function validatePod(pod: Pod): string[] {
  const errors: string[] = [];
  const meta = pod.metadata ?? {};
  const name = meta.name ?? '';
  if (name === '') errors.push('metadata.name: Required value: name or generateName is required');
  else for (const p of dns1123SubdomainProblems(name)) errors.push(`metadata.name: Invalid value: ${JSON.stringify(name)}: ${p}`);
  // Set by the kubelet defaults before this runs; a pod checked without them may have none.
  if (meta.uid !== undefined && meta.uid !== '' && !SAFE_UID.test(meta.uid)) {
    errors.push(`metadata.uid: Invalid value: ${JSON.stringify(meta.uid)}: must be 1-128 letters, digits, '-', '.' or '_', starting with a letter or digit`);
  }
  const namespace = meta.namespace ?? '';
  for (const p of dns1123LabelProblems(namespace)) errors.push(`metadata.namespace: Invalid value: ${JSON.stringify(namespace)}: ${p}`);
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    const at = `metadata.labels[${JSON.stringify(key)}]`;
    for (const p of qualifiedNameProblems(key)) errors.push(`${at}: Invalid value: ${JSON.stringify(key)}: ${p}`);
    for (const p of labelValueProblems(value)) errors.push(`${at}: Invalid value: ${JSON.stringify(value)}: ${p}`);
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    for (const p of qualifiedNameProblems(key.toLowerCase())) errors.push(`metadata.annotations: Invalid value: ${JSON.stringify(key)}: ${p}`);
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(value); // bytes, as Go's len()
  }
  if (annotationBytes > MAX_ANNOTATIONS_BYTES) {
    errors.push(`metadata.annotations: Too long: may not be more than ${MAX_ANNOTATIONS_BYTES} bytes`);
  }
  validatePodDeletionCost(meta.annotations ?? {}, errors);
  validateSecurityAnnotations(pod, errors);
  if (pod.spec === undefined) errors.push('spec: Required value');
  else {
    validateSpec(pod.spec, name, errors);
    validateServiceAccountTokens(pod.spec, errors);
    validateSecurityAnnotationsMatchFields(pod, errors);
  }
  return errors;
}

function validateSpec(spec: PodSpec, podName: string, errors: string[]): void {
  if (spec.terminationGracePeriodSeconds === undefined) errors.push('spec.terminationGracePeriodSeconds: Required value');
  const volumes = validateVolumes(spec.volumes ?? [], podName, errors);
  // Required members read with a default: a manifest may leave them out (the schema check does not require them).
  const containers = (spec.containers as readonly Container[] | undefined) ?? [];
  if (containers.length === 0) errors.push('spec.containers: Required value');
  const names = new Set<string>();
  (spec.initContainers ?? []).forEach((c, i) => {
    validateContainer(c, `spec.initContainers[${i}]`, true, spec, volumes, names, errors);
    // Init containers run one at a time, so only the ports of one may collide.
    checkHostPortConflicts([c], 'spec.initContainers', i, errors);
  });
  containers.forEach((c, i) => validateContainer(c, `spec.containers[${i}]`, false, spec, volumes, names, errors));
  checkHostPortConflicts(containers, 'spec.containers', 0, errors);
  validatePodResources(spec, errors);
  if ((spec.ephemeralContainers ?? []).length > 0) errors.push('spec.ephemeralContainers: Forbidden: cannot be set on create');
  oneOf(spec.restartPolicy, RESTART_POLICIES, 'spec.restartPolicy', errors);
  oneOf(spec.dnsPolicy, DNS_POLICIES, 'spec.dnsPolicy', errors);
  if (spec.activeDeadlineSeconds !== undefined && !(spec.activeDeadlineSeconds >= 1 && spec.activeDeadlineSeconds <= 2147483647)) {
    errors.push('spec.activeDeadlineSeconds: Invalid value: must be between 1 and 2147483647, inclusive');
  }
  for (const [field, value] of [['hostname', spec.hostname], ['subdomain', spec.subdomain]] as const) {
    if (value) for (const p of dns1123LabelProblems(value)) errors.push(`spec.${field}: Invalid value: ${JSON.stringify(value)}: ${p}`);
  }
  if (spec.runtimeClassName !== undefined) {
    for (const p of dns1123SubdomainProblems(spec.runtimeClassName)) {
      errors.push(`spec.runtimeClassName: Invalid value: ${JSON.stringify(spec.runtimeClassName)}: ${p}`);
    }
  }
  if (spec.preemptionPolicy === '') errors.push('spec.preemptionPolicy: Required value');
  else oneOf(spec.preemptionPolicy, PREEMPTION_POLICIES, 'spec.preemptionPolicy', errors);
  validatePodSecurityContext(spec, errors);
  if (spec.priorityClassName) {
    for (const p of dns1123SubdomainProblems(spec.priorityClassName)) {
      errors.push(`spec.priorityClassName: Invalid value: ${JSON.stringify(spec.priorityClassName)}: ${p}`);
    }
  }
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) {
    const at = `spec.nodeSelector[${JSON.stringify(key)}]`;
    for (const p of qualifiedNameProblems(key)) errors.push(`${at}: Invalid value: ${JSON.stringify(key)}: ${p}`);
    for (const p of labelValueProblems(value)) errors.push(`${at}: Invalid value: ${JSON.stringify(value)}: ${p}`);
  }
  (spec.tolerations ?? []).forEach((t, i) => {
    const at = `spec.tolerations[${i}]`;
    if (t.key) for (const p of qualifiedNameProblems(t.key)) errors.push(`${at}.key: Invalid value: ${JSON.stringify(t.key)}: ${p}`);
    if (!t.key && t.operator !== 'Exists') errors.push(`${at}.operator: Invalid value: operator must be Exists when \`key\` is empty, which means "match all values and all keys"`);
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      errors.push(`${at}.effect: Invalid value: effect must be 'NoExecute' when \`tolerationSeconds\` is set`);
    }
    const operator = t.operator ?? '';
    if (operator === 'Equal' || operator === '') {
      // An empty operator means Equal: the value is a label value, its problems joined by ';' (the API's words).
      const problems = labelValueProblems(t.value ?? '');
      if (problems.length > 0) errors.push(`${at}.operator: Invalid value: ${JSON.stringify(t.value ?? '')}: ${problems.join(';')}`);
    } else if (operator === 'Exists') {
      if (t.value) errors.push(`${at}.operator: Invalid value: value must be empty when \`operator\` is 'Exists'`);
    } else {
      // Lt and Gt need TaintTolerationComparisonOperators (alpha, off in 1.36): refused, listing all four.
      const listed = operator === 'Lt' || operator === 'Gt' ? TOLERATION_OPERATORS_WITH_COMPARISONS : TOLERATION_OPERATORS;
      errors.push(`${at}.operator: Unsupported value: ${goJsonString(operator)}: supported values: ${listed.map((o) => JSON.stringify(o)).join(', ')}`);
    }
    if (t.effect) oneOf(t.effect, TAINT_EFFECTS, `${at}.effect`, errors);
  });
  validateAffinity(spec.affinity, errors);
  validatePodDnsConfig(spec, errors);
  (spec.readinessGates ?? []).forEach((gate, i) => {
    const type = (gate.conditionType as string | undefined) ?? '';
    for (const p of qualifiedNameProblems(type)) errors.push(`spec.readinessGates[${i}].conditionType: Invalid value: ${JSON.stringify(type)}: ${p}`);
  });
  validateSchedulingGates(spec, errors);
  validateTopologySpreadConstraints(spec.topologySpreadConstraints ?? [], errors);
  validateWindowsHostProcessPod(spec, errors);
  validateHostnameOverride(spec, errors);
  validateHostAliases(spec, errors);
  validatePodOs(spec, errors);
  validateFileKeyRefVolumes(spec, errors);
}

/**
 * ValidatePodSpecificAnnotations with PodDeletionCost on (beta, on by default since 1.22): the
 * `controller.kubernetes.io/pod-deletion-cost` annotation is a 32-bit integer written without a `+` or leading zeros
 * (GetDeletionCostFromPodAnnotations). The value is never shown.
 */
function validatePodDeletionCost(annotations: Readonly<Record<string, string>>, errors: string[]): void {
  const value = annotations[POD_DELETION_COST];
  if (value === undefined) return;
  const cost = /^(0|-?[1-9][0-9]*|-0[0-9]*)$/.test(value) ? Number(value) : Number.NaN;
  if (!(cost >= -(2 ** 31) && cost <= 2 ** 31 - 1)) {
    errors.push(`metadata.annotations[${POD_DELETION_COST}]: Invalid value: must be a 32bit integer`);
  }
}

/**
 * validatePodMetadataAndSpec: a pod without a service account may not project a service account token. A static
 * pod may not name a service account at all (step 8), so any such projection is refused, here first.
 */
function validateServiceAccountTokens(spec: PodSpec, errors: string[]): void {
  if (spec.serviceAccountName) return;
  (spec.volumes ?? []).forEach((volume, i) => {
    (volume.projected?.sources ?? []).forEach((source, j) => {
      if (source.serviceAccountToken !== undefined) {
        errors.push(`spec.volumes[${i}].projected.sources[${j}].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set`);
      }
    });
  });
}

/**
 * validateSchedulingGates, and ValidatePodCreate's rule that a pod bound to a node has none: the kubelet binds
 * every static pod to its node, so a static pod with scheduling gates is refused.
 */
function validateSchedulingGates(spec: PodSpec, errors: string[]): void {
  const gates = spec.schedulingGates ?? [];
  const seen = new Set<string>();
  gates.forEach((gate, i) => {
    const name = (gate.name as string | undefined) ?? '';
    for (const p of qualifiedNameProblems(name)) errors.push(`spec.schedulingGates[${i}]: Invalid value: ${JSON.stringify(name)}: ${p}`);
    if (seen.has(name)) errors.push(`spec.schedulingGates[${i}]: Duplicate value: ${JSON.stringify(name)}`);
    seen.add(name);
  });
  if (spec.nodeName && gates.length > 0) errors.push('spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared');
}

/** ValidateHostAliases: an IP (strict in 1.36: see ipAddressProblems) and DNS-1123 subdomain host names for each /etc/hosts entry. */
function validateHostAliases(spec: PodSpec, errors: string[]): void {
  (spec.hostAliases ?? []).forEach((alias, i) => {
    const at = `spec.hostAliases[${i}]`;
    const ip = alias.ip ?? '';
    for (const p of ipAddressProblems(ip)) errors.push(`${at}.ip: Invalid value: ${JSON.stringify(ip)}: ${p}`);
    (alias.hostnames ?? []).forEach((hostname, j) => {
      for (const p of dns1123SubdomainProblems(hostname)) errors.push(`${at}.hostnames[${j}]: Invalid value: ${JSON.stringify(hostname)}: ${p}`);
    });
  });
}

/**
 * ValidateVolumes: unique DNS-1123 label names and one valid source each (validateVolumeSource); no
 * persistentVolumeClaim naming the claim an ephemeral volume of the pod creates (`<pod name>-<volume name>`).
 * Returns the volumes that passed, by name: as in the API, a mount or device naming a volume with errors is
 * reported as not found too.
 */
function validateVolumes(volumes: readonly Volume[], podName: string, errors: string[]): Map<string, Volume> {
  const byName = new Map<string, Volume>();
  const names = new Set<string>();
  const createdClaims = new Set(volumes.filter((v) => v.ephemeral !== undefined).map((v) => `${podName}-${(v.name as string | undefined) ?? ''}`));
  volumes.forEach((volume, i) => {
    const at = `spec.volumes[${i}]`;
    const name = (volume.name as string | undefined) ?? '';
    const volumeErrors: string[] = [];
    validateVolumeSource(volume, at, volumeErrors, podName);
    if (name === '') volumeErrors.push(`${at}.name: Required value`);
    else for (const p of dns1123LabelProblems(name)) volumeErrors.push(`${at}.name: Invalid value: ${JSON.stringify(name)}: ${p}`);
    if (names.has(name)) volumeErrors.push(`${at}.name: Duplicate value: ${JSON.stringify(name)}`);
    if (volumeErrors.length === 0) {
      names.add(name);
      byName.set(name, volume);
    }
    errors.push(...volumeErrors);
    const claimName = (volume.persistentVolumeClaim?.claimName) ?? '';
    if (podName !== '' && claimName !== '' && createdClaims.has(claimName)) {
      errors.push(`${at}.persistentVolumeClaim.claimName: Invalid value: ${JSON.stringify(claimName)}: must not reference a PVC that gets created for an ephemeral volume`);
    }
  });
  return byName;
}

function validateContainer(
  c: Container, at: string, init: boolean, spec: PodSpec, volumes: ReadonlyMap<string, Volume>, names: Set<string>, errors: string[],
): void {
  const name = (c.name as string | undefined) ?? '';
  if (name === '') errors.push(`${at}.name: Required value`);
  else for (const p of dns1123LabelProblems(name)) errors.push(`${at}.name: Invalid value: ${JSON.stringify(name)}: ${p}`);
  if (names.has(name)) errors.push(`${at}.name: Duplicate value: ${JSON.stringify(name)}`);
  names.add(name);
  const image = c.image ?? '';
  if (image === '') errors.push(`${at}.image: Required value`);
  else if (image.trim() !== image) errors.push(`${at}.image: Invalid value: must not have leading or trailing whitespace`);
  oneOf(c.imagePullPolicy, PULL_POLICIES, `${at}.imagePullPolicy`, errors);
  oneOf(c.terminationMessagePolicy, MESSAGE_POLICIES, `${at}.terminationMessagePolicy`, errors);
  const portNames = new Set<string>();
  (c.ports ?? []).forEach((port, j) => {
    const p = `${at}.ports[${j}]`;
    if (port.name) {
      for (const problem of portNameProblems(port.name)) errors.push(`${p}.name: Invalid value: ${JSON.stringify(port.name)}: ${problem}`);
      if (portNames.has(port.name)) errors.push(`${p}.name: Duplicate value: ${JSON.stringify(port.name)}`);
      portNames.add(port.name);
    }
    const containerPort = port.containerPort as number | undefined;
    if (containerPort === undefined) errors.push(`${p}.containerPort: Required value`);
    else if (!(containerPort >= 1 && containerPort <= 65535)) errors.push(`${p}.containerPort: Invalid value: ${containerPort}: must be between 1 and 65535, inclusive`);
    const hostPort = port.hostPort ?? 0;
    if (!(hostPort >= 0 && hostPort <= 65535)) errors.push(`${p}.hostPort: Invalid value: ${hostPort}: must be between 1 and 65535, inclusive`);
    if (spec.hostNetwork === true && hostPort !== port.containerPort) {
      errors.push(`${p}.hostPort: Invalid value: ${hostPort}: must match \`containerPort\` when \`hostNetwork\` is true`);
    }
    oneOf(port.protocol, PROTOCOLS, `${p}.protocol`, errors);
  });
  validateEnv(c.env ?? [], `${at}.env`, errors);
  validateEnvFrom(c.envFrom ?? [], `${at}.envFrom`, errors);
  validateVolumeMountsAndDevices(c, volumes, at, errors);
  validateContainerSecurityContext(c.securityContext, `${at}.securityContext`, usesHostUsers(spec), errors);
  validateContainerResources(c.resources, spec, `${at}.resources`, errors);
  validateResizePolicy(c, spec, `${at}.resizePolicy`, errors);
  if (init) {
    // validateInitContainers: the restart policy, then probes and hooks for a sidecar (an init container that keeps
    // running, restartPolicy Always) and none for another, then the resize policy of one that is not a sidecar.
    validateInitContainerRestartPolicy(c, at, errors);
    if (c.restartPolicy === 'Always') validateProbesAndLifecycle(c, spec.terminationGracePeriodSeconds, at, errors);
    else {
      for (const field of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
        if (c[field] !== undefined) errors.push(`${at}.${field}: Forbidden: may not be set for init containers without restartPolicy=Always`);
      }
    }
  } else {
    // validateContainers: probes and hooks, then the container's restart policy and rules (ContainerRestartRules).
    validateProbesAndLifecycle(c, spec.terminationGracePeriodSeconds, at, errors);
    validateContainerRestartPolicy(c, at, errors);
  }
}
