import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Pod, PodStatus, StatusCause } from '@podconfig/core';
import { decodeContinueToken, encodeContinueToken } from './continue-token.js';
import { parseFieldSelector, type FieldMatcher } from './field-selector.js';
import { parseLabelSelector, SelectorError, type LabelMatcher } from './label-selector.js';
import {
  isRvProblem,
  ResourceStore,
  type ChangeType,
  type FakeResource,
  type HistoryEntry,
  type KubeJson,
  type StoredObject,
} from './resource-store.js';
import { statusObject, tooLargeStatus, tooOldStatus } from './status.js';
import { WatchStream } from './watch-stream.js';

/** A node as the fake stores it (only `metadata.name` is required). */
export interface FakeNode {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; labels?: Record<string, string>; [field: string]: unknown };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export interface FakeApiServerOptions {
  /** Serve HTTPS with this certificate (e.g. `createTestPki().server`). */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Require `Authorization: Bearer <token>`; anything else gets a 401 Status. */
  readonly token?: string;
  /** The RV before the first write (default 1). */
  readonly initialResourceVersion?: number;
  /** Keep at most this many writes of history (older ones are compacted away; default unlimited). */
  readonly historyLimit?: number;
  /** Like the apiserver's watch cache: a list at RV "0" ignores `limit` and is never paginated (default false). */
  readonly watchCache?: boolean;
  /** Send a bookmark to every watch that allows them this often (default: only on demand and before a timeout close). */
  readonly bookmarkIntervalMs?: number;
  /** How streaming lists are handled (default `supported`); see {@link FakeApiServer.watchList}. */
  readonly watchList?: FakeWatchListSupport;
  /** Port on 127.0.0.1 (default 0: any free port). */
  readonly port?: number;
}

/**
 * `supported`: honour `sendInitialEvents`; `reject`: answer 422 like a server with the WatchList gate off;
 * `ignore`: drop `sendInitialEvents` / `resourceVersionMatch` and serve a plain watch (a server that ignores them).
 */
export type FakeWatchListSupport = 'supported' | 'reject' | 'ignore';

/** A request as logged (headers are not kept: they may hold the token). */
export interface FakeRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly watch: boolean;
  /** The response status, once answered (0 before; a reset leaves it 0). */
  readonly status: number;
}

/**
 * A fault for the next matching request: a Status error, a connection reset without a response, or (for
 * watches) a stall (200 and headers, then nothing) or an immediate close (a very short watch).
 */
export type FakeFault =
  | {
      readonly kind: 'status';
      readonly code: number;
      readonly reason?: string;
      readonly message?: string;
      readonly retryAfterSeconds?: number;
      readonly causes?: readonly StatusCause[];
    }
  | { readonly kind: 'reset' }
  | { readonly kind: 'stall' }
  | { readonly kind: 'close' };

interface Route {
  readonly resource: FakeResource;
  readonly namespace?: string;
  readonly name?: string;
}

interface Watcher {
  readonly stream: WatchStream;
  readonly resource: FakeResource;
  readonly matches: (object: KubeJson) => boolean;
  readonly bookmarks: boolean;
  timer: NodeJS.Timeout | undefined;
}

const KINDS: Readonly<Record<FakeResource, string>> = { pods: 'Pod', nodes: 'Node' };
const FIELDS: Readonly<Record<FakeResource, ReadonlySet<string>>> = {
  pods: new Set([
    'metadata.name',
    'metadata.namespace',
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ]),
  nodes: new Set(['metadata.name', 'spec.unschedulable']),
};
const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response returned in a 410 Expired error.';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function fieldsOf(resource: FakeResource, object: KubeJson): Record<string, string> {
  const spec = isRecord(object.spec) ? object.spec : {};
  const status = isRecord(object.status) ? object.status : {};
  const s = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'boolean' || typeof v === 'number' ? String(v) : '');
  const fields: Record<string, string> = { 'metadata.name': object.metadata.name, 'metadata.namespace': object.metadata.namespace ?? '' };
  if (resource === 'nodes') {
    fields['spec.unschedulable'] = s(spec.unschedulable ?? false);
    return fields;
  }
  for (const f of ['nodeName', 'restartPolicy', 'schedulerName', 'serviceAccountName']) fields[`spec.${f}`] = s(spec[f]);
  for (const f of ['phase', 'podIP', 'nominatedNodeName']) fields[`status.${f}`] = s(status[f]);
  return fields;
}

