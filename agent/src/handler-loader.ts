import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolve as resolveImport } from 'import-meta-resolve';
import type { Logger } from 'pino';
import { ConfigInvalidError, PodConfigError, errorMessage, formatDuration, handlerShapeProblem, isClosable, isSyncHandler, type SyncHandler, type SyncHandlerFactory } from '@podconfig/core';
import { builtinHandlers } from '@podconfig/handlers';
import type { HandlerSpec } from './agent-config.js';
import { DeferredLogger } from './deferred-logger.js';

export interface HandlerLoaderContext {
  readonly logger: Logger;
  /**
   * The name to run the handler under instead of its own (`exec-2` for a second `exec`): handler
   * names label logs, /pods and metrics and must be unique. Not called when the spec has an `id`.
   */
  readonly rename?: (ownName: string) => string;
  readonly nodeName: string;
  readonly signal: AbortSignal;
  /** Where relative module paths and package names are resolved from (default: the working directory). */
  readonly cwd?: string;
  /**
   * How long loading the module and running its factory may take (`--handler-timeout`, default 60 s):
   * a factory that never settles must fail the start, naming the handler, not hang it.
   */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/** A path, not a package name: `./x`, `/x`, or a file name with a JavaScript or TypeScript extension. */
const isPathLike = (name: string): boolean =>
  name.startsWith('.') || isAbsolute(name) || /\.([mc]?js|[mc]?ts)$/.test(name);

/** TypeScript sources: Node.js 20 refuses them (`ERR_UNKNOWN_FILE_EXTENSION`); later ones may strip the types. */
const TYPESCRIPT_FILE = /\.([mc]?ts|tsx)$/;

/**
 * What to do about a module Node.js would not load, when its error alone would not say (`Unknown file extension
 * ".ts"`), or undefined. Exported for the tests: vitest loads a `.ts` file itself, so only the built agent meets
 * Node.js's own refusal.
 */
export function moduleLoadHint(err: unknown, path: string): string | undefined {
  if ((err as { code?: unknown } | null)?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') return undefined;
  if (TYPESCRIPT_FILE.test(path)) {
    return `Node.js ${process.versions.node} does not run TypeScript: compile the handler to .js or .mjs (e.g. with tsc) and give that file as the handler`;
  }
  return 'a handler module is JavaScript: an ES module (.mjs, or .js under a package.json with "type": "module") or CommonJS (.cjs)';
}

function pluginError(spec: HandlerSpec, message: string, cause?: unknown): PodConfigError {
  return new PodConfigError('PODCONFIG_PLUGIN_LOAD', `handler "${spec.name}": ${message}`, cause === undefined ? {} : { cause });
}

/** `err` with where the spec was given in front (`--config FILE: field "handlers"[1]: …`), code kept. */
function withOrigin(spec: HandlerSpec, err: PodConfigError): PodConfigError {
  if (spec.origin === undefined) return err;
  return new PodConfigError(err.code, `${spec.origin}: ${err.message}`, { cause: err, retryable: err.retryable });
}

async function importFactory(spec: HandlerSpec, cwd: string): Promise<SyncHandlerFactory> {
  let url: string;
  if (isPathLike(spec.name)) {
    url = pathToFileURL(resolve(spec.baseDir ?? cwd, spec.name)).href;
  } else {
    // An installed package: among the agent's own dependencies first (a package in a writable directory
    // above the working directory cannot stand in for one of them), then from the working directory (where a
    // user installs plugins next to the agent), with the conditions an import uses (ESM-only packages too).
    const found = resolvePackage(spec, import.meta.url) ?? resolvePackage(spec, `${pathToFileURL(resolve(cwd)).href}/`);
    if (found === undefined) {
      throw pluginError(spec, `cannot load module: no package "${spec.name}" among the agent's own dependencies, nor in node_modules of ${resolve(cwd)} or a parent directory`);
    }
    url = found;
  }
  let mod: unknown;
  try {
    mod = await import(url);
  } catch (err: unknown) {
    const hint = moduleLoadHint(err, spec.name);
    throw pluginError(spec, `cannot load module: ${errorMessage(err)}${hint === undefined ? '' : ` (${hint})`}`, err);
  }
  const factory = (mod as { default?: unknown }).default;
  if (typeof factory !== 'function') {
    throw pluginError(spec, 'the module must default-export a factory `(context) => SyncHandler | Promise<SyncHandler>`');
  }
  return factory as SyncHandlerFactory;
}

/**
 * The URL an `import` of the package `spec` names would load from `parent`, or undefined when no such package is
 * installed there. (import-meta-resolve: Node.js's own ESM resolution, which `import.meta.resolve(specifier,
 * parent)` offers only behind a flag on Node.js 20; `createRequire().resolve` misses ESM-only packages.)
 */
function resolvePackage(spec: HandlerSpec, parent: string): string | undefined {
  try {
    return resolveImport(spec.name, parent);
  } catch (err: unknown) {
    const notInstalled = (err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && errorMessage(err).startsWith('Cannot find package');
    if (notInstalled) return undefined;
    throw pluginError(spec, `cannot load module: ${errorMessage(err)}`, err);
  }
}

/**
 * `work`, unless `timeoutMs` passes first (rejects with `onTimeout()`) or `signal` aborts (rejects
 * with a `PODCONFIG_PLUGIN_LOAD` error; the caller, seeing its signal aborted, treats it as a stop).
 */
async function within<T>(work: Promise<T>, timeoutMs: number, signal: AbortSignal, onTimeout: () => Error, onAbort: () => Error): Promise<T> {
  work.catch(() => undefined); // given up on: a late rejection is nobody's
  let timer: NodeJS.Timeout | undefined;
  let abort: (() => void) | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(onTimeout()), timeoutMs);
      abort = () => reject(onAbort());
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
    })]);
  } finally {
    clearTimeout(timer);
    if (abort !== undefined) signal.removeEventListener('abort', abort);
  }
}

