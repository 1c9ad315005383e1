/** A handler to load: a built-in name (`log`, `state-dir`, `exec`, `webhook`), a path to an ES module, or a package name. */
export interface HandlerSpec {
  readonly name: string;
  /** `NAME=ARG` gives `{ arg }`; a config file entry gives its other fields. */
  readonly options: Readonly<Record<string, unknown>>;
  /** Where it was given (`--config FILE: field "handlers"[1]`), named in its load and option errors. */
  readonly origin?: string;
  /**
   * Where a relative module path resolves: the config file's directory for an entry of its `handlers`, as
   * the file's other paths; unset (a flag, the library API): the working directory.
   */
  readonly baseDir?: string;
}

export interface StatusAddress {
  readonly host: string;
  readonly port: number;
}

/** The agent's validated configuration: flags over config file over defaults. Durations in ms. */
export interface AgentConfig {
  readonly nodeName: string;
  /** `staticPodPath` / `--pod-manifest-path`: directory or file; unset disables the file source. */
  readonly staticPodPath: string | undefined;
  readonly fileCheckFrequencyMs: number;
  readonly invalidManifest: 'keep' | 'drop';
  readonly manifestFilter: 'default' | 'none';
  readonly manifestExtensions: readonly string[] | undefined;
  /** `staticPodURL` / `--manifest-url`: unset disables the http source. */
  readonly manifestUrl: string | undefined;
  readonly manifestUrlHeaders: readonly (readonly [string, string])[];
  readonly manifestUrlCaFile: string | undefined;
  /** Client certificate and key (PEM files) presented to the manifest URL; both or neither. */
  readonly manifestUrlClientCertFile: string | undefined;
  readonly manifestUrlClientKeyFile: string | undefined;
  readonly httpCheckFrequencyMs: number;
  readonly httpReady: 'definitive' | 'first-success';
  /**
   * `--kubeconfig` / `kubeconfig`: a file (it must exist); `''` (given empty on purpose): standalone mode,
   * no apiserver source whatever `KUBECONFIG`, `~/.kube/config` or in-cluster say; unset: client-go's discovery.
   */
  readonly kubeconfig: string | undefined;
  readonly context: string | undefined;
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
  /**
   * The streaming initial list (D13): `--watch-list` / `watchList`, or the kubelet's WatchListClient gate (AllBeta when
   * neither is given; see `featureGates`).
   */
  readonly watchList: boolean;
  /**
   * `--feature-gates` / `featureGates`: every gate given, by name (the flag's over the file's, per gate). podconfig
   * reads WatchListClient and AllBeta (into `watchList`); the others are accepted and not used.
   */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** Keep `metadata.managedFields` on apiserver pods; default false (dropped, as kube-scheduler's informers do). */
  readonly keepManagedFields: boolean;
  readonly syncFrequencyMs: number;
  readonly readiness: 'per-source' | 'all-sources';
  readonly handlers: readonly HandlerSpec[];
  readonly handlerTimeoutMs: number;
  readonly handlerConcurrency: number;
  /** Unset disables the status server. */
  readonly statusAddress: StatusAddress | undefined;
  /**
   * `--metrics-bind-address` / `metricsBindAddress` (kube-proxy's name): a second listener serving `/metrics` and the
   * health checks only (no `/pods`, no `/sources`), which may bind beyond loopback for a scraper off the node.
   * Unset (the default) or `off`: none.
   */
  readonly metricsBindAddress: StatusAddress | undefined;
  readonly logLevel: LogLevel;
  readonly shutdownTimeoutMs: number;
  /**
   * How each setting that was set was given (`--manifest-url-ca`, `--config FILE: field "staticPodURLCAFile"`),
   * for errors found after parsing, such as an unreadable file. Unset settings are absent.
   */
  readonly origins?: Readonly<Partial<Record<keyof AgentConfig, string>>>;
}

/** pino's levels, as `--log-level` and `logLevel` take them. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Every default of section 8 of the kubelet spec that applies, plus podconfig's own. */
export const DEFAULTS = {
  fileCheckFrequencyMs: 20_000,
  httpCheckFrequencyMs: 20_000,
  syncFrequencyMs: 60_000,
  kubeApiQps: 50,
  kubeApiBurst: 100,
  statusAddress: '127.0.0.1:10265',
  logLevel: 'info',
  handlerTimeoutMs: 60_000,
  handlerConcurrency: 8,
  shutdownTimeoutMs: 10_000,
} as const;
