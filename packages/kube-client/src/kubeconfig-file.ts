import { PodConfigError, fileReadProblem, readBoundedFile } from '@podconfig/core';
import { GoYamlError, parseGoYaml } from '@podconfig/manifest/go-yaml';

/** A kubeconfig `cluster` stanza, decoded but not yet resolved (paths are as written). */
export interface KubeconfigCluster {
  readonly server?: string;
  readonly tlsServerName?: string;
  readonly insecureSkipTlsVerify: boolean;
  readonly certificateAuthority?: string;
  readonly certificateAuthorityData?: Buffer;
  readonly proxyUrl?: string;
  readonly disableCompression: boolean;
  /** The `client.authentication.k8s.io/exec` extension, handed to exec plugins. */
  readonly execExtension?: unknown;
}

export interface KubeconfigExec {
  readonly command?: string;
  readonly args: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly apiVersion?: string;
  readonly installHint?: string;
  readonly provideClusterInfo: boolean;
  readonly interactiveMode?: string;
}

/** A kubeconfig `user` stanza (client-go `AuthInfo`). */
export interface KubeconfigUser {
  readonly clientCertificate?: string;
  readonly clientCertificateData?: Buffer;
  readonly clientKey?: string;
  readonly clientKeyData?: Buffer;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly as?: string;
  readonly asUid?: string;
  readonly asGroups: readonly string[];
  readonly asUserExtra: Readonly<Record<string, readonly string[]>>;
  readonly username?: string;
  readonly password?: string;
  /** Name of an `auth-provider`, which podconfig does not support. */
  readonly authProvider?: string;
  readonly exec?: KubeconfigExec;
}

export interface KubeconfigContext {
  readonly cluster?: string;
  readonly user?: string;
  readonly namespace?: string;
}

/** One decoded kubeconfig file. */
export interface KubeconfigFile {
  readonly path: string;
  readonly currentContext?: string;
  readonly clusters: ReadonlyMap<string, KubeconfigCluster>;
  readonly users: ReadonlyMap<string, KubeconfigUser>;
  readonly contexts: ReadonlyMap<string, KubeconfigContext>;
}

export function kubeconfigError(path: string, problem: string, cause?: unknown): PodConfigError {
  return new PodConfigError('PODCONFIG_KUBECONFIG_INVALID', `kubeconfig ${path}: ${problem}`, cause === undefined ? {} : { cause });
}

/**
 * Reads and decodes one kubeconfig file; `undefined` when it does not exist (client-go skips
 * missing files of the `KUBECONFIG` list). Any other read error or bad content throws
 * `PODCONFIG_KUBECONFIG_INVALID` naming the file. An empty file is an empty config.
 */
export async function readKubeconfigFile(path: string, signal?: AbortSignal): Promise<KubeconfigFile | undefined> {
  let text: string;
  try {
    text = (await readBoundedFile(path, signal === undefined ? {} : { signal })).toString('utf8');
  } catch (err: unknown) {
    if (signal?.aborted === true) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw kubeconfigError(path, `cannot be read (${fileReadProblem(err)})`, err);
  }
  return parseKubeconfig(text, path);
}

/**
 * Decodes kubeconfig text (apiVersion v1, kind Config; YAML or JSON) the way kubectl does:
 * `sigs.k8s.io/yaml` reads YAML with go-yaml v2 (YAML 1.1 scalars: `yes`/`on` are booleans,
 * `0x1F` and `017` numbers; `<<` merge keys applied) into JSON, which `encoding/json` decodes
 * strictly into the Config types. So string fields take only YAML strings and booleans only YAML
 * booleans: `password: 0012345` or `insecure-skip-tls-verify: "yes"` are errors, not coerced.
 * Unknown fields are ignored as client-go does; wrong types, bad base64 and duplicate names in a
 * list are errors. Error messages give the position and the field, never the content (it may hold a token).
 */
