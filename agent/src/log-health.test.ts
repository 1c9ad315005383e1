import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOG_BLOCKED_AFTER_MS, LOG_FLUSH_PERIOD_MS, LogHealth, type FlushLogs } from './log-health.js';

describe('LogHealth (the kubelet\'s log health check)', () => {
  let now = 0;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    now = 1_000;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Advances the check's clock and the interval timers together. */
  const advance = (ms: number): void => {
    for (let left = ms; left > 0; left -= 1_000) {
      now += Math.min(1_000, left);
      vi.advanceTimersByTime(Math.min(1_000, left));
    }
  };

  it('flushes at the first probe and every minute after, and passes while the flushes complete', () => {
    let flushes = 0;
    const health = new LogHealth({ flush: (cb) => { flushes++; cb(); }, now: () => now });
    expect(flushes).toBe(0); // nothing before a probe, as the kubelet's starts on its first
    expect(health.check()).toBeUndefined();
    expect(flushes).toBe(1);
    advance(10 * LOG_FLUSH_PERIOD_MS);
    expect(flushes).toBe(11);
    expect(health.check()).toBeUndefined();
    health.close();
    advance(LOG_FLUSH_PERIOD_MS);
    expect(flushes).toBe(11);
  });

  it('fails with "logging blocked" once no flush has completed for two minutes, and passes again after one does', () => {
    let pending: Parameters<FlushLogs>[0] | undefined;
    const health = new LogHealth({ flush: (cb) => { pending ??= cb; }, now: () => now });
    expect(health.check()).toBeUndefined();
    advance(LOG_BLOCKED_AFTER_MS - 1_000);
    expect(health.check()).toBeUndefined();
    advance(1_000);
    expect(health.check()).toBe('logging blocked');
    pending?.(); // the destination took the lines at last
    expect(health.check()).toBeUndefined();
    health.close();
  });

  it('does not count a flush that failed', () => {
    const health = new LogHealth({ flush: (cb) => cb(new Error('SonicBoom destroyed')), now: () => now });
    expect(health.check()).toBeUndefined();
    advance(LOG_BLOCKED_AFTER_MS);
    expect(health.check()).toBe('logging blocked');
    health.close();
  });
});
