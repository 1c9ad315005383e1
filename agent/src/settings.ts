import { hostname } from 'node:os';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigInvalidError, checkNodeName, formatDuration, MAX_TIMER_MS } from '@podconfig/core';
import { checkHeader, parseManifestUrlHeaders } from '@podconfig/source-http';
import { DEFAULTS, LOG_LEVELS, type AgentConfig, type HandlerSpec } from './agent-config.js';
import { parseDuration } from './duration.js';
import { mergeFeatureGates, parseFeatureGates, parseGoBool, watchListWithGates } from './feature-gates.js';
import { addressesCollide, formatStatusAddress, parseStatusAddress } from './status-address.js';

type Key = keyof AgentConfig;

/**
 * One setting: its kubelet-style flag, its config-file field (KubeletConfiguration's name where
 * the kubelet has one), and how a raw value becomes the typed one. The CLI, the config file and
 * `--help` are all generated from this table, so they cannot drift apart.
 */
export interface Setting {
  readonly key: Key;
  readonly flag: string;
  readonly aliases?: readonly string[];
  readonly field: string;
  readonly arg: string;
  readonly help: string;
  readonly repeatable?: boolean;
  /** A bool flag, as Go's `IsBoolFlag()`: `--flag` alone means true, `--flag=false` turns it off. */
  readonly isBool?: boolean;
  /**
   * A file path: a relative one given in a config file is resolved against the file's directory
   * (the kubelet's `resolveRelativePaths` over `KubeletConfigurationPathRefs`); a flag's stays as given.
   */
  readonly isPath?: boolean;
  /** For a value holding paths (not one): the value a config file gave, told the file's directory. */
  readonly inConfigDir?: (value: unknown, dir: string) => unknown;
  /** `raw` is a flag string (or string[] when repeatable) or a config-file value; `what` names it in errors. */
  readonly parse: (raw: unknown, what: string, ctx: ParseContext) => unknown;
  /**
   * How a flag's value applies over the config file's when both are given; unset: it replaces it. `--feature-gates`
   * overrides the file's `featureGates` per gate, as the kubelet merges them.
   */
  readonly overFile?: (fromFlag: unknown, fromFile: unknown) => unknown;
  readonly fallback: () => unknown;
  /** The default as `--help` shows it (`20s`); none when the default is "unset". */
  readonly defaultHelp?: string;
}

/** How a raw value is read beyond its own text. */
export interface ParseContext {
  /**
   * A number for a duration means milliseconds: only for the library API (`runPodConfig()`). A
   * config file must give a duration string, as the kubelet refuses numbers for `metav1.Duration`.
   */
  readonly durationsInMs: boolean;
  /**
   * The value is a flag's text. A config-file (or library) value is typed, as the kubelet decodes its file
   * into Go types: `kubeAPIBurst: "100"` or `watchList: "false"` is refused, where `--kube-api-burst=100` is text.
   */
  readonly fromFlag: boolean;
}

const str = (raw: unknown, what: string): string => {
  if (typeof raw !== 'string') throw new ConfigInvalidError(`${what}: must be a string, got ${shown(raw)}`);
  return raw;
};
/** A value that may hold a secret (a header's token): a wrong type is named, the value never shown. */
const secretStr = (raw: unknown, what: string): string => {
  if (typeof raw !== 'string') throw new ConfigInvalidError(`${what}: must be a string, got ${kindOf(raw)}`);
  return raw;
};
const kindOf = (raw: unknown): string => {
  if (raw === null || raw === undefined) return 'nothing';
  if (Array.isArray(raw)) return 'a list';
  if (typeof raw === 'object') return 'a mapping';
  return `a ${typeof raw}`;
};
/** A config-file value as a message quotes it: `1`, `true`, `"x"`, `{"a":1}`. */
const shown = (raw: unknown): string => JSON.stringify(raw) ?? String(raw);
/** `raw` when it is a string; else the setting's own message (a YAML `1` for a boolean is not "not a string"). */
const text = (raw: unknown, wrongType: () => string): string => {
  if (typeof raw !== 'string') throw new ConfigInvalidError(wrongType());
  return raw;
};
const optionalPath = (raw: unknown, what: string): string | undefined => {
  const s = str(raw, what).trim();
  return s === '' ? undefined : s;
};
/** `--kubeconfig`: a path, or "" given on purpose: standalone mode, whatever `KUBECONFIG` or `~/.kube/config` say. */
const kubeconfigPath = (raw: unknown, what: string): string => str(raw, what).trim();
/**
 * `zeroIsDefault`: a zero means the default, as a KubeletConfiguration field's zero is unset; with
 * `zeroFlagRefused`, only in the file: the kubelet applies flags after its defaults, so a zero flag reaches its check.
 */
