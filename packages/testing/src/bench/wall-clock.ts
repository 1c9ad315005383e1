import { performance } from 'node:perf_hooks';

const SPIN_MS = 5;

/**
 * How far `performance.timeOrigin` is from the system clock in this process. Node.js reads the wall clock and the
 * monotonic clock once each as the process starts, and a process descheduled between the two reads (a loaded VM)
 * keeps the gap as an error for its whole life (up to 0.39 ms here; a bench run once measured the limit's edit
 * latency at −1.0 ms across two processes). The only exact reading `Date.now()` gives is the moment it ticks, so
 * this spins across several ticks (5 ms, once, as the module loads) and keeps the largest difference seen: that
 * comes from a reading just after a tick. A spin across a single tick (1.5 ms) could miss that moment in a process
 * descheduled around it: of 40 processes started beside two busy loops, 7 kept an offset 0.05–0.33 ms short of a
 * 50 ms spin's (a bench run then put client-node's p50 at −0.08 ms); with 5 ms, none was more than 0.04 ms short.
 */
function systemClockOffset(): number {
  let offset = -Infinity;
  const until = performance.now() + SPIN_MS;
  do {
    const d = Date.now() - (performance.timeOrigin + performance.now());
    if (d > offset) offset = d;
  } while (performance.now() < until);
  return offset;
}

const offset = systemClockOffset();

/**
 * Wall-clock milliseconds with sub-millisecond precision, on the system clock: times stamped by different processes
 * of one machine compare (Go: `UnixNano / 1e6`).
 */
export const wallNow = (): number => performance.timeOrigin + performance.now() + offset;
