import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { decodeFilePod } from './decode-file-pod.js';
import { decodeHttpPods } from './decode-http-pods.js';
import { ManifestInvalidError } from './manifest-invalid-error.js';
import type { DecodeOptions } from './manifest-origin.js';
import { OFF_THREAD_MIN_BYTES, parseManifestOffThread, YamlWorker } from './parse-manifest-off-thread.js';

const http: DecodeOptions = { nodeName: 'node-a', origin: { kind: 'url', url: 'https://u:pw@h.example/pods?token=x' } };

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

describe(parseManifestOffThread.name, () => {
  it('parses a large YAML manifest on a worker thread: the event loop turns meanwhile, the pods are those of the bytes', async () => {
    const body = podListYaml(2 * OFF_THREAD_MIN_BYTES);
    const { value: parsed, turns } = await turnsWhile(parseManifestOffThread(body));
    expect(parsed).not.toBeInstanceOf(Uint8Array);
    // Parsed on this thread, no callback could have run until the parse was done.
    expect(turns).toBeGreaterThan(10);
    const pods = decodeHttpPods(parsed, http);
    expect(pods).toEqual(decodeHttpPods(body, http));
    expect(pods[0]?.spec?.containers[0]?.args).toEqual(['find', '.', '-name', 'e1']);
  });

  it('hands back what is decoded fast on this thread: small input, JSON, input over the cap', async () => {
    const small = podListYaml(1_000);
    expect(await parseManifestOffThread(small)).toBe(small);
    const json = Buffer.from(`\uFEFF  ${JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [], pad: 'x'.repeat(OFF_THREAD_MIN_BYTES) })}`);
    expect(await parseManifestOffThread(json)).toBe(json);
    const huge = Buffer.alloc(10 * 1024 * 1024 + 1, 0x61);
    expect(await parseManifestOffThread(huge)).toBe(huge);
  });

  it('carries a rejection back: the decode functions throw it naming the origin, as for the bytes', async () => {
    const repeated = Buffer.concat([podListYaml(OFF_THREAD_MIN_BYTES), Buffer.from('kind: PodList\n')]);
    const parsed = await parseManifestOffThread(repeated);
    expect(parsed).not.toBeInstanceOf(Uint8Array);
    const offThread = (() => {
      try {
        return decodeHttpPods(parsed, http);
      } catch (err: unknown) {
        return err;
      }
    })();
    expect(offThread).toBeInstanceOf(ManifestInvalidError);
    expect((offThread as Error).message).toMatch(/^https:\/\/h\.example\/pods\?…: invalid YAML at line \d+, column 1: Map keys must be unique: "[^"]+" is repeated$/);
    expect(() => decodeHttpPods(repeated, http)).toThrow((offThread as Error).message);
    expect((offThread as ManifestInvalidError).mayDefinePod).toBe(true);
    // A file manifest goes through the same step (a PodList is no file pod).
    expect(() => decodeFilePod(parsed, { nodeName: 'node-a', origin: { kind: 'file', path: '/m/big.yaml' } })).toThrow('/m/big.yaml: invalid YAML');
  });

  it('carries back that a rejection cannot be of a pod (a large list of scalars)', async () => {
    const list = Buffer.from(`- ${'x'.repeat(OFF_THREAD_MIN_BYTES)}\n`);
    const parsed = await parseManifestOffThread(list);
    expect(parsed).not.toBeInstanceOf(Uint8Array);
    try {
      decodeFilePod(parsed, { nodeName: 'node-a', origin: { kind: 'file', path: '/m/list.yaml' } });
      expect.unreachable('a list is no pod');
    } catch (err: unknown) {
      expect(err).toBeInstanceOf(ManifestInvalidError);
      expect((err as ManifestInvalidError).reason).toContain('not a mapping');
      expect((err as ManifestInvalidError).mayDefinePod).toBe(false);
    }
  });

  it('refuses a manifest whose parse outgrows the worker\'s heap (stray indicators by the ten thousand), never parsing it on this thread, and parses the next on a new worker', async () => {
    // The shared worker's heap is 160 MB (YAML_WORKER_HEAP_MB); this one's 32 MB lets a bomb within the token limit
    // (yaml-token-budget.ts: 49,000 `:` lines are as many tokens, ~100 MB to parse) show what one past the heap gets.
    const worker = new YamlWorker(32);
    const bomb = Buffer.from(':\n'.repeat(49_000));
    const good = podListYaml(OFF_THREAD_MIN_BYTES);
    const [refused, parsed] = await Promise.all([worker.parse(bomb, undefined), worker.parse(good, undefined)]);
    expect(refused).toBeDefined();
    const file: DecodeOptions = { nodeName: 'node-a', origin: { kind: 'file', path: '/etc/kubernetes/manifests/bomb.yaml' } };
    expect(() => decodeFilePod(refused!, file)).toThrow(new ManifestInvalidError('PODCONFIG_MANIFEST_TOO_LARGE', '/etc/kubernetes/manifests/bomb.yaml',
      'parsing its YAML needed more than 32 MB of memory (a YAML bomb within the size and token limits)', { mayDefinePod: false }));
    expect(decodeHttpPods(parsed!, http)).toEqual(decodeHttpPods(good, http));
  });

  it('runs in a process started with flags Node.js refuses in a worker (--max-old-space-size, --title)', async () => {
    // The built package, as an agent runs it: a child process with the flags.
    const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const script = [
      `const { parseManifestOffThread, decodeHttpPods, OFF_THREAD_MIN_BYTES } = await import(${JSON.stringify(dist)});`,
      `const items = Array.from({ length: 200 }, (_, i) => '- metadata: {name: p' + i + ', annotations: {n: "' + 'x'.repeat(2000) + '"}}\\n  spec: {containers: [{name: c, image: i}]}');`,
      `const body = Buffer.from('apiVersion: v1\\nkind: PodList\\nitems:\\n' + items.join('\\n') + '\\n');`,
      `const parsed = await parseManifestOffThread(body);`,
      `const pods = decodeHttpPods(parsed, { nodeName: 'n', origin: { kind: 'url', url: 'http://127.0.0.1/p' } });`,
      `console.log(JSON.stringify({ offThread: !(parsed instanceof Uint8Array), big: body.length >= OFF_THREAD_MIN_BYTES, pods: pods.length }));`,
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--max-old-space-size=256', '--title=podconfig-test', '--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).toEqual({ offThread: true, big: true, pods: 200 });
  });

  it('rejects with the reason when its signal aborts, and keeps serving later calls', async () => {
    const controller = new AbortController();
    const reason = new Error('stopping');
    const pending = parseManifestOffThread(podListYaml(OFF_THREAD_MIN_BYTES), controller.signal);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect(parseManifestOffThread(podListYaml(OFF_THREAD_MIN_BYTES), controller.signal)).rejects.toBe(reason);
    const next = await parseManifestOffThread(podListYaml(OFF_THREAD_MIN_BYTES));
    expect(decodeHttpPods(next, http).length).toBeGreaterThan(0);
  });
});