const duration = (opts: { positive?: boolean; zeroIsDefault?: number; zeroFlagRefused?: boolean } = {}) => (raw: unknown, what: string, ctx: ParseContext): number => {
  if (typeof raw === 'number' && !ctx.durationsInMs) {
    throw new ConfigInvalidError(`${what}: must be a duration string like "20s", got the number ${String(raw)}`);
  }
  if (typeof raw === 'number' && !Number.isFinite(raw)) throw new ConfigInvalidError(`${what}: must be a finite number of milliseconds, got ${String(raw)}`);
  const ms = typeof raw === 'number' ? raw : parseDuration(text(raw, () => `${what}: must be a duration string like "20s", got ${shown(raw)}`), what);
  if (ms < 0) throw new ConfigInvalidError(`${what}: must not be negative`);
  // Node.js's timers count whole milliseconds: a shorter period is a timer that fires on every turn of the loop.
  if (ms > 0 && ms < 1) throw new ConfigInvalidError(`${what}: must be 0 or at least 1ms, got ${formatDuration(ms)}`);
  // A longer timer would fire at once (Node.js's TimeoutOverflowWarning), not late.
  if (!(ms <= MAX_TIMER_MS)) throw new ConfigInvalidError(`${what}: must be at most ${formatDuration(MAX_TIMER_MS)}, the longest timer Node.js sets`);
  if (ms === 0 && opts.zeroFlagRefused === true && ctx.fromFlag) throw new ConfigInvalidError(`${what}: must be greater than 0 (the kubelet's "invalid sync frequency")`);
  if (ms === 0 && opts.zeroIsDefault !== undefined) return opts.zeroIsDefault; // KubeletConfiguration: zero means unset
  if (ms === 0 && opts.positive === true) throw new ConfigInvalidError(`${what}: must be greater than 0`);
  return ms;
};
const number = (opts: { integer?: boolean; zeroIs?: number }) => (raw: unknown, what: string, ctx: ParseContext): number => {
  const kind = `${opts.zeroIs === undefined ? 'positive' : 'non-negative'} ${opts.integer === true ? 'integer' : 'number'}`;
  const wrong = (): string => `${what}: must be a ${kind}, got ${shown(raw)}`;
  if (!ctx.fromFlag && typeof raw !== 'number') throw new ConfigInvalidError(wrong());
  const written = typeof raw === 'number' ? undefined : text(raw, wrong).trim();
  const n = written === undefined ? (raw as number) : written === '' ? Number.NaN : Number(written);
  if (n === 0 && opts.zeroIs !== undefined) return opts.zeroIs;
  if (!Number.isFinite(n) || n <= 0 || (opts.integer === true && !Number.isInteger(n))) throw new ConfigInvalidError(wrong());
  return n;
};
/**
 * The kubelet passes `kubeAPIQPS`/`kubeAPIBurst` to client-go, which takes 0 as its own defaults (rest.Config:
 * `DefaultQPS` 5, `DefaultBurst` 10); the kubelet's validation refuses only negative values.
 */
