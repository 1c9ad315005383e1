import { describe, expect, it } from 'vitest';
import { THROTTLE_FROM_MS, ThrottledJson } from './throttled-json.js';

/** A clock the build advances by `cost` ms, and the test by hand. */
function setUp(cost: () => number) {
  let now = 0;
  let builds = 0;
  const body = new ThrottledJson(() => {
    builds += 1;
    now += cost();
    return { builds };
  }, () => now);
  return { body, builds: () => builds, advance: (ms: number) => void (now += ms) };
}

describe(ThrottledJson.name, () => {
  it('builds a cheap body at every call', () => {
    const t = setUp(() => THROTTLE_FROM_MS - 1);
    expect([t.body.text(), t.body.text(), t.body.text()]).toEqual(['{"builds":1}', '{"builds":2}', '{"builds":3}']);
  });

  it('reuses a costly body for five times its build time after it was built, then builds again', () => {
    let cost = 200;
    const t = setUp(() => cost);
    expect(t.body.text()).toBe('{"builds":1}');
    t.advance(999);
    expect(t.body.text()).toBe('{"builds":1}');
    t.advance(1);
    cost = 1; // the set shrank: the new body is cheap, so it is not kept
    expect(t.body.text()).toBe('{"builds":2}');
    expect(t.body.text()).toBe('{"builds":3}');
    expect(t.builds()).toBe(3);
  });
});
