import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PodConfigError } from '@podconfig/core';
import { InstantClock, makePod, tempDir } from '@podconfig/testing';
import { JsonLinesSyncHandler, type JsonLinesRecord } from './json-lines-sync-handler.js';

const logger = pino({ level: 'silent' });
const live = (): AbortSignal => new AbortController().signal;

async function records(file: string): Promise<JsonLinesRecord[]> {
  const text = await readFile(file, 'utf8');
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as JsonLinesRecord);
}

describe(JsonLinesSyncHandler.name, () => {
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('podconfig-example-');
  });
  afterEach(async () => {
    await tmp.cleanup();
  });

  describe('start()', () => {
    it('creates the missing parent directories of the file', async () => {
      const file = join(tmp.path, 'a', 'b', 'calls.jsonl');
      const handler = new JsonLinesSyncHandler({ file, logger });
      await handler.start(live());
      await handler.syncPod({ type: 'create', pod: makePod('web'), source: 'file', attempt: 1 }, live());
      expect((await records(file)).map((r) => r.pod)).toEqual(['default/web']);
    });
  });

  describe('syncPod()', () => {
    it('appends one line per call with the call type, pod, uid, source, attempt and clock time', async () => {
      const file = join(tmp.path, 'calls.jsonl');
      const clock = new InstantClock({ start: Date.UTC(2025, 0, 2, 3, 4, 5) });
      const handler = new JsonLinesSyncHandler({ file, logger, clock, name: 'journal' });
      await handler.start(live());
      await handler.syncPod({ type: 'create', pod: makePod('web', { uid: 'u1' }), source: 'file', attempt: 1 }, live());
      await handler.syncPod({ type: 'resync', pod: makePod('web', { uid: 'u1' }), source: 'file', attempt: 2 }, live());
      expect(await records(file)).toEqual([
        { time: '2025-01-02T03:04:05.000Z', handler: 'journal', call: 'create', pod: 'default/web', uid: 'u1', source: 'file', attempt: 1 },
        { time: '2025-01-02T03:04:05.000Z', handler: 'journal', call: 'resync', pod: 'default/web', uid: 'u1', source: 'file', attempt: 2 },
      ]);
    });

    it('never writes the pod spec', async () => {
      const file = join(tmp.path, 'calls.jsonl');
      const handler = new JsonLinesSyncHandler({ file, logger });
      await handler.start(live());
      await handler.syncPod({ type: 'create', pod: makePod('web', { image: 'secret-registry/app:1' }), source: 'http', attempt: 1 }, live());
      expect(await readFile(file, 'utf8')).not.toContain('secret-registry');
    });

    it('writes nothing and returns when the signal is already aborted', async () => {
      const file = join(tmp.path, 'calls.jsonl');
      const handler = new JsonLinesSyncHandler({ file, logger });
      await handler.start(live());
      await handler.syncPod({ type: 'create', pod: makePod('a'), source: 'file', attempt: 1 }, AbortSignal.abort());
      await handler.syncPod({ type: 'create', pod: makePod('b'), source: 'file', attempt: 1 }, live());
      expect((await records(file)).map((r) => r.pod)).toEqual(['default/b']);
    });

    it('creates the directory again when it was removed after start()', async () => {
      const dir = join(tmp.path, 'gone');
      const file = join(dir, 'calls.jsonl');
      const handler = new JsonLinesSyncHandler({ file, logger });
      await handler.start(live());
      await handler.syncPod({ type: 'create', pod: makePod('web'), source: 'file', attempt: 1 }, live());
      await rm(dir, { recursive: true });
      await handler.syncPod({ type: 'resync', pod: makePod('web'), source: 'file', attempt: 1 }, live());
      expect((await records(file)).map((r) => r.call)).toEqual(['resync']);
    });

    it('throws a retryable PODCONFIG_HANDLER_FAILED naming the pod when the file cannot be appended to', async () => {
      const handler = new JsonLinesSyncHandler({ file: tmp.path, logger }); // a directory
      const err = await handler.syncPod({ type: 'create', pod: makePod('web'), source: 'file', attempt: 1 }, live()).catch((e: unknown) => e);
      expect(PodConfigError.is(err, 'PODCONFIG_HANDLER_FAILED')).toBe(true);
      expect((err as PodConfigError).retryable).toBe(true);
      expect((err as PodConfigError).message).toBe(`json-lines: cannot append to ${tmp.path} for create of pod default/web`);
    });
  });

  describe('killPod()', () => {
    it('appends a kill line with the reason and grace period', async () => {
      const file = join(tmp.path, 'calls.jsonl');
      const clock = new InstantClock({ start: 0 });
      const handler = new JsonLinesSyncHandler({ file, logger, clock });
      await handler.start(live());
      await handler.killPod({ reason: 'orphaned', pod: makePod('old', { uid: 'u9' }), gracePeriodSeconds: 30, attempt: 1 }, live());
      expect(await records(file)).toEqual([
        { time: '1970-01-01T00:00:00.000Z', handler: 'json-lines', call: 'kill', reason: 'orphaned', pod: 'default/old', uid: 'u9', gracePeriodSeconds: 30, attempt: 1 },
      ]);
    });

    it('records an orphan its listPods() reported by UID alone by its uid, without a pod field (never "/")', async () => {
      const file = join(tmp.path, 'calls.jsonl');
      const handler = new JsonLinesSyncHandler({ file, logger, clock: new InstantClock({ start: 0 }) });
      await handler.start(live());
      await handler.killPod({ reason: 'orphaned', pod: { metadata: { uid: 'uid-gone' } }, gracePeriodSeconds: 30, attempt: 1 }, live());
      const [record, ...rest] = await records(file);
      expect(rest).toEqual([]);
      expect(record).toEqual({
        time: '1970-01-01T00:00:00.000Z', handler: 'json-lines', call: 'kill', reason: 'orphaned', uid: 'uid-gone', gracePeriodSeconds: 30, attempt: 1,
      });
      expect(record).not.toHaveProperty('pod');
    });

    it('names an orphan known by UID alone by its uid when the append fails', async () => {
      const handler = new JsonLinesSyncHandler({ file: tmp.path, logger });
      await expect(handler.killPod({ reason: 'orphaned', pod: { metadata: { uid: 'uid-gone' } }, gracePeriodSeconds: 1, attempt: 1 }, live()))
        .rejects.toMatchObject({ message: `json-lines: cannot append to ${tmp.path} for kill of pod with uid uid-gone` });
    });

    it('throws PODCONFIG_HANDLER_FAILED when the path cannot be appended to (a directory)', async () => {
      const handler = new JsonLinesSyncHandler({ file: tmp.path, logger });
      await expect(handler.killPod({ reason: 'removed', pod: makePod('x'), gracePeriodSeconds: 1, attempt: 1 }, live()))
        .rejects.toMatchObject({ code: 'PODCONFIG_HANDLER_FAILED', retryable: true });
    });
  });
});
