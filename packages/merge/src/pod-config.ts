import { PodConfigError, PullIterator, type PodSetUpdate, type PodSource, type PodUpdate } from '@podconfig/core';
import { mergeSources } from './merge-sources.js';
import { PodMerger, type PodMergerOptions } from './pod-merger.js';

export interface PodConfigOptions extends PodMergerOptions {
  /** The merger to use (to read its `stats()` or `pods()` meanwhile); default: a new one from these options. */
  readonly merger?: PodMerger;
}

/**
 * {@link mergeSources} + {@link PodMerger}: yields each PodUpdate in order. Ends and fails as mergeSources does;
 * if the merger throws, the sources are stopped and awaited too, and the error rethrown (anything but a
 * {@link PodConfigError} wrapped as `PODCONFIG_INTERNAL`).
 * An iterator object, not an async generator: no suspended frame keeps a SET or an operation it has passed
 * on (see `PullIterator`). The sources start on the first `next()`.
 */
export function podConfig(sources: readonly PodSource[], options: PodConfigOptions, signal: AbortSignal): PullIterator<PodUpdate> {
  return new PodConfigUpdates(() => mergeSources(sources, signal), options.merger ?? new PodMerger(options));
}

const NO_OPERATIONS: readonly PodUpdate[] = [];

class PodConfigUpdates extends PullIterator<PodUpdate> {
  readonly #open: () => PullIterator<PodSetUpdate>;
  readonly #merger: PodMerger;
  #sets: PullIterator<PodSetUpdate> | undefined;
  /** The operations of the last SET merged, handed out from `#at`. */
  #operations: readonly PodUpdate[] = NO_OPERATIONS;
  #at = 0;

  constructor(open: () => PullIterator<PodSetUpdate>, merger: PodMerger) {
    super();
    this.#open = open;
    this.#merger = merger;
  }

  protected async pull(): Promise<IteratorResult<PodUpdate, undefined>> {
    const sets = (this.#sets ??= this.#open());
    while (this.#at === this.#operations.length) {
      this.#operations = NO_OPERATIONS;
      this.#at = 0;
      const next = await sets.next();
      if (next.done === true || this.finished) return { done: true, value: undefined };
      try {
        this.#operations = this.#merger.merge(next.value);
      } catch (err: unknown) {
        // The iteration ends here (PullIterator calls no close() after a throw): stop the sources first.
        await sets.return();
        throw PodConfigError.is(err)
          ? err
          : new PodConfigError('PODCONFIG_INTERNAL', `merging a SET of pod source "${next.value.source}" failed`, { cause: err });
      }
    }
    const operation = this.#operations[this.#at++] as PodUpdate;
    return { done: false, value: operation };
  }

  protected async close(): Promise<void> {
    this.#operations = NO_OPERATIONS;
    this.#at = 0;
    await this.#sets?.return();
  }
}
