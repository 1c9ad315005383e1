import type { Container, Pod, PodSpec } from '@podconfig/core';
import { containersWithPaths } from './containers-with-paths.js';

type SeccompProfile = NonNullable<NonNullable<Container['securityContext']>['seccompProfile']>;
type AppArmorProfile = NonNullable<NonNullable<Container['securityContext']>['appArmorProfile']>;

/** v1.SeccompPodAnnotationKey and v1.SeccompContainerAnnotationKeyPrefix. */
const SECCOMP_POD_KEY = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
/** v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix. */
const APPARMOR_CONTAINER_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
/** The profile values of both annotations: the runtime's default, none, or a profile on the node. */
const RUNTIME_DEFAULT = 'runtime/default';
const DOCKER_DEFAULT = 'docker/default';
const UNCONFINED = 'unconfined';
const LOCALHOST_PREFIX = 'localhost/';

/**
 * The deprecated seccomp and AppArmor annotations, as ValidatePodSpecificAnnotations checks them
 * (ValidateSeccompPodAnnotations, ValidateAppArmorPodAnnotations): a profile value is `runtime/default`,
 * `unconfined` or `localhost/<profile>` (seccomp also takes `docker/default`, and its local profile is a relative
 * path without `..`); an AppArmor annotation names a container of the pod.
 *
 * Paths are the API's (seccomp keys as a child, AppArmor keys as a map key, both unquoted). Annotation values
 * are never shown (the podconfig rule for every annotation value: see "Errors" in the README), so where the API
 * prints the value these errors print `Invalid value:` alone, as the API does for a value it omits.
 */
export function validateSecurityAnnotations(pod: Pod, errors: string[]): void {
  const annotations = pod.metadata?.annotations ?? {};
  const seccompPod = annotations[SECCOMP_POD_KEY];
  if (seccompPod !== undefined) validateSeccompAnnotation(seccompPod, `metadata.annotations.${SECCOMP_POD_KEY}`, errors);
  for (const [key, value] of Object.entries(annotations)) {
    if (key.startsWith(SECCOMP_CONTAINER_PREFIX)) validateSeccompAnnotation(value, `metadata.annotations.${key}`, errors);
  }
  let containers: [Container, string][] | undefined;
  for (const [key, value] of Object.entries(annotations)) {
    if (!key.startsWith(APPARMOR_CONTAINER_PREFIX)) continue;
    containers ??= pod.spec === undefined ? [] : containersWithPaths(pod.spec);
    const at = `metadata.annotations[${key}]`;
    const name = key.slice(APPARMOR_CONTAINER_PREFIX.length);
    if (!containers.some(([c]) => c.name === name)) errors.push(`${at}: Invalid value: ${JSON.stringify(name)}: container not found`);
    if (value !== '' && value !== RUNTIME_DEFAULT && value !== UNCONFINED && !value.startsWith(LOCALHOST_PREFIX)) {
      errors.push(`${at}: Invalid value: invalid AppArmor profile name`);
    }
  }
}

/**
 * ValidatePodCreate's last checks, validateSeccompAnnotationsAndFields and
 * validateAppArmorAnnotationsAndFieldsMatchOnCreate: where an annotation and the matching `seccompProfile` or
 * `appArmorProfile` field are both set, they agree.
 */
export function validateSecurityAnnotationsMatchFields(pod: Pod, errors: string[]): void {
  const annotations = pod.metadata?.annotations ?? {};
  if (pod.spec === undefined || !Object.keys(annotations).some(isSecurityAnnotation)) return;
  const containers = containersWithPaths(pod.spec);
  validateSeccompMatch(annotations, pod.spec, containers, errors);
  validateAppArmorMatch(annotations, pod.spec, containers, errors);
}

/** A seccomp or AppArmor annotation: most pods have none, and then nothing is to match. */
const isSecurityAnnotation = (key: string): boolean =>
  key === SECCOMP_POD_KEY || key.startsWith(SECCOMP_CONTAINER_PREFIX) || key.startsWith(APPARMOR_CONTAINER_PREFIX);

