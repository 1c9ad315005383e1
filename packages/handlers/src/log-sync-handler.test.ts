import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { makePod } from '@podconfig/testing';
import { LogSyncHandler } from './log-sync-handler.js';

function captureLogger(): { logger: pino.Logger; raw: string[]; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => raw.push(line) });
  return { logger, raw, lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const secretPod = () => {
  const pod = makePod('web', { namespace: 'prod', uid: 'uid-web', image: 'registry.example/secret-image:1' });
  pod.spec!.containers[0]!.env = [{ name: 'PASSWORD', value: 'hunter2-secret' }];
  return pod;
};

describe(LogSyncHandler.name, () => {
  const signal = new AbortController().signal;

  describe('syncPod()', () => {
    it('logs one line per call with op, pod, uid and source but no spec: a change at info, a resync at debug', async () => {
      const { logger, raw, lines } = captureLogger();
      const handler = new LogSyncHandler({ logger });
      for (const type of ['create', 'update', 'delete', 'reconcile', 'resync'] as const) {
        await handler.syncPod({ type, pod: secretPod(), source: 'file', attempt: 1 }, signal);
      }

      const line = (op: string, level: number) => ({ level, component: 'sync.log', op, pod: 'prod/web', uid: 'uid-web', source: 'file', msg: 'sync pod' });
      expect(lines()).toMatchObject([line('create', 30), line('update', 30), line('delete', 30), line('reconcile', 30), line('resync', 20)]);
      for (const line of raw) {
        expect(line).not.toContain('hunter2-secret');
        expect(line).not.toContain('secret-image');
        expect(line).not.toContain('"spec"');
      }
    });

    it('does not repeat the component when the logger already carries it', async () => {
      const { logger, raw } = captureLogger();
      const handler = new LogSyncHandler({ logger: logger.child({ component: 'sync.log' }) });
      await handler.syncPod({ type: 'update', pod: secretPod(), source: 'api', attempt: 1 }, signal);
      expect(raw).toHaveLength(1);
      expect(raw[0]!.match(/"component"/g)).toHaveLength(1);
    });

    it('keeps the component the logger carries when it is another (the agent runs it under an id)', async () => {
      const { logger, raw, lines } = captureLogger();
      const handler = new LogSyncHandler({ logger: logger.child({ component: 'sync.audit-log' }) });
      await handler.syncPod({ type: 'update', pod: secretPod(), source: 'api', attempt: 1 }, signal);
      expect(raw[0]!.match(/"component"/g)).toHaveLength(1);
      expect(lines()[0]).toMatchObject({ component: 'sync.audit-log' });
    });
  });

  describe('syncPod() at the default level (info)', () => {
    it('logs the changes and leaves out the periodic resyncs', async () => {
      const raw: string[] = [];
      const handler = new LogSyncHandler({ logger: pino({ level: 'info' }, { write: (line: string) => raw.push(line) }) });
      await handler.syncPod({ type: 'create', pod: secretPod(), source: 'file', attempt: 1 }, signal);
      for (let i = 0; i < 3; i++) await handler.syncPod({ type: 'resync', pod: secretPod(), source: 'file', attempt: 1 }, signal);
      await handler.killPod({ reason: 'removed', pod: secretPod(), gracePeriodSeconds: 30, attempt: 1 }, signal);
      expect(raw.map((l) => (JSON.parse(l) as { op: string }).op)).toEqual(['create', 'kill']);
    });
  });

  describe('killPod()', () => {
    it('logs an orphan its listPods() reported by UID alone by its uid, not as pod "/"', async () => {
      const { logger, lines } = captureLogger();
      const handler = new LogSyncHandler({ logger });
      await handler.killPod({ reason: 'orphaned', pod: { metadata: { uid: 'uid-gone' } }, gracePeriodSeconds: 30, attempt: 1 }, signal);
      expect(lines()).toEqual([expect.objectContaining({ op: 'kill', uid: 'uid-gone', reason: 'orphaned', msg: 'kill pod' })]);
      expect(lines()[0]).not.toHaveProperty('pod');
    });

    it('logs one info line with op kill and the reason', async () => {
      const { logger, raw, lines } = captureLogger();
      const handler = new LogSyncHandler({ logger });
      await handler.killPod({ reason: 'orphaned', pod: secretPod(), gracePeriodSeconds: 30, attempt: 1 }, signal);

      expect(lines()).toMatchObject([
        { level: 30, component: 'sync.log', op: 'kill', pod: 'prod/web', uid: 'uid-web', reason: 'orphaned', msg: 'kill pod' },
      ]);
      expect(raw[0]).not.toContain('hunter2-secret');
    });
  });
});