const CLIENT_GO_DEFAULT_QPS = 5;
const CLIENT_GO_DEFAULT_BURST = 10;
const oneOf = <T extends string>(values: readonly T[]) => (raw: unknown, what: string): T => {
  const wrong = (): string => `${what}: must be one of ${values.join(', ')}, got ${shown(raw)}`;
  const s = text(raw, wrong);
  if (!(values as readonly string[]).includes(s)) throw new ConfigInvalidError(wrong());
  return s as T;
};
const bool = (raw: unknown, what: string, ctx: ParseContext): boolean => {
  if (typeof raw === 'boolean') return raw;
  const wrong = (): string => `${what}: must be true or false, got ${shown(raw)}`;
  if (!ctx.fromFlag) throw new ConfigInvalidError(wrong());
  // Go's strconv.ParseBool, as pflag reads a bool flag: 1, t, T, TRUE, true, True, and the same for false, no other
  // spelling (`tRUE`, `yes`); `--watch-list=` (empty) is an error there too. A bool flag alone comes here as "true".
  const value = parseGoBool(text(raw, wrong));
  if (value === undefined) throw new ConfigInvalidError(wrong());
  return value;
};
const list = (raw: unknown, what: string): string[] => {
  if (Array.isArray(raw)) return raw.map((v, i) => str(v, `${what}[${i}]`));
  return str(raw, what).split(',').map((s) => s.trim()).filter((s) => s !== '');
};

/** `--manifest-extensions`: a non-empty list of `.ext` names (leave the setting out to read any extension). */
const extensions = (raw: unknown, what: string): string[] => {
  const exts = list(raw, what).map((e) => e.trim());
  if (exts.length === 0) throw new ConfigInvalidError(`${what}: must list at least one extension, e.g. .yaml,.yml,.json (leave it unset to read any)`);
  const bad = exts.find((e) => !/^\.[^./\\]+$/.test(e));
  if (bad !== undefined) throw new ConfigInvalidError(`${what}: ${JSON.stringify(bad)} is not an extension: each starts with "." (.yaml)`);
  return exts;
};

/**
 * kubelet `GetHostname`: the node name is the trimmed, lowercased override or, for a zero-length one
 * (`--hostname-override=`), the OS hostname; an override that trims to nothing is an error.
 */
export function nodeName(raw: string, what: string): string {
  return raw === '' ? normalizeNodeName(hostname(), 'the OS hostname') : normalizeNodeName(raw, what);
}

function normalizeNodeName(raw: string, what: string): string {
  const name = raw.trim().toLowerCase();
  if (name === '') throw new ConfigInvalidError(`${what}: the node name is empty (only white space)`);
  return checkNodeName(name, what);
}

function manifestUrl(raw: unknown, what: string): string | undefined {
  const s = str(raw, what).trim();
  if (s === '') return undefined;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new ConfigInvalidError(`${what}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigInvalidError(`${what}: only http:// and https:// URLs are supported, got ${url.protocol}`);
  }
  return url.href;
}

function headers(raw: unknown, what: string, ctx: ParseContext): [string, string][] {
  // Flag form: repeatable 'a:hello,b:again'. File form (staticPodURLHeader): the kubelet's map[string][]string,
  // name -> [values]; anything else there is refused, as the kubelet's decoder refuses it.
  // Checked here, so that a bad header fails at start-up naming the flag, or the file and the field.
  if (ctx.fromFlag) {
    const flags: unknown[] = Array.isArray(raw) ? raw : [raw];
    return parseManifestUrlHeaders(flags.map((v, i) => secretStr(v, Array.isArray(raw) ? `${what}[${i}]` : what)), what);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigInvalidError(`${what}: must be a mapping of header names to lists of values (e.g. Authorization: ["Bearer …"]), got ${kindOf(raw)}`);
  }
  const out: [string, string][] = [];
  for (const [name, values] of Object.entries(raw)) {
    if (!Array.isArray(values)) {
      throw new ConfigInvalidError(`${what}, header ${JSON.stringify(name)}: must be a list of values (${JSON.stringify(name)}: ["…"]), got ${kindOf(values)}`);
    }
    values.forEach((v: unknown, i) => {
      const where = `${what}, header ${JSON.stringify(name)} value ${i + 1}`;
      const header: [string, string] = [name, secretStr(v, where)];
      checkHeader(header, where);
      out.push(header);
    });
  }
  return out;
}

/** `NAME[=ARG]` from the CLI, or a config entry: a string, or `{ name, ...options }`. */
export function parseHandlerSpec(raw: unknown, what: string): HandlerSpec {
  if (typeof raw === 'string') {
    const eq = raw.indexOf('=');
    const name = (eq < 0 ? raw : raw.slice(0, eq)).trim();
    if (name === '') throw new ConfigInvalidError(`${what}: a handler spec needs a name before "=" (NAME[=ARG])`);
    return { name, options: eq < 0 ? {} : { arg: raw.slice(eq + 1) }, origin: what };
  }
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const { name, ...options } = raw as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '') throw new ConfigInvalidError(`${what}: a handler entry needs a "name"`);
    return { name: name.trim(), options, origin: what };
  }
  throw new ConfigInvalidError(`${what}: a handler is "NAME[=ARG]" or { name: NAME, ...options }`);
}

