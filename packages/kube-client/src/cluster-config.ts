import type { Secret } from './secret.js';

/**
 * Everything {@link KubeClient} needs to reach one API server, as resolved by `loadClusterConfig()`
 * from a kubeconfig context or the in-cluster service account. It holds credentials (wrapped in
 * {@link Secret}): pass it around, never log it whole.
 */
export interface ClusterConfig {
  /** The API server's base URL: scheme, host, port and an optional path prefix (no query). */
  readonly server: URL;
  readonly tls: ClusterTls;
  readonly auth: ClusterAuth;
  /** Impersonation headers (kubeconfig `as`, `as-uid`, `as-groups`, `as-user-extra`). */
  readonly impersonate?: Impersonation;
  /** Kubeconfig `proxy-url` (`http`, `https` or `socks5`), else the environment's proxy (`socks5h` too, taken as `socks5`). */
  readonly proxyUrl?: URL;
  /** `kubeconfig:<file>#<context>` or `in-cluster`. */
  readonly source: string;
  /** Whose credentials these are, for error messages (`user "admin" in kubeconfig /root/.kube/config`). */
  readonly identity: string;
  /** Non-fatal problems found while loading; the client logs them once. */
  readonly warnings: readonly string[];
}

export interface ClusterTls {
  /**
   * PEM bundle of the CAs to trust, each a trust anchor (an intermediate CA too, as in Go), the certificates that
   * parse (as Go's `AppendCertsFromPEM` skips the others). Absent: Node's default roots.
   */
  readonly ca?: string;
  /** Kubeconfig `insecure-skip-tls-verify`: no certificate verification at all (logged as a warning). */
  readonly insecureSkipVerify: boolean;
  /** Kubeconfig `tls-server-name`: the name sent as SNI and checked against the server certificate. */
  readonly serverName?: string;
  readonly clientCertificate?: ClientCertificate;
}

/** A client certificate and key (PEM). When they came from files, the client re-reads them on change. */
export interface ClientCertificate {
  readonly cert: string;
  readonly key: Secret;
  readonly certFile?: string;
  readonly keyFile?: string;
}

/** How requests authenticate, besides a client certificate (client-go precedence: token, basic, exec). */
export type ClusterAuth =
  /** `unsent`: why credentials the configuration has are not sent (a 401 says so). */
  | { readonly type: 'none'; readonly unsent?: string }
  /** A bearer token; with `tokenFile` it is re-read when the file changes (projected tokens rotate). */
  | { readonly type: 'token'; readonly token: Secret; readonly tokenFile?: string }
  | { readonly type: 'basic'; readonly username: string; readonly password: Secret }
  | { readonly type: 'exec'; readonly exec: ExecPluginConfig };

/** A kubeconfig `exec` credential plugin (client.authentication.k8s.io v1 or v1beta1). */
export interface ExecPluginConfig {
  /**
   * A name looked up in the agent's `PATH` at each run (as Go's `exec.Command` does, not in `env`'s), or an absolute
   * path (relative ones were resolved against the kubeconfig).
   */
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the agent's environment when the plugin runs. */
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly apiVersion: ExecApiVersion;
  readonly installHint?: string;
  /** `spec.cluster` of the ExecCredential input, when the kubeconfig sets `provideClusterInfo: true`. */
  readonly cluster?: ExecClusterInfo;
}

export type ExecApiVersion = 'client.authentication.k8s.io/v1' | 'client.authentication.k8s.io/v1beta1';

/** The cluster as an exec plugin sees it (`ExecCredential.spec.cluster`, wire field names). */
export interface ExecClusterInfo {
  readonly server: string;
  readonly 'tls-server-name'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  /** Base64 of the CA PEM bundle. */
  readonly 'certificate-authority-data'?: string;
  readonly 'proxy-url'?: string;
  readonly 'disable-compression'?: boolean;
  /** The cluster's `client.authentication.k8s.io/exec` extension. */
  readonly config?: unknown;
}

export interface Impersonation {
  readonly user: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}
