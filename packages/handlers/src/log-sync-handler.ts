import type { Logger } from 'pino';
import type { KillPodRequest, SyncHandler, SyncPodRequest } from '@podconfig/core';
import { componentLogger } from './component-logger.js';
import { podLogFields } from './pod-log-fields.js';

export interface LogSyncHandlerOptions {
  readonly logger: Logger;
}

/**
 * Logs one info line per call and does nothing else: `{ op, pod: 'ns/name', uid, source }` for
 * `syncPod` (op = the sync type), `{ op: 'kill', pod, uid, reason }` for `killPod`. Never the
 * pod spec (env values can hold secrets).
 */
export class LogSyncHandler implements SyncHandler {
  readonly name = 'log';
  readonly #log: Logger;

  constructor(options: LogSyncHandlerOptions) {
    this.#log = componentLogger(options.logger, 'sync.log');
  }

  syncPod(request: SyncPodRequest, _signal: AbortSignal): Promise<void> {
    const { type, pod, source } = request;
    this.#log.info({ op: type, ...podLogFields(pod), source }, 'sync pod');
    return Promise.resolve();
  }

  killPod(request: KillPodRequest, _signal: AbortSignal): Promise<void> {
    const { reason, pod } = request;
    this.#log.info({ op: 'kill', ...podLogFields(pod), reason }, 'kill pod');
    return Promise.resolve();
  }
}
