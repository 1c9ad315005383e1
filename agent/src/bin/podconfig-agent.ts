#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { MAX_TIMER_MS, PodConfigError, errorMessage } from '@podconfig/core';
import { parseCommandLine } from '../cli.js';
import { loadConfigFile } from '../config-file.js';
import { createRootLogger } from '../logger.js';
import { runAgent } from '../main.js';
import { AgentMetrics } from '../metrics.js';
import { resolveConfig } from '../settings.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Exit codes: 0 after a clean shutdown, 1 on a fatal runtime error, 2 on invalid flags or configuration. */
async function main(): Promise<number> {
  const parsed = parseCommandLine(process.argv.slice(2), VERSION);
  if (parsed.kind === 'exit') {
    (parsed.code === 0 ? process.stdout : process.stderr).write(parsed.output);
    return parsed.code === 0 ? 0 : 2;
  }
  let config;
  let ignoredFields: readonly string[] = [];
  try {
    const configFile = parsed.commandLine.configFile;
    const file = configFile === undefined ? undefined : await loadConfigFile(configFile);
    ignoredFields = file?.ignoredFields ?? [];
    config = resolveConfig(parsed.commandLine.flags, file?.fields ?? {}, { flagNames: parsed.commandLine.flagNames, ...(configFile === undefined ? {} : { configFile }) });
  } catch (err: unknown) {
    process.stderr.write(`podconfig-agent: ${errorMessage(err)}\n`);
    return 2;
  }
  const logger = createRootLogger({ level: config.logLevel, nodeName: config.nodeName });
  if (ignoredFields.length > 0) logger.info({ fields: ignoredFields }, 'ignoring KubeletConfiguration fields podconfig does not use');

  const root = new AbortController();
  // kubelet SetupSignalContext: the first SIGTERM or SIGINT cancels, a second of either kind exits 1 at once.
  const onSignal = (signal: NodeJS.Signals): void => {
    if (root.signal.aborted) {
      logger.warn({ signal }, 'second signal received, exiting');
      process.exit(1);
    }
    logger.info({ signal }, 'shutting down');
    root.abort();
    // Handlers get shutdownTimeout; if something still holds the process after that, leave anyway.
    const deadlineMs = Math.min(config.shutdownTimeoutMs + 5_000, MAX_TIMER_MS);
    setTimeout(() => {
      logger.warn({ deadlineMs }, 'shutdown deadline passed, exiting');
      process.exit(0);
    }, deadlineMs).unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    // The process owns the Node.js runtime metrics (event loop, GC, heap); embedders opt in themselves.
    await runAgent(config, { logger, signal: root.signal, metrics: new AgentMetrics({ collectDefault: true }) });
    return 0;
  } catch (err: unknown) {
    if (root.signal.aborted) {
      // Stopped while starting: whatever failed was cut short by the stop.
      logger.info({ reason: errorMessage(err) }, 'stopped during start-up');
      return 0;
    }
    const invalid = PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID') || PodConfigError.is(err, 'PODCONFIG_PLUGIN_LOAD');
    logger.fatal({ err }, invalid ? 'invalid configuration' : 'agent failed');
    return invalid ? 2 : 1;
  }
}

// Once main() has returned, the agent has shut down: what still holds the event loop then was abandoned
// (a handler call that ignored its signal past --shutdown-timeout, a plugin's timer), and must not keep the
// process, nor turn its exit code into another at a later signal. pino flushes its stdout stream at exit.
process.exit(await main());
