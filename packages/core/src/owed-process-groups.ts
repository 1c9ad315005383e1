import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The process groups {@link runCommand} started whose end this process still owes: a leader still running,
 * or a SIGKILL due after the grace a SIGTERM gave. The SIGKILL is a timer in this process: were the process to
 * exit first, a member that ignores SIGTERM (a hook's background child) would outlive it, re-parented to init.
 * So at exit every owed group gets its SIGKILL at once, and a process that can wait calls
 * {@link processGroupKillsSettled} before it exits, which keeps each group's grace.
 *
 * A group whose leader exited on its own is not owed: what it left in the background was its choice (a hook
 * may start a pod's process that way).
 */
const owed = new Map<number, { killDue: boolean }>();
let exitHookInstalled = false;

const POLL_MS = 50;

/** @internal A group whose leader runs: owed until the leader exits by itself or the group's SIGKILL was sent. */
export function oweProcessGroup(pgid: number): void {
  owed.set(pgid, { killDue: false });
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Synchronous, as an exit listener must be: a signal to each group, nothing to wait for.
    process.on('exit', killOwedProcessGroups);
  }
}

/** @internal The group was sent SIGTERM; its SIGKILL is due after the grace. */
export function processGroupKillDue(pgid: number): void {
  const group = owed.get(pgid);
  if (group !== undefined) group.killDue = true;
}

/** @internal The leader exited by itself (nothing due), or the group's SIGKILL was sent. */
export function releaseProcessGroup(pgid: number): void {
  owed.delete(pgid);
}

/**
 * @internal Releases the group when it has no member left, and says whether it is no longer this process's to
 * signal (empty now, or let go before). An empty group's id is free for the kernel to give to another process,
 * which a SIGKILL sent later, by the grace timer or at exit, would hit: so the group is let go as soon as it is
 * known to be empty (at the leader's exit, and each time the pending kills are looked at).
 */
export function releaseProcessGroupIfEmpty(pgid: number): boolean {
  if (!owed.has(pgid)) return true;
  if (groupAlive(pgid)) return false;
  owed.delete(pgid);
  return true;
}

/** The groups with a SIGKILL still due (told to stop with SIGTERM, grace not over, a member left). */
export function processGroupKillsPending(): readonly number[] {
  return [...owed].filter(([pgid, g]) => g.killDue && !releaseProcessGroupIfEmpty(pgid)).map(([pgid]) => pgid);
}

/**
 * Resolves once no group started by {@link runCommand} has a SIGKILL due: each has been sent it at the end of
 * its grace, or has no member left. For a process about to exit after aborting its commands (the agent at
 * shutdown): exiting first would cut the grace short (the exit hook sends SIGKILL at once).
 */
export async function processGroupKillsSettled(signal?: AbortSignal): Promise<void> {
  while (processGroupKillsPending().length > 0 && signal?.aborted !== true) {
    await sleep(POLL_MS, undefined, signal === undefined ? undefined : { signal }).catch(() => undefined);
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err: unknown) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH'; // EPERM: a member runs as another user
  }
}

function killOwedProcessGroups(): void {
  for (const pgid of owed.keys()) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // ESRCH: the group is gone already.
    }
  }
  owed.clear();
}
