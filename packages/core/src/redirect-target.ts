import { PodConfigError } from './errors.js';

/** The statuses Go's client follows when they carry a `Location`. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Where a redirect from `from` to `location` leads, by the rules both HTTP clients follow (Go's client's,
 * with https → http refused): http or https only, at most `maxRedirects` followed (Go stops once 10
 * requests were sent, so 9), the target without userinfo or fragment. Throws `PODCONFIG_REDIRECT` (retryable:
 * the server's configuration may change) with `describe` in front of the reason. The caller drops
 * credentials when the target's origin differs from `from`'s.
 */
export function redirectTarget(from: URL, location: string, o: { readonly redirectsFollowed: number; readonly maxRedirects: number; readonly describe: string }): URL {
  const refuse = (why: string, cause?: unknown): PodConfigError =>
    new PodConfigError('PODCONFIG_REDIRECT', `${o.describe}: ${why}`, { retryable: true, ...(cause === undefined ? {} : { cause }) });
  let next: URL;
  try {
    next = new URL(location, from);
  } catch (err: unknown) {
    throw refuse('redirect to an invalid Location', err);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') throw refuse(`redirect to a ${next.protocol} URL refused`);
  if (from.protocol === 'https:' && next.protocol === 'http:') throw refuse('redirect from https: to http: refused (no downgrade)');
  if (o.redirectsFollowed >= o.maxRedirects) {
    throw refuse(`stopped after ${o.redirectsFollowed + 1} requests (${o.maxRedirects} redirects followed)`);
  }
  next.username = '';
  next.password = '';
  next.hash = '';
  return next;
}
