import { isAbsolute, resolve } from 'node:path';
import { ConfigInvalidError, fileReadProblem, isLoopbackIp, readBoundedFile, safeUrl, type SyncHandlerFactory } from '@podconfig/core';
import { EXEC_DEFAULT_KILL_GRACE_MS, EXEC_DEFAULT_TIMEOUT_MS, ExecSyncHandler } from './exec-sync-handler.js';
import { programProblem } from './find-program.js';
import { HandlerOptions } from './handler-options.js';
import { ListingExecSyncHandler } from './listing-exec-sync-handler.js';
import { LogSyncHandler } from './log-sync-handler.js';
import { StateDirSyncHandler } from './state-dir-sync-handler.js';
import { WEBHOOK_DEFAULT_TIMEOUT_MS, WebhookSyncHandler } from './webhook-sync-handler.js';

export type BuiltinHandlerName = 'log' | 'state-dir' | 'exec' | 'webhook';

const log: SyncHandlerFactory = ({ logger, options }) => {
  new HandlerOptions('log', options).allow();
  return new LogSyncHandler({ logger });
};

const stateDir: SyncHandlerFactory = ({ logger, options }) => {
  const o = new HandlerOptions('state-dir', options).allow('arg', 'dir');
  const dir = o.requiredString('dir', 'directory');
  // A handler's options are its own: not resolved against a config file's directory, and under systemd the working
  // directory is `/`. Said once, with where it lands.
  if (!isAbsolute(dir)) logger.warn({ dir, resolved: resolve(dir) }, 'state-dir: a relative directory is taken from the working directory');
  return new StateDirSyncHandler({ dir, logger });
};

const exec: SyncHandlerFactory = ({ logger, nodeName, options, callTimeoutMs }) => {
  const o = new HandlerOptions('exec', options).allow('arg', 'command', 'args', 'timeout', 'killGrace', 'env', 'list');
  const command = o.requiredString('command', 'program to run');
  const args = o.stringArray('args');
  const env = o.env('env');
  const list = o.command('list');
  const timeoutMs = o.duration('timeout', EXEC_DEFAULT_TIMEOUT_MS);
  const killGraceMs = o.duration('killGrace', EXEC_DEFAULT_KILL_GRACE_MS);
  if (callTimeoutMs !== undefined && timeoutMs + killGraceMs > callTimeoutMs) {
    // The reconciler abandons the call first: the pod's next command then waits for this one to be killed.
    logger.warn({ timeoutMs, killGraceMs, callTimeoutMs },
      'exec timeout + killGrace is longer than the handler call timeout: a call is abandoned at the call timeout while its command runs on until its own timeout and kill');
  }
  const path = env?.['PATH'] ?? process.env['PATH'];
  for (const [key, program] of [['command', command], ['list', list?.command]] as const) {
    const problem = program === undefined ? undefined : programProblem(program, path);
    if (problem === undefined) continue;
    // `exec=/bin/sh -c x` names a program called "/bin/sh -c x": arguments are never split out of it.
    const hint = /\s/.test(program ?? '') ? ' (it names one program, never split into arguments: give them as args in the config file\'s handlers: entry)' : '';
    throw o.error(key, `names ${JSON.stringify(program)}: ${problem}${hint}`);
  }
  const base = {
    command,
    ...(args === undefined ? {} : { args }),
    ...(env === undefined ? {} : { env }),
    timeoutMs,
    killGraceMs,
    nodeName,
    logger,
  };
  return list === undefined ? new ExecSyncHandler(base) : new ListingExecSyncHandler({ ...base, list });
};

/** Headers undici sets from the request itself, or refuses. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer']);

const webhook: SyncHandlerFactory = async ({ logger, options, signal }) => {
  const o = new HandlerOptions('webhook', options).allow('arg', 'url', 'headers', 'caFile', 'timeout');
  const text = o.requiredString('url', 'URL to POST to');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw o.error('url', 'must be an absolute http or https URL'); // the value may hold a secret: not quoted
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw o.error('url', 'must be an absolute http or https URL');
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw o.error('url', 'has user info that is not valid percent-encoding'); // not quoted: it is a secret
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (url.protocol === 'http:' && host !== 'localhost' && !isLoopbackIp(host)) {
    // Allowed (a sidecar on a trusted network), but every pod spec and any credential in the headers goes in clear.
    logger.warn({ url: safeUrl(url) }, 'webhook URL is http:// beyond loopback: pod specs and headers are sent unencrypted');
  }
  const headers = o.headers('headers');
  // The handler frames the request itself: one of these would make every call fail.
  const framing = headers?.find(([name]) => FRAMING_HEADERS.has(name.toLowerCase()));
  if (framing !== undefined) throw o.error('headers', `may not set "${framing[0]}" (the handler sets the request's framing)`);
  const timeoutMs = o.duration('timeout', WEBHOOK_DEFAULT_TIMEOUT_MS);
  const caFile = o.optionalString('caFile');
  let ca: string | undefined;
  if (caFile !== undefined) {
    try {
      ca = (await readBoundedFile(caFile, { signal })).toString('utf8');
    } catch (err: unknown) {
      if (signal.aborted) throw err;
      throw new ConfigInvalidError(`handler "webhook": option "caFile": cannot read ${caFile} (${fileReadProblem(err)})`, { cause: err });
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) {
      throw new ConfigInvalidError(`handler "webhook": option "caFile": ${caFile} holds no PEM certificate`);
    }
  }
  return new WebhookSyncHandler({
    url,
    timeoutMs,
    logger,
    ...(headers === undefined ? {} : { headers }),
    ...(ca === undefined ? {} : { ca, caSource: caFile ?? 'caFile' }),
  });
};

/**
 * The built-in handler factories by name, for the agent's `--handler NAME[=ARG]` flag and the
 * config file's `handlers:` entries. Each validates its options and throws
 * {@link ConfigInvalidError} naming the handler and the option.
 */
export const builtinHandlers: Readonly<Record<BuiltinHandlerName, SyncHandlerFactory>> = Object.freeze({
  log,
  'state-dir': stateDir,
  exec,
  webhook,
});
