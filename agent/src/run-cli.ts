import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { MAX_TIMER_MS, PodConfigError, errorMessage, errorMessageWithCauses, processGroupKillsPending, processGroupKillsSettled } from '@podconfig/core';
import { HandlerStartError } from '@podconfig/reconcile';
import { parseCommandLine } from './cli.js';
import { loadConfigFile, type ConfigFile } from './config-file.js';
import { effectiveSettings } from './effective-settings.js';
import { createRootLogger } from './logger.js';
import { runAgent } from './main.js';
import { AgentMetrics } from './metrics.js';
import { resolveConfig } from './settings.js';
import { ShutdownSignalError } from './shutdown-signal-error.js';
import { AGENT_VERSION } from './version.js';


export interface RunCliOptions {
  /**
   * Aborted by the first SIGTERM, SIGINT or SIGHUP (its reason: a {@link ShutdownSignalError} naming the signal).
   * The process entry installs the signal handlers before it loads this module, so a signal while modules load
   * stops it too.
   */
  readonly signal: AbortSignal;
  /** Called once the root logger exists (the entry logs a second signal with it). */
  readonly onLogger?: (logger: Logger) => void;
}

/** A --log-level that asks for an error's stack in the JSON log. */
const asksForStack = (level: unknown): boolean => typeof level === 'string' && ['debug', 'trace'].includes(level.trim().toLowerCase());

/**
 * A failure at start-up (invalid flags or configuration, wherever found; a handler that cannot load or start): one
 * line on stderr naming the flag, the file or the handler (the messages do), with the causes the message does not
 * repeat (`…: cannot load module: Cannot find package 'x'`). JSON logs are for the running agent.
 */
function reportStartupFailure(err: unknown): void {
  process.stderr.write(`podconfig-agent: ${messageWithCauses(err)}\n`);
}

/** The message and its cause chain (each cause once, unless the message already says it: the log serializer's rule), on one line. */
export function messageWithCauses(err: unknown): string {
  const text = errorMessageWithCauses(err);
  return text.replace(/\s*\n\s*/g, ' ');
}

/**
 * The `podconfig-agent` process after its signal handlers: flags → config → logger → `runAgent()`.
 * Resolves with the exit code: 0 after a clean shutdown (also one that came during start-up), 1 on a
 * fatal runtime error, a handler whose start() failed or a start-up condition that may clear, 2 on invalid flags
 * or configuration.
 */
export async function runCli(argv: readonly string[], o: RunCliOptions): Promise<number> {
  const parsed = parseCommandLine(argv, AGENT_VERSION);
  if (parsed.kind === 'exit') {
    (parsed.code === 0 ? process.stdout : process.stderr).write(parsed.output);
    return parsed.code === 0 ? 0 : 2;
  }
  let config;
  let file: ConfigFile | undefined;
  try {
    const configFile = parsed.commandLine.configFile;
    file = configFile === undefined ? undefined : await loadConfigFile(configFile, o.signal);
    config = resolveConfig(parsed.commandLine.flags, file?.fields ?? {}, { flagNames: parsed.commandLine.flagNames, ...(configFile === undefined ? {} : { configFile }) });
  } catch (err: unknown) {
    // Stopped while the config file (a FIFO) was waited for: a stop, not a bad file. No logger yet.
    if (o.signal.aborted) return 0;
    // The configuration did not resolve, so its log level is unknown: --log-level on the command line, when it asks
    // for the stack (debug, trace), is honoured as it is for errors found later.
    if (asksForStack(parsed.commandLine.flags['log-level'])) {
      createRootLogger({ level: 'debug', nodeName: hostname().toLowerCase() }).debug({ err }, 'invalid configuration');
    }
    reportStartupFailure(err);
    return 2;
  }
  const logger = createRootLogger({ level: config.logLevel, nodeName: config.nodeName });
  o.onLogger?.(logger);
  logger.info({ settings: effectiveSettings(config) }, 'configuration');
  if (file !== undefined && file.ignoredFields.length > 0) logger.info({ fields: file.ignoredFields }, 'ignoring KubeletConfiguration fields podconfig does not use');
  if (file !== undefined && file.unknownFields.length > 0) {
    // A newer kubelet's field, or a typo of one podconfig does not use (a typo of one it uses is an error).
    logger.warn({ fields: file.unknownFields }, 'ignoring fields KubeletConfiguration v1beta1 does not have (as of Kubernetes 1.36): a newer kubelet\'s, or misspelt');
  }

  const shutdownTimeoutMs = config.shutdownTimeoutMs;
  const onAbort = (): void => {
    const reason: unknown = o.signal.reason;
    logger.info({ signal: reason instanceof ShutdownSignalError ? reason.signal : errorMessage(reason) }, 'shutting down');
    // Handlers get shutdownTimeout; if something still holds the process after that, leave anyway.
    const deadlineMs = Math.min(shutdownTimeoutMs + 5_000, MAX_TIMER_MS);
    setTimeout(() => {
      logger.warn({ deadlineMs }, 'shutdown deadline passed, exiting');
      process.exit(0);
    }, deadlineMs).unref();
  };
  if (o.signal.aborted) {
    // The signal came while the modules loaded: nothing was started yet.
    onAbort();
    logger.info({ reason: 'signal before start-up' }, 'stopped during start-up');
    return 0;
  }
  o.signal.addEventListener('abort', onAbort, { once: true });
  try {
    // The process owns the Node.js runtime metrics (event loop, GC, heap); embedders opt in themselves.
    await runAgent(config, { logger, signal: o.signal, metrics: new AgentMetrics({ collectDefault: true }) });
    return 0;
  } catch (err: unknown) {
    if (o.signal.aborted) {
      // Stopped while starting: whatever failed was cut short by the stop.
      logger.info({ reason: errorMessage(err) }, 'stopped during start-up');
      return 0;
    }
    const started = err instanceof HandlerStartError;
    if (started || PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID') || PodConfigError.is(err, 'PODCONFIG_PLUGIN_LOAD')) {
      // Found at start-up (a bad kubeconfig, an unknown --context, a handler that cannot load or start, the status
      // address taken): said as a flag error is, one line on stderr; the stack only at --log-level=debug.
      logger.debug({ err }, started ? 'sync handler failed to start' : 'invalid configuration');
      reportStartupFailure(err);
      // What may clear by itself (a handler's runtime not up yet, the status port still taken, the kubeconfig not
      // written yet) exits 1, which a supervisor restarts (the systemd unit does not restart on 2: a bad value
      // stays bad).
      return started || err.retryable ? 1 : 2;
    }
    logger.fatal({ err }, 'agent failed');
    return 1;
  } finally {
    o.signal.removeEventListener('abort', onAbort);
    await commandGroupsEnded(logger);
  }
}

/**
 * The exec handlers' commands stopped at shutdown got SIGTERM, and their process groups SIGKILL after the
 * handler's killGrace: a timer in this process. A member that ignores SIGTERM (a hook's background child) would
 * outlive an agent that exited first, so the agent waits for those kills (the shutdown deadline still holds:
 * at exit, what is left gets its SIGKILL at once).
 */
async function commandGroupsEnded(logger: Logger): Promise<void> {
  const pending = processGroupKillsPending();
  if (pending.length === 0) return;
  logger.info({ processGroups: pending }, 'waiting for stopped commands\' process groups to end (SIGKILL at the end of their killGrace)');
  await processGroupKillsSettled();
}
