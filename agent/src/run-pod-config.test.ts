import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KillPodRequest, Pod, SyncHandler, SyncPodRequest } from '@podconfig/core';
import { FakeApiServer, makePod, tempDir } from '@podconfig/testing';
import { podConfigOptionsToConfig, runPodConfig } from './run-pod-config.js';

const NODE = 'node-a';
const MANAGED_FIELDS = [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': {} } }];

/** Resolves `created` with the first pod the reconciler hands to `syncPod`. */
class FirstPodHandler implements SyncHandler {
  readonly name = 'first-pod';
  #resolve!: (pod: Pod) => void;
  readonly created = new Promise<Pod>((resolve) => { this.#resolve = resolve; });

  async syncPod(request: SyncPodRequest, _signal: AbortSignal): Promise<void> {
    this.#resolve(request.pod);
  }

  async killPod(_request: KillPodRequest, _signal: AbortSignal): Promise<void> {}
}

describe('podConfigOptionsToConfig()', () => {
  it('takes keepManagedFields (default false)', () => {
    expect(podConfigOptionsToConfig({ nodeName: NODE }).keepManagedFields).toBe(false);
    expect(podConfigOptionsToConfig({ nodeName: NODE, keepManagedFields: true }).keepManagedFields).toBe(true);
  });

  it('rejects a misspelt option, naming it, as a config file does', () => {
    const misspelt = { nodeName: NODE, staticPodPth: '/m', syncFrequncy: '1m' } as unknown as Parameters<typeof podConfigOptionsToConfig>[0];
    expect(() => podConfigOptionsToConfig(misspelt)).toThrow(expect.objectContaining({
      code: 'PODCONFIG_CONFIG_INVALID', message: 'unknown options "staticPodPth", "syncFrequncy"',
    }) as Error);
  });
});

describe('runPodConfig()', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let fake: FakeApiServer;
  beforeEach(async () => {
    dir = await tempDir();
    fake = await new FakeApiServer().start();
  });
  afterEach(async () => {
    await fake.close();
    await dir.cleanup();
  });

  /** Runs the agent against the fake apiserver until the handler got the pod; returns that pod's metadata. */
  async function firstPodMetadata(keepManagedFields: boolean | undefined): Promise<Pod['metadata']> {
    fake.createPod({ ...makePod('p1', { nodeName: NODE }), metadata: { name: 'p1', namespace: 'default', managedFields: MANAGED_FIELDS } });
    const kubeconfig = join(dir.path, 'kubeconfig');
    await writeFile(kubeconfig, [
      'apiVersion: v1', 'kind: Config', 'current-context: c',
      `clusters: [{name: k, cluster: {server: "${fake.url}"}}]`,
      'users: [{name: u, user: {}}]',
      'contexts: [{name: c, context: {cluster: k, user: u}}]', '',
    ].join('\n'));
    const handler = new FirstPodHandler();
    const stop = new AbortController();
    const running = runPodConfig({
      nodeName: NODE, kubeconfig, handlers: [handler], env: { HOME: dir.path },
      ...(keepManagedFields === undefined ? {} : { keepManagedFields }),
    }, stop.signal);
    try {
      const pod = await Promise.race([handler.created, running.then(() => { throw new Error('runPodConfig() ended early'); })]);
      return pod.metadata;
    } finally {
      stop.abort();
      await running;
    }
  }

  it('hands apiserver pods to the handlers without metadata.managedFields by default', async () => {
    const metadata = await firstPodMetadata(undefined);
    expect(metadata).toMatchObject({ name: 'p1', namespace: 'default' });
    expect(metadata).not.toHaveProperty('managedFields');
  });

  it('keeps metadata.managedFields with keepManagedFields: true', async () => {
    expect((await firstPodMetadata(true))?.managedFields).toEqual(MANAGED_FIELDS);
  });
});