/** ValidateSeccompProfile for an annotation value. */
function validateSeccompAnnotation(value: string, at: string, errors: string[]): void {
  if (value === RUNTIME_DEFAULT || value === DOCKER_DEFAULT || value === UNCONFINED) return;
  if (!value.startsWith(LOCALHOST_PREFIX)) {
    errors.push(`${at}: Invalid value: must be a valid seccomp profile`);
    return;
  }
  // validateLocalDescendingPath on the profile path.
  const profile = value.slice(LOCALHOST_PREFIX.length);
  if (profile.startsWith('/')) errors.push(`${at}: Invalid value: must be a relative path`);
  if (profile.split('/').includes('..')) errors.push(`${at}: Invalid value: must not contain '..'`);
}

/** validateSeccompAnnotationsAndFieldsMatch: undefined when they agree, else the error. */
function seccompMismatch(annotation: string, profile: SeccompProfile, at: string): string | undefined {
  switch (profile.type) {
    case 'Unconfined':
      return annotation === UNCONFINED ? undefined : `${at}.type: Forbidden: seccomp type in annotation and field must match`;
    case 'RuntimeDefault':
      return annotation === RUNTIME_DEFAULT || annotation === DOCKER_DEFAULT ? undefined : `${at}.type: Forbidden: seccomp type in annotation and field must match`;
    case 'Localhost':
      if (!annotation.startsWith(LOCALHOST_PREFIX)) return `${at}.type: Forbidden: seccomp type in annotation and field must match`;
      if (profile.localhostProfile !== annotation.slice(LOCALHOST_PREFIX.length)) return `${at}.localhostProfile: Forbidden: seccomp profile in annotation and field must match`;
      return undefined;
    default:
      return undefined;
  }
}

/** validateSeccompAnnotationsAndFields: the pod's annotation against its field, each container's against its own. */
function validateSeccompMatch(annotations: Readonly<Record<string, string>>, spec: PodSpec, containers: [Container, string][], errors: string[]): void {
  const podProfile = spec.securityContext?.seccompProfile;
  const podAnnotation = annotations[SECCOMP_POD_KEY];
  if (podProfile !== undefined && podAnnotation !== undefined) {
    const error = seccompMismatch(podAnnotation, podProfile, 'spec.securityContext.seccompProfile');
    if (error !== undefined) errors.push(error);
  }
  for (const [c, at] of containers) {
    const profile = c.securityContext?.seccompProfile;
    const annotation = annotations[`${SECCOMP_CONTAINER_PREFIX}${c.name as string | undefined ?? ''}`];
    if (profile === undefined || annotation === undefined) continue;
    const error = seccompMismatch(annotation, profile, `${at}.securityContext.seccompProfile`);
    if (error !== undefined) errors.push(error);
  }
}

/**
 * validateAppArmorAnnotationsAndFieldsMatchOnCreate: each container's annotation against the profile it runs with
 * (its own, else the pod's), reported at the container's field. Windows pods are skipped.
 */
function validateAppArmorMatch(annotations: Readonly<Record<string, string>>, spec: PodSpec, containers: [Container, string][], errors: string[]): void {
  if (spec.os?.name === 'windows') return;
  const podProfile = spec.securityContext?.appArmorProfile;
  for (const [c, cAt] of containers) {
    const profile: AppArmorProfile | undefined = c.securityContext?.appArmorProfile ?? podProfile;
    const annotation = annotations[`${APPARMOR_CONTAINER_PREFIX}${c.name as string | undefined ?? ''}`];
    if (profile === undefined || annotation === undefined) continue;
    const at = `${cAt}.securityContext.appArmorProfile`;
    switch (profile.type) {
      case 'Unconfined':
        if (annotation !== UNCONFINED) errors.push(`${at}.type: Forbidden: apparmor type in annotation and field must match`);
        break;
      case 'RuntimeDefault':
        if (annotation !== RUNTIME_DEFAULT) errors.push(`${at}.type: Forbidden: apparmor type in annotation and field must match`);
        break;
      case 'Localhost':
        if (!annotation.startsWith(LOCALHOST_PREFIX)) errors.push(`${at}.type: Forbidden: apparmor type in annotation and field must match`);
        else if (profile.localhostProfile !== annotation.slice(LOCALHOST_PREFIX.length)) {
          errors.push(`${at}.localhostProfile: Forbidden: apparmor profile in annotation and field must match`);
        }
        break;
      default:
    }
  }
}
