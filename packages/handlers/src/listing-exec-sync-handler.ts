import type { Logger } from 'pino';
import { PodConfigError, runCommand, type ActualPod, type CommandResult, type PodLister } from '@podconfig/core';
import { componentLogger } from './component-logger.js';
import {
  EXEC_DEFAULT_KILL_GRACE_MS, EXEC_DEFAULT_TIMEOUT_MS, EXEC_OUTPUT_LIMIT, ExecSyncHandler, checkResult, execEnv,
  type ExecSyncHandlerOptions,
} from './exec-sync-handler.js';

export interface ListingExecSyncHandlerOptions extends ExecSyncHandlerOptions {
  /** The command that reports the pods that actually run. */
  readonly list: { readonly command: string; readonly args?: readonly string[] };
}

/** The largest list output accepted (about 250,000 UIDs). */
export const EXEC_LIST_OUTPUT_LIMIT = 16 * 1024 * 1024;

/**
 * An {@link ExecSyncHandler} that also implements {@link PodLister}: `listPods()` runs the
 * `list` command (no shell, empty stdin, `PODCONFIG_OP=list`) and reads its stdout as a JSON
 * array of strings, each a pod UID or `namespace/name`. The agent builds this class only when a
 * list command is configured, so `isPodLister()` tells the two apart.
 */
export class ListingExecSyncHandler extends ExecSyncHandler implements PodLister {
  readonly #o: ListingExecSyncHandlerOptions;
  readonly #log: Logger;

  constructor(options: ListingExecSyncHandlerOptions) {
    super(options);
    this.#o = options;
    this.#log = componentLogger(options.logger, 'sync.exec');
  }

  /** Rejects with `signal.reason` when aborted: a listing cut short has no answer. */
  async listPods(signal: AbortSignal): Promise<readonly ActualPod[]> {
    signal.throwIfAborted();
    const { command, args = [] } = this.#o.list;
    const timeoutMs = this.#o.timeoutMs ?? EXEC_DEFAULT_TIMEOUT_MS;
    let result: CommandResult;
    try {
      result = await runCommand({
        command,
        args,
        env: execEnv(this.#o, 'list'),
        stdin: '',
        timeoutMs,
        killGraceMs: this.#o.killGraceMs ?? EXEC_DEFAULT_KILL_GRACE_MS,
        stdoutLimit: EXEC_LIST_OUTPUT_LIMIT,
        stderrLimit: EXEC_OUTPUT_LIMIT,
        onStderrLine: (line) => this.#log.warn({ op: 'list', stream: 'stderr', line }, 'command output'),
      }, signal);
    } catch (err: unknown) {
      throw new PodConfigError('PODCONFIG_HANDLER_FAILED', `exec: cannot start list command ${command}`, {
        cause: err,
        retryable: true,
      });
    }
    if (result.aborted) signal.throwIfAborted();
    checkResult(command, result, timeoutMs, 'list');
    if (result.stdoutDropped > 0) {
      throw new PodConfigError('PODCONFIG_HANDLER_FAILED',
        `exec: list command ${command} wrote more than ${EXEC_LIST_OUTPUT_LIMIT} bytes`, { retryable: true });
    }
    return parseList(command, result.stdout.toString('utf8'));
  }
}

function parseList(command: string, text: string): ActualPod[] {
  const bad = (detail: string, cause?: unknown): PodConfigError =>
    new PodConfigError('PODCONFIG_HANDLER_FAILED',
      `exec: list command ${command} must print a JSON array of pod UIDs or "namespace/name" strings: ${detail}`,
      { retryable: true, ...(cause === undefined ? {} : { cause }) });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err: unknown) {
    throw bad('output is not JSON', err);
  }
  if (!Array.isArray(value)) throw bad('output is not an array');
  return value.map((item: unknown, index): ActualPod => {
    if (typeof item !== 'string' || item === '') throw bad(`item ${index} is not a non-empty string`);
    const slash = item.indexOf('/');
    if (slash === -1) return { uid: item };
    const namespace = item.slice(0, slash);
    const name = item.slice(slash + 1);
    if (namespace === '' || name === '' || name.includes('/')) throw bad(`item ${index} is not "namespace/name"`);
    return { namespace, name };
  });
}
