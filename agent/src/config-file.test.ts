import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PodConfigError } from '@podconfig/core';
import { tempDir } from '@podconfig/testing';
import { loadConfigFile } from './config-file.js';
import { resolveConfig } from './settings.js';

describe('loadConfigFile()', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => { dir = await tempDir(); });
  afterEach(async () => { await dir.cleanup(); });

  const write = async (text: string): Promise<string> => {
    const path = join(dir.path, 'config.yaml');
    await writeFile(path, text);
    return path;
  };

  it('reads KubeletConfiguration field names', async () => {
    const path = await write('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPath: /etc/kubernetes/manifests\nfileCheckFrequency: 20s\nsyncFrequency: 1m\n');
    const f = await loadConfigFile(path);
    expect(f.fields).toEqual({ staticPodPath: '/etc/kubernetes/manifests', fileCheckFrequency: '20s', syncFrequency: '1m' });
  });

  it('accepts a real kubelet config and reports the fields it ignores', async () => {
    const path = await write('kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nstaticPodPath: /m\ncgroupDriver: systemd\nclusterDNS: [10.96.0.10]\n');
    const f = await loadConfigFile(path);
    expect(f.fields).toEqual({ staticPodPath: '/m' });
    expect(f.ignoredFields).toEqual(['cgroupDriver', 'clusterDNS']);
    expect(f.unknownFields).toEqual([]);
  });

  it('refuses a KubeletConfiguration field that misspells one podconfig uses: the source it sets must not go missing', async () => {
    const path = await write('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPth: /etc/kubernetes/manifests\ncgroupDriver: systemd\nsyncfrequency: 1m\n');
    await expect(loadConfigFile(path)).rejects.toThrow(`--config ${path}: unknown fields "staticPodPth" (did you mean "staticPodPath"?), "syncfrequency" (did you mean "syncFrequency"?)`);
  });

  it('ignores, as unknown, a KubeletConfiguration field the kubelet has not and podconfig would not use (a newer kubelet\'s, or a typo of a kubelet-only field)', async () => {
    const path = await write('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPath: /m\ncgroupDrivr: systemd\nsomeFutureKubeletField: true\n');
    const f = await loadConfigFile(path);
    expect(f.fields).toEqual({ staticPodPath: '/m' });
    expect(f.ignoredFields).toEqual([]);
    expect(f.unknownFields).toEqual([{ field: 'cgroupDrivr', didYouMean: 'cgroupDriver' }, { field: 'someFutureKubeletField' }]);
  });

  it('reads the bool fields of a podconfig file as YAML bools (watchList, keepManagedFields)', async () => {
    const path = await write('apiVersion: podconfig.io/v1alpha1\nkind: PodConfigAgentConfiguration\nwatchList: false\nkeepManagedFields: true\n');
    const f = await loadConfigFile(path);
    expect(f.fields).toEqual({ watchList: false, keepManagedFields: true });
    expect(resolveConfig({}, f.fields)).toMatchObject({ watchList: false, keepManagedFields: true });
  });

  it('reads a KubeletConfiguration\'s featureGates (no longer an ignored field), typed as the kubelet decodes them', async () => {
    const path = await write([
      'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', 'cgroupDriver: systemd',
      'featureGates:', '  WatchListClient: false', '  SidecarContainers: yes', '',
    ].join('\n'));
    const f = await loadConfigFile(path);
    expect(f.fields).toEqual({ featureGates: { WatchListClient: false, SidecarContainers: true } });
    expect(f.ignoredFields).toEqual(['cgroupDriver']);
    expect(resolveConfig({}, f.fields, { configFile: path })).toMatchObject({ watchList: false, featureGates: { WatchListClient: false, SidecarContainers: true } });
    const quoted = await write('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n  WatchListClient: "false"\n');
    const quotedFields = (await loadConfigFile(quoted)).fields;
    expect(() => resolveConfig({}, quotedFields, { configFile: quoted }))
      .toThrow(`--config ${quoted}: field "featureGates", gate "WatchListClient": must be true or false, got "false"`);
    const flagText = await write('featureGates: WatchListClient=false\n');
    const flagTextFields = (await loadConfigFile(flagText)).fields;
    expect(() => resolveConfig({}, flagTextFields, { configFile: flagText })).toThrow(`--config ${flagText}: field "featureGates": must be a mapping`);
  });

  it('lets --feature-gates override the file\'s gates one by one', async () => {
    const path = await write('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates: {WatchListClient: false, AllAlpha: false}\n');
    const c = resolveConfig({ 'feature-gates': ['WatchListClient=true'] }, (await loadConfigFile(path)).fields, { configFile: path });
    expect([c.watchList, c.featureGates]).toEqual([true, { WatchListClient: true, AllAlpha: false }]);
  });

  it('reads YAML as the kubelet reads its config file (go-yaml v2): yes is a bool, a repeated key an error', async () => {
    const path = await write('apiVersion: podconfig.io/v1alpha1\nkind: PodConfigAgentConfiguration\nwatchList: no\nkeepManagedFields: yes\nstaticPodPath: .\n');
    expect((await loadConfigFile(path)).fields).toEqual({ watchList: false, keepManagedFields: true, staticPodPath: '.' });
    const repeated = await write('staticPodPath: /a\nstaticPodPath: /b\n');
    await expect(loadConfigFile(repeated)).rejects.toThrow(`--config ${repeated}: invalid YAML at line 2, column 1: Map keys must be unique: "staticPodPath" is repeated`);
  });

  it('rejects an unknown field of a podconfig file, naming it and the file', async () => {
    const path = await write('staticPodPth: /m\n');
    await expect(loadConfigFile(path)).rejects.toSatisfy((err: unknown) =>
      PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID') && (err as Error).message === `--config ${path}: unknown field "staticPodPth" (did you mean "staticPodPath"?)`);
    await expect(loadConfigFile(await write('cgroupDriver: systemd\n'))).rejects.toThrow('unknown field "cgroupDriver"');
  });

  it('rejects invalid YAML and a missing file with the path in the message', async () => {
    const bad = await write('staticPodPath: [unclosed\n');
    await expect(loadConfigFile(bad)).rejects.toThrow(bad);
    await expect(loadConfigFile(join(dir.path, 'missing.yaml'))).rejects.toThrow('missing.yaml');
  });

  it('says where invalid YAML is, never what it holds (a header value may be a token)', async () => {
    const path = await write('handlers:\n  - name: webhook\n    url: https://127.0.0.1/hook\n    headers: { authorization: "Bearer WEBHOOKSECRET42 }\n');
    const err = await loadConfigFile(path).then(() => undefined, (e: unknown) => e as Error);
    expect(err?.message).toMatch(new RegExp(`^--config ${path}: invalid YAML at line \\d+, column \\d+: [^\n]+$`));
    expect(err?.message).not.toContain('WEBHOOKSECRET42');
  });

  it('rejects a wrong kind', async () => {
    const path = await write('kind: Pod\n');
    await expect(loadConfigFile(path)).rejects.toThrow('kind must be');
  });

  it.each([
    ['kind: KubeletConfiguration\n', 'kind KubeletConfiguration needs apiVersion: kubelet.config.k8s.io/v1beta1, got none'],
    ['kind: KubeletConfiguration\napiVersion: podconfig.io/v1alpha1\n', 'kind KubeletConfiguration needs apiVersion: kubelet.config.k8s.io/v1beta1, got "podconfig.io/v1alpha1"'],
    ['kind: PodConfigAgentConfiguration\n', 'kind PodConfigAgentConfiguration needs apiVersion: podconfig.io/v1alpha1, got none'],
    ['kind: PodConfigAgentConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n', 'kind PodConfigAgentConfiguration needs apiVersion: podconfig.io/v1alpha1, got "kubelet.config.k8s.io/v1beta1"'],
    ['apiVersion: kubelet.config.k8s.io/v1beta1\nstaticPodPath: /m\n', 'kind must be KubeletConfiguration or PodConfigAgentConfiguration, got none (apiVersion is set)'],
  ])('rejects a kind without its apiVersion, or the other way round (as the kubelet\'s decoder): %j', async (text, message) => {
    const path = await write(text);
    await expect(loadConfigFile(path)).rejects.toThrow(`--config ${path}: ${message}`);
  });

  it('accepts each kind with its apiVersion, and a file with neither as podconfig\'s own', async () => {
    expect((await loadConfigFile(await write('apiVersion: podconfig.io/v1alpha1\nkind: PodConfigAgentConfiguration\nstaticPodPath: /m\n'))).fields).toEqual({ staticPodPath: '/m' });
    expect((await loadConfigFile(await write('staticPodPath: /m\n'))).fields).toEqual({ staticPodPath: '/m' });
    await expect(loadConfigFile(await write('staticPodPath: /m\ncgroupDriver: systemd\n'))).rejects.toThrow('unknown field "cgroupDriver"');
  });

  it.each([['empty', ''], ['comments only', '# the kubelet\'s config\n\n'], ['an empty document', '---\n']])(
    'refuses a config file that holds no settings (%s), as the kubelet does: a truncated file must not start the agent without its sources',
    async (_, text) => {
      const path = await write(text);
      await expect(loadConfigFile(path)).rejects.toThrow(`--config ${path}: the file is empty`);
    },
  );
});