const handlers = (raw: unknown, what: string): HandlerSpec[] => {
  const items: unknown[] = Array.isArray(raw) ? raw : [raw];
  return items.map((item, i) => parseHandlerSpec(item, `${what}[${i}]`));
};

export const SETTINGS: readonly Setting[] = [
  { key: 'nodeName', flag: 'node-name', aliases: ['hostname-override'], field: 'nodeName', arg: 'NAME',
    help: 'node name: static pod names get "-<node>" (lowercased); the apiserver source watches pods bound to it (default: the OS hostname)', defaultHelp: '',
    parse: (raw, what) => nodeName(str(raw, what), what), fallback: () => nodeName('', 'the OS hostname') },
  { key: 'staticPodPath', flag: 'pod-manifest-path', field: 'staticPodPath', arg: 'PATH',
    help: 'directory (or single file) of static pod manifests; unset disables the file source', isPath: true, parse: optionalPath, fallback: () => undefined },
  { key: 'fileCheckFrequencyMs', flag: 'file-check-frequency', field: 'fileCheckFrequency', arg: 'DURATION',
    help: 'periodic full re-scan of the manifest path (events trigger re-scans too)', parse: duration({ zeroIsDefault: DEFAULTS.fileCheckFrequencyMs }),
    fallback: () => DEFAULTS.fileCheckFrequencyMs },
  { key: 'invalidManifest', flag: 'invalid-manifest', field: 'invalidManifest', arg: 'keep|drop',
    help: 'keep: a manifest that turns invalid keeps its last good pod (D4); drop: the kubelet behaviour', parse: oneOf(['keep', 'drop'] as const), fallback: () => 'keep' },
  { key: 'manifestFilter', flag: 'manifest-filter', field: 'manifestFilter', arg: 'default|none',
    help: 'default: ignore editor artefacts (~, .swp, .bak, …) (D2); none: read every non-dot file like the kubelet', parse: oneOf(['default', 'none'] as const), fallback: () => 'default' },
  { key: 'manifestExtensions', flag: 'manifest-extensions', field: 'manifestExtensions', arg: 'EXTS',
    help: 'only read manifests with these extensions, e.g. .yaml,.yml,.json (default: any)', parse: extensions, fallback: () => undefined },
  { key: 'manifestUrl', flag: 'manifest-url', field: 'staticPodURL', arg: 'URL',
    help: 'URL of a Pod or PodList manifest, polled periodically; unset disables the http source', parse: manifestUrl, fallback: () => undefined },
  { key: 'manifestUrlHeaders', flag: 'manifest-url-header', field: 'staticPodURLHeader', arg: "'a:x,b:y'", repeatable: true,
    help: 'HTTP headers for the manifest URL, e.g. \'a:hello,b:again\' (repeatable; values appended in order)', parse: headers, fallback: () => [] },
  { key: 'manifestUrlCaFile', flag: 'manifest-url-ca', field: 'staticPodURLCAFile', arg: 'FILE',
    help: 'PEM file with the CA that signs the manifest URL\'s certificate', isPath: true, parse: optionalPath, fallback: () => undefined },
  { key: 'manifestUrlClientCertFile', flag: 'manifest-url-client-cert', field: 'staticPodURLClientCertFile', arg: 'FILE',
    help: 'PEM client certificate presented to the manifest URL (with --manifest-url-client-key)', isPath: true, parse: optionalPath, fallback: () => undefined },
  { key: 'manifestUrlClientKeyFile', flag: 'manifest-url-client-key', field: 'staticPodURLClientKeyFile', arg: 'FILE',
    help: 'PEM private key of --manifest-url-client-cert', isPath: true, parse: optionalPath, fallback: () => undefined },
  { key: 'httpCheckFrequencyMs', flag: 'http-check-frequency', field: 'httpCheckFrequency', arg: 'DURATION',
    help: 'time between manifest URL polls (backs off up to 5m on failure)', parse: duration({ zeroIsDefault: DEFAULTS.httpCheckFrequencyMs }),
    fallback: () => DEFAULTS.httpCheckFrequencyMs },
  { key: 'httpReady', flag: 'http-ready', field: 'httpReady', arg: 'definitive|first-success',
    help: 'when the http source counts as ready: after a definitive answer (a 404 = no pods, removing the http pods) or a grace period (D9), or only after a success (a 404 keeps them)', parse: oneOf(['definitive', 'first-success'] as const), fallback: () => 'definitive' },
  { key: 'kubeconfig', flag: 'kubeconfig', field: 'kubeconfig', arg: 'FILE',
    help: 'kubeconfig for the apiserver source; unset: $KUBECONFIG, ~/.kube/config, in-cluster, else standalone; "" (given empty): standalone, no apiserver source',
    isPath: true, parse: kubeconfigPath, fallback: () => undefined },
  { key: 'context', flag: 'context', field: 'context', arg: 'NAME', help: 'kubeconfig context to use', parse: optionalPath, fallback: () => undefined },
  { key: 'kubeApiQps', flag: 'kube-api-qps', field: 'kubeAPIQPS', arg: 'N', help: 'client-side QPS limit towards the apiserver', parse: number({ zeroIs: CLIENT_GO_DEFAULT_QPS }), fallback: () => DEFAULTS.kubeApiQps },
  { key: 'kubeApiBurst', flag: 'kube-api-burst', field: 'kubeAPIBurst', arg: 'N', help: 'client-side burst towards the apiserver', parse: number({ integer: true, zeroIs: CLIENT_GO_DEFAULT_BURST }), fallback: () => DEFAULTS.kubeApiBurst },
  { key: 'watchList', flag: 'watch-list', field: 'watchList', arg: 'true|false', isBool: true,
    help: 'initial sync by streaming list (sendInitialEvents, D13); false: paginated LIST then WATCH (the kubelet\'s --feature-gates=WatchListClient=false)', parse: bool, fallback: () => true },
  { key: 'featureGates', flag: 'feature-gates', field: 'featureGates', arg: "'A=true,B=false'", repeatable: true,
    help: 'feature gates, as the kubelet takes them (repeatable; each gate overrides the config file\'s): WatchListClient=false turns the streaming initial list off, as --watch-list=false (the two may not disagree), and AllBeta sets it when neither is given; any other gate is accepted and not used',
    parse: (raw, what, ctx) => parseFeatureGates(raw, what, ctx.fromFlag), overFile: mergeFeatureGates, fallback: () => ({}) },
  { key: 'keepManagedFields', flag: 'keep-managed-fields', field: 'keepManagedFields', arg: 'true|false', isBool: true,
    help: 'keep metadata.managedFields on apiserver pods (dropped by default, as kube-scheduler\'s informers do)', parse: bool, fallback: () => false },
  { key: 'syncFrequencyMs', flag: 'sync-frequency', field: 'syncFrequency', arg: 'DURATION',
    help: 'periodic re-sync of every pod with the handlers (jittered up to +50%)', parse: duration({ zeroIsDefault: DEFAULTS.syncFrequencyMs, zeroFlagRefused: true }), fallback: () => DEFAULTS.syncFrequencyMs },
  { key: 'readiness', flag: 'readiness', field: 'readiness', arg: 'per-source|all-sources',
    help: 'per-source: a pod is killed once its own source is ready (D10); all-sources: the kubelet rule', parse: oneOf(['per-source', 'all-sources'] as const), fallback: () => 'per-source' },
  { key: 'handlers', flag: 'handler', field: 'handlers', arg: 'SPEC', repeatable: true,
    help: 'sync handler: log, state-dir=DIR, exec=COMMAND, webhook=URL, a path to an ES module, or a package name (repeatable; default: log)',
    parse: handlers, fallback: () => [{ name: 'log', options: {} }],
    inConfigDir: (specs, dir) => (specs as HandlerSpec[]).map((spec) => ({ ...spec, baseDir: dir })) },
  { key: 'handlerTimeoutMs', flag: 'handler-timeout', field: 'handlerTimeout', arg: 'DURATION', help: 'per-call timeout of sync handlers; also bounds loading each handler (module and factory)', parse: duration({ positive: true }), fallback: () => DEFAULTS.handlerTimeoutMs },
  { key: 'handlerConcurrency', flag: 'handler-concurrency', field: 'handlerConcurrency', arg: 'N', help: 'handler calls in flight across pods', parse: number({ integer: true }), fallback: () => DEFAULTS.handlerConcurrency },
  { key: 'statusAddress', flag: 'status-address', field: 'statusAddress', arg: 'HOST:PORT',
    help: 'status server (/healthz /readyz /pods /sources /metrics); "off" disables it', parse: (raw, what) => parseStatusAddress(str(raw, what), what), defaultHelp: JSON.stringify(DEFAULTS.statusAddress),
    fallback: () => parseStatusAddress(DEFAULTS.statusAddress, 'default') },
  { key: 'metricsBindAddress', flag: 'metrics-bind-address', field: 'metricsBindAddress', arg: 'HOST:PORT',
    help: 'metrics server: /metrics and the health checks (/healthz /livez /readyz) only, no /pods or /sources, so it may listen beyond loopback (e.g. 0.0.0.0:10266) for a scraper off the node; unset or "off": none',
    parse: (raw, what) => parseStatusAddress(str(raw, what), what, '0.0.0.0:10266'), fallback: () => undefined },
  { key: 'logLevel', flag: 'log-level', field: 'logLevel', arg: 'LEVEL', help: `log level: ${LOG_LEVELS.join(', ')}`, parse: oneOf(LOG_LEVELS), fallback: () => DEFAULTS.logLevel },
  { key: 'shutdownTimeoutMs', flag: 'shutdown-timeout', field: 'shutdownTimeout', arg: 'DURATION',
    help: 'how long in-flight handler calls get at shutdown', parse: duration({}), fallback: () => DEFAULTS.shutdownTimeoutMs },
];