export function parseKubeconfig(text: string, path: string): KubeconfigFile {
  let root: unknown;
  try {
    root = parseGoYaml(text);
  } catch (err: unknown) {
    if (!(err instanceof GoYamlError)) throw err;
    throw kubeconfigError(path, err.message);
  }
  if (root === null || root === undefined) {
    return { path, clusters: new Map(), users: new Map(), contexts: new Map() };
  }
  const d = new Decoder(path);
  const top = d.object(root, '');
  const apiVersion = d.string(top.apiVersion, 'apiVersion');
  if (apiVersion !== undefined && apiVersion !== 'v1') throw d.fail('apiVersion', `"${apiVersion}" is not supported (want v1)`);
  const kind = d.string(top.kind, 'kind');
  if (kind !== undefined && kind !== 'Config') throw d.fail('kind', `"${kind}" is not a Config`);
  const currentContext = d.string(top['current-context'], 'current-context');
  return {
    path,
    ...(currentContext === undefined ? {} : { currentContext }),
    clusters: d.named(top.clusters, 'clusters', 'cluster', (v, at) => decodeCluster(d, v, at)),
    users: d.named(top.users, 'users', 'user', (v, at) => decodeUser(d, v, at)),
    contexts: d.named(top.contexts, 'contexts', 'context', (v, at) => decodeContext(d, v, at)),
  };
}

function decodeCluster(d: Decoder, value: unknown, at: string): KubeconfigCluster {
  const o = d.object(value, at);
  let execExtension: unknown;
  for (const [i, ext] of d.array(o.extensions, `${at}.extensions`).entries()) {
    const e = d.object(ext, `${at}.extensions[${i}]`);
    if (e.name === 'client.authentication.k8s.io/exec') execExtension = e.extension;
  }
  return compact({
    server: d.string(o.server, `${at}.server`),
    tlsServerName: d.string(o['tls-server-name'], `${at}.tls-server-name`),
    insecureSkipTlsVerify: d.bool(o['insecure-skip-tls-verify'], `${at}.insecure-skip-tls-verify`),
    certificateAuthority: d.string(o['certificate-authority'], `${at}.certificate-authority`),
    certificateAuthorityData: d.base64(o['certificate-authority-data'], `${at}.certificate-authority-data`),
    proxyUrl: d.string(o['proxy-url'], `${at}.proxy-url`),
    disableCompression: d.bool(o['disable-compression'], `${at}.disable-compression`),
    execExtension,
  });
}

function decodeUser(d: Decoder, value: unknown, at: string): KubeconfigUser {
  const o = d.object(value, at);
  const extra: Record<string, string[]> = {};
  const rawExtra = o['as-user-extra'];
  if (rawExtra !== undefined && rawExtra !== null) {
    for (const [key, values] of Object.entries(d.object(rawExtra, `${at}.as-user-extra`))) {
      extra[key] = d.strings(values, `${at}.as-user-extra.${key}`);
    }
  }
  let authProvider: string | undefined;
  if (o['auth-provider'] !== undefined && o['auth-provider'] !== null) {
    authProvider = d.string(d.object(o['auth-provider'], `${at}.auth-provider`).name, `${at}.auth-provider.name`) ?? '';
  }
  return compact({
    clientCertificate: d.string(o['client-certificate'], `${at}.client-certificate`),
    clientCertificateData: d.base64(o['client-certificate-data'], `${at}.client-certificate-data`),
    clientKey: d.string(o['client-key'], `${at}.client-key`),
    clientKeyData: d.base64(o['client-key-data'], `${at}.client-key-data`),
    token: d.string(o.token, `${at}.token`),
    tokenFile: d.string(o.tokenFile, `${at}.tokenFile`),
    as: d.string(o.as, `${at}.as`),
    asUid: d.string(o['as-uid'], `${at}.as-uid`),
    asGroups: d.strings(o['as-groups'], `${at}.as-groups`),
    asUserExtra: extra,
    username: d.string(o.username, `${at}.username`),
    password: d.string(o.password, `${at}.password`),
    authProvider,
    exec: o.exec === undefined || o.exec === null ? undefined : decodeExec(d, o.exec, `${at}.exec`),
  });
}

function decodeExec(d: Decoder, value: unknown, at: string): KubeconfigExec {
  const o = d.object(value, at);
  const env = d.array(o.env, `${at}.env`).map((entry, i) => {
    const e = d.object(entry, `${at}.env[${i}]`);
    return { name: d.string(e.name, `${at}.env[${i}].name`) ?? '', value: d.string(e.value, `${at}.env[${i}].value`) ?? '' };
  });
  return compact({
    command: d.string(o.command, `${at}.command`),
    args: d.strings(o.args, `${at}.args`),
    env,
    apiVersion: d.string(o.apiVersion, `${at}.apiVersion`),
    installHint: d.string(o.installHint, `${at}.installHint`),
    provideClusterInfo: d.bool(o.provideClusterInfo, `${at}.provideClusterInfo`),
    interactiveMode: d.string(o.interactiveMode, `${at}.interactiveMode`),
  });
}

