import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigInvalidError, MAX_TIMER_MS } from '@podconfig/core';
import { ExecSyncHandler, type ExecSyncHandlerOptions } from './exec-sync-handler.js';
import { ListingExecSyncHandler } from './listing-exec-sync-handler.js';
import { StateDirSyncHandler, type StateDirSyncHandlerOptions } from './state-dir-sync-handler.js';
import { WebhookSyncHandler, type WebhookSyncHandlerOptions } from './webhook-sync-handler.js';

const logger = pino({ level: 'silent' });

/** Expects `build` to throw a ConfigInvalidError whose message names the handler and the option, and not `secret`. */
function expectInvalid(build: () => unknown, handler: string, option: string, secret?: string): void {
  let thrown: unknown;
  try {
    build();
  } catch (err: unknown) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(ConfigInvalidError);
  const message = (thrown as Error).message;
  expect(message).toContain(`handler "${handler}": option "${option}"`);
  if (secret !== undefined) expect(message).not.toContain(secret);
}

describe(ExecSyncHandler.name, () => {
  describe('constructor', () => {
    const base: ExecSyncHandlerOptions = { command: '/bin/true', nodeName: 'n1', logger };
    it.each([
      ['timeoutMs', -1], ['timeoutMs', 0], ['timeoutMs', Number.NaN], ['timeoutMs', MAX_TIMER_MS + 1],
      ['killGraceMs', -1], ['killGraceMs', Number.POSITIVE_INFINITY], ['command', ''], ['command', 'a\0b'],
    ] as const)('rejects %s: %j with ConfigInvalidError naming it', (option, value) => {
      expectInvalid(() => new ExecSyncHandler({ ...base, [option]: value }), 'exec', option);
      expectInvalid(() => new ListingExecSyncHandler({ ...base, [option]: value, list: { command: '/bin/true' } }), 'exec', option);
    });

    it('accepts the defaults and positive timeouts', () => {
      expect(new ExecSyncHandler(base).name).toBe('exec');
      expect(new ExecSyncHandler({ ...base, timeoutMs: 1, killGraceMs: MAX_TIMER_MS }).name).toBe('exec');
    });
  });
});

describe(WebhookSyncHandler.name, () => {
  describe('constructor', () => {
    const build = (o: Partial<WebhookSyncHandlerOptions>): WebhookSyncHandler =>
      new WebhookSyncHandler({ url: new URL('http://127.0.0.1:1/hook'), logger, ...o });
    it.each([
      ['url', { url: new URL('ftp://127.0.0.1:1/x') }],
      ['url', { url: new URL('file:///etc/passwd') }],
      ['url', { url: 'not a url' as unknown as URL }],
      ['url', { url: new URL('http://us%E0er:secret@127.0.0.1:1/x') }],
      ['timeoutMs', { timeoutMs: 0 }],
      ['timeoutMs', { timeoutMs: -1 }],
      ['timeoutMs', { timeoutMs: Number.NaN }],
    ] as const)('rejects %s in %j with ConfigInvalidError naming it, without quoting the URL', (option, o) => {
      expectInvalid(() => build(o), 'webhook', option, 'secret');
    });

    it('accepts http and https URLs', async () => {
      for (const url of ['http://127.0.0.1:1/x', 'https://user:secret@example.test/x']) {
        const handler = build({ url: new URL(url), timeoutMs: 5 });
        await handler.close(new AbortController().signal);
      }
    });
  });
});

describe(StateDirSyncHandler.name, () => {
  describe('constructor', () => {
    it.each([[''], ['a\0b'], [undefined]])('rejects dir %j with ConfigInvalidError naming it', (dir) => {
      expectInvalid(() => new StateDirSyncHandler({ dir, logger } as unknown as StateDirSyncHandlerOptions), 'state-dir', 'dir');
    });
  });
});
