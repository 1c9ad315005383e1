import { access, constants } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { PodConfigError, fileReadProblem, readBoundedFile } from '@podconfig/core';
import type {
  ClientCertificate, ClusterAuth, ClusterConfig, ExecApiVersion, ExecClusterInfo, ExecPluginConfig, Impersonation,
} from './cluster-config.js';
import type { KubeconfigCluster, KubeconfigUser } from './kubeconfig-file.js';
import type { FromFile, MergedKubeconfig } from './merge-kubeconfigs.js';
import { headerValueProblem, impersonationProblem } from './impersonation-headers.js';
import { keyPairProblem, parseCaBundle, skippedCertificatesWarning } from './pem.js';
import { Secret } from './secret.js';

const EXEC_API_VERSIONS: ReadonlySet<string> = new Set<ExecApiVersion>([
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
]);

const invalid = (message: string, cause?: unknown): PodConfigError =>
  new PodConfigError('PODCONFIG_KUBECONFIG_INVALID', message, cause === undefined ? {} : { cause });

/**
 * Resolves one context of a merged kubeconfig into a {@link ClusterConfig} the way client-go's
 * `DirectClientConfig.ClientConfig()` does: relative paths against the file each stanza came
 * from, CA / client certificate / token files read now (errors name the file), auth precedence
 * token > basic > exec, and credentials only for `https` servers.
 */
export async function clusterConfigFromKubeconfig(config: MergedKubeconfig, contextName: string, signal?: AbortSignal): Promise<ClusterConfig> {
  const context = config.contexts.get(contextName);
  if (context === undefined) {
    throw invalid(`context "${contextName}" does not exist in kubeconfig ${config.files.join(':')}`);
  }
  const where = `context "${contextName}" of kubeconfig ${context.file}`;
  const clusterName = context.value.cluster;
  if (clusterName === undefined) throw invalid(`${where}: no cluster was specified`);
  const cluster = config.clusters.get(clusterName);
  if (cluster === undefined) throw invalid(`${where}: cluster "${clusterName}" does not exist`);
  const userName = context.value.user;
  const user = userName === undefined ? undefined : config.users.get(userName);
  if (userName !== undefined && user === undefined) throw invalid(`${where}: user "${userName}" does not exist`);

  const warnings: string[] = [];
  const c = cluster.value;
  const clusterWhere = `cluster "${clusterName}" in kubeconfig ${cluster.file}`;
  if (c.server === undefined) throw invalid(`no server found for ${clusterWhere}`);
  const userWhere = user === undefined ? '' : `user "${userName}" in kubeconfig ${user.file}`;

  const server = parseServer(c.server, clusterWhere);
  const secure = server.protocol === 'https:';
  const caBundle = await readCa(cluster, clusterWhere, secure, warnings, signal);
  const ca = caBundle?.ca;
  const proxyUrl = c.proxyUrl === undefined ? undefined : parseProxyUrl(c.proxyUrl, clusterWhere);
  const u = user?.value;
  const hasCert = u !== undefined && (u.clientCertificate !== undefined || u.clientCertificateData !== undefined);
  const hasCa = c.certificateAuthority !== undefined || c.certificateAuthorityData !== undefined;
  if (!secure && (hasCa || hasCert || c.insecureSkipTlsVerify)) {
    warnings.push(`the TLS settings of ${clusterWhere} are not used: server ${server.origin} is plain http`);
  }
  if (secure && c.insecureSkipTlsVerify && ca !== undefined) {
    throw invalid(`${clusterWhere}: specifying a root certificates file with the insecure flag is not allowed`);
  }

  let auth: ClusterAuth = { type: 'none' };
  let impersonate: Impersonation | undefined;
  let clientCertificate: ClientCertificate | undefined;
  if (user !== undefined) {
    impersonate = impersonation(user.value, userWhere);
    if (secure) {
      clientCertificate = await readClientCertificate(user, userWhere, signal);
      auth = await userAuth(user, userWhere, cluster, caBundle?.raw, server, clientCertificate !== undefined, warnings, signal);
    } else if (hasCredentials(user.value)) {
      // client-go reads user credentials only for TLS transports: nothing secret goes out in clear text.
      const unsent = `server ${server.origin} is plain http, and credentials go only over TLS`;
      warnings.push(`the credentials of ${userWhere} are not sent: ${unsent}`);
      auth = { type: 'none', unsent };
    }
  }

  return {
    server,
    tls: {
      ...(ca === undefined ? {} : { ca }),
      insecureSkipVerify: c.insecureSkipTlsVerify,
      ...(c.tlsServerName === undefined ? {} : { serverName: c.tlsServerName }),
      ...(clientCertificate === undefined ? {} : { clientCertificate }),
    },
    auth,
    ...(impersonate === undefined ? {} : { impersonate }),
    ...(proxyUrl === undefined ? {} : { proxyUrl }),
    source: `kubeconfig:${context.file}#${contextName}`,
    identity: user === undefined ? `no user (${where})` : userWhere,
    warnings,
  };
}

