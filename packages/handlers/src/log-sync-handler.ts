import type { Logger } from 'pino';
import type { KillPodRequest, SyncHandler, SyncPodRequest } from '@podconfig/core';
import { componentLogger } from './component-logger.js';
import { podLogFields } from './pod-log-fields.js';

export interface LogSyncHandlerOptions {
  readonly logger: Logger;
}

/**
 * Logs one line per call and does nothing else: `{ op, pod: 'ns/name', uid, source }` for `syncPod`
 * (op = the sync type), `{ op: 'kill', pod, uid, reason }` for `killPod`. At info, but a `resync` at debug:
 * it comes for every pod every `--sync-frequency` with nothing changed (the style's "debug: once per update").
 * Never the pod spec (env values can hold secrets).
 */
export class LogSyncHandler implements SyncHandler {
  readonly name = 'log';
  readonly #log: Logger;

  constructor(options: LogSyncHandlerOptions) {
    this.#log = componentLogger(options.logger, 'sync.log');
  }

  syncPod(request: SyncPodRequest, _signal: AbortSignal): Promise<void> {
    const { type, pod, source } = request;
    const fields = { op: type, ...podLogFields(pod), source };
    if (type === 'resync') this.#log.debug(fields, 'sync pod');
    else this.#log.info(fields, 'sync pod');
    return Promise.resolve();
  }

  killPod(request: KillPodRequest, _signal: AbortSignal): Promise<void> {
    const { reason, pod } = request;
    this.#log.info({ op: 'kill', ...podLogFields(pod), reason }, 'kill pod');
    return Promise.resolve();
  }
}
