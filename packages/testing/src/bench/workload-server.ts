import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchWorkload } from './bench-workload.js';
import { writeLinesAsChunks } from '../write-lines-as-chunks.js';
import { wallNow } from './wall-clock.js';

export interface WorkloadServerOptions {
  /** Default 0 (any free port); always 127.0.0.1. */
  readonly port?: number;
  /** For tests: waits out a session's `settleMs` instead of a timer. */
  readonly settleWait?: (ms: number) => Promise<void>;
}

export interface WorkloadSessionOptions {
  /** Events per second, or 0 (default): as fast as the client reads (back-pressure). */
  readonly rate?: number;
  /** With `rate`: record when each event was written (for latency). Default true when `rate` > 0. */
  readonly recordSendTimes?: boolean;
  /**
   * With `rate`: how long the stream stays quiet before its first event, counted from the end of the initial
   * set (watch-list) or from the watch at the list's RV (list then watch). Default 0. A latency scenario sets
   * it so that every client is measured once it has taken in its first set: a list-then-watch client is only
   * watching by then anyway, while a watch-list client would otherwise see the first events queue behind it.
   */
  readonly settleMs?: number;
}

/** What one session (one client run) looked like from the server. */
export interface WorkloadSessionStats {
  /** When the first request of the session arrived (wall ms, {@link wallNow}). */
  readonly firstRequestAt: number | undefined;
  /** When the initial set was written (the last initial line or the list body). */
  readonly initialWrittenAt: number | undefined;
  /** When the last event was handed to the socket. */
  readonly lastEventWrittenAt: number | undefined;
  readonly eventsWritten: number;
  /** `sendTimes[i]`: when event `i + 1` was written (wall ms), with `recordSendTimes`. */
  readonly sendTimes: readonly number[];
  readonly requests: readonly string[];
}

/**
 * Lines per corked group in unpaced mode (about 64 KiB): each line is its own HTTP chunk, as the API server
 * writes a pod event, but a group goes out in one `writev`, so syscalls stay few and the client sets the pace.
 */
const BATCH_BYTES = 64 * 1024;

/**
 * A minimal apiserver for benchmarks, on 127.0.0.1: it serves one {@link BenchWorkload} whose bytes are
 * serialised up front, so the server is never the bottleneck of the client it measures. Per session
 * ({@link arm}): `GET /api/v1/pods` as a list (a `PodList` at the initial RV; `limit` is ignored, as a
 * watch cache does at RV 0) or as a watch — a watch-list (`sendInitialEvents=true`: ADDED lines, then the
 * `k8s.io/initial-events-end` bookmark) or a watch from the list's RV — followed by the events, written
 * with back-pressure or at a fixed rate; then the watch stays open and idle. `GET /api/v1/nodes` answers
 * an empty list, a watch-list with just the end bookmark, or an idle watch. Selectors are not evaluated:
 * the workload is generated for the scope the client asks for.
 */
export class WorkloadServer {
  readonly #o: WorkloadServerOptions;
  #server: Server | undefined;
  #workload: BenchWorkload | undefined;
  #session: WorkloadSessionOptions = {};
  #served = false;
  #firstRequestAt: number | undefined;
  #initialWrittenAt: number | undefined;
  #lastEventWrittenAt: number | undefined;
  #eventsWritten = 0;
  #sendTimes: number[] = [];
  #requests: string[] = [];
  readonly #open = new Set<ServerResponse>();

  constructor(options: WorkloadServerOptions = {}) {
    this.#o = options;
  }

  get url(): string {
    const address = this.#server?.address() as AddressInfo | null | undefined;
    if (address === undefined || address === null) throw new Error('workload server is not started');
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => this.#handle(req, res));
    server.keepAliveTimeout = 60_000;
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#o.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return this;
  }

  /** Serves `workload` from now on (the previous one is dropped). */
  load(workload: BenchWorkload): void {
    this.#workload = workload;
    this.arm({});
  }

