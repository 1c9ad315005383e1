import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** USER_HZ: /proc/stat counts in hundredths of a second on the Linux machines the bench runs on. */
const TICKS_PER_SECOND = 100;

/** The steal time of all CPUs together (ticks) from /proc/stat's `cpu` line; undefined where there is none. */
function stealTicks(): number | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
    // cpu user nice system idle iowait irq softirq steal …
    const steal = Number(fields[8]);
    return fields[0] === 'cpu' && Number.isFinite(steal) ? steal : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts measuring VM steal: the returned function gives the share (%) of the machine's CPU time, all vCPUs
 * together, that the hypervisor gave to other guests since, while these vCPUs had work to run. On a shared VM
 * that is what makes one run of a client slower than the next; the runner records it per run so that a slow
 * run can be told from a slower client.
 */
export function stealMeter(): () => number | undefined {
  const startedAt = performance.now();
  const before = stealTicks();
  return () => {
    const after = stealTicks();
    const seconds = (performance.now() - startedAt) / 1000;
    if (before === undefined || after === undefined || seconds <= 0) return undefined;
    return ((after - before) / TICKS_PER_SECOND / (seconds * cpus().length)) * 100;
  };
}