function decodeContext(d: Decoder, value: unknown, at: string): KubeconfigContext {
  const o = d.object(value, at);
  return compact({
    cluster: d.string(o.cluster, `${at}.cluster`),
    user: d.string(o.user, `${at}.user`),
    namespace: d.string(o.namespace, `${at}.namespace`),
  });
}

type Compact<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Drops `undefined` fields (exactOptionalPropertyTypes). */
function compact<T extends object>(o: T): Compact<T> {
  for (const key of Object.keys(o) as (keyof T)[]) if (o[key] === undefined) delete o[key];
  return o;
}

/**
 * Type checks with the field path in the error, as strict as `encoding/json` decoding into
 * client-go's Config types (which is what kubectl does after `sigs.k8s.io/yaml` turned the YAML
 * into JSON): a string field takes a string only, a bool field a boolean only; null is unset.
 */
class Decoder {
  constructor(private readonly path: string) {}

  fail(at: string, problem: string): PodConfigError {
    return kubeconfigError(this.path, at === '' ? problem : `${at}: ${problem}`);
  }

  object(value: unknown, at: string): Record<string, unknown> {
    if (value === null || value === undefined) return {};
    if (typeof value !== 'object' || Array.isArray(value)) throw this.fail(at, `expected a mapping, got ${kindOf(value)}`);
    return value as Record<string, unknown>;
  }

  array(value: unknown, at: string): unknown[] {
    if (value === null || value === undefined) return [];
    if (!Array.isArray(value)) throw this.fail(at, `expected a list, got ${kindOf(value)}`);
    return value;
  }

  /** Empty strings count as unset, as in client-go (`len(x) > 0` checks everywhere). */
  string(value: unknown, at: string): string | undefined {
    if (value === null || value === undefined) return undefined;
    if (typeof value !== 'string') throw this.fail(at, `expected a string, got ${kindOf(value)}${typeof value === 'object' ? '' : ' (quote it)'}`);
    return value === '' ? undefined : value;
  }

  strings(value: unknown, at: string): string[] {
    return this.array(value, at).map((v, i) => this.string(v, `${at}[${i}]`) ?? '');
  }

  /** A YAML boolean (`true`, and the YAML 1.1 words Go's YAML reads as booleans: `yes`, `on`, …), unquoted. */
  bool(value: unknown, at: string): boolean {
    if (value === null || value === undefined) return false;
    if (typeof value === 'boolean') return value;
    throw this.fail(at, `expected a boolean, got ${kindOf(value)}`);
  }

  base64(value: unknown, at: string): Buffer | undefined {
    const text = this.string(value, at);
    if (text === undefined) return undefined;
    const compactText = text.replace(/[\r\n]/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compactText) || compactText.length % 4 !== 0) {
      throw this.fail(at, 'is not valid base64');
    }
    return Buffer.from(compactText, 'base64');
  }

  /**
   * A kubeconfig list of `{ name, <item>: {...} }`; a name may appear once (client-go conversion). An entry without
   * a name (or an empty one) is decoded, its fields checked as kubectl checks them, and left out: kubectl files it
   * under the name "", which no context of podconfig can name (an empty `cluster` or `user` is unset), so it never
   * stops a load. A second one is still a duplicate name, as in kubectl's conversion.
   */
  named<T>(value: unknown, at: string, item: string, decode: (value: unknown, at: string) => T): Map<string, T> {
    const out = new Map<string, T>();
    let unnamed = false;
    for (const [i, entry] of this.array(value, at).entries()) {
      const e = this.object(entry, `${at}[${i}]`);
      const name = this.string(e.name, `${at}[${i}].name`);
      // Decoded first: kubectl decodes the whole file before its conversion finds a duplicate.
      const decoded = decode(e[item], `${at}[${i}].${item}`);
      if (name === undefined ? unnamed : out.has(name)) throw this.fail(at, `duplicate name "${name ?? ''}"`);
      if (name === undefined) unnamed = true;
      else out.set(name, decoded);
    }
    return out;
  }
}

/** The JSON type of a decoded value, for errors (never the value: it may be a secret). */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value === 'number' ? 'a number' : typeof value === 'boolean' ? 'a boolean' : 'a string';
}
