import type { Logger } from 'pino';

/**
 * Calls a caller's hook (a metrics or event callback) whose failure must not reach the code that reports to it:
 * a hook that throws is logged at warn as `<what> threw; ignored`.
 */
export function callHook(log: Logger, what: string, hook: () => void): void {
  try {
    hook();
  } catch (err: unknown) {
    log.warn({ err }, `${what} threw; ignored`);
  }
}
