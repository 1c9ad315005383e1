import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { effectiveSettings } from './effective-settings.js';
import { resolveConfig } from './settings.js';
import { AGENT_VERSION } from './version.js';

describe(effectiveSettings.name, () => {
  it('gives every setting by its config-file name, durations as Go writes them, whichever of flags, file or defaults set it', () => {
    const config = resolveConfig(
      { 'node-name': 'n1', 'sync-frequency': '90s', 'status-address': '[::1]:10999', handler: ['log', 'state-dir=/var/lib/p'] },
      { staticPodPath: '/etc/kubernetes/manifests', kubeAPIQPS: 20, metricsBindAddress: '0.0.0.0:10266' },
      { configFile: '/etc/podconfig/config.yaml' },
    );
    expect(effectiveSettings(config)).toEqual({
      version: AGENT_VERSION,
      nodeName: 'n1', staticPodPath: '/etc/kubernetes/manifests', fileCheckFrequency: '20s', invalidManifest: 'keep', manifestFilter: 'default',
      staticPodURL: '', staticPodURLHeader: [], httpCheckFrequency: '20s', httpReady: 'definitive', kubeconfig: '(discovered)',
      kubeAPIQPS: 20, kubeAPIBurst: 100, watchList: true, keepManagedFields: false, syncFrequency: '1m30s', readiness: 'per-source',
      handlers: ['log', 'state-dir'], handlerTimeout: '1m0s', handlerConcurrency: 8, statusAddress: '[::1]:10999',
      metricsBindAddress: '0.0.0.0:10266', logLevel: 'info', shutdownTimeout: '10s',
    });
  });

  it('gives the metrics server as off when unset, as the status server\'s when "off", and an IPv6 host in brackets', () => {
    expect(effectiveSettings(resolveConfig({ 'node-name': 'n1' }, {}))).toMatchObject({ statusAddress: '127.0.0.1:10265', metricsBindAddress: 'off' });
    expect(effectiveSettings(resolveConfig({ 'node-name': 'n1', 'status-address': 'off', 'metrics-bind-address': '[::]:10266' }, {})))
      .toMatchObject({ statusAddress: 'off', metricsBindAddress: '[::]:10266' });
  });

  it('gives the gates given, sorted, and watchList as they left it; no featureGates without any', () => {
    const settings = effectiveSettings(resolveConfig({ 'node-name': 'n1', 'feature-gates': 'WatchListClient=false,AllAlpha=false' }, { featureGates: { SidecarContainers: true } }));
    expect(settings).toMatchObject({ watchList: false, featureGates: { AllAlpha: false, SidecarContainers: true, WatchListClient: false } });
    expect(Object.keys(settings['featureGates'] as object)).toEqual(['AllAlpha', 'SidecarContainers', 'WatchListClient']);
    expect(effectiveSettings(resolveConfig({ 'node-name': 'n1' }, {}))).not.toHaveProperty('featureGates');
  });

  it('starts with the agent\'s version, from its package.json', async () => {
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    const settings = effectiveSettings(resolveConfig({ 'node-name': 'n1' }, {}));
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Object.entries(settings)[0]).toEqual(['version', version]);
  });

  it('tells no secret: header names without their values, the manifest URL without its credentials and query', () => {
    const config = resolveConfig({
      'manifest-url': 'https://user:PASSWORD@h.example/pods?token=QUERYSECRET',
      'manifest-url-header': ['Authorization:Bearer HEADERSECRET,X-Trace:1', 'Authorization:Bearer OTHER'],
      kubeconfig: '',
    }, {});
    const settings = effectiveSettings(config);
    expect(settings).toMatchObject({ staticPodURLHeader: ['Authorization', 'X-Trace'], kubeconfig: '' });
    expect(JSON.stringify(settings)).not.toMatch(/PASSWORD|QUERYSECRET|HEADERSECRET|OTHER|user/);
  });
});