/** The config-file field names (KubeletConfiguration's where the kubelet has one), for unknown-field checks. */
export const CONFIG_FIELDS: ReadonlySet<string> = new Set(SETTINGS.map((s) => s.field));

/**
 * The default as `--help` shows it, as pflag does: `20s`, `8`, `true`, `"keep"`. None for a setting
 * whose default is "unset", a list, or computed at run time (its help says what it is).
 */
export function helpDefault(s: Setting): string | undefined {
  if (s.defaultHelp !== undefined) return s.defaultHelp === '' ? undefined : s.defaultHelp;
  const value = s.fallback();
  // pflag leaves zero values out (false, 0, 0s, "").
  if (value === false || value === 0 || value === '') return undefined;
  if (typeof value === 'number') return s.key.endsWith('Ms') ? formatDuration(value) : String(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return undefined;
}

/** Where the config-file fields came from, and how numbers for durations read. */
export interface ResolveConfigOptions {
  /**
   * The config file the fields were read from: errors name it (`--config FILE: field "x"`), and
   * relative path fields resolve against its directory, as the kubelet's do.
   */
  readonly configFile?: string;
  /** Library use (`runPodConfig()`): a number for a duration field is milliseconds. Default false: rejected. */
  readonly durationsInMs?: boolean;
  /** The flag name as typed, by the setting's flag, when an alias was used (`node-name` → `hostname-override`): errors name it. */
  readonly flagNames?: Readonly<Record<string, string>>;
  /** Library use (`runPodConfig()`): the fields are a caller's options, so errors say `option "x"`, not `config field "x"`. */
  readonly fieldsAreOptions?: boolean;
}

/**
 * Flags (by flag name) override file fields (by field name) override defaults; a setting with `overFile` merges the
 * two (`--feature-gates` over `featureGates`, per gate). Then the WatchListClient gate (AllBeta) meets `watchList`.
 */
export function resolveConfig(flags: Readonly<Record<string, unknown>>, file: Readonly<Record<string, unknown>>, o: ResolveConfigOptions = {}): AgentConfig {
  const ctx: ParseContext = { durationsInMs: o.durationsInMs === true, fromFlag: false };
  const flagCtx: ParseContext = { ...ctx, fromFlag: true };
  const configFile = o.configFile;
  const fieldLabel = (field: string): string => {
    if (configFile !== undefined) return `--config ${configFile}: field "${field}"`;
    return o.fieldsAreOptions === true ? `option "${field}"` : `config field "${field}"`;
  };
  const out: Record<string, unknown> = {};
  const origins: Record<string, string> = {};
  /** What the flags gave, parsed, before `overFile` merged the file's in (which gate came from where). */
  const fromFlags: Partial<Record<Key, unknown>> = {};
  /** The origins (`--watch-list`) of the settings a flag gave: a flag wins over the config file. */
  const flagOrigins = new Set<string>();
  for (const s of SETTINGS) {
    const fromFlag = flags[s.flag];
    const inFile = file[s.field] !== undefined && file[s.field] !== null;
    const fileValue = (): unknown => {
      let value = s.parse(file[s.field], fieldLabel(s.field), ctx);
      if (s.isPath === true && typeof value === 'string' && value !== '' && configFile !== undefined && !isAbsolute(value)) {
        value = resolve(dirname(configFile), value);
      }
      if (s.inConfigDir !== undefined && configFile !== undefined) value = s.inConfigDir(value, resolve(dirname(configFile)));
      return value;
    };
    if (fromFlag !== undefined) {
      const what = `--${o.flagNames?.[s.flag] ?? s.flag}`;
      const value = s.parse(fromFlag, what, flagCtx);
      fromFlags[s.key] = value;
      flagOrigins.add(what);
      out[s.key] = s.overFile !== undefined && inFile ? s.overFile(value, fileValue()) : value;
      origins[s.key] = what;
    } else if (inFile) {
      out[s.key] = fileValue();
      origins[s.key] = fieldLabel(s.field);
    } else {
      out[s.key] = s.fallback();
    }
  }
  // WatchListClient (and AllBeta) over the watch-list setting: see watchListWithGates().
  const flagGates = (fromFlags.featureGates ?? {}) as Readonly<Record<string, boolean>>;
  const watchList = watchListWithGates({ value: out['watchList'] as boolean, origin: origins['watchList'] }, out['featureGates'] as Record<string, boolean>,
    (gate) => (flagGates[gate] !== undefined ? `--${o.flagNames?.['feature-gates'] ?? 'feature-gates'}` : fieldLabel('featureGates')),
    (origin) => flagOrigins.has(origin));
  out['watchList'] = watchList.value;
  if (watchList.origin !== undefined) origins['watchList'] = watchList.origin;
  out['origins'] = origins;
  const config = out as unknown as AgentConfig;
  if ((config.manifestUrlClientCertFile === undefined) !== (config.manifestUrlClientKeyFile === undefined)) {
    throw new ConfigInvalidError('--manifest-url-client-cert and --manifest-url-client-key (staticPodURLClientCertFile and staticPodURLClientKeyFile) go together: set both or neither');
  }
  if (config.handlerConcurrency < config.handlers.length) {
    throw new ConfigInvalidError(`${settingName(config, 'handlerConcurrency')} ${config.handlerConcurrency} is below the number of handlers (${config.handlers.length}): each handler needs a slot of its own, or a hung one holds back the others`);
  }
  if (config.statusAddress !== undefined && config.metricsBindAddress !== undefined && addressesCollide(config.statusAddress, config.metricsBindAddress)) {
    // Else the second listener fails with EADDRINUSE, which reads as "the instance before has not let go": retried.
    throw new ConfigInvalidError(`${settingName(config, 'metricsBindAddress')} ${formatStatusAddress(config.metricsBindAddress)} takes the port of ${settingName(config, 'statusAddress')} ${formatStatusAddress(config.statusAddress)}: give the metrics server a port of its own`);
  }
  if (config.kubeconfig === '' && config.context !== undefined) {
    throw new ConfigInvalidError(`${settingName(config, 'context')} needs a kubeconfig, but ${settingName(config, 'kubeconfig')} is empty (standalone mode)`);
  }
  return config;
}

/** How the user gave a setting, for errors found after parsing (`--manifest-url-ca`, or the config field). */
export function settingName(config: AgentConfig, key: keyof AgentConfig): string {
  const given = config.origins?.[key];
  if (given !== undefined) return given;
  const s = SETTINGS.find((x) => x.key === key);
  return s === undefined ? String(key) : `--${s.flag}`;
}
