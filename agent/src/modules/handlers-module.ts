import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { SyncHandler } from '@podconfig/core';
import type { AgentConfig } from '../agent-config.js';
import { loadSyncHandler } from '../handler-loader.js';
import type { StartupResources } from '../startup-resources.js';
import { TOKENS } from '../tokens.js';

/**
 * One multi-bound SyncHandler per `--handler` spec (loaded asynchronously: plugins are ES
 * modules), plus handler objects passed in directly by library users. The same spec given twice
 * (`--handler exec=/a --handler exec=/b`) runs side by side as `exec` and `exec-2`. Each loaded
 * handler is noted in `built` (released if the start fails).
 */
export const handlersModule = (config: AgentConfig, instances: readonly SyncHandler[] = [], built?: StartupResources): ContainerModule =>
  new ContainerModule(({ bind }) => {
    const seen = new Map<string, number>();
    for (const spec of config.handlers) {
      const occurrence = (seen.get(spec.name) ?? 0) + 1;
      seen.set(spec.name, occurrence);
      const rename = occurrence === 1 ? undefined : (own: string) => `${own}-${occurrence}`;
      bind(TOKENS.syncHandler)
        .toResolvedValue(
          async (logger: Logger, signal: AbortSignal) => {
            const handler = await loadSyncHandler(spec, { logger, nodeName: config.nodeName, signal, ...(rename === undefined ? {} : { rename }) });
            built?.handlers.push(handler);
            return handler;
          },
          [TOKENS.logger, TOKENS.shutdownSignal],
        )
        .inSingletonScope();
    }
    for (const handler of instances) bind(TOKENS.syncHandler).toConstantValue(handler);
  });
