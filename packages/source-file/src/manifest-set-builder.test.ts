import { describe, expect, it } from 'vitest';
import { PodConfigError } from '@podconfig/core';
import { decodeFilePod } from '@podconfig/manifest';
import { podManifestYaml } from '@podconfig/testing';
import { ManifestSetBuilder, samePods, withPreviousPods } from './manifest-set-builder.js';
import type { ScannedEntry } from './scan-manifest-path.js';

const manifest = (file: string, content: string): ScannedEntry => ({ kind: 'manifest', file, data: Buffer.from(content) });
const BROKEN = 'kind: Pod\nmetadata: {name: "x\n';

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
