import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigInvalidError } from '@podconfig/core';
import { configInvalidMessage } from '@podconfig/testing';
import { DEFAULTS } from './agent-config.js';
import { SETTINGS, parseHandlerSpec, resolveConfig } from './settings.js';

const invalid = configInvalidMessage;

describe('resolveConfig()', () => {
  it('applies the kubelet defaults when nothing is set', () => {
    const c = resolveConfig({}, {});
    expect(c).toMatchObject({
      nodeName: hostname().trim().toLowerCase(),
      fileCheckFrequencyMs: 20_000, httpCheckFrequencyMs: 20_000, syncFrequencyMs: 60_000,
      kubeApiQps: 50, kubeApiBurst: 100, watchList: true, featureGates: {}, keepManagedFields: false, readiness: 'per-source', invalidManifest: 'keep',
      manifestFilter: 'default', httpReady: 'definitive', statusAddress: { host: '127.0.0.1', port: 10265 },
      handlers: [{ name: 'log', options: {} }], staticPodPath: undefined, manifestUrl: undefined,
    });
    expect(c.shutdownTimeoutMs).toBe(DEFAULTS.shutdownTimeoutMs);
  });

  it('lets flags override config-file fields, which override defaults', () => {
    const c = resolveConfig({ 'sync-frequency': '2m' }, { syncFrequency: '30s', fileCheckFrequency: '5s', staticPodPath: '/m' });
    expect(c.syncFrequencyMs).toBe(120_000);
    expect(c.fileCheckFrequencyMs).toBe(5_000);
    expect(c.staticPodPath).toBe('/m');
  });

  it('takes kubeAPIQPS/kubeAPIBurst 0 as client-go does (its defaults, 5 and 10), as the kubelet passes them on', () => {
    const c = resolveConfig({}, { kubeAPIQPS: 0, kubeAPIBurst: 0 });
    expect([c.kubeApiQps, c.kubeApiBurst]).toEqual([5, 10]);
    const f = resolveConfig({ 'kube-api-qps': '0', 'kube-api-burst': '0' }, {});
    expect([f.kubeApiQps, f.kubeApiBurst]).toEqual([5, 10]);
    expect(invalid(() => resolveConfig({}, { kubeAPIBurst: -1 }))).toBe('config field "kubeAPIBurst": must be a non-negative integer, got -1');
    expect(invalid(() => resolveConfig({ 'handler-concurrency': '0' }, {}))).toBe('--handler-concurrency: must be a positive integer, got "0"');
    expect(invalid(() => resolveConfig({ 'kube-api-qps': ' ' }, {}))).toBe('--kube-api-qps: must be a non-negative number, got " "');
  });

  it('reads keepManagedFields from --keep-managed-fields (true/false) and the config field (a YAML bool)', () => {
    expect(resolveConfig({ 'keep-managed-fields': 'true' }, {}).keepManagedFields).toBe(true);
    expect(resolveConfig({ 'keep-managed-fields': 'false' }, { keepManagedFields: true }).keepManagedFields).toBe(false);
    expect(resolveConfig({}, { keepManagedFields: true }).keepManagedFields).toBe(true);
    expect(resolveConfig({}, { keepManagedFields: false }).keepManagedFields).toBe(false);
  });

  describe('feature gates', () => {
    const file = '/etc/kubernetes/kubelet.yaml';
    const fileGates = `--config ${file}: field "featureGates"`;

    it('merges --feature-gates over the config file\'s featureGates per gate, as the kubelet does', () => {
      const c = resolveConfig({ 'feature-gates': ['WatchListClient=true,A1=false', 'B2=true'] },
        { featureGates: { WatchListClient: false, A1: true, C3: true } }, { configFile: file });
      expect(c.featureGates).toEqual({ WatchListClient: true, A1: false, B2: true, C3: true });
      expect(c.watchList).toBe(true);
      expect(c.origins?.watchList).toBe('--feature-gates WatchListClient');
      expect(resolveConfig({}, { featureGates: { A1: true } }).featureGates).toEqual({ A1: true });
      expect(resolveConfig({ 'feature-gates': 'A1=false' }, {}).featureGates).toEqual({ A1: false });
      expect(resolveConfig({}, {}).featureGates).toEqual({});
    });

    it('checks the file\'s gates when the flag gives gates too: both are merged', () => {
      expect(invalid(() => resolveConfig({ 'feature-gates': 'A1=true' }, { featureGates: { WatchListClient: 'false' } }, { configFile: file })))
        .toBe(`${fileGates}, gate "WatchListClient": must be true or false, got "false"`);
    });

    it('turns the watch-list off with WatchListClient=false from the flag or the file, when watchList is not given', () => {
      expect(resolveConfig({ 'feature-gates': 'WatchListClient=false' }, {}).watchList).toBe(false);
      const c = resolveConfig({}, { featureGates: { WatchListClient: false } }, { configFile: file });
      expect([c.watchList, c.origins?.watchList]).toEqual([false, `${fileGates} WatchListClient`]);
      // A flag gate overrides the file's: the kubelet's per-gate precedence, before the watch-list setting is compared.
      expect(resolveConfig({ 'feature-gates': 'WatchListClient=true' }, { featureGates: { WatchListClient: false }, watchList: true }).watchList).toBe(true);
    });

    it('accepts --watch-list / watchList and WatchListClient with the same value', () => {
      expect(resolveConfig({ 'watch-list': 'false', 'feature-gates': 'WatchListClient=false' }, {}).watchList).toBe(false);
      expect(resolveConfig({}, { watchList: false, featureGates: { WatchListClient: false } }).watchList).toBe(false);
      expect(resolveConfig({ 'watch-list': 'true' }, { featureGates: { WatchListClient: true } }).watchList).toBe(true);
    });

    it('refuses --watch-list / watchList and WatchListClient with two values given at the same layer, naming both', () => {
      const tail = 'give one of them, or the same value';
      expect(invalid(() => resolveConfig({ 'watch-list': 'true', 'feature-gates': 'WatchListClient=false' }, {})))
        .toBe(`--watch-list turns the streaming initial list (watch-list, D13) on, but WatchListClient=false in --feature-gates turns it off: ${tail}`);
      expect(invalid(() => resolveConfig({}, { watchList: true, featureGates: { WatchListClient: false } }, { configFile: file })))
        .toBe(`--config ${file}: field "watchList" turns the streaming initial list (watch-list, D13) on, but WatchListClient=false in ${fileGates} turns it off: ${tail}`);
    });

    it('lets a flag win over the config file between --watch-list / watchList and WatchListClient, as every flag does', () => {
      // A node sharing the kubelet's KubeletConfiguration turns the watch-list off from its command line.
      expect(resolveConfig({ 'watch-list': 'false' }, { featureGates: { WatchListClient: true } }, { configFile: file }))
        .toMatchObject({ watchList: false, origins: { watchList: '--watch-list' } });
      expect(resolveConfig({ 'feature-gates': 'WatchListClient=false' }, { watchList: true }, { configFile: file }))
        .toMatchObject({ watchList: false, origins: { watchList: '--feature-gates WatchListClient' } });
    });

    it('lets AllBeta set the watch-list (a beta gate) only when neither WatchListClient nor watchList is given; AllAlpha leaves it', () => {
      expect(resolveConfig({ 'feature-gates': 'AllBeta=false' }, {}).watchList).toBe(false);
      expect(resolveConfig({ 'feature-gates': 'AllBeta=false,WatchListClient=true' }, {}).watchList).toBe(true);
      expect(resolveConfig({ 'feature-gates': 'AllBeta=false', 'watch-list': 'true' }, {}).watchList).toBe(true);
      expect(resolveConfig({ 'feature-gates': 'AllAlpha=false' }, {}).watchList).toBe(true);
    });

    it('keeps every other well-formed gate, unused, and leaves the watch-list at its default', () => {
      const c = resolveConfig({ 'feature-gates': 'SidecarContainers=true,KubeletCgroupDriverFromCRI=false' }, {});
      expect([c.watchList, c.featureGates]).toEqual([true, { SidecarContainers: true, KubeletCgroupDriverFromCRI: false }]);
    });
  });

  it('uses the OS hostname for a zero-length --node-name or --hostname-override, as the kubelet\'s GetHostname does', () => {
    expect(resolveConfig({ 'node-name': '' }, {}).nodeName).toBe(hostname().trim().toLowerCase());
    expect(resolveConfig({ 'node-name': '' }, {}, { flagNames: { 'node-name': 'hostname-override' } }).nodeName).toBe(hostname().trim().toLowerCase());
  });

  it('rejects an override that trims to nothing, naming the flag as typed', () => {
    expect(() => resolveConfig({ 'node-name': ' ' }, {})).toThrow('--node-name: the node name is empty');
    expect(() => resolveConfig({ 'node-name': ' ' }, {}, { flagNames: { 'node-name': 'hostname-override' } })).toThrow('--hostname-override: the node name is empty');
    expect(() => resolveConfig({ 'node-name': 'a_b' }, {}, { flagNames: { 'node-name': 'hostname-override' } })).toThrow('--hostname-override: "a_b" is not a valid node name');
  });

  it('lowercases the node name like the kubelet', () => {
    expect(resolveConfig({ 'node-name': ' Node-A ' }, {}).nodeName).toBe('node-a');
  });

  it('treats a zero frequency in the config file as unset (KubeletConfiguration rule, as kubeadm writes them), and refuses --sync-frequency=0 as the kubelet does', () => {
    const c = resolveConfig({}, { fileCheckFrequency: '0s', httpCheckFrequency: '0s', syncFrequency: '0s' });
    expect([c.fileCheckFrequencyMs, c.httpCheckFrequencyMs, c.syncFrequencyMs]).toEqual([20_000, 20_000, 60_000]);
    // A flag is applied after the kubelet's defaults: --sync-frequency=0 reaches its check and stops it.
    expect(() => resolveConfig({ 'sync-frequency': '0s' }, {})).toThrow('--sync-frequency: must be greater than 0 (the kubelet\'s "invalid sync frequency")');
    expect(() => resolveConfig({ 'sync-frequency': '0' }, { syncFrequency: '1m' })).toThrow('--sync-frequency: must be greater than 0');
  });

  it('takes durations up to the longest timer Node.js sets, and rejects longer ones', () => {
    expect(resolveConfig({ 'shutdown-timeout': '596h' }, {}).shutdownTimeoutMs).toBe(596 * 3_600_000);
    for (const [flag, value] of [['sync-frequency', '597h'], ['handler-timeout', '600h'], ['shutdown-timeout', '720h'], ['file-check-frequency', '1000h']]) {
      expect(invalid(() => resolveConfig({ [flag!]: value }, {}))).toBe(`--${flag}: must be at most 596h31m23.647s, the longest timer Node.js sets`);
    }
    expect(invalid(() => resolveConfig({}, { httpCheckFrequency: 2 ** 31 }, { durationsInMs: true }))).toContain('config field "httpCheckFrequency": must be at most');
  });

  it('refuses a bare number for a duration field of a config file, naming the file and the field (kubelet metav1.Duration)', () => {
    for (const field of ['syncFrequency', 'fileCheckFrequency', 'httpCheckFrequency', 'handlerTimeout', 'shutdownTimeout']) {
      expect(invalid(() => resolveConfig({}, { [field]: 60 }, { configFile: '/etc/podconfig/config.yaml' })))
        .toBe(`--config /etc/podconfig/config.yaml: field "${field}": must be a duration string like "20s", got the number 60`);
    }
    // The library API (runPodConfig) documents numbers as milliseconds.
    expect(resolveConfig({}, { syncFrequency: 60 }, { durationsInMs: true }).syncFrequencyMs).toBe(60);
  });

  it('reads --http-ready (D9): first-success when given, definitive by default, and refuses another value naming the flag', () => {
    expect(resolveConfig({ 'http-ready': 'first-success' }, {}).httpReady).toBe('first-success');
    expect(resolveConfig({ 'http-ready': 'definitive' }, { httpReady: 'first-success' }).httpReady).toBe('definitive');
    expect(resolveConfig({}, { httpReady: 'first-success' }).httpReady).toBe('first-success');
    expect(resolveConfig({}, {}).httpReady).toBe('definitive');
    expect(invalid(() => resolveConfig({ 'http-ready': 'first' }, {}))).toBe('--http-ready: must be one of definitive, first-success, got "first"');
  });

  it('names the config file in a field\'s error', () => {
    expect(invalid(() => resolveConfig({}, { readiness: 'some' }, { configFile: '/c.yaml' }))).toBe('--config /c.yaml: field "readiness": must be one of per-source, all-sources, got "some"');
  });

  it("says what a config field's value should be when the YAML gives another type (not 'must be a string')", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ keepManagedFields: 1 }, 'field "keepManagedFields": must be true or false, got 1'],
      [{ watchList: 1 }, 'field "watchList": must be true or false, got 1'],
      [{ handlerConcurrency: true }, 'field "handlerConcurrency": must be a positive integer, got true'],
      [{ kubeAPIQPS: { a: 1 } }, 'field "kubeAPIQPS": must be a non-negative number, got {"a":1}'],
      [{ readiness: 3 }, 'field "readiness": must be one of per-source, all-sources, got 3'],
      [{ syncFrequency: true }, 'field "syncFrequency": must be a duration string like "20s", got true'],
      [{ staticPodPath: 5 }, 'field "staticPodPath": must be a string, got 5'],
    ];
    for (const [file, message] of cases) expect(invalid(() => resolveConfig({}, file, { configFile: '/c.yaml' }))).toBe(`--config /c.yaml: ${message}`);
  });

  it('resolves relative path fields of a config file against its directory, as the kubelet does, and leaves flags as given', () => {
    const file = { staticPodPath: 'manifests', staticPodURLCAFile: '../pki/ca.pem', staticPodURLClientCertFile: 'c.pem', staticPodURLClientKeyFile: '/abs/k.pem', kubeconfig: 'kubelet.conf' };
    const c = resolveConfig({}, file, { configFile: '/etc/podconfig/config.yaml' });
    expect([c.staticPodPath, c.manifestUrlCaFile, c.manifestUrlClientCertFile, c.manifestUrlClientKeyFile, c.kubeconfig])
      .toEqual(['/etc/podconfig/manifests', '/etc/pki/ca.pem', '/etc/podconfig/c.pem', '/abs/k.pem', '/etc/podconfig/kubelet.conf']);
    expect(resolveConfig({ 'pod-manifest-path': 'manifests' }, file, { configFile: '/etc/podconfig/config.yaml' }).staticPodPath).toBe('manifests');
    expect(resolveConfig({}, { staticPodPath: 'manifests' }).staticPodPath).toBe('manifests');
  });

  it("tells a config file's handler entries its directory, where their module paths resolve; not those of a flag", () => {
    const file = { handlers: [{ name: './my-handler.mjs' }, 'log'] };
    expect(resolveConfig({}, file, { configFile: '/etc/podconfig/config.yaml' }).handlers.map((h) => h.baseDir))
      .toEqual(['/etc/podconfig', '/etc/podconfig']);
    expect(resolveConfig({ handler: ['./my-handler.mjs'] }, file, { configFile: '/etc/podconfig/config.yaml' }).handlers[0]?.baseDir).toBeUndefined();
    expect(resolveConfig({}, file).handlers[0]?.baseDir).toBeUndefined();
  });

  it('keeps an empty kubeconfig as "" (standalone on purpose), not unset, and does not resolve it against the config file', () => {
    expect(resolveConfig({ kubeconfig: '' }, {}).kubeconfig).toBe('');
    expect(resolveConfig({}, { kubeconfig: '' }, { configFile: '/etc/podconfig/c.yaml' }).kubeconfig).toBe('');
    expect(resolveConfig({}, {}).kubeconfig).toBeUndefined();
  });

  it.each<[Record<string, unknown>, Record<string, unknown>, string]>([
    [{}, { manifestExtensions: [] }, '--config /etc/c.yaml: field "manifestExtensions": must list at least one extension'],
    [{}, { manifestExtensions: ['yaml'] }, '--config /etc/c.yaml: field "manifestExtensions": "yaml" is not an extension: each starts with "."'],
    [{}, { manifestExtensions: ['.'] }, '--config /etc/c.yaml: field "manifestExtensions": "." is not an extension'],
    [{ 'manifest-extensions': ' , ' }, {}, '--manifest-extensions: must list at least one extension'],
    [{ 'manifest-extensions': '.yaml,json' }, {}, '--manifest-extensions: "json" is not an extension'],
  ])('rejects manifest extensions %j %j at parse time, naming the flag or the file and field', (flags, file, message) => {
    expect(() => resolveConfig(flags, file, { configFile: '/etc/c.yaml' })).toThrow(message);
  });

  it('takes a list of .extensions from the flag and the config field', () => {
    expect(resolveConfig({ 'manifest-extensions': '.yaml, .yml' }, {}).manifestExtensions).toEqual(['.yaml', '.yml']);
    expect(resolveConfig({}, { manifestExtensions: ['.json'] }).manifestExtensions).toEqual(['.json']);
  });

  it('rejects a --handler-concurrency below the number of handlers, naming how it was given', () => {
    expect(() => resolveConfig({ 'handler-concurrency': '1', handler: ['log', 'state-dir=/s'] }, {}))
      .toThrow('--handler-concurrency 1 is below the number of handlers (2): each handler needs a slot of its own, or a hung one holds back the others');
    expect(resolveConfig({ 'handler-concurrency': '2', handler: ['log', 'state-dir=/s'] }, {}).handlerConcurrency).toBe(2);
  });

  it('rejects --context with an empty --kubeconfig, naming both', () => {
    expect(() => resolveConfig({ kubeconfig: '', context: 'prod' }, {})).toThrow('--context needs a kubeconfig, but --kubeconfig is empty (standalone mode)');
  });

  it('records how each set setting was given, for later errors', () => {
    const c = resolveConfig({ 'manifest-url-ca': '/a.pem' }, { staticPodURLClientCertFile: '/c.pem', staticPodURLClientKeyFile: '/k.pem' }, { configFile: '/c.yaml' });
    expect(c.origins).toMatchObject({ manifestUrlCaFile: '--manifest-url-ca', manifestUrlClientCertFile: '--config /c.yaml: field "staticPodURLClientCertFile"' });
    expect(c.origins).not.toHaveProperty('syncFrequencyMs');
  });

  it('reads staticPodURLHeader maps and --manifest-url-header flags in order', () => {
    expect(resolveConfig({}, { staticPodURLHeader: { a: ['1', '2'], b: ['3'] } }).manifestUrlHeaders).toEqual([['a', '1'], ['a', '2'], ['b', '3']]);
    expect(resolveConfig({ 'manifest-url-header': ['a:1,a:2', 'b:3'] }, {}).manifestUrlHeaders).toEqual([['a', '1'], ['a', '2'], ['b', '3']]);
  });

  it.each<[string, unknown, string]>([
    ['a map with a bad name', { 'Bad Name': ['x'] }, ', header "Bad Name" value 1: the header name is empty or not a valid token'],
    ['a map setting Host', { Host: ['evil.example'] }, ', header "Host" value 1: the header \'Host\' is set by the HTTP client and cannot be configured'],
    ['a map value with CR LF', { 'X-Token': ['ok', 'a\r\nInjected: 1'] }, ', header "X-Token" value 2: the value of header \'X-Token\' contains control characters'],
    // A value of the wrong type is named by its kind, never shown: it may be the token.
    ['a map value that is a mapping', { Authorization: [{ Bearer: 'SECRET' }] }, ', header "Authorization" value 1: must be a string, got a mapping'],
    ['a map value that is a number', { 'X-Token': [1234567] }, ', header "X-Token" value 1: must be a string, got a number'],
    // The kubelet's staticPodURLHeader is a map[string][]string: the flag's "name:value" text is not one, nor a bare value.
    ['the flag\'s list form', ['a:1', 'b:2'], ': must be a mapping of header names to lists of values (e.g. Authorization: ["Bearer …"]), got a list'],
    ['a string', 'Authorization:Bearer SECRET', ': must be a mapping of header names to lists of values (e.g. Authorization: ["Bearer …"]), got a string'],
    ['a number', 1234567, ': must be a mapping of header names to lists of values (e.g. Authorization: ["Bearer …"]), got a number'],
    ['a map value that is a scalar', { Authorization: 'Bearer SECRET' }, ', header "Authorization": must be a list of values ("Authorization": ["…"]), got a string'],
  ])('rejects staticPodURLHeader with %s at parse time, naming the file and the field', (_, value, rest) => {
    expect(() => resolveConfig({}, { staticPodURLHeader: value }, { configFile: '/etc/c.yaml' }))
      .toThrow(new ConfigInvalidError(`--config /etc/c.yaml: field "staticPodURLHeader"${rest}`));
  });

  it.each([
    [{ 'sync-frequency': '-1s' }, '--sync-frequency'],
    [{ 'sync-frequency': 'soon' }, '--sync-frequency'],
    [{ 'kube-api-qps': '-1' }, '--kube-api-qps'],
    [{ 'kube-api-burst': '1.5' }, '--kube-api-burst'],
    [{ readiness: 'some' }, '--readiness'],
    [{ 'http-ready': 'eventually' }, '--http-ready'],
    [{ 'manifest-url': 'ftp://x/y' }, '--manifest-url'],
    [{ 'status-address': 'localhost' }, '--status-address'],
    [{ 'metrics-bind-address': '0.0.0.0' }, '--metrics-bind-address'],
    [{ 'node-name': 'not_valid' }, '--node-name'],
    [{ 'log-level': 'loud' }, '--log-level'],
    [{ 'watch-list': 'maybe' }, '--watch-list'],
    [{ 'keep-managed-fields': 'yes' }, '--keep-managed-fields'],
    // pflag: strconv.ParseBool("") fails; a bool flag alone comes as "true".
    [{ 'watch-list': '' }, '--watch-list'],
  ])('rejects %j with a message naming %s', (flags, name) => {
    expect(invalid(() => resolveConfig(flags, {}))).toContain(name);
  });

  it.each<[string, unknown, string]>([
    ['kubeAPIBurst', '100', 'must be a non-negative integer, got "100"'],
    ['kubeAPIQPS', '50', 'must be a non-negative number, got "50"'],
    ['handlerConcurrency', '8', 'must be a positive integer, got "8"'],
    ['watchList', 'false', 'must be true or false, got "false"'],
    ['keepManagedFields', '', 'must be true or false, got ""'],
  ])('takes config-file values as typed, as the kubelet decodes its file: %s given as text (%j) is refused', (field, value, message) => {
    expect(() => resolveConfig({}, { [field]: value }, { configFile: '/etc/c.yaml' }))
      .toThrow(new ConfigInvalidError(`--config /etc/c.yaml: field "${field}": ${message}`));
  });

  it('names the config-file field in errors', () => {
    expect(invalid(() => resolveConfig({}, { syncFrequency: 'often' }))).toContain('config field "syncFrequency"');
    expect(invalid(() => resolveConfig({}, { keepManagedFields: 1 }))).toContain('config field "keepManagedFields"');
  });

  it('requires the manifest URL client certificate and key together', () => {
    expect(invalid(() => resolveConfig({ 'manifest-url-client-cert': '/c.pem' }, {}))).toContain('--manifest-url-client-key');
    expect(resolveConfig({}, { staticPodURLClientCertFile: '/c.pem', staticPodURLClientKeyFile: '/k.pem' })).toMatchObject({
      manifestUrlClientCertFile: '/c.pem', manifestUrlClientKeyFile: '/k.pem',
    });
  });

  it('disables the status server with "off", and refuses an empty address (a template that rendered nothing)', () => {
    expect(resolveConfig({ 'status-address': 'off' }, {}).statusAddress).toBeUndefined();
    expect(invalid(() => resolveConfig({ 'status-address': '' }, {}))).toBe('--status-address: invalid address "" (want host:port, e.g. 127.0.0.1:10265, or "off")');
    expect(invalid(() => resolveConfig({}, { statusAddress: ' ' }))).toContain('invalid address');
    expect(resolveConfig({ 'status-address': '[::1]:0' }, {}).statusAddress).toEqual({ host: '::1', port: 0 });
  });

  it('has no metrics server by default; reads --metrics-bind-address and metricsBindAddress as --status-address is read', () => {
    expect(resolveConfig({}, {}).metricsBindAddress).toBeUndefined();
    expect(resolveConfig({ 'metrics-bind-address': '0.0.0.0:10266' }, {}).metricsBindAddress).toEqual({ host: '0.0.0.0', port: 10266 });
    expect(resolveConfig({ 'metrics-bind-address': '[::]:10266' }, {}).metricsBindAddress).toEqual({ host: '::', port: 10266 });
    expect(resolveConfig({}, { metricsBindAddress: '10.0.0.5:9100' }).metricsBindAddress).toEqual({ host: '10.0.0.5', port: 9100 });
    // A flag overrides the file, "off" included.
    expect(resolveConfig({ 'metrics-bind-address': 'off' }, { metricsBindAddress: '0.0.0.0:10266' }).metricsBindAddress).toBeUndefined();
    expect(invalid(() => resolveConfig({ 'metrics-bind-address': '' }, {}))).toBe('--metrics-bind-address: invalid address "" (want host:port, e.g. 0.0.0.0:10266, or "off")');
    expect(invalid(() => resolveConfig({}, { metricsBindAddress: ':10266' }, { configFile: '/etc/c.yaml' })))
      .toBe('--config /etc/c.yaml: field "metricsBindAddress": invalid address ":10266" (want host:port, e.g. 0.0.0.0:10266, or "off")');
    expect(invalid(() => resolveConfig({}, { metricsBindAddress: 10266 }))).toBe('config field "metricsBindAddress": must be a string, got 10266');
  });

  it('refuses a metrics address that takes the status server\'s port: a bad value (exit 2), not a port still taken (retried)', () => {
    expect(invalid(() => resolveConfig({ 'metrics-bind-address': '127.0.0.1:10265' }, {})))
      .toBe('--metrics-bind-address 127.0.0.1:10265 takes the port of --status-address 127.0.0.1:10265: give the metrics server a port of its own');
    expect(invalid(() => resolveConfig({ 'status-address': '[::1]:10300' }, { metricsBindAddress: '[::]:10300' }))).toContain('takes the port of --status-address [::1]:10300');
    expect(invalid(() => resolveConfig({ 'metrics-bind-address': '0.0.0.0:10265' }, {}))).toContain('takes the port of');
    expect(resolveConfig({ 'metrics-bind-address': '0.0.0.0:10266' }, {}).metricsBindAddress).toEqual({ host: '0.0.0.0', port: 10266 });
    expect(resolveConfig({ 'status-address': '127.0.0.1:0', 'metrics-bind-address': '127.0.0.1:0' }, {}).metricsBindAddress).toEqual({ host: '127.0.0.1', port: 0 });
    expect(resolveConfig({ 'status-address': 'off', 'metrics-bind-address': '127.0.0.1:10265' }, {}).metricsBindAddress).toEqual({ host: '127.0.0.1', port: 10265 });
  });
});

