#!/usr/bin/env node
// Nothing but Node.js itself (and the abort reason, a module that imports nothing) is imported statically: the
// signal handlers go in first, before the agent's modules load (about half a second), so that a SIGTERM, SIGINT
// or SIGHUP then stops the process as one later does (exit 0), rather than killing it (143, 130, 129).
// Everything else is `runCli()` in ../run-cli.ts.
import type { Logger } from 'pino';
import { ShutdownSignalError } from '../shutdown-signal-error.js';

const root = new AbortController();
let logger: Logger | undefined;
// kubelet SetupSignalContext: the first SIGTERM or SIGINT cancels, a second of either kind exits 1 at once.
// SIGHUP (the terminal or the SSH session went away) shuts down the same way. The kubelet leaves it to Go's
// default, which kills the process on the spot; here that would skip the exit hook that ends the exec
// handlers' process groups, and a hook's detached group would outlive the agent, re-parented to init.
const onSignal = (signal: NodeJS.Signals): void => {
  if (root.signal.aborted) {
    if (logger === undefined) process.stderr.write(`podconfig-agent: second signal (${signal}) received, exiting\n`);
    else logger.warn({ signal }, 'second signal received, exiting');
    process.exit(1);
  }
  // An Error, not the signal's name: handlers get it as their signals' reason (`throwIfAborted()` throws it).
  root.abort(new ShutdownSignalError(signal));
};
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);
process.on('SIGHUP', onSignal);

const { runCli } = await import('../run-cli.js');
// Once runCli() has returned, the agent has shut down: what still holds the event loop then was abandoned
// (a handler call that ignored its signal past --shutdown-timeout, a plugin's timer), and must not keep the
// process, nor turn its exit code into another at a later signal. pino flushes its stdout stream at exit.
process.exit(await runCli(process.argv.slice(2), { signal: root.signal, onLogger: (l) => { logger = l; } }));