/** RFC 3339 with second precision, as the API serialises `metav1.Time`. */
const apiTime = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/**
 * A real HTTP(S) server on 127.0.0.1 speaking the Kubernetes wire protocol for pods and nodes (spec §5.4):
 * lists with resourceVersion / resourceVersionMatch semantics, selectors, pagination and continue tokens;
 * chunked JSON-lines watches with history replay, 410 for compacted RVs, bookmarks, `timeoutSeconds` and
 * streaming lists (`sendInitialEvents`); Status bodies for errors; optional bearer token and TLS. Writes made
 * through the programmatic API bump one global RV and fan out to open watches with back-pressure.
 * Fault injection covers statuses, resets, stalls, short watches, ERROR events, garbage lines and slow writes.
 * Objects returned by the programmatic API are the stored state, deeply frozen (copy them to edit).
 */
export class FakeApiServer implements AsyncDisposable {
  readonly #o: FakeApiServerOptions;
  readonly #store: ResourceStore;
  readonly #watchers = new Set<Watcher>();
  readonly #stalled = new Set<ServerResponse>();
  readonly #sockets = new Set<Socket>();
  readonly #faults: Record<'list' | 'watch', { fault: FakeFault; when: ((request: FakeRequest) => boolean) | undefined }[]> = { list: [], watch: [] };
  readonly #waiters = new Set<{ predicate: () => boolean; resolve: () => void; reject: (err: unknown) => void }>();
  readonly #requests: (FakeRequest & { status: number })[] = [];
  #server: Server | undefined;
  #url: string | undefined;
  #bookmarkTimer: NodeJS.Timeout | undefined;
  #tokenEpoch = 0;

  /** How `sendInitialEvents` is handled from now on. */
  watchList: FakeWatchListSupport;
  /** When > 0, every watch line is written in two halves this many ms apart (a slow, fragmented stream). */
  slowWritesMs = 0;