function hasCredentials(u: KubeconfigUser): boolean {
  return [u.token, u.tokenFile, u.username, u.password, u.clientCertificate, u.clientCertificateData, u.exec, u.authProvider]
    .some((v) => v !== undefined);
}

/** Relative paths resolve against the directory of the file the stanza came from (client-go `ResolveLocalPaths`). */
function localPath(path: string, file: string): string {
  return isAbsolute(path) ? path : join(dirname(resolve(file)), path);
}

async function readLocal(path: string, what: string, owner: string, signal: AbortSignal | undefined): Promise<Buffer> {
  try {
    return await readBoundedFile(path, signal === undefined ? {} : { signal });
  } catch (err: unknown) {
    if (signal?.aborted === true) throw err;
    throw invalid(`unable to read ${what} ${path} for ${owner} (${fileReadProblem(err)})`, err);
  }
}

/**
 * The cluster's CA bundle, read as client-go reads it: `certificate-authority-data` or the file (not both); the
 * certificates that parse, the others skipped with a warning (Go's `AppendCertsFromPEM`), an error only when none
 * does. For a plain-http server client-go never reads the CA (`getServerIdentificationPartialConfig` is for TLS
 * transports only); its `ConfirmUsable` still wants a `certificate-authority` file it can open, and so does this.
 * `ca` is the bundle to trust, `raw` the bundle as configured (an exec plugin's `spec.cluster` gets that).
 */
async function readCa(
  cluster: FromFile<KubeconfigCluster>,
  where: string,
  secure: boolean,
  warnings: string[],
  signal: AbortSignal | undefined,
): Promise<{ readonly ca: string; readonly raw: string } | undefined> {
  const c = cluster.value;
  if (c.certificateAuthority !== undefined && c.certificateAuthorityData !== undefined) {
    throw invalid(`certificate-authority-data and certificate-authority are both specified for ${where}`);
  }
  const path = c.certificateAuthority === undefined ? undefined : localPath(c.certificateAuthority, cluster.file);
  if (!secure) {
    if (path !== undefined) await checkReadable(path, 'certificate-authority', where);
    return undefined;
  }
  let raw: string | undefined;
  if (c.certificateAuthorityData !== undefined) raw = c.certificateAuthorityData.toString('utf8');
  else if (path !== undefined) raw = (await readLocal(path, 'certificate-authority', where, signal)).toString('utf8');
  if (raw === undefined) return undefined;
  const bundle = parseCaBundle(raw);
  if ('problem' in bundle) throw invalid(`the certificate authority of ${where} ${bundle.problem}`);
  if (bundle.skipped > 0) warnings.push(skippedCertificatesWarning(`the certificate authority of ${where}`, bundle.skipped));
  return { ca: bundle.pem, raw };
}

/**
 * client-go's `validateFileIsReadable`, for a file it checks but does not read: it can be opened for reading. A
 * check of the permission, not an open: a FIFO opened for reading would wait for a writer that nothing needs.
 */
async function checkReadable(path: string, what: string, owner: string): Promise<void> {
  try {
    await access(path, constants.R_OK);
  } catch (err: unknown) {
    throw invalid(`unable to read ${what} ${path} for ${owner} (${fileReadProblem(err)})`, err);
  }
}

async function readClientCertificate(user: FromFile<KubeconfigUser>, where: string, signal: AbortSignal | undefined): Promise<ClientCertificate | undefined> {
  const u = user.value;
  if (u.clientCertificate === undefined && u.clientCertificateData === undefined) return undefined;
  if (u.clientCertificate !== undefined && u.clientCertificateData !== undefined) {
    throw invalid(`client-cert-data and client-cert are both specified for ${where}`);
  }
  if (u.clientKey !== undefined && u.clientKeyData !== undefined) {
    throw invalid(`client-key-data and client-key are both specified for ${where}`);
  }
  if (u.clientKey === undefined && u.clientKeyData === undefined) {
    throw invalid(`client-key-data or client-key must be specified for ${where} to use the clientCert authentication method`);
  }
  const certFile = u.clientCertificate === undefined ? undefined : localPath(u.clientCertificate, user.file);
  const keyFile = u.clientKey === undefined ? undefined : localPath(u.clientKey, user.file);
  const cert = (certFile === undefined ? u.clientCertificateData! : await readLocal(certFile, 'client-cert', where, signal)).toString('utf8');
  const key = (keyFile === undefined ? u.clientKeyData! : await readLocal(keyFile, 'client-key', where, signal)).toString('utf8');
  const problem = keyPairProblem(cert, key);
  if (problem !== undefined) throw invalid(`the client certificate or key of ${where} is not usable: ${problem}`);
  return {
    cert,
    key: new Secret(key),
    ...(certFile === undefined ? {} : { certFile }),
    ...(keyFile === undefined ? {} : { keyFile }),
  };
}

