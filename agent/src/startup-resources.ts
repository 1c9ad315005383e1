import type { Logger } from 'pino';
import { errorMessage, isClosable, isStartable, type SyncHandler } from '@podconfig/core';
import type { KubeClient } from '@podconfig/kube-client';

/**
 * Closes the handlers a failed start left behind, before the reconciler ran them: those without a
 * `start()` hook, which are live once built (a handler with one was never started, and the
 * reconciler's rule is the same: it closes only the handlers that started). Each `close()` gets
 * `timeoutMs`; one that fails or hangs is logged and left.
 */
export async function closeUnstartedHandlers(handlers: readonly SyncHandler[], timeoutMs: number, logger: Logger): Promise<void> {
  await Promise.all(handlers.map(async (handler) => {
    if (!isClosable(handler) || isStartable(handler)) return;
    const signal = AbortSignal.timeout(timeoutMs);
    const timedOut = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    try {
      await Promise.race([handler.close(signal), timedOut]);
      if (signal.aborted) logger.warn({ handler: handler.name, timeoutMs }, 'sync handler close did not finish; left');
    } catch (err: unknown) {
      logger.warn({ handler: handler.name, err: errorMessage(err) }, 'sync handler close failed');
    }
  }));
}

/**
 * What the composition root builds that holds resources — loaded handlers, apiserver clients — noted
 * as it is built, so that a start that fails half-way (a second handler's factory throws) can release
 * what the running agent would have released at shutdown.
 */
export class StartupResources {
  readonly handlers: SyncHandler[] = [];
  readonly kubeClients: KubeClient[] = [];

  async release(timeoutMs: number, logger: Logger): Promise<void> {
    await closeUnstartedHandlers(this.handlers, timeoutMs, logger);
    await Promise.all(this.kubeClients.map((client) => client.close().catch((err: unknown) => {
      logger.debug({ err: errorMessage(err) }, 'closing the apiserver client failed');
    })));
  }
}
