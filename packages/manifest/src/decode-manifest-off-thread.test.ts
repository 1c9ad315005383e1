import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigInvalidError, type Pod } from '@podconfig/core';
import { decodeFilePod } from './decode-file-pod.js';
import { decodeHttpPods } from './decode-http-pods.js';
import { decodeManifestOffThread, ManifestWorker, OFF_THREAD_MIN_BYTES } from './decode-manifest-off-thread.js';
import { MAX_JSON_VALUES } from './json-token-budget.js';
import { ManifestInvalidError } from './manifest-invalid-error.js';
import type { DecodeOptions } from './manifest-origin.js';
import { MAX_MANIFEST_BYTES } from './max-manifest-bytes.js';

const http: DecodeOptions = { nodeName: 'node-a', origin: { kind: 'url', url: 'https://u:pw@h.example/pods?token=x' } };
const file: DecodeOptions = { nodeName: 'Node-A', origin: { kind: 'file', path: '/etc/kubernetes/manifests/big.json' } };

/** A YAML PodList of about `bytes` bytes (each pod carries a long annotation). */
function podListYaml(bytes: number): Buffer {
  const lines = ['apiVersion: v1', 'kind: PodList', 'items:'];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const pod = [
      `- metadata:`, `    name: web-${i}`, `    annotations:`, `      note: "${'x'.repeat(2000)}"`,
      `  spec:`, `    containers:`, `    - name: main`, `      image: registry.k8s.io/pause:3.10`, `      args: [find, ., -name, e1]`,
    ];
    size += pod.join('\n').length + 1;
    lines.push(...pod);
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** A pod as the tests write it, to change before it is serialized. */
interface JsonPod {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels: Record<string, string> };
  readonly spec: { readonly containers: Record<string, unknown>[]; imagePullSecrets?: { readonly name: string }[] };
}

/** A JSON Pod of about `bytes` bytes: many labels, the costly shape to decode (each one is validated and hashed). */
function labelledPodJson(bytes: number, change: (pod: JsonPod) => void = () => {}): Buffer {
  const labels: Record<string, string> = {};
  for (let i = 0; i * 24 < bytes; i++) labels[`app.example/l${i}`] = `v${i}`;
  const pod: JsonPod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big', labels },
    spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10', resources: { limits: { cpu: 1 } } }] },
  };
  change(pod);
  return Buffer.from(JSON.stringify(pod));
}

/** A JSON pod of empty labels with the shortest keys, as many as fit in the size cap (1.05 million): V8 aborted the process decoding it. */
function labelBombJson(): Buffer {
  const labels = Array.from({ length: 1_053_000 }, (_, i) => `"${i.toString(36)}":""`).join(',');
  const body = Buffer.from(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bomb","labels":{${labels}}},"spec":{"containers":[{"name":"c","image":"i"}]}}`);
  expect(body.byteLength).toBeLessThanOrEqual(MAX_MANIFEST_BYTES);
  return body;
}

/** 10 MiB of JSON arrays nested in one another. */
const nestedJson = (): Buffer => Buffer.from(`{"a":${'['.repeat((MAX_MANIFEST_BYTES - 6) / 2)}${']'.repeat((MAX_MANIFEST_BYTES - 6) / 2)}}`);

/** Resolves `work`, counting the event-loop turns (setImmediate callbacks) that ran while it was pending. */
async function turnsWhile<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const spin = (): void => {
    if (done) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { value: await work, turns };
  } finally {
    done = true;
  }
}