async function userAuth(
  user: FromFile<KubeconfigUser>,
  where: string,
  cluster: FromFile<KubeconfigCluster>,
  ca: string | undefined,
  server: URL,
  hasStaticCert: boolean,
  warnings: string[],
  signal: AbortSignal | undefined,
): Promise<ClusterAuth> {
  const u = user.value;
  if (u.authProvider !== undefined) {
    throw invalid(`${where}: auth-provider "${u.authProvider}" is not supported; use an exec credential plugin`);
  }
  // client-go counts a password alone as basic auth only when refusing it beside a token
  // (`validateAuthInfo`); basic auth itself needs a username (`transport.Config.HasBasicAuth`), so a
  // password alone sends nothing, and leaves a tokenFile or an exec plugin in charge.
  const hasBasic = u.username !== undefined;
  if (u.token !== undefined && (hasBasic || u.password !== undefined)) {
    throw invalid(`more than one authentication method found for ${where}; found [token basicAuth], only one is allowed`);
  }
  if (u.tokenFile !== undefined && hasBasic) {
    throw invalid(`${where}: username/password or bearer token may be set, but not both`);
  }
  if (u.token !== undefined && headerValueProblem(u.token) !== undefined) {
    throw invalid(`the token of ${where} ${headerValueProblem(u.token)}`);
  }
  const exec = u.exec === undefined ? undefined : execConfig(user, where, cluster, ca, server);
  let auth: ClusterAuth = { type: 'none' };
  if (u.token !== undefined) {
    auth = {
      type: 'token',
      token: new Secret(u.token),
      ...(u.tokenFile === undefined ? {} : { tokenFile: localPath(u.tokenFile, user.file) }),
    };
  } else if (u.tokenFile !== undefined) {
    const tokenFile = localPath(u.tokenFile, user.file);
    const token = (await readLocal(tokenFile, 'tokenFile', where, signal)).toString('utf8').trim();
    if (token === '') throw invalid(`tokenFile ${tokenFile} of ${where} is empty`);
    auth = { type: 'token', token: new Secret(token), tokenFile };
  } else if (hasBasic) {
    auth = { type: 'basic', username: u.username, password: new Secret(u.password ?? '') };
  } else if (u.password !== undefined && exec === undefined) {
    // kubectl would prompt for the username; an agent cannot, and the apiserver's 401 would not say why.
    warnings.push(`the password of ${where} is not sent: basic auth needs a username too`);
    auth = { type: 'none', unsent: 'its password is not sent: basic auth needs a username too' };
  }
  if (exec !== undefined) {
    // client-go's exec authenticator steps aside when a token, basic auth or a client certificate is set; only a
    // plugin that runs asks for a terminal (client-go's `isInteractive`, at the run), so only then is Always refused.
    if (auth.type === 'none' && !hasStaticCert) {
      if (exec.interactiveMode === 'Always') {
        throw invalid(`${where}: exec plugin cannot support interactive mode: podconfig runs without a terminal (interactiveMode Always)`);
      }
      return { type: 'exec', exec: exec.config };
    }
    warnings.push(`the exec plugin of ${where} is not used: the user also has a token, basic auth or a client certificate`);
  }
  return auth;
}

/**
 * The exec plugin, checked as client-go checks it whether or not it will run (`validateAuthInfo`, and the
 * apiVersion by `exec.GetAuthenticator`), with its `interactiveMode` for the caller to refuse `Always` when it runs.
 */
