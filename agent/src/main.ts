import { Container } from 'inversify';
import type { Logger } from 'pino';
import { systemClock, type Clock, type SyncHandler } from '@podconfig/core';
import { loadClusterConfig } from '@podconfig/kube-client';
import type { AddressInfo } from 'node:net';
import type { Agent } from './agent.js';
import type { AgentConfig } from './agent-config.js';
import type { AgentMetrics } from './metrics.js';
import { coreModule } from './modules/core-module.js';
import { handlersModule } from './modules/handlers-module.js';
import { sourcesModule } from './modules/sources-module.js';
import { statusModule } from './modules/status-module.js';
import { StartupResources } from './startup-resources.js';
import { TOKENS } from './tokens.js';

export interface CreateAgentOptions {
  readonly logger: Logger;
  /** Aborted at shutdown; also handed to handler factories. */
  readonly signal: AbortSignal;
  /** Handler objects to run besides the configured specs (library use). */
  readonly handlers?: readonly SyncHandler[];
  readonly clock?: Clock;
  readonly metrics?: AgentMetrics;
  /** Environment for kubeconfig discovery (`KUBECONFIG`, in-cluster variables); read once, here. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The composition root: the only place that builds the inversify container and resolves from it.
 * The apiserver source exists only when a kubeconfig or in-cluster config is found (standalone
 * mode otherwise, as the kubelet).
 */
export async function createAgent(config: AgentConfig, o: CreateAgentOptions): Promise<Agent> {
  const env = o.env ?? process.env;
  const cluster = await loadClusterConfig({
    ...(config.kubeconfig === undefined ? {} : { kubeconfig: config.kubeconfig }),
    ...(config.context === undefined ? {} : { context: config.context }),
    env,
  });
  if (cluster === undefined) o.logger.info({}, 'no kubeconfig and not in a cluster: standalone mode, no apiserver source');
  const container = new Container();
  const built = new StartupResources();
  // A library caller's handler objects too: the reconciler would have closed them at shutdown as well.
  built.handlers.push(...(o.handlers ?? []));
  try {
    await container.load(
      coreModule({
        config, logger: o.logger, clock: o.clock ?? systemClock, shutdownSignal: o.signal,
        ...(o.metrics === undefined ? {} : { metrics: o.metrics }),
      }),
      sourcesModule(config, cluster, built),
      handlersModule(config, o.handlers ?? [], built),
      statusModule(config),
    );
    return await container.getAsync(TOKENS.agent);
  } catch (err: unknown) {
    // A factory failed half-way: what was built before it would otherwise hold the process (timers,
    // connections) and never get the close() it would have got at shutdown.
    await built.release(config.shutdownTimeoutMs, o.logger);
    throw err;
  }
}

export interface RunAgentOptions extends CreateAgentOptions {
  /** Called once the status server (if any) listens and the pipeline runs. */
  readonly onStarted?: (info: { readonly statusAddress: AddressInfo | undefined }) => void;
}

/**
 * Builds the pipeline for a validated configuration and runs it until `o.signal` aborts; resolves
 * once everything has shut down. The CLI and `runPodConfig()` both go through here.
 */
export async function runAgent(config: AgentConfig, o: RunAgentOptions): Promise<void> {
  const agent = await createAgent(config, o);
  await agent.run(o.signal, o.onStarted);
}
