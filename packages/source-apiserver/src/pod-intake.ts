import { stripManagedFields } from '@podconfig/cache';
import { deepFreezeParsed, type Pod } from '@podconfig/core';

export interface PodIntakeOptions {
  /** Keep `metadata.managedFields` (`--keep-managed-fields`); default false drops them. */
  readonly keepManagedFields?: boolean;
}

/**
 * How {@link ApiserverPodSource} takes pods off the wire, for anyone wiring the cache's pieces the same
 * way (the cluster-wide bench source does): give `transform` to the pods `ListWatch`, and call
 * `pushed()` from the `UndeltaStore`'s push.
 *
 * - `managedFields` are dropped unless kept (as kube-scheduler's informers do).
 * - Until the first push, each pod is deep-frozen as it is decoded, while still in the CPU cache: the
 *   merger adopts (and freezes) the initial set only once it is complete, when freezing cost twice as
 *   much (50,000 pods: 712 → 366 ms). A decoded pod is what `JSON.parse` made (its `spec` maybe one
 *   remembered, frozen already): `deepFreezeParsed`, which looks for frozen parts only at its top level.
 *   Later pods are left to the merger, which freezes only what it keeps of a change (often just the
 *   status): freezing every event here cost 10 % of CPU at 110 pods.
 *
 * One intake per store: a new run of the source makes a new one.
 */
export class PodIntake {
  readonly #keep: boolean;
  #initialSetPushed = false;

  constructor(options: PodIntakeOptions = {}) {
    this.#keep = options.keepManagedFields === true;
  }

  /** The pods `ListWatch`'s `transform`. */
  readonly transform = (object: Pod): Pod => {
    const pod = this.#keep ? object : stripManagedFields(object);
    return this.#initialSetPushed ? pod : deepFreezeParsed(pod);
  };

  /** The store pushed a set: the initial one is complete. */
  pushed(): void {
    this.#initialSetPushed = true;
  }
}
