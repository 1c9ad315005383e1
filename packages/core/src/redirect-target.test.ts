import { describe, expect, it } from 'vitest';
import { PodConfigError } from './errors.js';
import { redirectTarget } from './redirect-target.js';

const from = new URL('https://a.example/pods');
const at = (location: string, redirectsFollowed = 0, base = from): URL =>
  redirectTarget(base, location, { redirectsFollowed, maxRedirects: 9, describe: 'GET /pods' });
const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (err: unknown) {
    if (PodConfigError.is(err, 'PODCONFIG_REDIRECT') && err.retryable) return err.message;
    throw err;
  }
  throw new Error('no refusal');
};

describe('redirectTarget()', () => {
  it('resolves the Location against the URL, without userinfo or fragment', () => {
    expect(at('/other?x=1#frag').href).toBe('https://a.example/other?x=1');
    expect(at('https://u:p@b.example:8443/p').href).toBe('https://b.example:8443/p');
    expect(at('https://c.example/', 0, new URL('http://a.example/')).href).toBe('https://c.example/'); // http → https
  });

  it('refuses other schemes, a downgrade to http, an invalid Location and the redirect past the limit', () => {
    expect(refusal(() => at('ftp://a.example/x'))).toBe('GET /pods: redirect to a ftp: URL refused');
    expect(refusal(() => at('http://a.example/x'))).toBe('GET /pods: redirect from https: to http: refused (no downgrade)');
    expect(refusal(() => at('http://[::1', 0, new URL('http://a.example/')))).toBe('GET /pods: redirect to an invalid Location');
    expect(at('/ninth', 8).pathname).toBe('/ninth');
    expect(refusal(() => at('/tenth', 9))).toBe('GET /pods: stopped after 10 requests (9 redirects followed)');
  });
});