function execConfig(
  user: FromFile<KubeconfigUser>,
  where: string,
  cluster: FromFile<KubeconfigCluster>,
  ca: string | undefined,
  server: URL,
): { readonly config: ExecPluginConfig; readonly interactiveMode: 'Never' | 'IfAvailable' | 'Always' } {
  const e = user.value.exec!;
  if (e.command === undefined) throw invalid(`command must be specified for ${where} to use exec authentication plugin`);
  if (e.apiVersion === undefined) throw invalid(`apiVersion must be specified for ${where} to use exec authentication plugin`);
  if (!EXEC_API_VERSIONS.has(e.apiVersion)) throw invalid(`${where}: exec plugin: invalid apiVersion "${e.apiVersion}"`);
  const apiVersion = e.apiVersion as ExecApiVersion;
  // Kubeconfig defaulting: v1beta1 plugins default to IfAvailable; v1 must say.
  const mode = e.interactiveMode ?? (apiVersion === 'client.authentication.k8s.io/v1beta1' ? 'IfAvailable' : undefined);
  if (mode === undefined) throw invalid(`interactiveMode must be specified for ${where} to use exec authentication plugin`);
  if (mode !== 'Never' && mode !== 'IfAvailable' && mode !== 'Always') throw invalid(`invalid interactiveMode for ${where}: "${mode}"`);
  if (e.env.some((v) => v.name === '')) {
    throw invalid(`env variable name must be specified for ${where} to use exec authentication plugin`);
  }
  const c = cluster.value;
  const clusterInfo: ExecClusterInfo = {
    server: c.server ?? server.href,
    ...(c.tlsServerName === undefined ? {} : { 'tls-server-name': c.tlsServerName }),
    ...(c.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(ca === undefined ? {} : { 'certificate-authority-data': Buffer.from(ca, 'utf8').toString('base64') }),
    ...(c.proxyUrl === undefined ? {} : { 'proxy-url': c.proxyUrl }),
    ...(c.disableCompression ? { 'disable-compression': true } : {}),
    ...(c.execExtension === undefined ? {} : { config: c.execExtension }),
  };
  const config: ExecPluginConfig = {
    // Only commands with a path separator are files relative to the kubeconfig; bare names come from the agent's
    // PATH when the plugin runs (exec-credential-plugin.ts).
    command: e.command.includes('/') ? localPath(e.command, user.file) : e.command,
    args: e.args,
    env: e.env,
    apiVersion,
    ...(e.installHint === undefined ? {} : { installHint: e.installHint }),
    ...(e.provideClusterInfo ? { cluster: clusterInfo } : {}),
  };
  return { config, interactiveMode: mode };
}

function impersonation(u: KubeconfigUser, where: string): Impersonation | undefined {
  const hasExtras = u.asUid !== undefined || u.asGroups.length > 0 || Object.keys(u.asUserExtra).length > 0;
  if (u.as === undefined) {
    if (hasExtras) throw invalid(`requesting uid, groups or user-extra for ${where} without impersonating a user`);
    return undefined;
  }
  const imp = { user: u.as, ...(u.asUid === undefined ? {} : { uid: u.asUid }), groups: u.asGroups, extra: u.asUserExtra };
  // Checked here so that a bad value is a config error, not a request error retried forever.
  const problem = impersonationProblem(imp);
  if (problem !== undefined) throw invalid(`${where}: ${problem}`);
  return imp;
}

/**
 * client-go `DefaultServerURL` as `DirectClientConfig.ClientConfig()` calls it: a server without a
 * scheme is `http://` (the TLS settings are not looked at yet when it decides, so they never count),
 * and must then be a bare host:port; the query and fragment are dropped. A user:password in the URL
 * is refused: Go would send it as basic auth in place of the user's credentials, over plain http too.
 */
function parseServer(raw: string, where: string): URL {
  const schemeless = !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
  let url: URL;
  try {
    url = new URL(schemeless ? `http://${raw}` : raw);
  } catch {
    throw invalid(`the server of ${where} is not a valid URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid(`the server of ${where} must be an http or https URL`);
  }
  if (schemeless && url.pathname !== '/') {
    // Not quoted: it may hold a user:password.
    throw invalid(`the server of ${where} must be a URL or a host:port pair: without a scheme, it may not have a path`);
  }
  if (url.username !== '' || url.password !== '') {
    throw invalid(`the server of ${where} carries a user:password: put credentials in the user's stanza`);
  }
  url.search = '';
  url.hash = '';
  return url;
}

/** client-go `parseProxyURL`: http, https and socks5 proxies. */
function parseProxyUrl(raw: string, where: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`invalid 'proxy-url' for ${where}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'socks5:') {
    throw invalid(`invalid 'proxy-url' for ${where}: only HTTP, HTTPS, and SOCKS5 proxies are supported`);
  }
  try {
    // The proxy connectors decode the userinfo at each connection: a bad escape is a config error here, not a
    // URIError on every request. (Go's url.Parse refuses a malformed escape too; bytes that are not UTF-8,
    // which Go would send as they are, are refused as well.)
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw invalid(`invalid 'proxy-url' for ${where}: its user:password has a malformed percent escape or is not UTF-8`);
  }
  return url;
}
