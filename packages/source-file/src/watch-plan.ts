import { stat } from 'node:fs/promises';
import { basename, dirname, sep } from 'node:path';
import type { IgnoreReason } from './manifest-name-filter.js';

/**
 * What to watch for the manifest path in its current state (decision D5), and an identity `key`:
 * when the key changes (the path appeared, went away, or was replaced by a new inode), the watcher
 * is re-created, because a watch on a deleted directory is dead for good.
 *
 * - directory: the directory itself (its entries) and its parent (to see it removed or replaced);
 * - file, other, or missing: the nearest existing ancestor, usually the parent directory, whose
 *   events are filtered down to the path itself.
 */
export interface WatchPlan {
  /** The manifest path (absolute). Unless it is a directory (then a target), chokidar also watches it. */
  readonly path: string;
  /** Absolute paths of the directories to hand to chokidar (depth 0, entries ignored). */
  readonly targets: readonly string[];
  readonly key: string;
}

/** `absPath` is the resolved manifest path; `isDirectory` whether the last scan found a directory. */
export async function watchPlan(absPath: string, isDirectory: boolean): Promise<WatchPlan> {
  const targets: string[] = [];
  if (isDirectory) targets.push(absPath);
  let dir = dirname(absPath);
  for (;;) {
    if ((await identity(dir)) !== undefined || dirname(dir) === dir) break;
    dir = dirname(dir);
  }
  if (!targets.includes(dir)) targets.push(dir);
  const ids = await Promise.all(targets.map(async (t) => `${t}@${(await identity(t)) ?? 'none'}`));
  return { path: absPath, targets, key: ids.join('|') };
}

async function identity(path: string): Promise<string | undefined> {
  try {
    const st = await stat(path);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Which paths (absolute) named by the watch's events matter for `absPath`: the path itself, its
 * ancestors, and, when it is a directory, the entries the scan would read. Events for anything else
 * are dropped, so siblings in the parent directory and editor swap files never wake a re-scan; `..` names
 * (an AtomicWriter volume's `..data` swap) do.
 */
export function relevantTo(absPath: string, filter: (name: string) => IgnoreReason | undefined): (p: string) => boolean {
  return (p) => {
    if (p === absPath) return true;
    if (absPath.startsWith(p.endsWith(sep) ? p : p + sep)) return true; // an ancestor
    if (dirname(p) !== absPath) return false;
    const name = basename(p);
    // The kubelet's AtomicWriter (a ConfigMap, Secret or projected volume) updates its files by renaming
    // `..data_tmp` over `..data`; the manifests are symlinks through `..data`, unchanged, so the only events of
    // an update are on `..` names. Never read as manifests, they wake a re-scan all the same.
    return name.startsWith('..') || filter(name) === undefined;
  };
}
