import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ConfigInvalidError, isLoopbackIp } from '@podconfig/core';
import type { Logger } from 'pino';
import type { MetricsExposition } from './metrics.js';
import type { StatusAddress } from './agent-config.js';
import { formatStatusAddress } from './status-address.js';
import { healthAnswer, type HealthCheck } from './health-checks.js';
import { IdleConnectionReaper } from './idle-connection-reaper.js';
import { LogHealth } from './log-health.js';
import { ThrottledJson } from './throttled-json.js';

/** What the status server shows; the agent implements it. */
export interface StatusProvider {
  readiness(): { readonly configured: readonly string[]; readonly ready: readonly string[]; readonly allReady: boolean };
  /** Why the `syncloop` health check fails (the reconciler's `syncLoopError()`), or `undefined`. */
  syncLoopError(): string | undefined;
  /** Body of GET /pods. */
  pods(): unknown;
  /** Body of GET /sources. */
  sources(): unknown;
  /**
   * Why source `name` fails now (its last error while it is unhealthy), or `undefined`: the reason
   * `/readyz/source/<name>` gives when the source is not ready. Optional: without it the reason is `not ready`.
   */
  sourceError?(name: string): string | undefined;
}

/**
 * What a {@link StatusServer} serves. `all`: every endpoint. `metrics`: `/metrics` and the health checks
 * (`/healthz`, `/livez`, `/readyz` and their single checks) only, 404 for `/pods`, `/sources` and the rest: what
 * `--metrics-bind-address` serves, beyond loopback if need be (kube-proxy's `--metrics-bind-address`).
 */
export type StatusEndpoints = 'all' | 'metrics';

export interface StatusServerOptions {
  readonly address: StatusAddress;
  /** Default `all`. */
  readonly endpoints?: StatusEndpoints;
  /**
   * How the user gave the address (`--metrics-bind-address`, or a config file's field), named with the server in
   * a failure to listen: `metrics server (--metrics-bind-address): cannot listen on …`. Default: the server alone.
   */
  readonly setting?: string;
  /** What /metrics serves: the agent's {@link AgentMetrics}, or any prom-client `Registry`. */
  readonly registry: MetricsExposition;
  readonly logger: Logger;
  /** A connection that moves no bytes this long is closed; default {@link IDLE_SOCKET_MS}. */
  readonly idleSocketMs?: number;
  /** Connections held at once; default {@link MAX_STATUS_CONNECTIONS}. */
  readonly maxConnections?: number;
  /** A connection whose request headers are not complete this long after it opened or its request began is closed (408); default {@link HEADERS_TIMEOUT_MS}. */
  readonly headersTimeoutMs?: number;
  /** The monotonic clock, in ms, that times the building of `/pods` and `/sources` bodies (see {@link ThrottledJson}); default `performance.now`. */
  readonly now?: () => number;
}

/**
 * Responses of /pods, /sources and /metrics (each the size of the pod set) built at once: a client that does
 * not read keeps its response in memory, so more wait for 503 instead of piling up.
 */
export const MAX_LARGE_RESPONSES = 4;
/** A connection that moves no bytes this long is closed (a reader that stalled holds a large response). */
export const IDLE_SOCKET_MS = 30_000;
/**
 * Connections held at once. Any local user can connect: thousands held open took the agent's file descriptors (1,024
 * under many units and containers), and with them its manifest reads. At the cap a new connection closes the one idle
 * the longest (no request in flight), and is itself closed only when every one held has a request in flight: 256
 * silent connections must not fail the liveness probe (see {@link IdleConnectionReaper}).
 */
export const MAX_STATUS_CONNECTIONS = 256;
/**
 * A connection must complete its request headers this soon after it opened (or, kept alive, after its next request
 * began), else it gets 408 and is closed: a slowloris, or a connection that never sends a request.
 */
export const HEADERS_TIMEOUT_MS = 5_000;
/**
 * How often Node.js checks connections against {@link HEADERS_TIMEOUT_MS} and the request timeout; its default,
 * 30 s, let a slowloris live up to 35 s.
 */
export const CONNECTIONS_CHECK_MS = 1_000;

/** Loopback names a browser can only have reached on purpose (`Host` checks against DNS rebinding). */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * `/healthz` and `/livez` (the kubelet's `ping`, `log` and `syncloop` checks), `/readyz` (`?verbose` lists each check,
 * as the Kubernetes components do), `/pods`, `/sources`, `/metrics`. Loopback by default; read-only; GET and
 * HEAD only. With `endpoints: 'metrics'`, `/metrics` and the health checks only (the metrics server): those hold no
 * pod data, so they answer any `Host`, and a source's error (what `/sources` shows) is withheld from its
 * `/readyz/source/<name>`; the connection cap, the header timeout and the large-response limit hold as here.
 */
