import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PodConfigError } from '@podconfig/core';
import { decodeFilePod, OFF_THREAD_MIN_BYTES } from '@podconfig/manifest';
import { podManifestYaml, tempDir } from '@podconfig/testing';
import { ManifestSetBuilder, samePods, withPreviousPods } from './manifest-set-builder.js';
import { scanManifestPath, type ScannedEntry } from './scan-manifest-path.js';

const manifest = (file: string, content: string): ScannedEntry => ({ kind: 'manifest', file, data: Buffer.from(content) });
const BROKEN = 'kind: Pod\nmetadata: {name: "x\n';

/** A JSON pod of more than OFF_THREAD_MIN_BYTES: labels by the ten thousand, each validated and hashed. */
function bigJsonPod(name: string, labelValue = (i: number): string => `v${i}`): string {
  const labels = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`app.example/l${i}`, labelValue(i)]));
  return JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'i:1' }] } });
}

/** A YAML pod of more than OFF_THREAD_MIN_BYTES: long env values. */
function bigYamlPod(name: string): string {
  const env = Array.from({ length: 200 }, (_, i) => `    - name: E${i}\n      value: ${'x'.repeat(2_000)}`);
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: c\n    image: i:1\n    env:\n${env.join('\n')}\n`;
}

/** The entries of a real scan of `dir` (every name a manifest). */
async function scan(dir: string): Promise<AsyncIterable<ScannedEntry>> {
  const result = await scanManifestPath(dir, { filter: () => undefined, maxEntries: 100 }, new AbortController().signal);
  if (result.mode !== 'directory') throw new Error(`not a directory scan: ${result.mode}`);
  return result.entries;
}

describe(ManifestSetBuilder.name, () => {
  describe('build()', () => {
    it('lets the first file win a duplicate key and reports the shadow (D1)', async () => {
      const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' });
      const set = await builder.build([manifest('/m/a.yaml', podManifestYaml('web')), manifest('/m/b.yaml', podManifestYaml('web'))]);
      expect(set.pods.map((p) => [p.key, p.file])).toEqual([['default/web-n1', '/m/a.yaml']]);
      const shadowUid = decodeFilePod(podManifestYaml('web'), { nodeName: 'n1', origin: { kind: 'file', path: '/m/b.yaml' } }).metadata?.uid;
      expect(set.shadowed).toEqual([{ file: '/m/b.yaml', shadowedBy: '/m/a.yaml', pod: 'default/web-n1', uid: shadowUid }]);
      expect(shadowUid).not.toBe(set.pods[0]?.pod.metadata?.uid);
    });

    it('keeps the pod of the first file in byte order among those sharing a UID written in them, and names the others (D14)', async () => {
      const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' });
      const pinned = (name: string): string => podManifestYaml(name).replace('metadata:\n', 'metadata:\n  uid: same-uid\n');
      const set = await builder.build([
        manifest('/m/a.yaml', pinned('zzz')),
        manifest('/m/b.yaml', podManifestYaml('b')),
        manifest('/m/c.yaml', pinned('aaa')), // the smaller key does not win: the earlier file does
        manifest('/m/d.yaml', pinned('d')),
      ]);
      expect(set.pods.map((p) => [p.key, p.file])).toEqual([['default/zzz-n1', '/m/a.yaml'], ['default/b-n1', '/m/b.yaml']]);
      expect(set.duplicateUids).toEqual([
        { file: '/m/c.yaml', uid: 'same-uid', firstFile: '/m/a.yaml' },
        { file: '/m/d.yaml', uid: 'same-uid', firstFile: '/m/a.yaml' },
      ]);
      // A name shadow is not also a UID duplicate: the shadowed file's pod is not in the set.
      const shadow = await builder.build([manifest('/m/a.yaml', pinned('a')), manifest('/m/b.yaml', pinned('a'))]);
      expect(shadow.shadowed).toHaveLength(1);
      expect(shadow.duplicateUids).toEqual([]);
    });

    it("keeps a file's last good pod while it is invalid, per file, and forgets it with the file (D4)", async () => {
      const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' });
      const good = await builder.build([manifest('/m/a.yaml', podManifestYaml('a'))]);
      const broken = await builder.build([manifest('/m/a.yaml', BROKEN), manifest('/m/b.yaml', BROKEN)]);
      expect(broken.pods).toEqual(good.pods);
      expect(broken.invalid.map((i) => [i.file, i.kept])).toEqual([['/m/a.yaml', true], ['/m/b.yaml', false]]);
      expect(PodConfigError.is(broken.invalid[0]?.error)).toBe(true);
      expect((await builder.build([])).pods).toEqual([]);
      expect((await builder.build([manifest('/m/a.yaml', BROKEN)])).pods).toEqual([]); // deleted, then back invalid: nothing to keep
    });

    it("drops an invalid file's pod with invalidManifest 'drop' in a directory", async () => {
      const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'drop' });
      await builder.build([manifest('/m/a.yaml', podManifestYaml('a'))], { mode: 'directory' });
      const set = await builder.build([manifest('/m/a.yaml', BROKEN)], { mode: 'directory' });
      expect(set.pods).toEqual([]);
      expect(set.invalid.map((i) => [i.file, i.kept])).toEqual([['/m/a.yaml', false]]);
      expect((await builder.build([manifest('/m/a.yaml', BROKEN)])).pods).toEqual([]); // directory is the default mode
    });

    it("keeps a single file's last good pod with invalidManifest 'drop' too, as the kubelet does (D4, #26)", async () => {
      const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'drop' });
      const good = await builder.build([manifest('/m/pod.yaml', podManifestYaml('a'))], { mode: 'file' });
      const set = await builder.build([manifest('/m/pod.yaml', BROKEN)], { mode: 'file' });
      expect(set.pods).toEqual(good.pods);
      expect(set.invalid.map((i) => [i.file, i.kept])).toEqual([['/m/pod.yaml', true]]);
    });

    it('keeps the last good pod for an unreadable entry such as a dangling symlink (D4)', async () => {
      const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' });
      const good = await builder.build([manifest('/m/a.yaml', podManifestYaml('a'))]);
      const error = new PodConfigError('PODCONFIG_MANIFEST_INVALID', 'dangling symlink');
      const set = await builder.build([{ kind: 'unreadable', file: '/m/a.yaml', error }]);
      expect(set.pods).toEqual(good.pods);
      expect(set.invalid).toEqual([{ file: '/m/a.yaml', error, kept: true }]);
    });

    it('decodes each entry before asking for the next one, so it needs no bytes of earlier files', async () => {
      const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' });
      const buffers: Buffer[] = [];
      async function* scan(): AsyncGenerator<ScannedEntry> {
        for (const name of ['a', 'b', 'c']) {
          // Wipe the bytes handed out before: a builder that had not decoded them yet would now see garbage.
          for (const earlier of buffers) earlier.fill(0x7b);
          const data = Buffer.from(podManifestYaml(name));
          buffers.push(data);
          yield { kind: 'manifest', file: `/m/${name}.yaml`, data };
          await Promise.resolve();
        }
        yield { kind: 'skipped', file: '/m/.hidden', reason: 'dot-file' };
      }
      const set = await builder.build(scan());
      expect(set.pods.map((p) => p.key)).toEqual(['default/a-n1', 'default/b-n1', 'default/c-n1']);
      expect(set.invalid).toEqual([]);
      expect(set.skipped).toEqual([{ kind: 'skipped', file: '/m/.hidden', reason: 'dot-file' }]);
    });

    it('decodes large JSON and YAML manifests from disk (on the manifest worker thread) to the pods decodeFilePod gives', async () => {
      const dir = await tempDir();
      try {
        const contents = { 'a.json': bigJsonPod('a'), 'b.yaml': bigYamlPod('b') };
        for (const [name, content] of Object.entries(contents)) {
          expect(Buffer.byteLength(content)).toBeGreaterThan(OFF_THREAD_MIN_BYTES);
          await writeFile(join(dir.path, name), content);
        }
        const set = await new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' }).build(await scan(dir.path));
        expect(set.invalid).toEqual([]);
        expect(set.pods.map((p) => p.pod)).toStrictEqual(Object.entries(contents).map(([name, content]) =>
          decodeFilePod(Buffer.from(content), { nodeName: 'n1', origin: { kind: 'file', path: join(dir.path, name) } })));
      } finally {
        await dir.cleanup();
      }
    });

    it('reports a large invalid manifest with the error decodeFilePod gives for it', async () => {
      const dir = await tempDir();
      try {
        const content = bigJsonPod('a', (i) => (i === 19_999 ? '-bad-' : `v${i}`));
        const file = join(dir.path, 'a.json');
        await writeFile(file, content);
        const set = await new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' }).build(await scan(dir.path));
        expect(set.invalid).toHaveLength(1);
        const { error } = set.invalid[0]!;
        expect(() => decodeFilePod(Buffer.from(content), { nodeName: 'n1', origin: { kind: 'file', path: file } })).toThrow(error.message);
        expect(error.code).toBe('PODCONFIG_MANIFEST_INVALID');
        expect(error.message).toContain('app.example/l19999');
      } finally {
        await dir.cleanup();
      }
    });

    it('rejects with signal.reason when aborted while a large manifest decodes, and remembers nothing of it', async () => {
      const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' });
      const controller = new AbortController();
      const reason = new Error('stopping');
      const pending = builder.build([manifest('/m/a.json', bigJsonPod('a'))], { signal: controller.signal });
      setImmediate(() => controller.abort(reason)); // once the decoding is under way
      await expect(pending).rejects.toBe(reason);
      const set = await builder.build([manifest('/m/a.json', bigJsonPod('a'))]);
      expect(set.invalid).toEqual([]);
      expect(set.pods.map((p) => p.key)).toEqual(['default/a-n1']);
    });

    it('returns the same Pod object for unchanged bytes', async () => {
      const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' });
      const first = await builder.build([manifest('/m/a.yaml', podManifestYaml('a'))]);
      const second = await builder.build([manifest('/m/a.yaml', podManifestYaml('a'))]);
      expect(second.pods[0]?.pod).toBe(first.pods[0]?.pod);
      expect(samePods(first.pods, second.pods)).toBe(true);
    });
  });
});

describe('samePods', () => {
  it('compares keys, order and content, not object identity', async () => {
    const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' });
    const a = (await builder.build([manifest('/m/a.yaml', podManifestYaml('a'))])).pods;
    const comment = (await builder.build([manifest('/m/a.yaml', `# a comment\n${podManifestYaml('a')}`)])).pods;
    const edited = (await builder.build([manifest('/m/a.yaml', podManifestYaml('a', { image: 'other:1' }))])).pods;
    expect(comment[0]?.pod).not.toBe(a[0]?.pod);
    expect(samePods(a, comment)).toBe(true); // a comment changes neither the UID nor the pod
    const reordered = (await builder.build([manifest('/m/a.yaml', 'kind: Pod\napiVersion: v1\nspec:\n  containers:\n  - {image: registry.k8s.io/pause:3.10, name: main}\nmetadata: {name: a}\n')])).pods;
    const defaulted = (await builder.build([manifest('/m/a.yaml', podManifestYaml('a', { extra: '  restartPolicy: Always' }))])).pods;
    expect(reordered[0]?.pod.metadata?.uid).toBe(a[0]?.pod.metadata?.uid);
    expect(defaulted[0]?.pod.metadata?.uid).toBe(a[0]?.pod.metadata?.uid);
    expect(samePods(a, reordered)).toBe(true); // key order is not content (spec §2.6)
    expect(samePods(a, defaulted)).toBe(true); // nor is a default written out
    expect(samePods(a, edited)).toBe(false);
    expect(samePods(a, [])).toBe(false);
  });
});

describe('withPreviousPods', () => {
  it("keeps the previous object of a pod a rewrite left equal, and the new one of a pod that changed", async () => {
    const builder = new ManifestSetBuilder({ nodeName: 'n1', invalidManifest: 'keep' });
    const before = (await builder.build([manifest('/m/a.yaml', podManifestYaml('a')), manifest('/m/b.yaml', podManifestYaml('b'))])).pods;
    const after = (
      await builder.build([
        manifest('/m/a.yaml', podManifestYaml('a', { extra: '  restartPolicy: Always' })), // a default written out
        manifest('/m/b.yaml', podManifestYaml('b', { image: 'other:1' })),
      ])
    ).pods;
    expect(after[0]?.pod).not.toBe(before[0]?.pod);
    const merged = withPreviousPods(before, after);
    expect(merged.map((p) => p.pod)).toEqual([before[0]?.pod, after[1]?.pod]);
    expect(merged[0]?.pod).toBe(before[0]?.pod);
    expect(merged[1]?.pod).toBe(after[1]?.pod);
    expect(withPreviousPods(before, before)).toBe(before); // nothing replaced: the same array
  });
});
