import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { InstantClock, tempDir } from '@podconfig/testing';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PolledFile } from './polled-file.js';

describe(PolledFile.name, () => {
  describe('changed()', () => {
    it('checks at most once per period of the monotonic clock, whatever the wall clock does', async () => {
      const dir = await tempDir();
      onTestFinished(dir.cleanup);
      const path = join(dir.path, 'token');
      await writeFile(path, 'one');
      const clock = new InstantClock();
      const file = new PolledFile({ path, periodMs: 60_000, clock });
      expect((await file.changed(false))?.toString()).toBe('one');
      await writeFile(path, 'second');
      clock.stepWall(3_600_000); // NTP steps the wall clock an hour ahead: no time passed
      expect(await file.changed(false)).toBeUndefined();
      clock.advance(60_000);
      expect((await file.changed(false))?.toString()).toBe('second');
      await writeFile(path, 'the third');
      clock.stepWall(-7_200_000); // two hours back, while a period passes
      clock.advance(60_000);
      expect((await file.changed(false))?.toString()).toBe('the third');
    });

    it('never re-reads a FIFO (what the config load read stands), where a read would wait for a writer', async () => {
      const dir = await tempDir();
      onTestFinished(dir.cleanup);
      const path = join(dir.path, 'token.fifo');
      await promisify(execFile)('mkfifo', [path]);
      const file = new PolledFile({ path, periodMs: 60_000, clock: new InstantClock() });
      expect(await file.changed(true)).toBeUndefined();
      expect(await file.changed(false)).toBeUndefined();
    });
  });
});
