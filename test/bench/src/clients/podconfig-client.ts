/**
 * The podconfig bench client: the whole pipeline — KubeClient → ListWatch → Reflector → UndeltaStore
 * (ApiserverPodSource, or ClusterPodSource without a node) → mergeSources/PodMerger → Reconciler → a
 * no-op handler. Reports `first` and `done` (see client-report.ts).
 */
import { pino } from 'pino';
import { API_SOURCE, systemClock } from '@podconfig/core';
import { KubeClient, loadClusterConfig } from '@podconfig/kube-client';
import { PodMerger, podConfig } from '@podconfig/merge';
import { Reconciler } from '@podconfig/reconcile';
import { ApiserverPodSource } from '@podconfig/source-apiserver';
import { clientArgs, fail, parkUntilKilled } from '../client-report.js';
import { BenchHandler } from './bench-handler.js';
import { ClusterPodSource } from './cluster-pod-source.js';

async function main(): Promise<void> {
  const args = clientArgs();
  const logger = pino({ level: 'info' }, pino.destination(2));
  const config = await loadClusterConfig({ kubeconfig: args.kubeconfig! });
  if (config === undefined) throw new Error('no cluster config');
  const client = new KubeClient({ config, logger, qps: 50, burst: 100 });
  const clock = systemClock;
  const keepManagedFields = args.keepManagedFields === true;
  const source = args.nodeName === undefined
    ? new ClusterPodSource({ client, logger, clock, keepManagedFields })
    : new ApiserverPodSource({ client, nodeName: args.nodeName, logger, clock, keepManagedFields });
  const merger = new PodMerger({ logger, clock });
  const handler = new BenchHandler({
    events: args.events ?? 0,
    slowHandlerMs: args.slowHandlerMs ?? 0,
    latency: args.latency === true,
    onDone: () => {
      const s = merger.stats().sources[API_SOURCE];
      const m = process.memoryUsage();
      return {
        merges: s?.merges ?? 0, deltaMerges: s?.deltaMerges ?? 0, pods: s?.pods ?? 0,
        heapUsedMb: Math.round(m.heapUsed / 2 ** 20), externalMb: Math.round(m.external / 2 ** 20), arrayBuffersMb: Math.round(m.arrayBuffers / 2 ** 20),
      };
    },
  });
  const reconciler = new Reconciler({
    handlers: [handler], sources: [API_SOURCE], logger, clock, observer: { operation: (u) => handler.operation(u) },
  });
  parkUntilKilled();
  const root = new AbortController();
  process.once('SIGINT', () => root.abort());
  await reconciler.run(podConfig([source], { logger, clock, merger }, root.signal), root.signal);
  await client.close();
}

main().catch(fail);
