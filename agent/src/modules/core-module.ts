import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import { reportsStatus, type Clock, type PodSource, type SyncHandler } from '@podconfig/core';
import { PodMerger } from '@podconfig/merge';
import { Reconciler } from '@podconfig/reconcile';
import type { KubeClient } from '@podconfig/kube-client';
import { Agent } from '../agent.js';
import type { AgentConfig } from '../agent-config.js';
import { AgentMetrics } from '../metrics.js';
import type { StatusServer } from '../status-server.js';
import { TOKENS } from '../tokens.js';

export interface CoreModuleInputs {
  readonly config: AgentConfig;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly shutdownSignal: AbortSignal;
  readonly metrics?: AgentMetrics;
}

/** Configuration, logger, clock, metrics, merger, reconciler and the agent itself. */
export const coreModule = (inputs: CoreModuleInputs): ContainerModule =>
  new ContainerModule(({ bind }) => {
    const { config } = inputs;
    bind(TOKENS.config).toConstantValue(config);
    bind(TOKENS.logger).toConstantValue(inputs.logger);
    bind(TOKENS.clock).toConstantValue(inputs.clock);
    bind(TOKENS.shutdownSignal).toConstantValue(inputs.shutdownSignal);
    bind(TOKENS.metrics).toConstantValue(inputs.metrics ?? new AgentMetrics());
    bind(TOKENS.merger)
      .toResolvedValue((logger: Logger, clock: Clock) => new PodMerger({ logger, clock }), [TOKENS.logger, TOKENS.clock])
      .inSingletonScope();
    bind(TOKENS.reconciler)
      .toResolvedValue(
        (logger: Logger, clock: Clock, metrics: AgentMetrics, handlers: SyncHandler[], sources: PodSource[] | undefined) =>
          new Reconciler({
            handlers,
            sources: (sources ?? []).map((s) => s.name),
            logger,
            clock,
            syncFrequencyMs: config.syncFrequencyMs,
            concurrency: config.handlerConcurrency,
            callTimeoutMs: config.handlerTimeoutMs,
            readiness: config.readiness,
            shutdownTimeoutMs: config.shutdownTimeoutMs,
            observer: { operation: (u) => metrics.operation(u), handlerCall: (e) => metrics.handlerCall(e) },
            // D18 over D9: no orphan kills while a source is ready only through its grace period.
            orphanKillsAllowed: () => !(sources ?? []).some((s) => reportsStatus(s) && s.status().provisional === true),
          }),
        [
          TOKENS.logger, TOKENS.clock, TOKENS.metrics,
          { serviceIdentifier: TOKENS.syncHandler, isMultiple: true },
          { serviceIdentifier: TOKENS.podSource, isMultiple: true, optional: true },
        ],
      )
      .inSingletonScope();
    bind(TOKENS.agent)
      .toResolvedValue(
        (logger: Logger, clock: Clock, metrics: AgentMetrics, merger: PodMerger, reconciler: Reconciler,
         sources: PodSource[] | undefined, statusServer: StatusServer | undefined, metricsServer: StatusServer | undefined,
         kubeClient: KubeClient | undefined, handlers: SyncHandler[]) =>
          new Agent({ config, logger, clock, metrics, merger, reconciler, sources: sources ?? [], statusServer, metricsServer, kubeClient, handlers }),
        [
          TOKENS.logger, TOKENS.clock, TOKENS.metrics, TOKENS.merger, TOKENS.reconciler,
          { serviceIdentifier: TOKENS.podSource, isMultiple: true, optional: true },
          { serviceIdentifier: TOKENS.statusServer, optional: true },
          { serviceIdentifier: TOKENS.metricsServer, optional: true },
          { serviceIdentifier: TOKENS.kubeClient, optional: true },
          { serviceIdentifier: TOKENS.syncHandler, isMultiple: true },
        ],
      )
      .inSingletonScope();
  });