export class StatusServer {
  readonly #o: StatusServerOptions;
  readonly #log: Logger;
  /** `endpoints: 'metrics'`: /metrics and the health checks only. */
  readonly #metricsOnly: boolean;
  /** What logs and errors call it. */
  readonly #name: 'status server' | 'metrics server';
  #largeInFlight = 0;
  /** `/pods` and `/sources`, reused for a while when they are costly to build (see {@link ThrottledJson}). */
  #podsBody: ThrottledJson | undefined;
  #sourcesBody: ThrottledJson | undefined;
  /** Bound to a loopback address: the state endpoints answer loopback Host names only. */
  #loopbackOnly = true;
  /** Settles once the server has stopped listening (after `signal` aborted). */
  #closed: Promise<void> = Promise.resolve();
  /** The syncloop check's last answer failed: its reason is logged when that starts, not on every probe. */
  #syncLoopFailed = false;
  readonly #logHealth: LogHealth;

  constructor(options: StatusServerOptions) {
    this.#o = options;
    this.#metricsOnly = options.endpoints === 'metrics';
    this.#name = this.#metricsOnly ? 'metrics server' : 'status server';
    this.#log = options.logger.child({ component: this.#metricsOnly ? 'status.metrics' : 'status' });
    const logger = options.logger;
    this.#logHealth = new LogHealth({ flush: (cb) => logger.flush(cb) });
  }

