import { resolve } from 'node:path';
import { PodConfigError } from '@podconfig/core';
import type { ChokidarOptions, FSWatcher } from 'chokidar';
import type { WatchPlan } from './watch-plan.js';

export interface ManifestWatchOptions {
  /** Which paths matter (absolute); events for the rest never wake anyone. */
  readonly relevant: (absPath: string) => boolean;
  /** Any relevant filesystem event. Only a wake-up: the caller re-scans the whole path (D3). */
  readonly onChange: () => void;
  /** The current watcher failed; called once per watcher. The caller decides when to re-arm. */
  readonly onError: (err: unknown) => void;
  /**
   * chokidar could not handle one entry (e.g. `ELOOP` for a symlink loop): the watch on the
   * directories is intact, and the scan reports the entry itself (spec §2.2: logged and skipped).
   */
  readonly onEntryError: (err: unknown) => void;
  /** chokidar's `watch` (the test seam for watcher failures). */
  readonly watch?: ChokidarWatch;
  /** Default {@link ARM_TIMEOUT_MS} (tests). */
  readonly armTimeoutMs?: number;
}

/** The shape of chokidar's `watch`. */
export type ChokidarWatch = (paths: string[], options: ChokidarOptions) => FSWatcher;

let chokidarWatch: ChokidarWatch | undefined;

/**
 * chokidar, loaded on the first arm: the source arms its watch after its first scan has yielded, so loading
 * chokidar (~20–30 ms on a cold process) is not on the way to the first SET.
 */
async function loadChokidarWatch(): Promise<ChokidarWatch> {
  chokidarWatch ??= (await import('chokidar')).watch;
  return chokidarWatch;
}

interface Armed {
  readonly watcher: FSWatcher;
  readonly key: string;
  failed: boolean;
  stale: boolean;
  /** Ends the wait for chokidar's `ready` (while arming). */
  settle: (() => void) | undefined;
}

/**
 * How long arming waits for chokidar's `ready`: one that never comes (the watch setup met EMFILE, its error went
 * unreported) would otherwise stop the source, its periodic re-scan included, for good.
 */
export const ARM_TIMEOUT_MS = 30_000;

/**
 * The chokidar edge of the file source (style example 3): callbacks only set a wake-up. One
 * watcher at a time, non-recursive (`depth: 0`), `ignoreInitial`.
 *
 * One inotify watch per directory, as the kubelet's (spec §2.3), not one per entry: chokidar
 * would `fs.watch` every file it lists (a directory of a few thousand manifests then exhausts the
 * inotify watch limit), so `ignored` keeps it to the plan's directories and, when the manifest
 * path is not a directory, that path. A directory's own `fs.watch` reports every entry's events
 * (ignored ones included) as chokidar `raw` events naming the entry; those are the wake-up for
 * the entries. Chokidar no longer stats the entries either, so one it cannot stat (a symlink loop)
 * no longer reaches the error handler; the scan reports it.
 *
 * `arm()` replaces the watcher when the
 * plan changes or after a failure: the old watcher closes first, because chokidar shares one
 * `fs.watch` per path among all watchers of the process, and a new watcher opened while the old
 * one is still open joins its handle, still bound to the directory the path named before (a
 * replaced manifest directory's events were then lost). The caller re-scans after arming, which
 * covers what changed in between.
 */
export class ManifestWatch {
  readonly #o: ManifestWatchOptions;
  #armed: Armed | undefined;
  #arming: Armed | undefined;

  constructor(options: ManifestWatchOptions) {
    this.#o = options;
  }

  /** The key of the plan being watched, if a watcher is armed. */
  get key(): string | undefined {
    return this.#armed?.key;
  }

  /** True when the armed watcher reported an error (it needs replacing). */
  get failed(): boolean {
    return this.#armed?.failed ?? false;
  }

  /**
   * True when one of the watched paths itself was removed: its watch is dead even if a new
   * directory with the same name (and maybe the same inode number) is there by the next scan.
   */
  get stale(): boolean {
    return this.#armed?.stale ?? false;
  }

