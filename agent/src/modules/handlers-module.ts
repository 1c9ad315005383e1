import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { PodConfigError, type SyncHandler } from '@podconfig/core';
import type { AgentConfig } from '../agent-config.js';
import { loadSyncHandler } from '../handler-loader.js';
import type { StartupResources } from '../startup-resources.js';
import { TOKENS } from '../tokens.js';

/**
 * Hands out the names handlers run under. Explicit `id`s and library handler objects' names are taken
 * first; a handler without an `id` keeps its own name if it is free, else gets the first free `-N`
 * suffix (`exec`, `exec-2`, then `exec-3` when a config entry has `id: exec-2`).
 */
export class HandlerNames {
  readonly #taken: Set<string>;

  constructor(reserved: Iterable<string>) {
    this.#taken = new Set(reserved);
  }

  claim(own: string): string {
    let name = own;
    for (let n = 2; this.#taken.has(name); n += 1) name = `${own}-${n}`;
    this.#taken.add(name);
    return name;
  }
}

/**
 * One multi-bound SyncHandler per `--handler` spec, plus handler objects passed in directly by library
 * users. The specs load one after the other, in order (plugins are ES modules), so the names handed out
 * do not depend on which factory returns first. Each loaded handler is noted in `built` (released if
 * the start fails).
 */
export const handlersModule = (config: AgentConfig, instances: readonly SyncHandler[] = [], built?: StartupResources): ContainerModule =>
  new ContainerModule(({ bind }) => {
    let loading: Promise<readonly SyncHandler[]> | undefined;
    const loadAll = (logger: Logger, signal: AbortSignal): Promise<readonly SyncHandler[]> => (loading ??= (async () => {
      const ids = config.handlers.flatMap((spec) => (typeof spec.options['id'] === 'string' ? [spec.options['id']] : []));
      const names = new HandlerNames([...ids, ...instances.map((h) => h.name)]);
      const loaded: SyncHandler[] = [];
      for (const spec of config.handlers) {
        const handler = await loadSyncHandler(spec, {
          logger, nodeName: config.nodeName, signal, timeoutMs: config.handlerTimeoutMs, rename: (own) => names.claim(own),
        });
        built?.handlers.push(handler);
        loaded.push(handler);
      }
      return loaded;
    })());
    config.handlers.forEach((_spec, index) => {
      bind(TOKENS.syncHandler)
        .toResolvedValue(
          async (logger: Logger, signal: AbortSignal) => {
            const handler = (await loadAll(logger, signal))[index];
            if (handler === undefined) throw new PodConfigError('PODCONFIG_INTERNAL', `handler ${index} was not loaded`);
            return handler;
          },
          [TOKENS.logger, TOKENS.shutdownSignal],
        )
        .inSingletonScope();
    });
    for (const handler of instances) bind(TOKENS.syncHandler).toConstantValue(handler);
  });