/** What `run` threw or rejected with. */
async function caught(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (err: unknown) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe(ManifestWorker.name, () => {
  describe('decode()', () => {
    it('decodes a large JSON pod on its thread while the event loop turns, to the pod decodeFilePod gives', async () => {
      const worker = new ManifestWorker();
      // Started, its modules loaded: what follows waits for the decoding alone.
      await worker.decode(Buffer.from('{}'), 'file', file, undefined);
      const body = labelledPodJson(2 * OFF_THREAD_MIN_BYTES);
      expect(body[0]).toBe(0x7b); // JSON text: decoded off the thread too, not only YAML
      const { value, turns } = await turnsWhile(worker.decode(body, 'file', file, undefined));
      // Decoded on this thread, no callback could have run until the decoding was done.
      expect(turns).toBeGreaterThan(0);
      // `decoded`: the worker did it (`undefined` would leave it to this thread).
      expect(value).toStrictEqual({ decoded: decodeFilePod(body, file) });
      const pod = (value as { decoded: Pod }).decoded;
      expect(pod.metadata?.uid).toMatch(/^[0-9a-f]{32}$/);
      expect(pod.spec?.nodeName).toBe('Node-A');
      expect(pod.spec?.tolerations).toEqual([{ operator: 'Exists', effect: 'NoExecute' }]);
      expect(pod.spec?.containers[0]?.resources?.limits).toEqual({ cpu: '1' });
    });

    it('decodes a large YAML PodList on its thread while the event loop turns, to the pods decodeHttpPods gives', async () => {
      const worker = new ManifestWorker();
      await worker.decode(Buffer.from('{}'), 'http', http, undefined);
      const body = podListYaml(2 * OFF_THREAD_MIN_BYTES);
      const { value, turns } = await turnsWhile(worker.decode(body, 'http', http, undefined));
      expect(turns).toBeGreaterThan(0);
      expect(value).toStrictEqual({ decoded: decodeHttpPods(body, http) });
      expect((value as { decoded: Pod[] }).decoded[0]?.spec?.containers[0]?.args).toEqual(['find', '.', '-name', 'e1']);
    });

    it('refuses a manifest whose decoding outgrows its heap (stray indicators by the ten thousand), never decoding it on this thread, and decodes the next on a new worker', async () => {
      // The shared worker's heap is 160 MB (MANIFEST_WORKER_HEAP_MB); this one's 32 MB lets a bomb within the token
      // limit (yaml-token-budget.ts: 49,000 `:` lines are as many tokens, ~100 MB to parse) show what one past the heap gets.
      const worker = new ManifestWorker({ heapMb: 32 });
      const bomb = Buffer.from(':\n'.repeat(49_000));
      const good = podListYaml(OFF_THREAD_MIN_BYTES);
      const bombFile: DecodeOptions = { nodeName: 'node-a', origin: { kind: 'file', path: '/etc/kubernetes/manifests/bomb.yaml' } };
      const [refused, decoded] = await Promise.all([worker.decode(bomb, 'file', bombFile, undefined), worker.decode(good, 'http', http, undefined)]);
      expect(refused).toEqual({
        error: new ManifestInvalidError('PODCONFIG_MANIFEST_TOO_LARGE', '/etc/kubernetes/manifests/bomb.yaml',
          'decoding it needed more than 32 MB of memory (a manifest built to exhaust memory within the size and token limits)', { mayDefinePod: false }),
      });
      expect((refused as { error: ManifestInvalidError }).error.mayDefinePod).toBe(false);
      expect(decoded).toStrictEqual({ decoded: decodeHttpPods(good, http) });
    });

    it('blames no other manifest when the one that outgrew its heap was abandoned by its caller', async () => {
      const worker = new ManifestWorker({ heapMb: 32 });
      const bomb = Buffer.from(':\n'.repeat(49_000));
      const good = podListYaml(OFF_THREAD_MIN_BYTES);
      const controller = new AbortController();
      const abandoned = worker.decode(bomb, 'file', file, controller.signal);
      // Posted behind the bomb, which the worker still decodes after its caller gave up on it.
      const next = worker.decode(good, 'http', http, undefined);
      controller.abort(new Error('the file source stopped'));
      await expect(abandoned).rejects.toThrow('the file source stopped');
      expect(await next).toStrictEqual({ decoded: decodeHttpPods(good, http) });
    });

    it('refuses a JSON pod of 1.05 million labels by counting its values, where V8 aborted the process, and decodes the next', async () => {
      const worker = new ManifestWorker();
      const refused = await worker.decode(labelBombJson(), 'file', file, undefined);
      expect(refused).toEqual({
        error: new ManifestInvalidError('PODCONFIG_MANIFEST_TOO_LARGE', '/etc/kubernetes/manifests/big.json',
          `its JSON has more than ${MAX_JSON_VALUES} values (objects, arrays and scalars; a pod has a few hundred): decoding it could take hundreds of megabytes of memory`,
          { mayDefinePod: false }),
      });
      // The same worker, alive: a refusal by the count, not by running out of its heap.
      const body = labelledPodJson(OFF_THREAD_MIN_BYTES);
      const { value, turns } = await turnsWhile(worker.decode(body, 'file', file, undefined));
      expect(turns).toBeGreaterThan(0);
      expect(value).toStrictEqual({ decoded: decodeFilePod(body, file) });
    });

    it('leaves the decoding to the caller (undefined) when no worker can run, request after request', async () => {
      const worker = new ManifestWorker({ url: new URL('./no-such-worker.js', import.meta.url) });
      const body = labelledPodJson(OFF_THREAD_MIN_BYTES);
      expect(await worker.decode(body, 'file', file, undefined)).toBeUndefined();
      expect(await worker.decode(body, 'file', file, undefined)).toBeUndefined();
    });
  });
});

describe(decodeManifestOffThread.name, () => {
  it('decodes a large JSON file pod and a large YAML PodList to what the pipelines give on this thread', async () => {
    const json = labelledPodJson(2 * OFF_THREAD_MIN_BYTES);
    expect(await decodeManifestOffThread(json, 'file', file)).toStrictEqual(decodeFilePod(json, file));
    const yaml = podListYaml(2 * OFF_THREAD_MIN_BYTES);
    expect(await decodeManifestOffThread(yaml, 'http', http)).toStrictEqual(decodeHttpPods(yaml, http));
  });

  it('decodes small input and input over the size cap on this thread, as the pipelines do', async () => {
    const small = podListYaml(1_000);
    expect(await decodeManifestOffThread(small, 'http', http)).toStrictEqual(decodeHttpPods(small, http));
    const huge = Buffer.alloc(MAX_MANIFEST_BYTES + 1, 0x61);
    const err = await caught(() => decodeManifestOffThread(huge, 'file', file));
    expect(err).toBeInstanceOf(ManifestInvalidError);
    expect(err).toMatchObject({ code: 'PODCONFIG_MANIFEST_TOO_LARGE', mayDefinePod: false });
    expect(() => decodeFilePod(huge, file)).toThrow((err as Error).message);
  });

  it.each([
    ['a repeated YAML key (the parse)', 'http', () => Buffer.concat([podListYaml(OFF_THREAD_MIN_BYTES), Buffer.from('kind: PodList\n')])],
    ['invalid JSON (the parse)', 'file', () => Buffer.concat([labelledPodJson(OFF_THREAD_MIN_BYTES), Buffer.from(',')])],
    ['an unknown field (the strict decoding)', 'file', () => labelledPodJson(OFF_THREAD_MIN_BYTES, (pod) => { pod.spec.containers[0]!.imagee = 'x'; })],
    ['a bad label value (the validation)', 'file', () => labelledPodJson(OFF_THREAD_MIN_BYTES, (pod) => { pod.metadata.labels['app.example/l7'] = '-bad-'; })],
    ['a Secret reference (PODCONFIG_MANIFEST_FORBIDDEN_REFERENCE)', 'http', () => labelledPodJson(OFF_THREAD_MIN_BYTES, (pod) => { pod.spec.imagePullSecrets = [{ name: 'regcred' }]; })],
    ['a large list of scalars (cannot be a pod)', 'file', () => Buffer.from(`- ${'x'.repeat(OFF_THREAD_MIN_BYTES)}\n`)],
    ['a JSON pod of 1.05 million labels (the value count: PODCONFIG_MANIFEST_TOO_LARGE)', 'file', labelBombJson],
    ['the same as an HTTP body', 'http', labelBombJson],
    ['10 MiB of nested JSON arrays (the value count: nested too deeply)', 'file', nestedJson],
  ] as const)('rejects %s with the error decoding on this thread gives: class, code, message, mayDefinePod', async (_, pipeline, bytes) => {
    const body = bytes();
    expect(body.byteLength).toBeGreaterThanOrEqual(OFF_THREAD_MIN_BYTES);
    const options = pipeline === 'file' ? file : http;
    const offThread = await caught(() => decodeManifestOffThread(body, pipeline, options));
    const onThread = await caught(() => (pipeline === 'file' ? decodeFilePod(body, options) : decodeHttpPods(body, options)));
    expect(offThread).toBeInstanceOf(ManifestInvalidError);
    const fields = (err: unknown): unknown => {
      const { code, message, origin, reason, mayDefinePod } = err as ManifestInvalidError;
      return { code, message, origin, reason, mayDefinePod };
    };
    expect(fields(offThread)).toEqual(fields(onThread));
    expect((offThread as Error).message).not.toContain('token=x'); // safeUrl(), as on this thread
  });

  it('throws a ConfigInvalidError for a node name that is none, as the pipelines do, before any decoding', async () => {
    const body = labelledPodJson(OFF_THREAD_MIN_BYTES);
    await expect(decodeManifestOffThread(body, 'file', { ...file, nodeName: '' })).rejects.toThrow(ConfigInvalidError);
    expect(() => decodeFilePod(body, { ...file, nodeName: '' })).toThrow(ConfigInvalidError);
  });

  it('passes only the options the pipeline reads to the worker (a richer options object is no error)', async () => {
    const body = labelledPodJson(OFF_THREAD_MIN_BYTES);
    const rich = { ...file, log: (): void => {} } as DecodeOptions;
    expect(await decodeManifestOffThread(body, 'file', rich)).toStrictEqual(decodeFilePod(body, file));
  });


  it('runs in a process started with flags Node.js refuses in a worker (--max-old-space-size, --title)', async () => {
    // The built package, as an agent runs it: a child process with the flags.
    const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const script = [
      `const { decodeManifestOffThread, OFF_THREAD_MIN_BYTES } = await import(${JSON.stringify(dist)});`,
      `const items = Array.from({ length: 200 }, (_, i) => '- metadata: {name: p' + i + ', annotations: {n: "' + 'x'.repeat(2000) + '"}}\\n  spec: {containers: [{name: c, image: i}]}');`,
      `const body = Buffer.from('apiVersion: v1\\nkind: PodList\\nitems:\\n' + items.join('\\n') + '\\n');`,
      `let turns = 0, done = false;`,
      `const spin = () => { if (!done) { turns++; setImmediate(spin); } };`,
      `setImmediate(spin);`,
      `const pods = await decodeManifestOffThread(body, 'http', { nodeName: 'n', origin: { kind: 'url', url: 'http://127.0.0.1/p' } });`,
      `done = true;`,
      `console.log(JSON.stringify({ offThread: turns > 0, big: body.length >= OFF_THREAD_MIN_BYTES, pods: pods.length }));`,
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--max-old-space-size=256', '--title=podconfig-test', '--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).toEqual({ offThread: true, big: true, pods: 200 });
  });

  it('rejects with the reason when its signal aborts, and keeps serving later calls', async () => {
    const controller = new AbortController();
    const reason = new Error('stopping');
    const body = labelledPodJson(2 * OFF_THREAD_MIN_BYTES);
    const pending = decodeManifestOffThread(body, 'file', file, controller.signal);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect(decodeManifestOffThread(body, 'file', file, controller.signal)).rejects.toBe(reason);
    await expect(decodeManifestOffThread(Buffer.from('{}'), 'file', file, controller.signal)).rejects.toBe(reason);
    expect(await decodeManifestOffThread(body, 'file', file)).toStrictEqual(decodeFilePod(body, file));
  });
});
