import { STATUS_CODES } from 'node:http';

/** One named check of a health endpoint: undefined when it passes, else why it fails. */
export interface HealthCheck {
  readonly name: string;
  readonly check: () => string | undefined;
}

/** What a health endpoint answers. */
export interface HealthAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * A Kubernetes component's health endpoint (k8s.io/apiserver `healthz`): `/<endpoint>` runs every check but those
 * named by `?exclude=` (each listed as `[+]<name> excluded: ok`; a name that matches none gets a `warn:` line) and
 * answers `ok`, or with `?verbose` each check and `<endpoint> check passed`; when one fails, `failStatus` (500 in
 * Kubernetes) with every check listed and the failures' reasons withheld, and `<endpoint> check failed`.
 * `/<endpoint>/<check>` (`path`: `<check>`, undefined for the endpoint itself) runs that check alone: `ok`, or
 * `failStatus` too, its reason given after the status's name (`internal server error: <reason>` for 500, as
 * Kubernetes answers; `service unavailable: <reason>` for 503); `undefined` for a name that is no check
 * (`/healthz/` included).
 */
export function healthAnswer(endpoint: string, checks: readonly HealthCheck[], path: string | undefined, query: URLSearchParams, failStatus = 500): HealthAnswer | undefined {
  if (path !== undefined) {
    const one = checks.find((c) => c.name === path);
    if (one === undefined) return undefined;
    const reason = one.check();
    return reason === undefined
      ? { status: 200, body: 'ok' }
      : { status: failStatus, body: `${(STATUS_CODES[failStatus] ?? 'error').toLowerCase()}: ${reason}` };
  }
  const excluded = new Set(query.getAll('exclude')); // as given, untrimmed, as Kubernetes takes them
  const lines: string[] = [];
  let failed = false;
  for (const c of checks) {
    if (excluded.delete(c.name)) {
      lines.push(`[+]${c.name} excluded: ok`);
    } else if (c.check() === undefined) {
      lines.push(`[+]${c.name} ok`);
    } else {
      lines.push(`[-]${c.name} failed: reason withheld`);
      failed = true;
    }
  }
  if (excluded.size > 0) {
    lines.push(`warn: some health checks cannot be excluded: no matches for ${[...excluded].sort().map((e) => `"${e}"`).join(',')}`);
  }
  if (failed) return { status: failStatus, body: [...lines, `${endpoint} check failed`].join('\n') };
  return { status: 200, body: query.has('verbose') ? [...lines, `${endpoint} check passed`].join('\n') : 'ok' };
}
