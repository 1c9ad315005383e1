import { existsSync } from 'node:fs';
import { Container } from 'inversify';
import type { Logger } from 'pino';
import { ConfigInvalidError, MAX_TIMER_MS, PodConfigError, errorMessage, safeUrl, systemClock, type Clock, type SyncHandler } from '@podconfig/core';
import { loadClusterConfig, type ClusterConfig } from '@podconfig/kube-client';
import type { Agent, AgentStartedInfo } from './agent.js';
import { settingName } from './settings.js';
import type { AgentConfig } from './agent-config.js';
import { unusedFeatureGates, validationFeatureGates } from './feature-gates.js';
import type { AgentMetrics } from './metrics.js';
import { coreModule } from './modules/core-module.js';
import { handlersModule } from './modules/handlers-module.js';
import { sourcesModule } from './modules/sources-module.js';
import { readManifestUrlTls } from './pem-file.js';
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
  /**
   * Environment for kubeconfig discovery (`KUBECONFIG`, in-cluster variables) and the proxy variables
   * (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`); read once, here.
   */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The composition root: the only place that builds the inversify container and resolves from it.
 * The apiserver source exists only when a kubeconfig or in-cluster config is found (standalone
 * mode otherwise, as the kubelet), and never when `kubeconfig` is `''` (standalone on purpose).
 */
export async function createAgent(config: AgentConfig, o: CreateAgentOptions): Promise<Agent> {
  const env = o.env ?? process.env;
  // A KubeletConfiguration shared with the kubelet carries its gates: accepted, and named once (not their values).
  const unusedGates = unusedFeatureGates(config.featureGates);
  if (unusedGates.length > 0) o.logger.info({ featureGates: unusedGates }, 'ignoring feature gates podconfig does not use');
  const validationGates = validationFeatureGates(config.featureGates);
  if (validationGates.length > 0) {
    o.logger.warn({ featureGates: validationGates }, "static pods are validated with Kubernetes 1.36's default feature gates: these gates change what the kubelet accepts, not what podconfig does");
  }
  let cluster;
  if (config.kubeconfig === '') {
    // The kubelet's `--kubeconfig=""`: standalone on purpose, even on a node whose ~/.kube/config is admin.conf.
    cluster = undefined;
    o.logger.info({ setting: settingName(config, 'kubeconfig') }, 'kubeconfig set empty: standalone mode, no apiserver source');
  } else {
    cluster = await loadCluster(config, env, o.signal);
    if (cluster === undefined) {
      // client-go skips KUBECONFIG's missing files; a KUBECONFIG of nothing but those is as often a typo as a choice.
      const named = env['KUBECONFIG'];
      if (config.kubeconfig === undefined && named !== undefined && named !== '') {
        o.logger.warn({ KUBECONFIG: named }, 'KUBECONFIG names no file that exists or holds a configuration: standalone mode, no apiserver source');
      } else {
        o.logger.info({}, 'no kubeconfig and not in a cluster: standalone mode, no apiserver source');
      }
    }
    // Which credentials the api source uses (`kubeconfig:<file>#<context>` or `in-cluster`): found, not only given.
    else {
      const found = {
        cluster: cluster.source, server: safeUrl(cluster.server), ...(cluster.proxyUrl === undefined ? {} : { proxy: safeUrl(cluster.proxyUrl) }),
      };
      // Neither --kubeconfig nor $KUBECONFIG: kubectl's default file, which on a kubeadm control-plane node is often
      // admin.conf. The kubelet would run standalone here: say so where an operator looks.
      const named = env['KUBECONFIG'];
      if (config.kubeconfig === undefined && (named === undefined || named === '') && cluster.source.startsWith('kubeconfig:')) {
        o.logger.warn(found, 'apiserver source configured from kubectl\'s default kubeconfig, as no --kubeconfig was given (the kubelet would run standalone): give --kubeconfig to choose the credentials, or --kubeconfig="" for standalone mode');
      } else {
        o.logger.info(found, 'apiserver source configured');
      }
    }
  }
  const manifestUrlTls = await readManifestUrlTls(config, o.signal);
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
      sourcesModule(config, cluster, env, manifestUrlTls, built),
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

async function loadCluster(config: AgentConfig, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<ClusterConfig | undefined> {
  try {
    return await loadClusterConfig({
      ...(config.kubeconfig === undefined ? {} : { kubeconfig: config.kubeconfig }),
      ...(config.context === undefined ? {} : { context: config.context }),
      env,
      signal,
    });
  } catch (err: unknown) {
    // A missing or broken kubeconfig, or an unknown context, is a bad value the user gave: invalid configuration.
    if (!PodConfigError.is(err, 'PODCONFIG_KUBECONFIG_INVALID')) throw err;
    // The setting's name only: the message names the file or context already.
    const given = [config.kubeconfig === undefined ? undefined : settingName(config, 'kubeconfig'),
      config.context === undefined ? undefined : settingName(config, 'context')].filter((g) => g !== undefined);
    // A --kubeconfig file that is not there yet (kubeadm join writes kubelet.conf after boot) may come: retryable.
    const retryable = config.kubeconfig !== undefined && config.kubeconfig !== '' && !existsSync(config.kubeconfig);
    throw new ConfigInvalidError(given.length === 0 ? err.message : `${given.join(', ')}: ${err.message}`, { cause: err, retryable });
  }
}

export interface RunAgentOptions extends CreateAgentOptions {
  /** Called once the status and metrics servers (each if configured) listen and the pipeline runs. */
  readonly onStarted?: (info: AgentStartedInfo) => void;
}

/**
 * Builds the pipeline for a validated configuration and runs it until `o.signal` aborts; resolves
 * once everything has shut down. The CLI and `runPodConfig()` both go through here.
 */
export async function runAgent(config: AgentConfig, o: RunAgentOptions): Promise<void> {
  // Runs until the signal aborts even while only a start-up step is pending (a handler factory or module
  // still loading holds no handle): without one, Node.js would end the process (exit 13, an unsettled await).
  const alive = setInterval(() => undefined, MAX_TIMER_MS);
  try {
    let agent: Agent;
    try {
      agent = await createAgent(config, o);
    } catch (err: unknown) {
      // Stopped while starting (a factory cut short by the abort): a stop, not a failure.
      if (!o.signal.aborted) throw err;
      o.logger.info({ reason: errorMessage(err) }, 'stopped during start-up');
      return;
    }
    await agent.run(o.signal, o.onStarted);
  } finally {
    clearInterval(alive);
  }
}