  /** Starts a session: the next pods request gets the initial set and the events; stats reset. Closes open watches. */
  arm(options: WorkloadSessionOptions): void {
    for (const res of this.#open) res.destroy();
    this.#open.clear();
    this.#session = options;
    this.#served = false;
    this.#firstRequestAt = undefined;
    this.#initialWrittenAt = undefined;
    this.#lastEventWrittenAt = undefined;
    this.#eventsWritten = 0;
    this.#sendTimes = [];
    this.#requests = [];
  }

  stats(): WorkloadSessionStats {
    return {
      firstRequestAt: this.#firstRequestAt,
      initialWrittenAt: this.#initialWrittenAt,
      lastEventWrittenAt: this.#lastEventWrittenAt,
      eventsWritten: this.#eventsWritten,
      sendTimes: this.#sendTimes,
      requests: this.#requests,
    };
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    for (const res of this.#open) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const now = wallNow();
    this.#firstRequestAt ??= now;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const q = url.searchParams;
    const watch = q.get('watch') === 'true' || q.get('watch') === '1';
    this.#requests.push(`${watch ? 'WATCH' : 'GET'} ${url.pathname}${q.get('sendInitialEvents') === 'true' ? ' (watch-list)' : ''} rv=${q.get('resourceVersion') ?? ''}`);
    req.resume();
    if (req.method !== 'GET') return this.#status(res, 405, 'MethodNotAllowed');
    if (url.pathname === '/api/v1/nodes') return this.#nodes(res, watch, q);
    if (url.pathname === '/api/v1/pods') return this.#pods(res, watch, q);
    if (url.pathname === '/version') return this.#json(res, 200, { major: '1', minor: '36', gitVersion: 'v1.36.0-bench' });
    return this.#status(res, 404, 'NotFound');
  }

  #nodes(res: ServerResponse, watch: boolean, q: URLSearchParams): void {
    if (!watch) return this.#json(res, 200, { kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] });
    this.#openWatch(res);
    if (q.get('sendInitialEvents') === 'true') res.write(bookmark('Node', '1'));
  }

  #pods(res: ServerResponse, watch: boolean, q: URLSearchParams): void {
    const w = this.#workload;
    if (w === undefined) return this.#status(res, 503, 'ServiceUnavailable');
    if (!watch) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"${w.listResourceVersion}"},"items":[`);
      w.initialObjects.forEach((o, i) => {
        if (i > 0) res.write(',');
        res.write(o);
      });
      res.end(']}', () => {
        this.#initialWrittenAt = wallNow();
      });
      return;
    }
    this.#openWatch(res);
    const rv = q.get('resourceVersion') ?? '';
    if (this.#served) return; // a re-watch after the session's stream: stays idle
    if (q.get('sendInitialEvents') === 'true') {
      this.#served = true;
      void this.#stream(res, w, true);
    } else if (rv === w.listResourceVersion) {
      this.#served = true;
      void this.#stream(res, w, false);
    }
  }

  async #stream(res: ServerResponse, w: BenchWorkload, initial: boolean): Promise<void> {
    const closed = new Promise<void>((resolve) => res.once('close', resolve));
    let alive = true;
    void closed.then(() => {
      alive = false;
    });
    const write = async (lines: readonly (Buffer | string)[]): Promise<boolean> => {
      if (!alive) return false;
      if (!writeLinesAsChunks(res, lines)) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
      return alive;
    };
    if (initial) {
      for (const batch of batches(w.initialLines)) if (!(await write(batch))) return;
      if (!(await write([bookmark('Pod', w.listResourceVersion, true)]))) return;
      this.#initialWrittenAt = wallNow();
    }
    const rate = this.#session.rate ?? 0;
    if (rate <= 0) {
      let i = 0;
      for (const batch of batches(w.eventLines)) {
        if (!(await write(batch))) return;
        i += batch.length;
        this.#eventsWritten = i;
      }
      this.#lastEventWrittenAt = wallNow();
      return;
    }
    const record = this.#session.recordSendTimes ?? true;
    const settleMs = this.#session.settleMs ?? 0;
    if (settleMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const settled = this.#o.settleWait?.(settleMs) ?? new Promise((resolve) => (timer = setTimeout(resolve, settleMs)));
      await Promise.race([settled, closed]);
      clearTimeout(timer); // a stream closed meanwhile leaves no timer behind
      if (!alive) return;
    }
    const start = wallNow();
    const lines = w.eventLines;
    let i = 0;
    while (i < lines.length) {
      const due = Math.min(lines.length, Math.floor((wallNow() - start) * rate / 1000) + 1);
      while (i < due) {
        if (!alive) return;
        const ok = res.write(lines[i]!);
        if (record) this.#sendTimes.push(wallNow());
        i++;
        this.#eventsWritten = i;
        if (!ok) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
      }
      if (i < lines.length) {
        const wait = start + (i * 1000) / rate - wallNow();
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
      }
    }
    this.#lastEventWrittenAt = wallNow();
  }

  #openWatch(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    this.#open.add(res);
    res.once('close', () => this.#open.delete(res));
  }

  #json(res: ServerResponse, code: number, body: unknown): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  #status(res: ServerResponse, code: number, reason: string): void {
    this.#json(res, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason, code, message: reason });
  }
}

function bookmark(kind: string, rv: string, initialEventsEnd = true): string {
  const annotations = initialEventsEnd ? ',"annotations":{"k8s.io/initial-events-end":"true"}' : '';
  return `{"type":"BOOKMARK","object":{"kind":"${kind}","apiVersion":"v1","metadata":{"resourceVersion":"${rv}"${annotations}}}}\n`;
}

/** Consecutive lines in groups of about {@link BATCH_BYTES}. */
function* batches(lines: readonly Buffer[]): Generator<readonly Buffer[]> {
  let group: Buffer[] = [];
  let bytes = 0;
  for (const line of lines) {
    group.push(line);
    bytes += line.length;
    if (bytes >= BATCH_BYTES) {
      yield group;
      group = [];
      bytes = 0;
    }
  }
  if (group.length > 0) yield group;
}
