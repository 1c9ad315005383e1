import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { EnvironmentProxy, PodConfigError } from '@podconfig/core';
import type { ClusterConfig } from './cluster-config.js';
import { DEFAULT_IN_CLUSTER_ROOT, loadInClusterConfig } from './in-cluster-config.js';
import { clusterConfigFromKubeconfig } from './kubeconfig-cluster-config.js';
import { kubeconfigError, readKubeconfigFile, type KubeconfigFile } from './kubeconfig-file.js';
import { isEmptyKubeconfig, mergeKubeconfigs } from './merge-kubeconfigs.js';

export interface LoadClusterConfigOptions {
  /** `--kubeconfig`: this file only; it must exist. */
  readonly kubeconfig?: string;
  /** `--context`: instead of the kubeconfig's `current-context`. */
  readonly context?: string;
  /**
   * Where `KUBECONFIG`, `HOME`, `KUBERNETES_SERVICE_HOST/PORT` and, for a cluster without `proxy-url`,
   * `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` are read (default `process.env`).
   */
  readonly env?: NodeJS.ProcessEnv;
  /** Home directory for `~/.kube/config` (default `$HOME`, else the OS's). */
  readonly homeDir?: string;
  /** The service-account directory (default `/var/run/secrets/kubernetes.io/serviceaccount`). */
  readonly inClusterRoot?: string;
  /**
   * Ends a wait for a file that is a FIFO or pipe whose writer has not written (or not come) yet, rejecting
   * with the signal's reason: the agent's shutdown signal, so SIGTERM stops a start-up waiting there.
   */
  readonly signal?: AbortSignal;
}

/**
 * Finds the API server to talk to, with client-go's loading rules:
 * 1. A kubeconfig: `kubeconfig` (must exist), else the `KUBECONFIG` list (`:`-separated, merged:
 *    the first file to define a cluster, user or context name wins; `current-context` from the
 *    first file that sets it; missing files skipped), else `~/.kube/config`.
 * 2. In-cluster, when no kubeconfig was found or it names no context.
 * 3. `undefined`: no API server (standalone mode).
 *
 * A cluster without a kubeconfig `proxy-url` gets the environment's proxy as client-go's transport does
 * (core's `EnvironmentProxy`: `HTTPS_PROXY` for an https server, `HTTP_PROXY` for an http one, unless `NO_PROXY`
 * names the server; never for localhost or loopback).
 *
 * Throws `PODCONFIG_KUBECONFIG_INVALID`, naming the file and the problem, when a kubeconfig
 * exists but cannot be used (unreadable, invalid YAML, unknown context, unreadable CA…), and
 * `PODCONFIG_CONFIG_INVALID`, naming the variable, when the proxy variable the server would use is not a proxy URL
 * (one it would not use is never read, as in Go).
 */
export async function loadClusterConfig(options: LoadClusterConfigOptions = {}): Promise<ClusterConfig | undefined> {
  const env = options.env ?? process.env;
  return withEnvironmentProxy(await findClusterConfig(options, env), env);
}

/**
 * client-go's transport without a `proxy-url`: `http.ProxyFromEnvironment` (the server's scheme's variable,
 * `NO_PROXY`, never for localhost or loopback). In-cluster configs too, as for client-go: `NO_PROXY` must then name
 * the service address.
 */
function withEnvironmentProxy(config: ClusterConfig | undefined, env: NodeJS.ProcessEnv): ClusterConfig | undefined {
  if (config === undefined || config.proxyUrl !== undefined) return config;
  const proxy = new EnvironmentProxy(env).proxyFor(config.server);
  return proxy === undefined ? config : { ...config, proxyUrl: proxy.url };
}

async function findClusterConfig(options: LoadClusterConfigOptions, env: NodeJS.ProcessEnv): Promise<ClusterConfig | undefined> {
  const explicit = options.kubeconfig !== undefined && options.kubeconfig !== '' ? options.kubeconfig : undefined;
  const fromEnv = env.KUBECONFIG ?? '';
  let paths: string[];
  if (explicit !== undefined) paths = [explicit];
  else if (fromEnv !== '') paths = [...new Set(fromEnv.split(delimiter).filter((p) => p !== ''))];
  else paths = [join(options.homeDir ?? env.HOME ?? homedir(), '.kube', 'config')];

  const files: KubeconfigFile[] = [];
  for (const path of paths) {
    const file = await readKubeconfigFile(path, options.signal);
    if (file !== undefined) files.push(file);
    else if (explicit !== undefined) throw kubeconfigError(path, 'does not exist');
  }
  const merged = mergeKubeconfigs(files);
  const requested = options.context !== undefined && options.context !== '' ? options.context : undefined;
  const inCluster = (): Promise<ClusterConfig | undefined> =>
    loadInClusterConfig(options.inClusterRoot ?? DEFAULT_IN_CLUSTER_ROOT, env, options.signal);

  if (isEmptyKubeconfig(merged)) {
    if (requested !== undefined) {
      // No file at all is not a file without content: say where the loading rules looked (kubectl: the context is not found).
      const why = files.length === 0 ? noKubeconfigFile(env.KUBECONFIG, paths) : `no kubeconfig content in ${paths.join(delimiter)}`;
      throw new PodConfigError('PODCONFIG_KUBECONFIG_INVALID', `context "${requested}" does not exist: ${why}`);
    }
    const config = await inCluster();
    if (config !== undefined) return config;
    if (explicit !== undefined) throw kubeconfigError(explicit, 'is empty');
    return undefined;
  }
  const contextName = requested ?? merged.currentContext?.value;
  if (contextName === undefined) {
    // client-go: no context chosen makes an empty config, for which in-cluster is tried.
    const config = await inCluster();
    if (config !== undefined) return config;
    throw new PodConfigError(
      'PODCONFIG_KUBECONFIG_INVALID',
      `kubeconfig ${merged.files.join(delimiter)}: no current-context is set and no context was given`,
    );
  }
  return clusterConfigFromKubeconfig(merged, contextName, options.signal);
}

/**
 * Why no kubeconfig was read, when none of the files the loading rules name exists (a missing `--kubeconfig`
 * throws before): `$KUBECONFIG` unset or empty and the home default missing, or the `KUBECONFIG` list's files.
 */
function noKubeconfigFile(fromEnv: string | undefined, paths: readonly string[]): string {
  if (fromEnv === undefined || fromEnv === '') {
    return `no kubeconfig file found ($KUBECONFIG is ${fromEnv === undefined ? 'not set' : 'empty'} and ${paths.join(delimiter)} does not exist)`;
  }
  if (paths.length === 0) return `no kubeconfig file found ($KUBECONFIG ${JSON.stringify(fromEnv)} names no file)`;
  if (paths.length === 1) return `no kubeconfig file found ($KUBECONFIG names ${paths.join(delimiter)}, which does not exist)`;
  return `no kubeconfig file found ($KUBECONFIG names ${paths.join(delimiter)}, none of which exists)`;
}