describe('SETTINGS', () => {
  it('each has a row in the README.md flag table naming its flag and its config file field', async () => {
    const readme = await readFile(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const rows = readme.split('\n').filter((line) => line.startsWith('| `--'));
    const missing = SETTINGS.filter((s) => !rows.some((row) => {
      const [flags = '', fields = ''] = row.split(' | ');
      return flags.includes(`\`--${s.flag}\``) && fields.includes(`\`${s.field}\``);
    })).map((s) => `--${s.flag} (${s.field})`);
    expect(missing).toEqual([]);
  });
});

describe('parseHandlerSpec()', () => {
  it('splits NAME=ARG at the first "="', () => {
    expect(parseHandlerSpec('exec=/usr/bin/run=x', 'h')).toEqual({ name: 'exec', options: { arg: '/usr/bin/run=x' }, origin: 'h' });
    expect(parseHandlerSpec('log', 'h')).toEqual({ name: 'log', options: {}, origin: 'h' });
  });

  it('takes config entries with options', () => {
    expect(parseHandlerSpec({ name: 'exec', command: '/bin/true', args: ['-x'] }, 'h')).toEqual({ name: 'exec', options: { command: '/bin/true', args: ['-x'] }, origin: 'h' });
  });

  it('rejects an entry without a name', () => {
    expect(invalid(() => parseHandlerSpec({ command: 'x' }, 'config field "handlers"[0]'))).toContain('handlers');
  });
});

describe('resolveConfig() value edge cases', () => {
  it('rejects a negative number of milliseconds from a library caller, which parseDuration never sees', () => {
    // "-1s" is refused by the duration parser itself; a bare negative number only by the range check.
    expect(invalid(() => resolveConfig({}, { fileCheckFrequency: -5 }, { durationsInMs: true }))).toBe('config field "fileCheckFrequency": must not be negative');
    expect(invalid(() => resolveConfig({}, { shutdownTimeout: -1 }, { durationsInMs: true }))).toBe('config field "shutdownTimeout": must not be negative');
  });

  it('rejects --handler-timeout=0: a zero per-call timeout would fail every handler call', () => {
    expect(invalid(() => resolveConfig({ 'handler-timeout': '0' }, {}))).toBe('--handler-timeout: must be greater than 0');
    expect(invalid(() => resolveConfig({}, { handlerTimeout: '0s' }))).toBe('config field "handlerTimeout": must be greater than 0');
  });

  it('reads bool flag values as Go\'s strconv.ParseBool does (1, t, T, TRUE, true, True and their false), no other spelling', () => {
    for (const v of ['True', 'true', 'TRUE', '1', 't', 'T']) expect([v, resolveConfig({ 'watch-list': v }, {}).watchList]).toEqual([v, true]);
    for (const v of ['FALSE', 'false', 'False', '0', 'f', 'F']) expect([v, resolveConfig({ 'watch-list': v }, {}).watchList]).toEqual([v, false]);
    expect(invalid(() => resolveConfig({ 'watch-list': 'yes' }, {}))).toBe('--watch-list: must be true or false, got "yes"');
    expect(invalid(() => resolveConfig({ 'watch-list': 'tRUE' }, {}))).toBe('--watch-list: must be true or false, got "tRUE"');
  });

  it('takes a leading "+" on a duration, as Go does, and refuses a non-zero one under a millisecond (Node.js\'s timers count whole ones)', () => {
    expect(resolveConfig({ 'sync-frequency': '+5s' }, {}).syncFrequencyMs).toBe(5_000);
    expect(resolveConfig({ 'file-check-frequency': '1ms' }, {}).fileCheckFrequencyMs).toBe(1);
    expect(invalid(() => resolveConfig({ 'file-check-frequency': '1ns' }, {}))).toBe('--file-check-frequency: must be 0 or at least 1ms, got 1ns');
    expect(invalid(() => resolveConfig({}, { syncFrequency: '999us' }))).toBe('config field "syncFrequency": must be 0 or at least 1ms, got 999µs');
  });

  it('refuses a file: --manifest-url, naming the flag (the http source only speaks http and https)', () => {
    expect(invalid(() => resolveConfig({ 'manifest-url': 'file:///x' }, {})))
      .toBe('--manifest-url: only http:// and https:// URLs are supported, got file:');
  });

  it('trims the name of a config-file handler entry, as it does a NAME[=ARG] flag', () => {
    expect(resolveConfig({}, { handlers: [{ name: ' exec ', command: '/bin/true' }] }).handlers)
      .toEqual([{ name: 'exec', options: { command: '/bin/true' }, origin: 'config field "handlers"[0]' }]);
  });

  it('takes a null config field (YAML ~ or null) as unset: the default applies, no "must be a string"', () => {
    const c = resolveConfig({}, { staticPodPath: null, kubeconfig: null, syncFrequency: null }, { configFile: '/etc/c.yaml' });
    expect([c.staticPodPath, c.kubeconfig, c.syncFrequencyMs]).toEqual([undefined, undefined, DEFAULTS.syncFrequencyMs]);
    expect(c.origins).not.toHaveProperty('staticPodPath');
  });
});
