import type { Logger } from 'pino';
import {
  ANNOTATIONS, PodConfigError, podUid, runCommand,
  type CommandResult, type KillPodRequest, type Pod, type SyncHandler, type SyncPodRequest,
} from '@podconfig/core';
import { componentLogger } from './component-logger.js';
import { nonEmptyString, positiveMs } from './constructor-checks.js';
import { podDescription, podLogFields } from './pod-log-fields.js';

export interface ExecSyncHandlerOptions {
  /** The program to run, by path or looked up in `PATH`; never run through a shell. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Per call; default 30 s. */
  readonly timeoutMs?: number;
  /** After SIGTERM on timeout or abort, how long the process group gets before SIGKILL; default 5 s. */
  readonly killGraceMs?: number;
  /** Added to `baseEnv`; the `PODCONFIG_*` / `POD_*` variables win over both. */
  readonly env?: Readonly<Record<string, string>>;
  /** The environment the command inherits; default `process.env`. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Passed as `PODCONFIG_NODE_NAME`. */
  readonly nodeName: string;
  readonly logger: Logger;
}

export const EXEC_DEFAULT_TIMEOUT_MS = 30_000;
export const EXEC_DEFAULT_KILL_GRACE_MS = 5_000;
/** Captured output per stream and call; more is counted and dropped. */
export const EXEC_OUTPUT_LIMIT = 64 * 1024;

/**
 * Runs a command once per call, without a shell: the pod as JSON on stdin, the operation and the
 * pod's identity in the environment (`PODCONFIG_OP`, `POD_NAMESPACE`, `POD_NAME`, `POD_UID`,
 * `PODCONFIG_SOURCE`, `PODCONFIG_NODE_NAME`; for kills also `PODCONFIG_KILL_REASON` and
 * `PODCONFIG_GRACE_PERIOD_SECONDS`). Exit 0 is success; anything else throws. stdout lines are
 * logged at debug, stderr lines at warn, each with the pod's fields.
 */
export class ExecSyncHandler implements SyncHandler {
  readonly name: string = 'exec';
  readonly #o: ExecSyncHandlerOptions;
  readonly #log: Logger;
  /**
   * Pod UID → its command's run, until the process group is reaped. The reconciler never overlaps calls for a pod,
   * but it abandons one at its own time limit, while the command may still run (its `timeoutMs` and `killGraceMs`
   * can outlast that limit): the next call for the pod waits for it, so a pod's hook never runs twice at once.
   */
  readonly #running = new Map<string, Promise<unknown>>();

  constructor(options: ExecSyncHandlerOptions) {
    nonEmptyString('exec', 'command', options.command);
    positiveMs('exec', 'timeoutMs', options.timeoutMs, EXEC_DEFAULT_TIMEOUT_MS);
    positiveMs('exec', 'killGraceMs', options.killGraceMs, EXEC_DEFAULT_KILL_GRACE_MS);
    this.#o = options;
    this.#log = componentLogger(options.logger, 'sync.exec');
  }

  async syncPod(request: SyncPodRequest, signal: AbortSignal): Promise<void> {
    const { type, pod, source } = request;
    await this.#call(type, pod, { PODCONFIG_SOURCE: source }, signal);
  }

