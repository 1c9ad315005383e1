import { describe, expect, it } from 'vitest';
import type { Container, Pod, PodSpec } from '@podconfig/core';
import { validateSecurityAnnotations, validateSecurityAnnotationsMatchFields } from './validate-security-annotations.js';

type SecurityContext = NonNullable<Container['securityContext']>;

const SECCOMP_POD = 'seccomp.security.alpha.kubernetes.io/pod';
const seccompOf = (name: string): string => `container.seccomp.security.alpha.kubernetes.io/${name}`;
const apparmorOf = (name: string): string => `container.apparmor.security.beta.kubernetes.io/${name}`;
const pod = (annotations: Record<string, string>, spec: Partial<PodSpec> = {}, context?: SecurityContext): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', annotations },
  spec: { containers: [{ name: 'main', image: 'x', ...(context === undefined ? {} : { securityContext: context }) }], ...spec },
});
const annotationErrors = (p: Pod): string[] => {
  const errors: string[] = [];
  validateSecurityAnnotations(p, errors);
  return errors;
};
const matchErrors = (p: Pod): string[] => {
  const errors: string[] = [];
  validateSecurityAnnotationsMatchFields(p, errors);
  return errors;
};

describe(validateSecurityAnnotations.name, () => {
  it('accepts the seccomp and AppArmor profile values, and an AppArmor annotation naming a container', () => {
    expect(annotationErrors(pod({
      [SECCOMP_POD]: 'runtime/default', [seccompOf('main')]: 'localhost/profiles/audit.json', [seccompOf('other')]: 'docker/default',
      [apparmorOf('main')]: 'localhost/k8s-nginx',
    }))).toEqual([]);
    expect(annotationErrors(pod({ [SECCOMP_POD]: 'unconfined', [apparmorOf('init')]: 'runtime/default' }, { initContainers: [{ name: 'init', image: 'x' }] }))).toEqual([]);
    expect(annotationErrors(pod({ [apparmorOf('main')]: '' }))).toEqual([]);
  });

  it('refuses unknown seccomp profiles and local ones outside the profile root, without showing the value', () => {
    expect(annotationErrors(pod({ [SECCOMP_POD]: 'docker/custom', [seccompOf('main')]: 'localhost//etc/p.json', [seccompOf('x')]: 'localhost/../p.json' }))).toEqual([
      `metadata.annotations.${SECCOMP_POD}: Invalid value: must be a valid seccomp profile`,
      `metadata.annotations.${seccompOf('main')}: Invalid value: must be a relative path`,
      `metadata.annotations.${seccompOf('x')}: Invalid value: must not contain '..'`,
    ]);
  });

  it('refuses an AppArmor annotation for a container the pod does not have, or with an unknown profile', () => {
    expect(annotationErrors(pod({ [apparmorOf('sidecar')]: 'custom-profile' }))).toEqual([
      `metadata.annotations[${apparmorOf('sidecar')}]: Invalid value: "sidecar": container not found`,
      `metadata.annotations[${apparmorOf('sidecar')}]: Invalid value: invalid AppArmor profile name`,
    ]);
  });
});

describe(validateSecurityAnnotationsMatchFields.name, () => {
  it('accepts annotations that agree with the fields, and either one alone', () => {
    expect(matchErrors(pod(
      { [SECCOMP_POD]: 'docker/default', [seccompOf('main')]: 'localhost/audit.json', [apparmorOf('main')]: 'unconfined' },
      { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } },
      { seccompProfile: { type: 'Localhost', localhostProfile: 'audit.json' }, appArmorProfile: { type: 'Unconfined' } },
    ))).toEqual([]);
    expect(matchErrors(pod({ [SECCOMP_POD]: 'unconfined' }, {}, { seccompProfile: { type: 'RuntimeDefault' } }))).toEqual([]);
  });

  it('requires a seccomp annotation and field set together to agree, at the field', () => {
    expect(matchErrors(pod(
      { [SECCOMP_POD]: 'runtime/default', [seccompOf('main')]: 'localhost/a.json' },
      { securityContext: { seccompProfile: { type: 'Unconfined' } } },
      { seccompProfile: { type: 'Localhost', localhostProfile: 'b.json' } },
    ))).toEqual([
      'spec.securityContext.seccompProfile.type: Forbidden: seccomp type in annotation and field must match',
      'spec.containers[0].securityContext.seccompProfile.localhostProfile: Forbidden: seccomp profile in annotation and field must match',
    ]);
  });

  it('requires a container\'s AppArmor annotation to agree with the profile it runs with, its own or the pod\'s', () => {
    expect(matchErrors(pod({ [apparmorOf('main')]: 'runtime/default' }, { securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'p' } } })))
      .toEqual(['spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match']);
    expect(matchErrors(pod({ [apparmorOf('main')]: 'localhost/q' }, {}, { appArmorProfile: { type: 'Localhost', localhostProfile: 'p' } })))
      .toEqual(['spec.containers[0].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in annotation and field must match']);
    // Windows pods are not checked.
    expect(matchErrors(pod({ [apparmorOf('main')]: 'runtime/default' }, { os: { name: 'windows' } }, { appArmorProfile: { type: 'Unconfined' } }))).toEqual([]);
  });
});
