import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { spawnPiped } from './builtins-on-first-use.js';
import { LineCapture } from './line-capture.js';
import { oweProcessGroup, processGroupKillDue, releaseProcessGroup, releaseProcessGroupIfEmpty } from './owed-process-groups.js';

export interface RunCommandOptions {
  /** The program; run directly, never through a shell. */
  readonly command: string;
  readonly args: readonly string[];
  /** The child's complete environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Written to the child's stdin, which is then closed. A child that does not read it is fine. */
  readonly stdin: string;
  readonly timeoutMs: number;
  /** After SIGTERM, how long the process group gets before SIGKILL. */
  readonly killGraceMs: number;
  readonly stdoutLimit: number;
  readonly stderrLimit: number;
  readonly onStdoutLine?: (line: string) => void;
  readonly onStderrLine?: (line: string) => void;
}

export interface CommandResult {
  readonly pid: number | undefined;
  /** The exit code, or null when a signal ended the process. */
  readonly exitCode: number | null;
  readonly exitSignal: NodeJS.Signals | null;
  /** `timeoutMs` passed, before any abort, and the process group was killed. */
  readonly timedOut: boolean;
  /** `signal` aborted, before any timeout, and the process group was killed; a timeout is no longer counted. */
  readonly aborted: boolean;
  readonly stdout: Buffer;
  readonly stdoutDropped: number;
  readonly stderr: Buffer;
  readonly stderrDropped: number;
}

/**
 * After the child exits, how long its output pipes may stay open (held by a process it left
 * running in the background) before we stop reading them.
 */
const DRAIN_AFTER_EXIT_MS = 1000;

/**
 * Runs a program without a shell in its own process group and waits until it has exited and
 * been reaped. On timeout or abort the whole group gets SIGTERM, then SIGKILL after
 * `killGraceMs` (also when the program itself has exited by then: what it left running in the group goes
 * too); the promise still waits for the program's exit, so no process is left behind unwaited.
 * Rejects only when the program cannot be started (ENOENT, EACCES, …).
 */
export function runCommand(options: RunCommandOptions, signal: AbortSignal): Promise<CommandResult> {
  return new Promise<CommandResult>((resolve, reject) => {
    const stdout = new LineCapture({ limit: options.stdoutLimit, ...lineOption(options.onStdoutLine) });
    const stderr = new LineCapture({ limit: options.stderrLimit, ...lineOption(options.onStderrLine) });
    if (signal.aborted) {
      resolve({ pid: undefined, exitCode: null, exitSignal: null, timedOut: false, aborted: true,
        stdout: stdout.end(), stdoutDropped: 0, stderr: stderr.end(), stderrDropped: 0 });
      return;
    }
    let child: ChildProcessByStdio<Writable, Readable, Readable>;
    try {
      child = spawnPiped(options.command, options.args, {
        env: options.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true, // own process group: a timeout kills the script's children too
        shell: false,
        windowsHide: true,
      });
    } catch (err: unknown) {
      reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }

    let timedOut = false;
    let aborted = false;
    let terminating = false;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const killGroup = (sig: NodeJS.Signals): void => {
      const pid = child.pid;
      if (pid === undefined) return;
      try {
        process.kill(-pid, sig);
      } catch {
        // ESRCH: the group is gone already.
      }
    };
    const terminate = (): void => {
      if (terminating) return;
      terminating = true;
      const pid = child.pid;
      if (pid === undefined) return; // never started: no group to stop
      killGroup('SIGTERM');
      processGroupKillDue(pid);
      graceTimer = setTimeout(() => {
        if (releaseProcessGroupIfEmpty(pid)) return; // its id may be another's now
        killGroup('SIGKILL');
        releaseProcessGroup(pid);
      }, options.killGraceMs);
    };
    const onAbort = (): void => {
      aborted = true;
      // The call is over for the caller: a timeout passing while the group is killed (a child that ignores
      // SIGTERM lives on for killGraceMs) must not turn the abort into a timeout.
      clearTimeout(timeoutTimer);
      terminate();
    };
    const timeoutTimer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, options.timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    // Owed until the leader exits by itself or the SIGKILL is sent: at this process's exit, it gets it at once.
    if (child.pid !== undefined) oweProcessGroup(child.pid);

    const cleanup = (): void => {
      settled = true;
      clearTimeout(timeoutTimer);
      // Once the group was told to stop, its SIGKILL stays due: the leader may have exited on SIGTERM while a
      // process it left in the background ignores it (and held the pipes until the drain gave up on them). Unref'd:
      // the call is over, and a pending kill must not keep the caller's process alive (at its exit the kill is
      // sent at once; processGroupKillsSettled() waits for it).
      if (!terminating) clearTimeout(graceTimer);
      else graceTimer?.unref();
      clearTimeout(drainTimer);
      signal.removeEventListener('abort', onAbort);
    };

    child.on('error', (err: Error) => {
      if (settled || child.pid !== undefined) return; // a failed kill() after the start: 'close' still follows
      cleanup();
      reject(err);
    });
    child.on('exit', () => {
      if (settled) return;
      // It exited: its result stands. Neither the timeout nor an abort may now kill what it left running in the
      // background, nor turn its exit into a timeout, while the pipes drain.
      if (!terminating) {
        clearTimeout(timeoutTimer);
        signal.removeEventListener('abort', onAbort);
        if (child.pid !== undefined) releaseProcessGroup(child.pid);
      } else if (child.pid !== undefined && releaseProcessGroupIfEmpty(child.pid)) {
        clearTimeout(graceTimer); // the SIGTERM ended the whole group: no SIGKILL is due
      }
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, DRAIN_AFTER_EXIT_MS);
    });
    child.on('close', (code: number | null, sig: NodeJS.Signals | null) => {
      if (settled) return;
      cleanup();
      resolve({
        pid: child.pid,
        exitCode: code,
        exitSignal: sig,
        timedOut,
        aborted: aborted && !timedOut,
        stdout: stdout.end(),
        stdoutDropped: stdout.dropped,
        stderr: stderr.end(),
        stderrDropped: stderr.dropped,
      });
    });

    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdout.on('error', ignore);
    child.stderr.on('error', ignore);
    child.stdin.on('error', ignore); // EPIPE when the child exits without reading its input
    child.stdin.end(options.stdin);
  });
}

function lineOption(onLine: ((line: string) => void) | undefined): { onLine?: (line: string) => void } {
  return onLine === undefined ? {} : { onLine };
}

function ignore(): void {
  // Stream errors on a child's pipes are reflected in its exit status.
}
