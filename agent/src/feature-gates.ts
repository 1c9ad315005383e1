import { closestName, ConfigInvalidError } from '@podconfig/core';

/**
 * client-go's gate for the streaming initial list (watch-list, D13): beta, on by default since 1.35. The kubelet
 * takes it from `--feature-gates` or its config file's `featureGates` (its component-base gates replace client-go's,
 * so it never reads `KUBE_FEATURE_WatchListClient`); podconfig does the same, and so maps it onto `watchList`.
 */
export const WATCH_LIST_CLIENT = 'WatchListClient';

/** component-base's special gate: sets every beta gate not set explicitly, WatchListClient among them. */
export const ALL_BETA = 'AllBeta';

/**
 * The gates podconfig reads. Any other (the kubelet has some 200, and a KubeletConfiguration shared with it carries
 * many) is accepted when its name is well-formed, and listed once at start-up as not used.
 */
export const USED_FEATURE_GATES: readonly string[] = [WATCH_LIST_CLIENT, ALL_BETA];

/** Every Kubernetes gate is a CamelCase name of letters and digits (`WatchListClient`, `IPv6DualStack`). */
const GATE_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

/** Go's strconv.ParseBool, exactly: other spellings (`yes`, `tRUE`, ``) are errors. */
export function parseGoBool(text: string): boolean | undefined {
  switch (text) {
    case '1': case 't': case 'T': case 'true': case 'TRUE': case 'True': return true;
    case '0': case 'f': case 'F': case 'false': case 'FALSE': case 'False': return false;
    default: return undefined;
  }
}

/**
 * A gate's name, checked: well-formed, and not a misspelling of a gate podconfig reads (`watchListClient`: the kubelet
 * refuses it as an unrecognized gate, and podconfig, taking it for another gate, would leave the watch-list as it is).
 */
function gateName(name: string, what: string): string {
  if (!GATE_NAME.test(name)) {
    throw new ConfigInvalidError(`${what}: ${JSON.stringify(name)} is not a feature gate name (letters and digits, starting with a letter, as WatchListClient)`);
  }
  const meant = closestName(name, USED_FEATURE_GATES);
  if (meant !== undefined && meant !== name) throw new ConfigInvalidError(`${what}: unrecognized feature gate ${JSON.stringify(name)} (did you mean ${JSON.stringify(meant)}?)`);
  return name;
}

/**
 * One `--feature-gates` value as the kubelet's flag reads it (component-base's `cliflag.MapStringBool.Set`): pairs
 * split at `,` (empty ones skipped, so a trailing comma is fine), each `Name=bool` split at its first `=`, name and
 * value trimmed, the value read by strconv.ParseBool; a later pair for a gate overrides an earlier one.
 */
function parseFlagValue(text: string, what: string, into: Record<string, boolean>): void {
  for (const pair of text.split(',')) {
    if (pair.length === 0) continue;
    const eq = pair.indexOf('=');
    // The kubelet's "malformed pair, expect string=bool"; a pair of white space only is one too.
    if (eq < 0) throw new ConfigInvalidError(`${what}: malformed pair ${JSON.stringify(pair)}, expect Name=true|false`);
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const enabled = parseGoBool(value);
    if (enabled === undefined) {
      throw new ConfigInvalidError(`${what}: invalid value of ${name}: ${JSON.stringify(value)}: must be true or false (1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False, as Go's strconv.ParseBool reads them)`);
    }
    into[gateName(name, what)] = enabled;
  }
}

/**
 * `--feature-gates` (a string, or one per occurrence: each is read as above and a later one overrides an earlier one
 * per gate, as pflag calls `Set` for each) or `featureGates` in a config file or the library's options: a mapping of
 * names to booleans, typed as the kubelet decodes its `map[string]bool` (`WatchListClient: "false"` is refused).
 */
export function parseFeatureGates(raw: unknown, what: string, fromFlag: boolean): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  if (fromFlag) {
    const values: unknown[] = Array.isArray(raw) ? raw : [raw];
    for (const value of values) {
      if (typeof value !== 'string') throw new ConfigInvalidError(`${what}: must be Name=true|false pairs, got ${JSON.stringify(value) ?? String(value)}`);
      parseFlagValue(value, what, gates);
    }
    return gates;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigInvalidError(`${what}: must be a mapping of feature gate names to true or false (e.g. WatchListClient: false), got ${Array.isArray(raw) ? 'a list' : JSON.stringify(raw) ?? String(raw)}`);
  }
  for (const [name, value] of Object.entries(raw)) {
    gateName(name, what);
    if (typeof value !== 'boolean') throw new ConfigInvalidError(`${what}, gate ${JSON.stringify(name)}: must be true or false, got ${JSON.stringify(value) ?? String(value)}`);
    gates[name] = value;
  }
  return gates;
}

