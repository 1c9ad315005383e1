import type { Pod } from '@podconfig/core';

/** What `/pods` shows in place of a value that may be a secret. */
export const REDACTED = '[REDACTED]';

/**
 * Annotations whose values repeat a pod's whole spec (env values included): kubectl's client-side apply
 * record. Their keys stay, so an operator sees they are there.
 */
const SPEC_ANNOTATIONS: ReadonlySet<string> = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

type PodSpec = NonNullable<Pod['spec']>;
type Container = PodSpec['containers'][number];
type Volume = NonNullable<PodSpec['volumes']>[number];

/**
 * `annotations` with the values that repeat a spec redacted; the same object when there are none (the
 * common case: no copy).
 */
export function redactAnnotations(annotations: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> | undefined {
  if (annotations === undefined || !Object.keys(annotations).some((k) => SPEC_ANNOTATIONS.has(k))) return annotations;
  return Object.fromEntries(Object.entries(annotations).map(([k, v]) => [k, SPEC_ANNOTATIONS.has(k) ? REDACTED : v]));
}

/**
 * The pod as `/pods` shows it: the status server answers anyone who reaches it (loopback by default, no
 * authentication, unlike the kubelet's authenticated `/pods` on its 10250 port), while a manifest can be
 * readable by root alone. So what manifests put secrets in is redacted, each string replaced by {@link REDACTED}
 * and the shape kept (a list as long, a map's keys): in every container (`containers`, `initContainers`,
 * `ephemeralContainers`) literal environment values (`env[].value`), `command` and `args` (a `--db-password=…`),
 * the `exec` commands, `httpGet` header values (an `Authorization` a probe sends) and `httpGet` path queries
 * (`?access_token=…`) of every probe (liveness, readiness, startup) and lifecycle hook (`postStart`, `preStop`); the
 * volumes' `flexVolume.options` and `csi.volumeAttributes` values and a `gitRepo.repository`'s userinfo and query;
 * and annotations that repeat the spec. Names, images, `valueFrom` and secret
 * references and everything else stay. The pod is copied only where it changes (it is shared and frozen).
 */
export function redactPodForStatus(pod: Pod): Pod {
  const spec = pod.spec;
  const annotations = redactAnnotations(pod.metadata?.annotations);
  const redactedSpec = spec === undefined ? undefined : redactSpec(spec);
  if (redactedSpec === spec && annotations === pod.metadata?.annotations) return pod;
  return {
    ...pod,
    ...(annotations === pod.metadata?.annotations || annotations === undefined ? {} : { metadata: { ...pod.metadata, annotations: { ...annotations } } }),
    ...(redactedSpec === spec || redactedSpec === undefined ? {} : { spec: redactedSpec }),
  };
}

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/** The spec with its containers and volumes redacted; itself when nothing in it is. */
function redactSpec(spec: PodSpec): PodSpec {
  let out = spec;
  for (const key of CONTAINER_LISTS) {
    const list = redactList(spec[key], redactContainer);
    if (list !== spec[key]) out = { ...out, [key]: list };
  }
  const volumes = redactList(spec.volumes, redactVolume);
  if (volumes !== undefined && volumes !== spec.volumes) out = { ...out, volumes };
  return out;
}

/** `items` with `redact` applied to each; the same array when none changed. */
function redactList<T>(items: readonly T[] | undefined, redact: (item: T) => T): T[] | undefined {
  if (items === undefined) return undefined;
  const redacted = items.map(redact);
  return redacted.some((item, i) => item !== items[i]) ? redacted : (items as T[]);
}

const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;
const HOOKS = ['postStart', 'preStop'] as const;

/**
 * The container with literal env values, `command`, `args` and its probes' and hooks' `exec` commands and `httpGet`
 * header values redacted; itself when it has none.
 */
function redactContainer<C extends Container>(c: C): C {
  let out = c;
  if (c.env?.some((e) => e.value !== undefined) === true) {
    out = { ...out, env: c.env.map((e) => (e.value === undefined ? e : { ...e, value: REDACTED })) };
  }
  for (const key of ['command', 'args'] as const) {
    const words = redactWords(c[key]);
    if (words !== c[key]) out = { ...out, [key]: words };
  }
  for (const key of PROBES) {
    const probe = c[key];
    const redacted = probe === undefined ? undefined : redactHandler(probe);
    if (redacted !== probe) out = { ...out, [key]: redacted };
  }
  const lifecycle = c.lifecycle;
  if (lifecycle !== undefined) {
    let hooks = lifecycle;
    for (const key of HOOKS) {
      const hook = lifecycle[key];
      const redacted = hook === undefined ? undefined : redactHandler(hook);
      if (redacted !== hook) hooks = { ...hooks, [key]: redacted };
    }
    if (hooks !== lifecycle) out = { ...out, lifecycle: hooks };
  }
  return out;
}

type HttpGet = NonNullable<NonNullable<Container['livenessProbe']>['httpGet']>;
type Exec = NonNullable<NonNullable<Container['livenessProbe']>['exec']>;

/** A probe or lifecycle hook with its `exec` command and `httpGet` header values redacted; itself when it has none. */
function redactHandler<H extends { readonly exec?: Exec; readonly httpGet?: HttpGet }>(handler: H): H {
  const httpGet = redactHttpGet(handler.httpGet);
  const exec = redactExec(handler.exec);
  if (httpGet === handler.httpGet && exec === handler.exec) return handler;
  return { ...handler, ...(httpGet === undefined ? {} : { httpGet }), ...(exec === undefined ? {} : { exec }) };
}

/** An `exec` action with each word of its command redacted. */
function redactExec(exec: Exec | undefined): Exec | undefined {
  const command = redactWords(exec?.command);
  return exec === undefined || command === undefined || command === exec.command ? exec : { ...exec, command };
}

/** Each string replaced by {@link REDACTED} (the list's length kept); the same list when it is empty or missing. */
function redactWords(words: readonly string[] | undefined): string[] | undefined {
  if (words === undefined || words.length === 0) return words as string[] | undefined;
  return words.map(() => REDACTED);
}

/**
 * A volume with the values of `flexVolume.options` and `csi.volumeAttributes` redacted (keys kept), and the userinfo
 * and query of a `gitRepo.repository`; itself when it has none.
 */
function redactVolume(volume: Volume): Volume {
  let out = volume;
  const options = redactValues(volume.flexVolume?.options);
  if (volume.flexVolume !== undefined && options !== undefined && options !== volume.flexVolume.options) {
    out = { ...out, flexVolume: { ...volume.flexVolume, options } };
  }
  const attributes = redactValues(volume.csi?.volumeAttributes);
  if (volume.csi !== undefined && attributes !== undefined && attributes !== volume.csi.volumeAttributes) {
    out = { ...out, csi: { ...volume.csi, volumeAttributes: attributes } };
  }
  const repository = volume.gitRepo === undefined ? undefined : redactRepository(volume.gitRepo.repository);
  if (volume.gitRepo !== undefined && repository !== undefined && repository !== volume.gitRepo.repository) {
    out = { ...out, gitRepo: { ...volume.gitRepo, repository } };
  }
  return out;
}

/** A string map with each value redacted; the same map when it is empty or missing. */
function redactValues(map: Readonly<Record<string, string>> | undefined): Record<string, string> | undefined {
  if (map === undefined || Object.keys(map).length === 0) return map;
  return Object.fromEntries(Object.keys(map).map((k) => [k, REDACTED]));
}

/** Header values (an `Authorization: Bearer …` a probe sends) and the path's query (`?access_token=…`) redacted; names stay. */
function redactHttpGet(httpGet: HttpGet | undefined): HttpGet | undefined {
  if (httpGet === undefined) return undefined;
  const path = httpGet.path === undefined ? undefined : redactQuery(httpGet.path);
  const headers = httpGet.httpHeaders === undefined || httpGet.httpHeaders.length === 0 ? httpGet.httpHeaders : httpGet.httpHeaders.map((h) => ({ ...h, value: REDACTED }));
  if (path === httpGet.path && headers === httpGet.httpHeaders) return httpGet;
  return { ...httpGet, ...(path === undefined ? {} : { path }), ...(headers === undefined ? {} : { httpHeaders: headers }) };
}

/** `text` with what follows its first `?` redacted (`/ready?[REDACTED]`); itself without one. */
function redactQuery(text: string): string {
  const query = text.indexOf('?');
  return query < 0 ? text : `${text.slice(0, query)}?${REDACTED}`;
}

/**
 * A repository URL with its userinfo (`https://user:token@host/…`) and query redacted; itself without either. Not
 * parsed as a URL (`git@host:org/repo` is none, and a password with a raw `#` or `?` makes none): in a `scheme://`
 * address, everything before the last `@` ahead of the first `/` is userinfo.
 */
function redactRepository(repository: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(repository)?.[0];
  if (scheme === undefined) return redactQuery(repository);
  const slash = repository.indexOf('/', scheme.length);
  const authority = repository.slice(scheme.length, slash < 0 ? repository.length : slash);
  const at = authority.lastIndexOf('@');
  const redacted = at < 0 ? repository : `${scheme}${REDACTED}${repository.slice(scheme.length + at)}`;
  return redactQuery(redacted);
}
