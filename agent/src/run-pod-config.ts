import { pino, type Logger } from 'pino';
import { ConfigInvalidError, HANDLER_METHODS, handlerShapeProblem, strayHandlerMethods, type Clock, type SyncHandler } from '@podconfig/core';
import type { AgentStartedInfo } from './agent.js';
import type { AgentConfig, LogLevel } from './agent-config.js';
import { createRootLogger } from './logger.js';
import { runAgent } from './main.js';
import { CONFIG_FIELDS, resolveConfig } from './settings.js';

/**
 * A handler option's value: plain data, what a config file can hold (strings, numbers, booleans, null, lists and
 * maps of them). No functions: an object with methods is a handler object, not a spec.
 */
export type HandlerOptionValue = string | number | boolean | null | readonly HandlerOptionValue[] | { readonly [key: string]: HandlerOptionValue };

/**
 * A handler spec as in the config file: `'log'`, `'state-dir=/var/lib/x'`, or `{ name: 'exec', command: '…' }`.
 * Its options are plain data ({@link HandlerOptionValue}), so a handler object with a misspelt or missing method
 * (`{ name: 'h', syncpod() {}, killPod() {} }`) type-checks as neither a spec nor a `SyncHandler`.
 */
export type HandlerConfig = string | { readonly name: string; readonly [option: string]: HandlerOptionValue };

/**
 * Options of {@link runPodConfig}: the config-file fields (KubeletConfiguration names where the
 * kubelet has one). Durations are Go duration strings (`'20s'`) or milliseconds.
 */
export interface PodConfigOptions {
  readonly nodeName?: string;
  readonly staticPodPath?: string;
  readonly fileCheckFrequency?: string | number;
  readonly invalidManifest?: 'keep' | 'drop';
  readonly manifestFilter?: 'default' | 'none';
  readonly manifestExtensions?: readonly string[];
  readonly staticPodURL?: string;
  readonly staticPodURLHeader?: Readonly<Record<string, readonly string[]>>;
  readonly staticPodURLCAFile?: string;
  /** PEM client certificate and key presented to the manifest URL: both or neither. */
  readonly staticPodURLClientCertFile?: string;
  readonly staticPodURLClientKeyFile?: string;
  readonly httpCheckFrequency?: string | number;
  readonly httpReady?: 'definitive' | 'first-success';
  /** A kubeconfig file; `''`: standalone, no apiserver source (unset: `KUBECONFIG`, `~/.kube/config`, in-cluster). */
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly kubeAPIQPS?: number;
  readonly kubeAPIBurst?: number;
  /** The streaming initial list (D13); default true. Not with a `featureGates` WatchListClient of another value. */
  readonly watchList?: boolean;
  /**
   * Feature gates, as a KubeletConfiguration's `featureGates`: `{ WatchListClient: false }` turns the streaming initial
   * list off (AllBeta does when neither it nor `watchList` is given); other well-formed gates are accepted and not used
   * (listed once at start-up, at info). Client-go's `KUBE_FEATURE_WatchListClient` environment variable is not read.
   */
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /** Keep `metadata.managedFields` on apiserver pods; default false (dropped). */
  readonly keepManagedFields?: boolean;
  readonly syncFrequency?: string | number;
  readonly readiness?: 'per-source' | 'all-sources';
  /** Handler objects run in-process, and/or specs loaded like `--handler`. Default: `['log']` when empty. */
  readonly handlers?: readonly (SyncHandler | HandlerConfig)[];
  readonly handlerTimeout?: string | number;
  readonly handlerConcurrency?: number;
  /** `'127.0.0.1:10265'`, `'127.0.0.1:0'` for a free port, or `'off'` (the default for library use). */
  readonly statusAddress?: string;
  /**
   * The metrics server (`/metrics` and the health checks only, no pod data): `'0.0.0.0:10266'`, `'127.0.0.1:0'`
   * for a free port; unset or `'off'` (the default): none.
   */
  readonly metricsBindAddress?: string;
  readonly shutdownTimeout?: string | number;
  /**
   * The level of the logger made when `logger` is not given: the agent's (JSON lines on stdout, ISO times, `node` on
   * every line, secrets redacted), JSON on a TTY too; default `silent`. Ignored with `logger`: set that one's level
   * yourself.
   */
  readonly logLevel?: LogLevel;
  /** Default: a silent logger (see `logLevel`). */
  readonly logger?: Logger;
  readonly clock?: Clock;
  /** Environment for kubeconfig discovery and the proxy variables (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`); default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Called once the pipeline is running (with the status and metrics servers' addresses when enabled). */
  readonly onStarted?: (info: AgentStartedInfo) => void;
}

/**
 * An in-process handler rather than a spec. Specs are plain data (`{ name, ...options }`, as a config file
 * holds), so an entry meant as a handler object is one that has a function-valued property of its own, has one
 * of a handler's methods (also from its class), or is a class instance: its shape is then checked as a handler's,
 * so a misspelt or missing method is reported as such, not as an unknown handler named after the object's `name`.
 */
function isHandlerObject(value: SyncHandler | HandlerConfig): value is SyncHandler {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return true;
  const fields = value as Readonly<Record<string, unknown>>;
  return Object.values(fields).some((v) => typeof v === 'function') || HANDLER_METHODS.some((m) => typeof fields[m] === 'function');
}

