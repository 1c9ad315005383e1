import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { AgentConfig } from '../agent-config.js';
import type { AgentMetrics } from '../metrics.js';
import { settingName } from '../settings.js';
import { StatusServer } from '../status-server.js';
import { TOKENS } from '../tokens.js';

/**
 * The status server, bound only when an address is configured, and the metrics server (the same class serving
 * /metrics and the health checks only), only when `metricsBindAddress` is.
 */
export const statusModule = (config: AgentConfig): ContainerModule =>
  new ContainerModule(({ bind }) => {
    const address = config.statusAddress;
    if (address !== undefined) {
      bind(TOKENS.statusServer)
        .toResolvedValue(
          (logger: Logger, metrics: AgentMetrics) => new StatusServer({ address, logger, registry: metrics }),
          [TOKENS.logger, TOKENS.metrics],
        )
        .inSingletonScope();
    }
    const metricsAddress = config.metricsBindAddress;
    if (metricsAddress !== undefined) {
      const setting = settingName(config, 'metricsBindAddress');
      bind(TOKENS.metricsServer)
        .toResolvedValue(
          (logger: Logger, metrics: AgentMetrics) =>
            new StatusServer({ address: metricsAddress, endpoints: 'metrics', setting, logger, registry: metrics }),
          [TOKENS.logger, TOKENS.metrics],
        )
        .inSingletonScope();
    }
  });
