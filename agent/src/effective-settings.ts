import { formatDuration, safeUrl } from '@podconfig/core';
import type { AgentConfig } from './agent-config.js';
import { formatStatusAddress } from './status-address.js';
import { AGENT_VERSION } from './version.js';

/**
 * The settings the agent runs with, whichever of flags, config file and defaults gave them, by their
 * config-file (KubeletConfiguration) names, for one start-up log line: the kubelet logs its flags the same
 * way (`FLAG: --sync-frequency="1m0s"`). First, `version`: the agent's version (what `--version` prints, without
 * the `v`), so that a log read later tells which release ran with them. Nothing secret: header names without
 * values, the manifest URL without credentials or query, file paths (not contents).
 */
export function effectiveSettings(config: AgentConfig): Record<string, unknown> {
  return {
    version: AGENT_VERSION,
    nodeName: config.nodeName,
    staticPodPath: config.staticPodPath ?? '',
    fileCheckFrequency: formatDuration(config.fileCheckFrequencyMs),
    invalidManifest: config.invalidManifest,
    manifestFilter: config.manifestFilter,
    ...(config.manifestExtensions === undefined ? {} : { manifestExtensions: config.manifestExtensions }),
    staticPodURL: config.manifestUrl === undefined ? '' : safeUrl(config.manifestUrl),
    staticPodURLHeader: [...new Set(config.manifestUrlHeaders.map(([name]) => name))],
    ...(config.manifestUrlCaFile === undefined ? {} : { staticPodURLCAFile: config.manifestUrlCaFile }),
    ...(config.manifestUrlClientCertFile === undefined ? {} : { staticPodURLClientCertFile: config.manifestUrlClientCertFile }),
    httpCheckFrequency: formatDuration(config.httpCheckFrequencyMs),
    httpReady: config.httpReady,
    // Unset: found as kubectl finds one (its own line says which); '' on purpose: standalone.
    kubeconfig: config.kubeconfig ?? '(discovered)',
    ...(config.context === undefined ? {} : { context: config.context }),
    kubeAPIQPS: config.kubeApiQps,
    kubeAPIBurst: config.kubeApiBurst,
    watchList: config.watchList,
    // Every gate given, the used (WatchListClient, AllBeta) and the others, by name; watchList above is what they made.
    ...(Object.keys(config.featureGates).length === 0 ? {} : { featureGates: sortedGates(config.featureGates) }),
    keepManagedFields: config.keepManagedFields,
    syncFrequency: formatDuration(config.syncFrequencyMs),
    readiness: config.readiness,
    handlers: config.handlers.map((h) => h.name),
    handlerTimeout: formatDuration(config.handlerTimeoutMs),
    handlerConcurrency: config.handlerConcurrency,
    statusAddress: config.statusAddress === undefined ? 'off' : formatStatusAddress(config.statusAddress),
    metricsBindAddress: config.metricsBindAddress === undefined ? 'off' : formatStatusAddress(config.metricsBindAddress),
    logLevel: config.logLevel,
    shutdownTimeout: formatDuration(config.shutdownTimeoutMs),
  };
}

/** The gates by name, as the kubelet prints a `--feature-gates` value (sorted). */
function sortedGates(gates: Readonly<Record<string, boolean>>): Record<string, boolean> {
  return Object.fromEntries(Object.entries(gates).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