/** The file's gates with the flag's over them, per gate, as the kubelet merges them (`kubeletConfigFlagPrecedence`). */
export function mergeFeatureGates(fromFlag: unknown, fromFile: unknown): Record<string, boolean> {
  return { ...(fromFile as Record<string, boolean>), ...(fromFlag as Record<string, boolean>) };
}

/** The given gates podconfig does not read, sorted (names only): listed once at start-up. */
export function unusedFeatureGates(gates: Readonly<Record<string, boolean>>): string[] {
  return Object.keys(gates).filter((name) => !USED_FEATURE_GATES.includes(name)).sort();
}

/**
 * Gates whose setting changes how a 1.36 kubelet validates a static pod (GetValidationOptionsFromPodSpecAndMeta,
 * IsValidIPForLegacyField), and the two that set every alpha or beta gate. podconfig validates static pods with
 * 1.36's defaults whatever is given: a manifest the kubelet would run under such a setting may be refused, or one it
 * would refuse run. Named at start-up with a warning, so that an operator sees why.
 */
export const VALIDATION_FEATURE_GATES: readonly string[] = [
  'AllAlpha', 'AllBeta', 'ContainerRestartRules', 'PodLevelResources', 'RestartAllContainersOnContainerExits',
  'StrictIPCIDRValidation', 'TaintTolerationComparisonOperators', 'UserNamespacesHostNetworkSupport',
];

/** The given gates that change static pod validation in the kubelet (see VALIDATION_FEATURE_GATES), sorted. */
export function validationFeatureGates(gates: Readonly<Record<string, boolean>>): string[] {
  return Object.keys(gates).filter((name) => VALIDATION_FEATURE_GATES.includes(name)).sort();
}

/** The watch-list setting and how it was given (unset: the default). */
export interface WatchListSetting {
  readonly value: boolean;
  readonly origin: string | undefined;
}

/**
 * `watchList` (`--watch-list`) with the gates over it:
 * - WatchListClient given and `watchList` not: the gate decides (as it does for the kubelet);
 * - both given: a flag wins over the config file (`--watch-list=false` over a shared KubeletConfiguration's
 *   `WatchListClient: true`, `--feature-gates=WatchListClient=false` over a file's `watchList: true`), as every
 *   flag does; given at the same layer, the same value is fine and different ones are a configuration error naming
 *   both (each layer's own precedence applies first: `--watch-list` over the file's `watchList`, a
 *   `--feature-gates` gate over the file's);
 * - neither: AllBeta, if given, decides, as it sets every beta gate the kubelet was not given explicitly; podconfig's
 *   own `watchList` counts as explicit, so it overrides AllBeta without a conflict;
 * - else the setting (default true).
 */
export function watchListWithGates(
  setting: WatchListSetting, gates: Readonly<Record<string, boolean>>, gateOrigin: (gate: string) => string, fromFlag: (origin: string) => boolean,
): WatchListSetting {
  const onOff = (v: boolean): string => (v ? 'on' : 'off');
  const gate = gates[WATCH_LIST_CLIENT];
  if (gate !== undefined) {
    const gateFrom = gateOrigin(WATCH_LIST_CLIENT);
    const byGate = { value: gate, origin: `${gateFrom} ${WATCH_LIST_CLIENT}` };
    if (setting.origin === undefined) return byGate;
    if (fromFlag(setting.origin) && !fromFlag(gateFrom)) return setting;
    if (fromFlag(gateFrom) && !fromFlag(setting.origin)) return byGate;
    if (setting.value !== gate) {
      throw new ConfigInvalidError(`${setting.origin} turns the streaming initial list (watch-list, D13) ${onOff(setting.value)}, but ${WATCH_LIST_CLIENT}=${String(gate)} in ${gateOrigin(WATCH_LIST_CLIENT)} turns it ${onOff(gate)}: give one of them, or the same value`);
    }
    return setting;
  }
  const allBeta = gates[ALL_BETA];
  if (allBeta !== undefined && setting.origin === undefined) return { value: allBeta, origin: `${gateOrigin(ALL_BETA)} ${ALL_BETA}` };
  return setting;
}