/**
 * Turns a `--handler` / `handlers:` spec into a running handler: a built-in (`log`, `state-dir`,
 * `exec`, `webhook`), a path to an ES module, or an installed package, whose default export is a
 * {@link SyncHandlerFactory}. Failures are `PODCONFIG_PLUGIN_LOAD` (or the factory's
 * `PODCONFIG_CONFIG_INVALID`) errors naming the handler, and where it was given.
 */
export async function loadSyncHandler(spec: HandlerSpec, ctx: HandlerLoaderContext): Promise<SyncHandler> {
  try {
    return await load(spec, ctx);
  } catch (err: unknown) {
    throw PodConfigError.is(err) ? withOrigin(spec, err) : err;
  }
}

async function load(spec: HandlerSpec, ctx: HandlerLoaderContext): Promise<SyncHandler> {
  // `id` belongs to the agent (the name to run under), not to the handler's own options.
  const { id, ...options } = spec.options;
  if (id !== undefined && (typeof id !== 'string' || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(id))) {
    throw new ConfigInvalidError(`handler "${spec.name}": option "id" must be a lowercase name like exec-backup`);
  }
  const timeoutMs = ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Until the factory returns, its logs carry the spec (or id); then the name the handler runs under.
  const logs = new DeferredLogger(ctx.logger.child({ component: `sync.${typeof id === 'string' ? id : spec.name}` }));
  // The factory's signal: the agent's, aborted too when the agent gives up on the factory, so that what it waits
  // for (a read of a file that is a silent pipe, a request) ends instead of holding the process. AbortSignal.any,
  // not core's linked(): the handler may keep it for as long as it runs, and a listener on the agent's signal per
  // handler would pass Node.js's warning threshold with a handful of handlers.
  const givenUp = new AbortController();
  const factorySignal = AbortSignal.any([ctx.signal, givenUp.signal]);
  const build = async (): Promise<unknown> => {
    const builtin = (builtinHandlers as Readonly<Record<string, SyncHandlerFactory>>)[spec.name];
    const factory = builtin ?? (await importFactory(spec, ctx.cwd ?? process.cwd()));
    try {
      return await factory({ logger: logs.logger, nodeName: ctx.nodeName, options, signal: factorySignal, callTimeoutMs: timeoutMs });
    } catch (err: unknown) {
      if (PodConfigError.is(err)) throw err;
      throw pluginError(spec, `factory failed: ${errorMessage(err)}`, err);
    }
  };
  const work = build();
  let handler: unknown;
  try {
    handler = await within(work, timeoutMs, ctx.signal,
      () => pluginError(spec, `the module or its factory did not settle within ${formatDuration(timeoutMs)} (--handler-timeout)`),
      () => pluginError(spec, 'loading stopped: the agent is shutting down'));
  } catch (err: unknown) {
    givenUp.abort(err);
    // A factory that finishes after the agent gave up on it built a handler nobody will run: close it, so that
    // what it holds (timers, sockets) does not outlive the agent.
    void work.then((late) => closeLate(late, timeoutMs, logs.logger), () => undefined);
    throw err;
  }
  if (!isSyncHandler(handler)) {
    const err = pluginError(spec, `the factory must return an object with a non-empty name, syncPod() and killPod(): ${handlerShapeProblem(handler) ?? ''}`);
    givenUp.abort(err);
    throw err;
  }
  const name = typeof id === 'string' ? id : (ctx.rename?.(handler.name) ?? handler.name);
  logs.settle(ctx.logger.child({ component: `sync.${name}` }));
  return renamed(handler, name);
}

async function closeLate(late: unknown, timeoutMs: number, logger: Logger): Promise<void> {
  if (!isSyncHandler(late) || !isClosable(late)) return;
  try {
    await late.close(AbortSignal.timeout(timeoutMs));
  } catch (err: unknown) {
    logger.warn({ err }, 'closing a handler built after its load was given up failed');
  }
}

/**
 * The handler under another name. A Proxy rather than a copy: methods stay bound to the original
 * object (class instances with private fields keep working) and optional capabilities
 * (`listPods`, `start`, `close`) are still detected.
 */
function renamed(handler: SyncHandler, name: string): SyncHandler {
  if (name === handler.name) return handler;
  return new Proxy(handler, {
    get(target, property) {
      if (property === 'name') return name;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