  async killPod(request: KillPodRequest, signal: AbortSignal): Promise<void> {
    const { reason, pod, gracePeriodSeconds } = request;
    await this.#call('kill', pod, {
      PODCONFIG_SOURCE: pod.metadata?.annotations?.[ANNOTATIONS.configSource] ?? '',
      PODCONFIG_KILL_REASON: reason,
      PODCONFIG_GRACE_PERIOD_SECONDS: String(gracePeriodSeconds),
    }, signal);
  }

  async #call(op: string, pod: Pod, extraEnv: Readonly<Record<string, string>>, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    const fields = { op, ...podLogFields(pod) };
    const what = `${op} of ${podDescription(pod)}`;
    const uid = podUid(pod);
    const previous = this.#running.get(uid);
    if (previous !== undefined) {
      this.#log.debug(fields, 'waiting for the pod\'s previous command, abandoned by the reconciler, to end');
      await untilSettledOrAborted(previous, signal);
      // Aborted while waiting: this call never started its command (the reconciler retries it).
      if (signal.aborted) return;
    }
    const timeoutMs = this.#o.timeoutMs ?? EXEC_DEFAULT_TIMEOUT_MS;
    let result: CommandResult;
    const run = this.#run(op, pod, extraEnv, fields, timeoutMs, signal);
    this.#running.set(uid, run);
    try {
      result = await run;
    } catch (err: unknown) {
      throw new PodConfigError('PODCONFIG_HANDLER_FAILED', `exec: cannot start ${this.#o.command} for ${what}`, {
        cause: err,
        retryable: true,
      });
    } finally {
      if (this.#running.get(uid) === run) this.#running.delete(uid);
    }
    if (result.stdoutDropped > 0 || result.stderrDropped > 0) {
      this.#log.warn({ ...fields, stdoutDropped: result.stdoutDropped, stderrDropped: result.stderrDropped },
        'command output truncated');
    }
    if (result.aborted) return;
    checkResult(this.#o.command, result, timeoutMs, what);
    this.#log.debug({ ...fields, pid: result.pid }, 'command succeeded');
  }

  #run(
    op: string, pod: Pod, extraEnv: Readonly<Record<string, string>>, fields: Readonly<Record<string, unknown>>, timeoutMs: number,
    signal: AbortSignal,
  ): Promise<CommandResult> {
    return runCommand({
      command: this.#o.command,
      args: this.#o.args ?? [],
      env: {
        ...execEnv(this.#o, op),
        POD_NAMESPACE: pod.metadata?.namespace ?? '',
        POD_NAME: pod.metadata?.name ?? '',
        POD_UID: podUid(pod),
        ...extraEnv,
      },
      stdin: JSON.stringify(pod),
      timeoutMs,
      killGraceMs: this.#o.killGraceMs ?? EXEC_DEFAULT_KILL_GRACE_MS,
      stdoutLimit: EXEC_OUTPUT_LIMIT,
      stderrLimit: EXEC_OUTPUT_LIMIT,
      onStdoutLine: (line) => this.#log.debug({ ...fields, stream: 'stdout', line }, 'command output'),
      onStderrLine: (line) => this.#log.warn({ ...fields, stream: 'stderr', line }, 'command output'),
    }, signal);
  }
}

/** Resolves when `run` settles (either way) or `signal` aborts, whichever comes first. */
function untilSettledOrAborted(run: Promise<unknown>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    run.then(done, done);
  });
}

/** The environment every command of these options gets: base, configured, then ours. */
export function execEnv(
  options: Pick<ExecSyncHandlerOptions, 'baseEnv' | 'env' | 'nodeName'>,
  op: string,
): Record<string, string | undefined> {
  return {
    ...(options.baseEnv ?? process.env),
    ...options.env,
    PODCONFIG_OP: op,
    PODCONFIG_NODE_NAME: options.nodeName,
  };
}

/** Throws the handler error for a timed-out, failed or signalled command; returns on exit 0. */
export function checkResult(command: string, result: CommandResult, timeoutMs: number, what: string): void {
  if (result.timedOut) {
    throw new PodConfigError('PODCONFIG_HANDLER_TIMEOUT', `exec: ${command} timed out after ${timeoutMs} ms (killed) for ${what}`,
      { retryable: true });
  }
  if (result.exitCode === 0) return;
  const how = result.exitCode === null ? `was killed by ${result.exitSignal ?? 'a signal'}` : `exited with code ${result.exitCode}`;
  throw new PodConfigError('PODCONFIG_HANDLER_FAILED', `exec: ${command} ${how} for ${what}`, { retryable: true });
}
