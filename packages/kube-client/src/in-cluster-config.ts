import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PodConfigError, fileReadProblem, readBoundedFile, trustedCas } from '@podconfig/core';
import type { ClusterConfig } from './cluster-config.js';
import { parseCaBundle, skippedCertificatesWarning } from './pem.js';
import { Secret } from './secret.js';

/** Where the kubelet mounts a pod's service account (token, ca.crt, namespace). */
export const DEFAULT_IN_CLUSTER_ROOT = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * client-go `rest.InClusterConfig()`: `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT`,
 * the service-account token (re-read as it rotates) and `ca.crt`. `undefined` when not possible
 * (client-go `inClusterClientConfig.Possible()`: both variables set and the token file exists).
 * An unreadable `ca.crt` (or one in which no certificate parses) is a warning, as in client-go, which then uses the
 * system roots; here those are the default roots, Node.js's bundled ones unless `--use-openssl-ca` (core's
 * `trustedCas` says which, as TLS errors do).
 */
export async function loadInClusterConfig(root: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<ClusterConfig | undefined> {
  const reading = signal === undefined ? {} : { signal };
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  const tokenFile = join(root, 'token');
  if (host === '' || port === '') return undefined;
  try {
    if (!(await stat(tokenFile)).isFile()) return undefined;
  } catch {
    return undefined;
  }
  let token: string;
  try {
    token = (await readBoundedFile(tokenFile, reading)).toString('utf8').trim();
  } catch (err: unknown) {
    if (signal?.aborted === true) throw err;
    throw new PodConfigError('PODCONFIG_KUBECONFIG_INVALID', `in-cluster token ${tokenFile} cannot be read (${fileReadProblem(err)})`, { cause: err });
  }
  if (token === '') throw new PodConfigError('PODCONFIG_KUBECONFIG_INVALID', `in-cluster token ${tokenFile} is empty`);

  const warnings: string[] = [];
  const caFile = join(root, 'ca.crt');
  let ca: string | undefined;
  const instead = `trusting ${trustedCas(undefined)} instead`;
  try {
    const bundle = parseCaBundle((await readBoundedFile(caFile, reading)).toString('utf8'));
    if ('problem' in bundle) {
      warnings.push(`in-cluster CA ${caFile} ${bundle.problem}; ${instead}`);
    } else {
      ca = bundle.pem;
      if (bundle.skipped > 0) warnings.push(skippedCertificatesWarning(`in-cluster CA ${caFile}`, bundle.skipped));
    }
  } catch (err: unknown) {
    if (signal?.aborted === true) throw err;
    warnings.push(`in-cluster CA ${caFile} cannot be read (${fileReadProblem(err)}); ${instead}`);
  }
  const hostPort = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  let server: URL;
  try {
    server = new URL(`https://${hostPort}`);
  } catch {
    throw new PodConfigError('PODCONFIG_KUBECONFIG_INVALID', 'KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT do not form a URL');
  }
  return {
    server,
    tls: { ...(ca === undefined ? {} : { ca }), insecureSkipVerify: false },
    auth: { type: 'token', token: new Secret(token), tokenFile },
    source: 'in-cluster',
    identity: `the in-cluster service account (token ${tokenFile})`,
    warnings,
  };
}
