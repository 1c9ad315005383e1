import { describe, expect, it } from 'vitest';
import { ManualClock } from './manual-clock.js';

describe(ManualClock.name, () => {
  it('ends a sleep only once advance() reaches it, and at once on abort', async () => {
    const clock = new ManualClock({ start: 1_000 });
    const ended: string[] = [];
    const abort = new AbortController();
    const short = clock.sleep(10, new AbortController().signal).then(() => ended.push('short'));
    const long = clock.sleep(30, new AbortController().signal).then(() => ended.push('long'));
    const aborted = clock.sleep(60_000, abort.signal).then(() => ended.push('aborted'));
    expect(clock.pendingSleeps).toBe(3);
    clock.advance(9);
    await Promise.resolve();
    expect(ended).toEqual([]);
    clock.advance(1);
    await short;
    expect(ended).toEqual(['short']);
    abort.abort();
    await aborted;
    expect(ended).toEqual(['short', 'aborted']);
    clock.stepWall(-500); // a wall-clock step ends no sleep
    expect(clock.pendingSleeps).toBe(1);
    clock.advance(20);
    await long;
    expect(ended).toEqual(['short', 'aborted', 'long']);
    expect([clock.now(), clock.monotonic()]).toEqual([1_000 + 30 - 500, 30]);
  });
});
