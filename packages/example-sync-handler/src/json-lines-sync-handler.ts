import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import {
  PodConfigError, podRef, podUid, systemClock,
  type Clock, type KillPodRequest, type Pod, type StartableHandler, type SyncHandler, type SyncPodRequest,
} from '@podconfig/core';

export interface JsonLinesSyncHandlerOptions {
  /** The file to append to. Its directory is created by `start()`. */
  readonly file: string;
  readonly logger: Logger;
  /** The handler's name (unique among the agent's handlers; labels metrics and `/pods`). Default `json-lines`. */
  readonly name?: string;
  /** Where the `time` field comes from. Default: the system clock. */
  readonly clock?: Clock;
}

/** One line of the file: what was called, for which pod. Never the pod spec. */
export type JsonLinesRecord =
  | {
      readonly time: string;
      readonly handler: string;
      readonly call: SyncPodRequest['type'];
      /** `'ns/name'`; absent for an orphan a lister reported by UID alone (never `'/'`). */
      readonly pod?: string;
      readonly uid: string;
      readonly source: string;
      readonly attempt: number;
    }
  | {
      readonly time: string;
      readonly handler: string;
      readonly call: 'kill';
      readonly reason: KillPodRequest['reason'];
      readonly pod?: string;
      readonly uid: string;
      readonly gracePeriodSeconds: number;
      readonly attempt: number;
    };

/**
 * An example sync handler: appends one JSON line ({@link JsonLinesRecord}) per `syncPod` /
 * `killPod` call to a file. It shows the whole plugin contract in little code: calls are
 * idempotent records (a repeated call appends a repeated line), an aborted call returns without
 * writing, and a failed write throws a retryable `PODCONFIG_HANDLER_FAILED` so the agent retries.
 * The file is opened per call (`O_APPEND`), so it may be rotated or removed at any time; a removed
 * directory is created again.
 */
export class JsonLinesSyncHandler implements SyncHandler, StartableHandler {
  readonly name: string;
  readonly #file: string;
  readonly #clock: Clock;
  readonly #log: Logger;

  constructor(options: JsonLinesSyncHandlerOptions) {
    this.name = options.name ?? 'json-lines';
    this.#file = options.file;
    this.#clock = options.clock ?? systemClock;
    // The agent's context logger already carries `component: sync.<name it runs under>`; do not print it twice.
    const component = `sync.${this.name}`;
    this.#log = options.logger.bindings()['component'] === undefined ? options.logger.child({ component }) : options.logger;
  }

  async start(_signal: AbortSignal): Promise<void> {
    try {
      await mkdir(dirname(this.#file), { recursive: true });
    } catch (err: unknown) {
      throw new PodConfigError('PODCONFIG_HANDLER_FAILED', `${this.name}: cannot create the directory of ${this.#file}`, { cause: err, retryable: true });
    }
    this.#log.info({ file: this.#file }, 'appending handler calls to file');
  }

  async syncPod(request: SyncPodRequest, signal: AbortSignal): Promise<void> {
    const { type, pod, source, attempt } = request;
    await this.#append({ time: this.#now(), handler: this.name, call: type, ...podFields(pod), source, attempt }, signal);
  }

  async killPod(request: KillPodRequest, signal: AbortSignal): Promise<void> {
    const { reason, pod, gracePeriodSeconds, attempt } = request;
    await this.#append(
      { time: this.#now(), handler: this.name, call: 'kill', reason, ...podFields(pod), gracePeriodSeconds, attempt },
      signal,
    );
  }

  #now(): string {
    return new Date(this.#clock.now()).toISOString();
  }

  async #append(record: JsonLinesRecord, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return; // timed out or shutting down before we started: not an error
    const line = `${JSON.stringify(record)}\n`;
    try {
      try {
        await appendFile(this.#file, line, { flag: 'a' });
      } catch (err: unknown) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        await mkdir(dirname(this.#file), { recursive: true }); // the directory was removed: recreate it once
        await appendFile(this.#file, line, { flag: 'a' });
      }
    } catch (err: unknown) {
      throw new PodConfigError('PODCONFIG_HANDLER_FAILED', `${this.name}: cannot append to ${this.#file} for ${record.call} of ${describe(record)}`, {
        cause: err, retryable: true,
      });
    }
    this.#log.debug({ op: record.call, ...(record.pod === undefined ? {} : { pod: record.pod }), uid: record.uid }, 'call recorded');
  }
}

/**
 * How a record names a pod, as the built-in handlers log one: `pod: 'ns/name'` and `uid`. An orphan a
 * lister reported by UID alone has no namespace or name: it gets `uid` only, not `pod: '/'`.
 */
function podFields(pod: Pod): { readonly pod?: string; readonly uid: string } {
  const known = (pod.metadata?.namespace ?? '') !== '' || (pod.metadata?.name ?? '') !== '';
  return known ? { pod: podRef(pod), uid: podUid(pod) } : { uid: podUid(pod) };
}

/** `pod ns/name`, or `pod with uid …` for an orphan known by UID alone. */
function describe(record: JsonLinesRecord): string {
  return record.pod === undefined ? `pod with uid ${record.uid}` : `pod ${record.pod}`;
}
