import type { ServiceIdentifier } from 'inversify';
import type { Logger } from 'pino';
import type { Clock, PodSource, SyncHandler } from '@podconfig/core';
import type { PodMerger } from '@podconfig/merge';
import type { Reconciler } from '@podconfig/reconcile';
import type { KubeClient } from '@podconfig/kube-client';
import type { Agent } from './agent.js';
import type { AgentConfig } from './agent-config.js';
import type { AgentMetrics } from './metrics.js';
import type { StatusServer } from './status-server.js';

// The cast keeps T on the symbol (inversify's documented pattern for typed service identifiers).
const id = <T>(name: string): ServiceIdentifier<T> => Symbol.for(`podconfig.${name}`) as ServiceIdentifier<T>;

export const TOKENS = {
  config: id<AgentConfig>('AgentConfig'),
  logger: id<Logger>('Logger'),
  clock: id<Clock>('Clock'),
  /** Aborted at shutdown; handed to handler factories. */
  shutdownSignal: id<AbortSignal>('ShutdownSignal'),
  metrics: id<AgentMetrics>('AgentMetrics'),
  kubeClient: id<KubeClient>('KubeClient'),
  podSource: id<PodSource>('PodSource'),
  syncHandler: id<SyncHandler>('SyncHandler'),
  merger: id<PodMerger>('PodMerger'),
  reconciler: id<Reconciler>('Reconciler'),
  statusServer: id<StatusServer>('StatusServer'),
  /** The `--metrics-bind-address` listener: a {@link StatusServer} serving /metrics and the health checks only. */
  metricsServer: id<StatusServer>('MetricsServer'),
  agent: id<Agent>('Agent'),
} as const;