  constructor(options: FakeApiServerOptions = {}) {
    this.#o = options;
    this.#store = new ResourceStore({
      ...(options.initialResourceVersion === undefined ? {} : { initialResourceVersion: options.initialResourceVersion }),
      ...(options.historyLimit === undefined ? {} : { historyLimit: options.historyLimit }),
    });
    this.watchList = options.watchList ?? 'supported';
  }

  /** Starts listening on 127.0.0.1. */
  async start(): Promise<this> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => this.#handle(req, res);
    const server = this.#o.tls === undefined ? createHttpServer(handler) : createHttpsServer({ cert: this.#o.tls.cert, key: this.#o.tls.key }, handler);
    server.on(this.#o.tls === undefined ? 'connection' : 'secureConnection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#o.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#server = server;
    const { port } = server.address() as AddressInfo;
    this.#url = `${this.#o.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
    if (this.#o.bookmarkIntervalMs !== undefined) {
      this.#bookmarkTimer = setInterval(() => this.sendBookmarks(), this.#o.bookmarkIntervalMs);
      this.#bookmarkTimer.unref();
    }
    return this;
  }

  /** Base URL, e.g. `http://127.0.0.1:43567`. */
  get url(): string {
    if (this.#url === undefined) throw new Error('FakeApiServer: start() first');
    return this.#url;
  }

  /** Current global resourceVersion. */
  get resourceVersion(): string {
    return String(this.#store.resourceVersion);
  }

  /** Every request so far, in arrival order. */
  get requests(): readonly FakeRequest[] {
    return this.#requests;
  }

  /** Watch responses currently streaming (stalled ones included). */
  get openWatches(): number {
    return this.#watchers.size + this.#stalled.size;
  }

  /** Stops: drops every watch and connection, then closes the listener. */
  async close(): Promise<void> {
    clearInterval(this.#bookmarkTimer);
    for (const w of this.#watchers) {
      clearTimeout(w.timer);
      w.stream.destroy();
    }
    for (const res of this.#stalled) res.destroy();
    for (const socket of this.#sockets) socket.destroy();
    for (const waiter of this.#waiters) waiter.reject(new Error('FakeApiServer closed'));
    this.#waiters.clear();
    const server = this.#server;
    this.#server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Resolves once `predicate()` holds; re-checked after every request, watch open/close and write. */
  until(predicate: () => boolean): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.add({ predicate, resolve, reject }));
  }

  /** Resolves once every watch has less than 1 MiB queued: producers await it to follow the client's pace. */
  async drained(): Promise<void> {
    for (const w of [...this.#watchers]) await w.stream.drained();
  }

  // ── objects ───────────────────────────────────────────────────────────────────────────────────

  createPod(pod: Pod): Pod {
    const meta = pod.metadata ?? {};
    if (meta.name === undefined || meta.name === '') throw new Error('FakeApiServer.createPod: metadata.name is required');
    const namespace = meta.namespace ?? 'default';
    if (this.#store.get('pods', `${namespace}/${meta.name}`) !== undefined) throw new Error(`pods "${meta.name}" already exists`);
    const object = {
      ...pod,
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...meta,
        name: meta.name,
        namespace,
        uid: meta.uid ?? randomUUID(),
        creationTimestamp: meta.creationTimestamp ?? apiTime(Date.now()),
      },
    };
    return this.#write('pods', 'ADDED', object) as Pod;
  }

  /** Replaces a pod (found by namespace/name), keeping its uid and creationTimestamp. */
  updatePod(pod: Pod): Pod {
    const namespace = pod.metadata?.namespace ?? 'default';
    const old = this.#existing('pods', `${namespace}/${pod.metadata?.name ?? ''}`);
    const object = {
      ...pod,
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { ...pod.metadata, name: old.metadata.name, namespace, uid: old.metadata.uid, creationTimestamp: old.metadata.creationTimestamp },
    };
    return this.#write('pods', 'MODIFIED', object) as Pod;
  }

  updatePodStatus(namespace: string, name: string, status: PodStatus): Pod {
    const old = this.#existing('pods', `${namespace}/${name}`);
    return this.#write('pods', 'MODIFIED', { ...old, status }) as Pod;
  }

  /**
   * Deletes a pod. With `gracePeriodSeconds > 0` (and no deletionTimestamp yet) it only sets
   * `deletionTimestamp` (a MODIFIED event), as a graceful delete does; call again to remove it (DELETED).
   * With `force` it does what a current API server does for `kubectl delete --grace-period=0 --force`: a
   * MODIFIED setting `deletionTimestamp` and `deletionGracePeriodSeconds: 0`, then the DELETED of that object,
   * written one right after the other.
   */
  deletePod(namespace: string, name: string, options: { gracePeriodSeconds?: number; force?: boolean } = {}): Pod {
    const old = this.#existing('pods', `${namespace}/${name}`);
    if (options.force === true) {
      const metadata = { ...old.metadata, deletionTimestamp: apiTime(Date.now()), deletionGracePeriodSeconds: 0 };
      return this.#write('pods', 'DELETED', this.#write('pods', 'MODIFIED', { ...old, metadata })) as Pod;
    }
    const grace = options.gracePeriodSeconds ?? 0;
    if (grace > 0 && old.metadata.deletionTimestamp === undefined) {
      const metadata = { ...old.metadata, deletionTimestamp: apiTime(Date.now() + grace * 1000), deletionGracePeriodSeconds: grace };
      return this.#write('pods', 'MODIFIED', { ...old, metadata }) as Pod;
    }
    return this.#write('pods', 'DELETED', old) as Pod;
  }

  getPod(namespace: string, name: string): Pod | undefined {
    return this.#store.get('pods', `${namespace}/${name}`)?.object as Pod | undefined;
  }

  /** All current pods, sorted by namespace/name. */
  listPods(): Pod[] {
    const state = this.#store.stateAt('pods');
    return isRvProblem(state) ? [] : state.map((o) => o.object as Pod);
  }

  createNode(node: FakeNode): FakeNode {
    if (this.#store.get('nodes', node.metadata.name) !== undefined) throw new Error(`nodes "${node.metadata.name}" already exists`);
    const object = {
      ...node,
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { ...node.metadata, uid: node.metadata.uid ?? randomUUID(), creationTimestamp: node.metadata.creationTimestamp ?? apiTime(Date.now()) },
    };
    return this.#write('nodes', 'ADDED', object) as FakeNode;
  }

  updateNode(node: FakeNode): FakeNode {
    const old = this.#existing('nodes', node.metadata.name);
    const metadata = { ...node.metadata, uid: old.metadata.uid, creationTimestamp: old.metadata.creationTimestamp };
    return this.#write('nodes', 'MODIFIED', { ...node, apiVersion: 'v1', kind: 'Node', metadata }) as FakeNode;
  }

  deleteNode(name: string): FakeNode {
    return this.#write('nodes', 'DELETED', this.#existing('nodes', name)) as FakeNode;
  }

  /** Drops history up to `resourceVersion` (default: now): older watches and continue tokens get 410. */
  compact(resourceVersion?: string | number): void {
    this.#store.compact(resourceVersion === undefined ? undefined : Number(resourceVersion));
  }

  // ── fault injection ───────────────────────────────────────────────────────────────────────────

  /**
   * The next `times` (default 1) non-watch GETs (`list`) or watch requests (`watch`) for which `when` holds
   * (default: any) get `fault`; a number is that HTTP status. Faults queue in order.
   */
  failNext(
    target: 'list' | 'watch',
    fault: FakeFault | number,
    options: { times?: number; when?: (request: FakeRequest) => boolean } = {},
  ): void {
    const f: FakeFault = typeof fault === 'number' ? { kind: 'status', code: fault } : fault;
    for (let i = 0; i < (options.times ?? 1); i++) this.#faults[target].push({ fault: f, when: options.when });
  }

  /** Every continue token issued so far answers 410 Expired. */
  expireContinueTokens(): void {
    this.#tokenEpoch++;
  }

  /** Sends an ERROR event (default 410 "too old resource version") to every open watch, then ends it. */
  sendWatchError(code = 410, message?: string): void {
    const status =
      code === 410 && message === undefined
        ? tooOldStatus(this.#store.oldestResourceVersion, this.#store.resourceVersion)
        : statusObject(code, message ?? `injected ${code}`);
    const line = JSON.stringify({ type: 'ERROR', object: status });
    for (const w of this.#watchers) {
      w.stream.send(line);
      this.#endWatch(w, false);
    }
  }

  /** Drops every open watch connection mid-stream (TCP reset, unfinished chunked body). */
  resetWatches(): void {
    for (const w of [...this.#watchers]) {
      clearTimeout(w.timer);
      w.stream.destroy();
    }
  }

  /**
   * Ends every open watch normally, with a bookmark first where allowed (as at a timeout), or without one
   * (`{ bookmark: false }`: as a server without bookmarks, or etcd's own watch, ends one).
   */
  closeWatches(options: { readonly bookmark?: boolean } = {}): void {
    for (const w of this.#watchers) this.#endWatch(w, options.bookmark ?? true);
  }

  /** Writes a raw line (garbage, or any JSON) to every open watch. */
  injectWatchLine(line: string): void {
    for (const w of this.#watchers) w.stream.send(line);
  }

  /** Writes `{type, object}` to every open watch, bypassing the store (e.g. an object of the wrong kind). */
  injectWatchEvent(type: string, object: unknown): void {
    this.injectWatchLine(JSON.stringify({ type, object }));
  }

  /** Sends a bookmark at the current RV to every watch that allows them. */
  sendBookmarks(): void {
    for (const w of this.#watchers) if (w.bookmarks) w.stream.send(this.#bookmark(w.resource, false));
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────────

  #existing(resource: FakeResource, key: string): KubeJson {
    const stored = this.#store.get(resource, key);
    if (stored === undefined) throw new Error(`${resource} "${key}" not found`);
    return stored.object;
  }

  #write(resource: FakeResource, type: ChangeType, object: KubeJson): KubeJson {
    const entry = this.#store.write(resource, type, object);
    for (const w of this.#watchers) {
      if (w.resource !== resource) continue;
      const line = eventLine(entry, w.matches);
      if (line !== undefined) w.stream.send(line);
    }
    this.#notify();
    return entry.current.object;
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) {
      let done: boolean;
      try {
        done = waiter.predicate();
      } catch (err: unknown) {
        this.#waiters.delete(waiter);
        waiter.reject(err);
        continue;
      }
      if (done) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const query = url.searchParams;
    const watch = query.get('watch') === 'true' || query.get('watch') === '1';
    const record = { method: req.method ?? 'GET', path: url.pathname, query, watch, status: 0 };
    this.#requests.push(record);
    res.on('close', () => this.#notify());
    const reply: Reply = (code, body, headers = {}) => {
      record.status = code;
      res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
      this.#notify();
    };
    try {
      this.#serve(req, res, record, query, watch, reply);
    } catch (err: unknown) {
      if (err instanceof SelectorError) reply(400, statusObject(400, err.message));
      else reply(500, statusObject(500, err instanceof Error ? err.message : String(err)));
    }
    this.#notify();
  }

  #serve(
    req: IncomingMessage,
    res: ServerResponse,
    record: FakeRequest & { status: number },
    query: URLSearchParams,
    watch: boolean,
    reply: Reply,
  ): void {
    if (this.#o.token !== undefined && req.headers.authorization !== `Bearer ${this.#o.token}`) {
      reply(401, statusObject(401, 'Unauthorized'));
      return;
    }
    if (req.method !== 'GET') {
      reply(405, statusObject(405, `the server does not allow this method on the requested resource`));
      return;
    }
    const route = parseRoute(new URL(req.url ?? '/', 'http://fake.invalid').pathname);
    if (route === undefined) {
      reply(404, statusObject(404, 'the server could not find the requested resource'));
      return;
    }
    const queue = this.#faults[watch ? 'watch' : 'list'];
    const index = queue.findIndex((f) => f.when === undefined || f.when(record));
    const fault = index < 0 ? undefined : queue.splice(index, 1)[0]!.fault;
    if (fault !== undefined) {
      switch (fault.kind) {
        case 'status':
          reply(
            fault.code,
            statusObject(fault.code, fault.message ?? `injected ${fault.code}`, {
              ...(fault.reason === undefined ? {} : { reason: fault.reason }),
              ...(fault.causes === undefined ? {} : { causes: fault.causes }),
              ...(fault.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: fault.retryAfterSeconds }),
            }),
            fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) },
          );
          return;
        case 'reset':
          req.socket.resetAndDestroy();
          return;
        case 'stall':
          record.status = 200;
          res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
          res.flushHeaders();
          this.#stalled.add(res);
          res.on('close', () => {
            this.#stalled.delete(res);
            this.#notify();
          });
          return;
        case 'close':
          record.status = 200;
          res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
          res.end();
          return;
      }
    }
    const matches = this.#matcher(route, query);
    if (watch) this.#watch(route, query, matches, res, record, reply);
    else if (route.name !== undefined) this.#get(route, reply);
    else this.#list(route, query, matches, reply);
  }

  #matcher(route: Route, query: URLSearchParams): (object: KubeJson) => boolean {
    const field: FieldMatcher | undefined = query.get('fieldSelector') ? parseFieldSelector(query.get('fieldSelector')!, FIELDS[route.resource]) : undefined;
    const label: LabelMatcher | undefined = query.get('labelSelector') ? parseLabelSelector(query.get('labelSelector')!) : undefined;
    const { resource, namespace, name } = route;
    return (object) =>
      (namespace === undefined || object.metadata.namespace === namespace) &&
      (name === undefined || object.metadata.name === name) &&
      (label === undefined || label(object.metadata.labels)) &&
      (field === undefined || field(fieldsOf(resource, object)));
  }

  #get(route: Route, reply: Reply): void {
    const key = route.namespace === undefined ? route.name! : `${route.namespace}/${route.name!}`;
    const stored = this.#store.get(route.resource, key);
    if (stored === undefined) {
      reply(404, statusObject(404, `${route.resource} "${route.name!}" not found`, { name: route.name!, kind: route.resource }));
      return;
    }
    reply(200, stored.json);
  }

  #list(
    route: Route,
    query: URLSearchParams,
    matches: (object: KubeJson) => boolean,
    reply: Reply,
  ): void {
    const rvParam = query.get('resourceVersion') ?? '';
    const match = query.get('resourceVersionMatch');
    const continueParam = query.get('continue') ?? '';
    const limitParam = query.get('limit');
    let limit = limitParam === null || limitParam === '' ? 0 : Number(limitParam);
    if (!Number.isInteger(limit) || limit < 0) return reply(400, statusObject(400, `invalid limit: ${limitParam}`));
    if (rvParam !== '' && !/^\d+$/.test(rvParam)) return reply(400, statusObject(400, `invalid resource version: ${rvParam}`));
    if (match !== null && match !== 'NotOlderThan' && match !== 'Exact') {
      return reply(422, invalidListOptions('resourceVersionMatch', `unsupported value: "${match}"`));
    }
    if (match !== null && rvParam === '') {
      return reply(422, invalidListOptions('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    }
    if (match === 'Exact' && rvParam === '0') {
      return reply(422, invalidListOptions('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (continueParam !== '' && rvParam !== '') {
      return reply(400, statusObject(400, 'specifying resource version is not allowed when using continue'));
    }

    let listRV = this.#store.resourceVersion;
    let start: string | undefined;
    if (continueParam !== '') {
      const token = decodeContinueToken(continueParam);
      if (token === undefined) return reply(400, statusObject(400, 'continue key is not valid'));
      if (token.epoch < this.#tokenEpoch) return reply(410, statusObject(410, EXPIRED_CONTINUE, { reason: 'Expired' }));
      listRV = token.rv;
      start = token.start;
    } else if (rvParam !== '' && rvParam !== '0') {
      const n = Number(rvParam);
      if (n > this.#store.resourceVersion) return reply(504, tooLargeStatus(n, this.#store.resourceVersion), { 'Retry-After': '1' });
      // Exact when asked, and (legacy) for a specific RV with a limit and no match; otherwise "not older than".
      if (match === 'Exact' || (match === null && limit > 0)) listRV = n;
    } else if (rvParam === '0' && this.#o.watchCache === true) {
      limit = 0;
    }
    const state = this.#store.stateAt(route.resource, listRV);
    if (isRvProblem(state)) {
      if (state.problem === 'too-large') return reply(504, tooLargeStatus(listRV, state.current));
      return reply(410, continueParam !== '' ? statusObject(410, EXPIRED_CONTINUE, { reason: 'Expired' }) : tooOldStatus(listRV, state.oldest));
    }

    const items: string[] = [];
    let i = start === undefined ? 0 : firstAfter(state, start);
    let last: string | undefined;
    for (; i < state.length && (limit === 0 || items.length < limit); i++) {
      const o = state[i]!;
      if (!matches(o.object)) continue;
      items.push(o.json);
      last = o.key;
    }
    let more = false;
    if (limit > 0) for (; i < state.length && !more; i++) more = matches(state[i]!.object);
    const token = more && last !== undefined ? encodeContinueToken({ rv: listRV, start: last, epoch: this.#tokenEpoch }) : undefined;
    const metadata = `{"resourceVersion":"${listRV}"${token === undefined ? '' : `,"continue":"${token}"`}}`;
    const body = `{"kind":"${KINDS[route.resource]}List","apiVersion":"v1","metadata":${metadata},"items":[${items.join(',')}]}`;
    reply(200, body);
  }

  #watch(
    route: Route,
    query: URLSearchParams,
    matches: (object: KubeJson) => boolean,
    res: ServerResponse,
    record: { status: number },
    reply: Reply,
  ): void {
    const rvParam = query.get('resourceVersion') ?? '';
    let match = query.get('resourceVersionMatch');
    let sendInitialEvents = query.get('sendInitialEvents');
    const bookmarks = query.get('allowWatchBookmarks') === 'true';
    const timeoutParam = query.get('timeoutSeconds');
    if (rvParam !== '' && !/^\d+$/.test(rvParam)) return reply(400, statusObject(400, `invalid resource version: ${rvParam}`));
    const timeoutSeconds = timeoutParam === null || timeoutParam === '' ? 0 : Number(timeoutParam);
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 0) return reply(400, statusObject(400, `invalid timeoutSeconds: ${timeoutParam}`));
    if (sendInitialEvents !== null) {
      if (this.watchList === 'reject') {
        return reply(422, invalidListOptions('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
      }
      if (this.watchList === 'ignore') {
        sendInitialEvents = null;
        match = null;
      }
    }
    if (sendInitialEvents !== null && match !== 'NotOlderThan') {
      return reply(422, invalidListOptions('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (sendInitialEvents === null && match !== null) {
      return reply(422, invalidListOptions('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (sendInitialEvents === 'true' && !bookmarks) {
      return reply(422, invalidListOptions('allowWatchBookmarks', 'allowWatchBookmarks must be true when sendInitialEvents is true'));
    }

    const current = this.#store.resourceVersion;
    const n = rvParam === '' ? 0 : Number(rvParam);
    if (n > current) return reply(504, tooLargeStatus(n, current), { 'Retry-After': '1' });
    // Synthetic ADDED events for the current state: streaming lists, and plain watches from RV "" / "0".
    const initial = sendInitialEvents === 'true' || (sendInitialEvents === null && (rvParam === '' || rvParam === '0'));
    const replay = initial ? undefined : rvParam === '' || rvParam === '0' ? [] : this.#store.eventsAfter(n);

    record.status = 200;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    const watcher: Watcher = {
      resource: route.resource,
      matches,
      bookmarks,
      timer: undefined,
      stream: new WatchStream(res, {
        slowWritesMs: () => this.slowWritesMs,
        onClosed: () => {
          clearTimeout(watcher.timer);
          this.#watchers.delete(watcher);
          this.#notify();
        },
      }),
    };
    this.#watchers.add(watcher);
    if (replay !== undefined && isRvProblem(replay)) {
      // The watch cache's answer for a compacted RV: 200, one ERROR event, end of stream.
      const oldest = replay.problem === 'expired' ? replay.oldest : current;
      watcher.stream.send(JSON.stringify({ type: 'ERROR', object: tooOldStatus(n, oldest) }));
      this.#endWatch(watcher, false);
      return;
    }
    if (initial) {
      const state = this.#store.stateAt(route.resource) as readonly StoredObject[];
      for (const o of state) if (matches(o.object)) watcher.stream.send(`{"type":"ADDED","object":${o.json}}`);
      if (sendInitialEvents === 'true') watcher.stream.send(this.#bookmark(route.resource, true));
    } else {
      for (const entry of replay ?? []) {
        if (entry.resource !== route.resource) continue;
        const line = eventLine(entry, matches);
        if (line !== undefined) watcher.stream.send(line);
      }
    }
    // Without timeoutSeconds the apiserver picks [minRequestTimeout, 2·minRequestTimeout] (1800 s).
    const seconds = timeoutSeconds > 0 ? timeoutSeconds : 1800 + Math.floor(Math.random() * 1800);
    watcher.timer = setTimeout(() => this.#endWatch(watcher, true), seconds * 1000);
    watcher.timer.unref();
  }

  #endWatch(w: Watcher, bookmark: boolean): void {
    clearTimeout(w.timer);
    if (bookmark && w.bookmarks) w.stream.send(this.#bookmark(w.resource, false));
    w.stream.end();
  }

  #bookmark(resource: FakeResource, initialEventsEnd: boolean): string {
    const annotations = initialEventsEnd ? ',"annotations":{"k8s.io/initial-events-end":"true"}' : '';
    return `{"type":"BOOKMARK","object":{"kind":"${KINDS[resource]}","apiVersion":"v1","metadata":{"resourceVersion":"${this.#store.resourceVersion}","creationTimestamp":null${annotations}}}}`;
  }
}

/** Answers a request: a JSON body (a string is written as is: pre-serialised) with Content-Type application/json. */
type Reply = (code: number, body: Record<string, unknown> | string, headers?: Record<string, string>) => void;

function invalidListOptions(field: string, message: string): Record<string, unknown> {
  return statusObject(422, `ListOptions.meta.k8s.io "" is invalid: ${field}: Forbidden: ${message}`, {
    kind: 'ListOptions',
    causes: [{ reason: 'FieldValueForbidden', message: `Forbidden: ${message}`, field }],
  });
}

/** The watch line for a write as seen through a selector (enter → ADDED, leave → DELETED), or undefined. */
function eventLine(entry: HistoryEntry, matches: (object: KubeJson) => boolean): string | undefined {
  const before = entry.previous !== undefined && matches(entry.previous.object);
  const after = entry.type !== 'DELETED' && matches(entry.current.object);
  let type: string;
  if (entry.type === 'DELETED') {
    if (!before) return undefined;
    type = 'DELETED';
  } else if (before && after) type = 'MODIFIED';
  else if (after) type = 'ADDED';
  else if (before) type = 'DELETED';
  else return undefined;
  return `{"type":"${type}","object":${entry.current.json}}`;
}

function firstAfter(state: readonly StoredObject[], key: string): number {
  let lo = 0;
  let hi = state.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (state[mid]!.key <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function parseRoute(pathname: string): Route | undefined {
  const parts = pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
  if (parts[0] !== 'api' || parts[1] !== 'v1') return undefined;
  const rest = parts.slice(2);
  if (rest[0] === 'pods' && rest.length === 1) return { resource: 'pods' };
  if (rest[0] === 'nodes' && rest.length <= 2) return { resource: 'nodes', ...(rest[1] === undefined ? {} : { name: rest[1] }) };
  if (rest[0] === 'namespaces' && rest[1] !== undefined && rest[2] === 'pods' && rest.length <= 4) {
    return { resource: 'pods', namespace: rest[1], ...(rest[3] === undefined ? {} : { name: rest[3] }) };
  }
  return undefined;
}
