import { ContainerModule } from 'inversify';
import type { Logger } from 'pino';
import type { Clock } from '@podconfig/core';
import { FilePodSource } from '@podconfig/source-file';
import { HttpPodSource } from '@podconfig/source-http';
import { ApiserverPodSource } from '@podconfig/source-apiserver';
import { KubeClient, type ClusterConfig } from '@podconfig/kube-client';
import type { AgentConfig } from '../agent-config.js';
import type { AgentMetrics } from '../metrics.js';
import type { ManifestUrlTls } from '../pem-file.js';
import type { StartupResources } from '../startup-resources.js';
import { TOKENS } from '../tokens.js';

/**
 * The pod sources the configuration asks for; each is bound only when configured (feature
 * switches decide bindings, sources never read flags). `cluster` is undefined in standalone mode;
 * `env` holds the proxy variables for the manifest URL (the cluster's proxy is in `cluster` already), `tls` its
 * TLS files, read before (bindings are synchronous).
 * The apiserver client is noted in `built` (released if the start fails).
 */
export const sourcesModule = (
  config: AgentConfig, cluster: ClusterConfig | undefined, env: NodeJS.ProcessEnv, tls: ManifestUrlTls, built?: StartupResources,
): ContainerModule =>
  new ContainerModule(({ bind }) => {
    const { nodeName } = config;
    const staticPodPath = config.staticPodPath;
    if (staticPodPath !== undefined) {
      bind(TOKENS.podSource)
        .toResolvedValue(
          (logger: Logger, clock: Clock) =>
            new FilePodSource({
              path: staticPodPath, nodeName, logger, clock,
              periodMs: config.fileCheckFrequencyMs,
              invalidManifest: config.invalidManifest,
              manifestFilter: config.manifestFilter,
              ...(config.manifestExtensions === undefined ? {} : { extensions: config.manifestExtensions }),
            }),
          [TOKENS.logger, TOKENS.clock],
        )
        .inSingletonScope();
    }
    const manifestUrl = config.manifestUrl;
    if (manifestUrl !== undefined) {
      const { ca, cert, key } = tls;
      bind(TOKENS.podSource)
        .toResolvedValue(
          (logger: Logger, clock: Clock) =>
            new HttpPodSource({
              url: new URL(manifestUrl), nodeName, logger, clock,
              periodMs: config.httpCheckFrequencyMs,
              headers: config.manifestUrlHeaders,
              readiness: config.httpReady,
              env, // HTTP_PROXY/HTTPS_PROXY/NO_PROXY, as the kubelet's client reads them
              userAgent: 'podconfig-agent',
              ...(ca === undefined ? {} : { ca, caSource: config.manifestUrlCaFile ?? '--manifest-url-ca' }),
              ...(cert === undefined || key === undefined ? {} : { cert, key }),
            }),
          [TOKENS.logger, TOKENS.clock],
        )
        .inSingletonScope();
    }
    if (cluster !== undefined) {
      bind(TOKENS.kubeClient)
        .toResolvedValue(
          (logger: Logger, clock: Clock, metrics: AgentMetrics) => {
            const client = new KubeClient({
              config: cluster, logger, clock, qps: config.kubeApiQps, burst: config.kubeApiBurst, userAgent: 'podconfig-agent',
              onRequest: (e) => metrics.kubeRequest(e),
              onRequestLatency: (e) => metrics.kubeRequestLatency(e),
            });
            built?.kubeClients.push(client);
            return client;
          },
          [TOKENS.logger, TOKENS.clock, TOKENS.metrics],
        )
        .inSingletonScope();
      bind(TOKENS.podSource)
        .toResolvedValue(
          (logger: Logger, clock: Clock, client: KubeClient) =>
            new ApiserverPodSource({
              client, nodeName, logger, clock, watchList: config.watchList, keepManagedFields: config.keepManagedFields, server: cluster.server,
              ...(cluster.proxyUrl === undefined ? {} : { proxy: cluster.proxyUrl }),
            }),
          [TOKENS.logger, TOKENS.clock, TOKENS.kubeClient],
        )
        .inSingletonScope();
    }
  });