  /** Serves `provider` until `signal` aborts; resolves with the bound address once listening. */
  async start(provider: StatusProvider, signal: AbortSignal): Promise<AddressInfo> {
    this.#podsBody = new ThrottledJson(() => provider.pods(), this.#o.now);
    this.#sourcesBody = new ThrottledJson(() => provider.sources(), this.#o.now);
    const maxConnections = this.#o.maxConnections ?? MAX_STATUS_CONNECTIONS;
    const idleMs = this.#o.idleSocketMs ?? IDLE_SOCKET_MS;
    const reaper = new IdleConnectionReaper({
      idleMs,
      maxConnections,
      onReap: (socket, reason) => {
        const where = { remoteAddress: socket.remoteAddress, remotePort: socket.remotePort };
        if (reason === 'idle') this.#log.debug({ ...where, idleMs }, 'closing a connection that moved no bytes');
        else if (reason === 'evicted') this.#log.debug({ ...where, maxConnections }, 'closing an idle connection to admit a new one');
        else this.#log.debug({ ...where, maxConnections }, 'refusing a connection: every connection held has a request in flight');
      },
    });
    const server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECK_MS }, (req, res) => {
      res.once('close', reaper.requestStarted(req.socket));
      this.#handle(provider, req, res).catch((err: unknown) => {
        this.#log.error({ err, path: req.url }, 'status request failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('internal error\n');
      });
    });
    server.keepAliveTimeout = 5_000;
    server.headersTimeout = this.#o.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
    server.requestTimeout = Math.max(10_000, server.headersTimeout);
    // No server.maxConnections: it closes new connections as they come, whatever the ones held are doing.
    server.on('connection', (socket: Socket) => {
      reaper.track(socket);
    });
    server.once('close', () => reaper.close());
    await new Promise<void>((resolve, reject) => {
      const failed = (err: Error): void => {
        reaper.close();
        // Named like a bad flag value. A port still taken (the instance before this one has not let go of it) or an
        // address not configured yet at boot may clear: retryable, so that a supervisor restarts the agent.
        const code = (err as NodeJS.ErrnoException).code;
        const retryable = code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL';
        const server = this.#o.setting === undefined ? this.#name : `${this.#name} (${this.#o.setting})`;
        reject(new ConfigInvalidError(`${server}: cannot listen on ${formatStatusAddress(this.#o.address)}: ${err.message}`, { cause: err, retryable }));
      };
      server.once('error', failed);
      server.listen(this.#o.address.port, this.#o.address.host, () => {
        server.off('error', failed);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    // The metrics server serves no pod data: its /metrics answers any Host, as its health checks do.
    this.#loopbackOnly = !this.#metricsOnly && isLoopbackIp(address.address);
    if (this.#metricsOnly) {
      this.#log.info({ address: address.address, port: address.port }, 'metrics server listening');
    } else {
      this.#log.info({ address: address.address, port: address.port }, 'status server listening');
    }
    if (!this.#metricsOnly && !isLoopbackIp(address.address)) {
      // The kubelet's unauthenticated read-only port (10255) is off by default for this reason.
      this.#log.warn({ address: address.address, port: address.port },
        'status server listens beyond loopback: /pods and /sources, unauthenticated, show every desired pod\'s spec to whoever reaches it');
    }
    this.#closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
    const close = (): void => {
      this.#logHealth.close();
      closeServer(server);
    };
    if (signal.aborted) close();
    else signal.addEventListener('abort', close, { once: true });
    return address;
  }

  /** Resolves once the server started last has stopped listening (its `start()` signal aborted). */
  closed(): Promise<void> {
    return this.#closed;
  }

  async #handle(provider: StatusProvider, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://status.local');
    const [, endpoint = '', ...check] = url.pathname.split('/');
    const health = endpoint === 'healthz' || endpoint === 'livez' || endpoint === 'readyz';
    if (this.#metricsOnly && !health && url.pathname !== '/metrics') {
      text(res, 404, 'not found'); // /pods, /sources: the status server's, on loopback
      return;
    }
    const large = url.pathname === '/pods' || url.pathname === '/sources' || url.pathname === '/metrics';
    // Bound to loopback, only loopback names may read state: a web page that rebinds its own DNS name to
    // 127.0.0.1 would otherwise read /pods through a browser on the node. (Health checks answer anyone.)
    const mayReadState = !this.#loopbackOnly || isLoopbackHost(hostName(req.headers.host));
    if (large) {
      if (!mayReadState) {
        text(res, 403, 'forbidden: the status server answers loopback host names only');
        return;
      }
      if (this.#largeInFlight >= MAX_LARGE_RESPONSES) {
        res.setHeader('retry-after', '1');
        text(res, 503, 'too many status responses in flight');
        return;
      }
      this.#largeInFlight++;
      res.once('close', () => this.#largeInFlight--);
    }
    if (health) {
      const one = check.length === 0 ? undefined : check.join('/');
      // A single readiness check says why its source fails (what /sources shows, so only where /sources answers,
      // and only to whoever may read it there).
      const detail = one !== undefined && !this.#metricsOnly && mayReadState;
      const checks = endpoint === 'readyz' ? readinessChecks(provider, detail) : this.#livenessChecks(provider);
      // Not ready is no failure of the process: 503 (a single check's too), so a probe's reader tells the two apart.
      const answer = healthAnswer(endpoint, checks, one, url.searchParams, endpoint === 'readyz' ? 503 : 500);
      if (answer === undefined) text(res, 404, 'not found');
      else text(res, answer.status, answer.body);
      return;
    }
    switch (url.pathname) {
      case '/pods':
        jsonText(res, this.#podsBody?.text() ?? JSON.stringify(provider.pods()));
        return;
      case '/sources':
        jsonText(res, this.#sourcesBody?.text() ?? JSON.stringify(provider.sources()));
        return;
      case '/metrics': {
        const body = await this.#o.registry.metrics();
        res.writeHead(200, { 'content-type': this.#o.registry.contentType }).end(body);
        return;
      }
      default:
        text(res, 404, 'not found');
    }
  }

  /**
   * The kubelet's liveness checks: `ping`, `log` (see {@link LogHealth}), and `syncloop` (the reconciler's
   * `syncLoopError()`), whose failure is logged when it starts and when it ends (its reason is withheld from
   * `/healthz` and `/livez`, as Kubernetes does).
   */
  #livenessChecks(provider: StatusProvider): HealthCheck[] {
    const syncLoopError = provider.syncLoopError();
    if (syncLoopError !== undefined && !this.#syncLoopFailed) this.#log.warn({ check: 'syncloop', reason: syncLoopError }, 'healthz check failed');
    if (syncLoopError === undefined && this.#syncLoopFailed) this.#log.info({ check: 'syncloop' }, 'healthz check passes again');
    this.#syncLoopFailed = syncLoopError !== undefined;
    return [{ name: 'ping', check: () => undefined }, { name: 'log', check: () => this.#logHealth.check() }, { name: 'syncloop', check: () => syncLoopError }];
  }
}

/**
 * One check per configured source, `source/<name>`: it passes once the source has delivered (D10). Its reason is
 * `not ready`, with `detail` followed by the source's error while it fails (`not ready: <error>`).
 */
function readinessChecks(provider: StatusProvider, detail: boolean): HealthCheck[] {
  const r = provider.readiness();
  return r.configured.map((s) => ({
    name: `source/${s}`,
    check: () => {
      if (r.ready.includes(s)) return undefined;
      const error = detail ? provider.sourceError?.(s) : undefined;
      return error === undefined ? 'not ready' : `not ready: ${error}`;
    },
  }));
}

/** The host name of a `Host` header (`[::1]` kept in brackets), or '' when there is none or it does not parse. */
function hostName(header: string | undefined): string {
  if (header === undefined) return '';
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return '';
  }
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end(`${body}\n`);
}

function jsonText(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);
}

function closeServer(server: Server): void {
  server.close();
  server.closeAllConnections();
}
