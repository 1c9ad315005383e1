import { mkdir, rename, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '@podconfig/testing';
import { manifestNameFilter } from './manifest-name-filter.js';
import { relevantTo, watchPlan } from './watch-plan.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function makeDir(): Promise<string> {
  const dir = await tempDir('podconfig-plan-');
  cleanups.push(dir.cleanup);
  return dir.path;
}

describe('watchPlan', () => {
  it('watches a directory and its parent', async () => {
    const base = await makeDir();
    const dir = join(base, 'manifests');
    await mkdir(dir);
    const plan = await watchPlan(dir, true);
    expect(plan.targets).toEqual([dir, base]);
  });

  it('watches only the parent of a file', async () => {
    const base = await makeDir();
    expect((await watchPlan(join(base, 'pod.yaml'), false)).targets).toEqual([base]);
  });

  it('walks up to the nearest existing ancestor of a missing path (D5)', async () => {
    const base = await makeDir();
    expect((await watchPlan(join(base, 'a', 'b', 'manifests'), false)).targets).toEqual([base]);
  });

  it("keys the plan by each target's device and inode, so a replaced directory re-arms the watch (D5)", async () => {
    const base = await makeDir();
    const dir = join(base, 'manifests');
    await mkdir(dir);
    const id = async (p: string): Promise<string> => {
      const st = await stat(p);
      return `${p}@${st.dev}:${st.ino}`;
    };
    const plan = await watchPlan(dir, true);
    expect(plan.key).toBe(`${await id(dir)}|${await id(base)}`);
    expect(await watchPlan(dir, true)).toEqual(plan); // stable while nothing changes
    // Inode numbers can be reused at once (this is why the watch also goes stale when its directory is
    // removed); a directory replaced while the old one still exists always gets a new one.
    await mkdir(join(base, 'next'));
    await rename(dir, join(base, 'old'));
    await rename(join(base, 'next'), dir);
    expect((await watchPlan(dir, true)).key).not.toBe(plan.key);
  });
});

describe('relevantTo', () => {
  const filter = manifestNameFilter({ manifestFilter: 'default', extensions: undefined });
  const relevant = relevantTo('/etc/kubernetes/manifests', filter);

  it('accepts the path, its ancestors and the entries a scan would read', () => {
    expect(relevant('/etc/kubernetes/manifests')).toBe(true);
    expect(relevant('/etc/kubernetes')).toBe(true);
    expect(relevant('/')).toBe(true);
    expect(relevant('/etc/kubernetes/manifests/etcd.yaml')).toBe(true);
    expect(relevant(dirname('/etc/kubernetes/manifests/x'))).toBe(true);
  });

  it('ignores siblings, deeper entries, dot-files and editor artefacts (they never wake a scan)', () => {
    expect(relevant('/etc/kubernetes/admin.conf')).toBe(false);
    expect(relevant('/etc/kubernetes/manifests-old')).toBe(false);
    expect(relevant('/etc/kubernetes/manifests/sub/x.yaml')).toBe(false);
    expect(relevant('/etc/kubernetes/manifests/.etcd.yaml.swp')).toBe(false);
    expect(relevant('/etc/kubernetes/manifests/etcd.yaml~')).toBe(false);
    expect(relevant('/etc/kubernetes/manifests/4913')).toBe(false);
    expect(relevant('/etc/kubernetes/manifests/#etcd.yaml#')).toBe(false);
  });

  it("accepts a volume's `..` names: its files change only through the `..data` swap", () => {
    expect(relevant('/etc/kubernetes/manifests/..data')).toBe(true);
    expect(relevant('/etc/kubernetes/manifests/..data_tmp')).toBe(true);
    expect(relevant('/etc/kubernetes/manifests/..2026_11_23_00_31_07.123456789')).toBe(true);
  });
});
