import type { ChangeEvent, KubeObject, ReflectorSink } from '@podconfig/cache';

/**
 * The sink of the node reflector: it keeps nothing but whether the initial list of this node has
 * completed (the kubelet's `nodeHasSynced`) and whether the Node object exists. The Node need not
 * exist for the gate to open (spec §4.1): "synced" means the list came back, even empty.
 */
export class NodeSyncSink implements ReflectorSink<KubeObject> {
  #synced = false;
  #exists = false;
  readonly #waiters = new Set<() => void>();
  readonly #onExistenceChange: ((exists: boolean) => void) | undefined;

  /**
   * `onExistenceChange` is told when the Node appears or goes after the initial list (which the gate reports
   * itself), so that a "node not found" warning is not the last word when the node registers later.
   */
  constructor(o: { readonly onExistenceChange?: (exists: boolean) => void } = {}) {
    this.#onExistenceChange = o.onExistenceChange;
  }

  /** The initial list (or streaming list) of the node has completed. */
  get synced(): boolean {
    return this.#synced;
  }

  /** The Node object currently exists (as of the last list or event). */
  get exists(): boolean {
    return this.#exists;
  }

  replace(items: readonly KubeObject[], _resourceVersion: string): void {
    if (this.#synced) {
      this.#setExists(items.length > 0);
      return;
    }
    this.#exists = items.length > 0;
    this.#synced = true;
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  apply(event: ChangeEvent<KubeObject>): void {
    this.#setExists(event.type !== 'DELETED');
  }

  #setExists(exists: boolean): void {
    if (exists === this.#exists) return;
    this.#exists = exists;
    if (this.#synced) this.#onExistenceChange?.(exists);
  }

  /** Resolves `true` once synced, or `false` when `signal` aborts first. */
  whenSynced(signal: AbortSignal): Promise<boolean> {
    if (this.#synced) return Promise.resolve(true);
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.#waiters.delete(onSync);
        resolve(false);
      };
      const onSync = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      };
      this.#waiters.add(onSync);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
