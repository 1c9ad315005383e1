import { describe, expect, it } from 'vitest';
import { tempDir } from '@podconfig/testing';
import { watch as chokidarWatch } from 'chokidar';
import { ManifestWatch, type ChokidarWatch } from './manifest-watch.js';
import { watchPlan } from './watch-plan.js';

describe(ManifestWatch.name, () => {
  it('stops waiting for a watch that is never ready, reporting it failed, so that the caller re-arms it', async () => {
    const dir = await tempDir('podconfig-manifest-watch-');
    try {
      // A chokidar watcher that neither says `ready` nor reports an error.
      const watch: ChokidarWatch = (paths, options) => {
        const watcher = chokidarWatch(paths, options);
        const emit = watcher.emit.bind(watcher) as (event: string, ...args: unknown[]) => boolean;
        watcher.emit = ((event: string, ...args: unknown[]) => (event === 'ready' ? true : emit(event, ...args))) as typeof watcher.emit;
        return watcher;
      };
      const errors: unknown[] = [];
      const manifestWatch = new ManifestWatch({
        relevant: () => true, onChange: () => undefined, onError: (err) => errors.push(err), onEntryError: () => undefined, watch, armTimeoutMs: 50,
      });
      await manifestWatch.arm(await watchPlan(dir.path, true), new AbortController().signal);
      expect(manifestWatch.failed).toBe(true);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: 'PODCONFIG_SOURCE_UNAVAILABLE' });
      expect((errors[0] as Error).message).toMatch(new RegExp(`^the watch of .*${dir.path}.* was not ready within 50 ms$`));
      await manifestWatch.close();
    } finally {
      await dir.cleanup();
    }
  });
});