/** `; it has syncpod() (a misspelt syncPod()?), which no handler has` for the methods an entry has that no handler has. */
function strayMethods(value: object): string {
  const stray = strayHandlerMethods(value);
  if (stray.length === 0) return '';
  const guesses = stray.map(({ method, meant }) => (meant === undefined ? `${method}()` : `${method}() (a misspelt ${meant}()?)`));
  return `; it has ${guesses.join(', ')}, which no handler has`;
}

/** Options typed as a number or a boolean only (durations take a string too). */
const TYPED_OPTIONS = {
  kubeAPIQPS: 'number', kubeAPIBurst: 'number', handlerConcurrency: 'number', watchList: 'boolean', keepManagedFields: 'boolean',
} as const satisfies Partial<Record<keyof PodConfigOptions, 'number' | 'boolean'>>;

/** What the pipeline calls on a `logger` (a pino `Logger`) and on a `clock` (core's `Clock`). */
const LOGGER_METHODS = ['child', 'bindings', 'isLevelEnabled', 'trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
const CLOCK_METHODS = ['now', 'monotonic', 'sleep'] as const;

/** An object option must have its methods: a wrong one would fail later, as a TypeError deep in the running pipeline. */
function checkObjectOption(name: string, value: unknown, methods: readonly string[]): void {
  if (value === undefined) return;
  const missing = typeof value === 'object' && value !== null
    ? methods.filter((m) => typeof (value as Record<string, unknown>)[m] !== 'function')
    : methods;
  if (missing.length > 0) throw new ConfigInvalidError(`option "${name}": must be an object with ${methods.map((m) => `${m}()`).join(', ')}; missing ${missing.map((m) => `${m}()`).join(', ')}`);
}

/** Validates library options into the agent's configuration (the same rules as the config file). */
export function podConfigOptionsToConfig(options: PodConfigOptions): AgentConfig {
  // Plain JavaScript callers get a configuration error, not a TypeError from destructuring.
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new ConfigInvalidError('options: must be an object');
  const { logger, clock, env, onStarted, handlers = [], ...fields } = options;
  checkObjectOption('logger', logger, LOGGER_METHODS);
  checkObjectOption('clock', clock, CLOCK_METHODS);
  if (env !== undefined && (typeof env !== 'object' || env === null)) throw new ConfigInvalidError('option "env": must be an object');
  if (onStarted !== undefined && typeof onStarted !== 'function') throw new ConfigInvalidError('option "onStarted": must be a function');
  const given: unknown = handlers;
  if (!Array.isArray(given)) throw new ConfigInvalidError('option "handlers": must be an array of handler objects or specs');
  // As in a config file: a misspelt option must not be silently ignored.
  const unknown = Object.keys(fields).filter((key) => !CONFIG_FIELDS.has(key));
  if (unknown.length > 0) {
    throw new ConfigInvalidError(`unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')}`);
  }
  // A config file or flag is text, so the shared parsers take "8" for 8; a library option is typed.
  for (const [key, type] of Object.entries(TYPED_OPTIONS)) {
    const value = (fields as Record<string, unknown>)[key];
    if (value !== undefined && typeof value !== type) {
      throw new ConfigInvalidError(`option "${key}": must be a ${type}, got ${JSON.stringify(value)}`);
    }
  }
  const specs = handlers.filter((h) => !isHandlerObject(h));
  const objects = handlers.filter(isHandlerObject);
  // The check the CLI's loader makes of what a factory returns: the reconciler would call what is missing.
  handlers.forEach((h, i) => {
    if (!isHandlerObject(h)) return;
    const problem = handlerShapeProblem(h);
    if (problem !== undefined) {
      throw new ConfigInvalidError(`option "handlers"[${i}]: a handler object needs a non-empty name, syncPod() and killPod(): ${problem}${strayMethods(h)}`);
    }
  });
  // The library's defaults: no status server, no logs (runPodConfig's logger is silent unless given a level).
  const file: Record<string, unknown> = { statusAddress: 'off', logLevel: 'silent', ...fields };
  // Only in-process handlers given: do not add the default `log` handler.
  file['handlers'] = specs.length > 0 || objects.length === 0 ? (specs.length > 0 ? specs : undefined) : [];
  return resolveConfig({}, file, { durationsInMs: true, fieldsAreOptions: true });
}

/**
 * Embeds podconfig without the CLI: builds the same pipeline as `podconfig-agent` (sources,
 * merger, reconciliation loop, handlers, optional status server) and runs it until `signal`
 * aborts. Resolves when everything has shut down; rejects on invalid options or a fatal error.
 */
export async function runPodConfig(options: PodConfigOptions, signal: AbortSignal): Promise<void> {
  const config = podConfigOptionsToConfig(options);
  if (!(signal instanceof AbortSignal)) throw new ConfigInvalidError('runPodConfig(options, signal): signal must be an AbortSignal, which stops the pipeline when it aborts');
  // The agent's logger: ISO times, `node` on every line, secrets redacted, a quoted cause said once. JSON even on a TTY.
  // Silent (the default): a plain silent logger, without the process's stdout destination and its exit hook.
  const logger = options.logger ?? (config.logLevel === 'silent'
    ? pino({ level: 'silent' })
    : createRootLogger({ level: config.logLevel, nodeName: config.nodeName, pretty: false }));
  const handlers = (options.handlers ?? []).filter(isHandlerObject);
  await runAgent(config, {
    logger, signal, handlers,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.onStarted === undefined ? {} : { onStarted: options.onStarted }),
  });
}
