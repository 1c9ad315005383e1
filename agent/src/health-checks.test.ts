import { describe, expect, it } from 'vitest';
import { healthAnswer, type HealthCheck } from './health-checks.js';

const checks = (failing: Readonly<Record<string, string>>): HealthCheck[] =>
  ['ping', 'source/api'].map((name) => ({ name, check: () => failing[name] }));
const none = new URLSearchParams();

describe('healthAnswer()', () => {
  it('answers a single check that fails with the endpoint\'s failure status, naming it before the reason', () => {
    const failing = checks({ 'source/api': 'not ready: list failed' });
    expect(healthAnswer('readyz', failing, 'source/api', none, 503)).toEqual({ status: 503, body: 'service unavailable: not ready: list failed' });
    expect(healthAnswer('healthz', failing, 'source/api', none)).toEqual({ status: 500, body: 'internal server error: not ready: list failed' });
    expect(healthAnswer('readyz', failing, 'ping', none, 503)).toEqual({ status: 200, body: 'ok' });
    expect(healthAnswer('readyz', failing, 'nope', none, 503)).toBeUndefined();
  });

  it('answers the endpoint with the same status, every reason withheld', () => {
    const failing = checks({ 'source/api': 'not ready: list failed' });
    expect(healthAnswer('readyz', failing, undefined, new URLSearchParams('verbose'), 503)).toEqual({
      status: 503, body: '[+]ping ok\n[-]source/api failed: reason withheld\nreadyz check failed',
    });
    expect(healthAnswer('readyz', checks({}), undefined, new URLSearchParams('verbose'), 503)).toEqual({
      status: 200, body: '[+]ping ok\n[+]source/api ok\nreadyz check passed',
    });
  });
});