  /** Closes the current watcher, creates one for `plan` and waits until it is ready (or `signal` aborts). */
  async arm(plan: WatchPlan, signal: AbortSignal): Promise<void> {
    const { relevant, onChange, onError, onEntryError } = this.#o;
    const watch = this.#o.watch ?? (await loadChokidarWatch());
    await this.close();
    const watched = (p: string): boolean => p === plan.path || plan.targets.includes(p);
    const watcher = watch([...plan.targets], {
      ignoreInitial: true,
      depth: 0,
      // Chokidar asks about the targets and the entries it lists in them.
      ignored: (p: string) => !watched(resolve(p)),
    });
    const armed: Armed = { watcher, key: plan.key, failed: false, stale: false, settle: undefined };
    watcher.on('all', (event, p) => {
      const abs = resolve(p);
      if ((event === 'unlinkDir' || event === 'unlink') && plan.targets.includes(abs)) armed.stale = true;
      if (relevant(abs)) onChange();
    });
    watcher.on('raw', (event: string, name: unknown, details: unknown) => {
      const dir = (details as { readonly watchedPath?: unknown } | undefined)?.watchedPath;
      // Events of the manifest file's own watch (single-file mode) come as chokidar events, above.
      if (typeof dir !== 'string' || !plan.targets.includes(resolve(dir))) return;
      if (typeof name !== 'string') {
        onChange(); // an event the kernel did not name an entry for: re-scan to be safe
        return;
      }
      const abs = resolve(dir, name);
      // A target replaced in one step (`mv new dir`, a symlink renamed over it, `rm -r` then `mkdir` with
      // the inode number reused) gives no chokidar event: chokidar follows paths, not inodes. The parent's
      // raw rename event for it does.
      if (event === 'rename' && plan.targets.includes(abs)) armed.stale = true;
      if (relevant(abs)) onChange();
    });
    watcher.on('error', (err: unknown) => {
      // Errors of a watcher on its way out do not concern the one replacing it.
      if (armed.failed || (armed !== this.#armed && armed !== this.#arming)) return;
      // An error about one entry (a symlink loop chokidar cannot stat) leaves the directory watches
      // working: only an error about a watched directory itself, or about nothing known, fails the watcher.
      const path = (err as { readonly path?: unknown } | null)?.path;
      if (typeof path === 'string' && !plan.targets.includes(resolve(path))) {
        onEntryError(err);
        return;
      }
      armed.failed = true;
      onError(err);
      armed.settle?.(); // a watcher that failed while arming may never be ready
    });
    this.#arming = armed;
    try {
      const timeoutMs = this.#o.armTimeoutMs ?? ARM_TIMEOUT_MS;
      if ((await ready(watcher, armed, signal, timeoutMs)) === 'timeout' && !armed.failed) {
        armed.failed = true;
        onError(new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', `the watch of ${plan.targets.join(', ')} was not ready within ${timeoutMs} ms`, { retryable: true }));
      }
    } finally {
      this.#arming = undefined;
    }
    if (signal.aborted) {
      await watcher.close();
      return;
    }
    this.#armed = armed;
  }

  async close(): Promise<void> {
    const armed = this.#armed;
    this.#armed = undefined;
    await armed?.watcher.close();
  }
}

/** Resolves on chokidar's `ready`, when the watcher fails (`armed.settle`) or `signal` aborts, or after `timeoutMs`. */
function ready(watcher: FSWatcher, armed: Armed, signal: AbortSignal, timeoutMs: number): Promise<'settled' | 'timeout'> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve('settled');
      return;
    }
    const done = (outcome: 'settled' | 'timeout'): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onDone);
      watcher.off('ready', onDone);
      armed.settle = undefined;
      resolve(outcome);
    };
    const onDone = (): void => done('settled');
    // Unref'd: a source that is stopping must not wait for it.
    const timer = setTimeout(() => done('timeout'), timeoutMs).unref();
    armed.settle = onDone;
    signal.addEventListener('abort', onDone, { once: true });
    watcher.once('ready', onDone);
  });
}
