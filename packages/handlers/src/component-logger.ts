import type { Logger } from 'pino';

/**
 * `logger.child({ component, ...bindings })`, leaving `component` out when `logger` already
 * carries one (the agent's `SyncHandlerContext.logger` does: `sync.<the name the handler runs
 * under>`, which an `id` or a `-2` suffix makes other than this default): pino would otherwise
 * print the key twice. Returns `logger` itself when there is nothing to add.
 */
export function componentLogger(logger: Logger, component: string, bindings: Readonly<Record<string, unknown>> = {}): Logger {
  const has = typeof logger.bindings()['component'] === 'string';
  if (has && Object.keys(bindings).length === 0) return logger;
  return logger.child(has ? { ...bindings } : { component, ...bindings });
}
