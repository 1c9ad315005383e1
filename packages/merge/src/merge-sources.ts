import {
  LatestByKey, PodConfigError, coalescePodSets, forEachValue, linked, relay,
  type PodSetUpdate, type PodSource, type PullIterator, type SourceName,
} from '@podconfig/core';

/**
 * The fan-in of all sources (style.md example 4, decision D16): one {@link LatestByKey} mailbox
 * that keeps the latest SET per source, combined with `coalescePodSets` so change keys survive
 * coalescing. Producers never wait for the consumer; memory is one pending SET per source; order
 * within one source is kept. SETs coalesce while the consumer is busy; a waiting consumer is woken in
 * a microtask, not a macrotask later: podconfig's sources yield at most one SET per macrotask (the
 * apiserver source's own mailbox coalesces per macrotask, the file and http sources yield after I/O),
 * and a second macrotask would let a reflector decode for another 10 ms slice before the SET it
 * already pushed (at start-up, its initial set) reaches the merger.
 *
 * Returns when `signal` aborts. If a source throws, the other sources are aborted, awaited, and
 * the error is rethrown (a {@link PodConfigError}; anything else is wrapped as
 * `PODCONFIG_INTERNAL` with the error as `cause`).
 */
export function mergeSources(sources: readonly PodSource[], signal: AbortSignal): PullIterator<PodSetUpdate> {
  return mergeSourcesInto(new LatestByKey<SourceName, PodSetUpdate>(coalescePodSets, { wake: 'microtask' }), sources, signal);
}

/**
 * {@link mergeSources} with the mailbox given (the test seam for its bound). An iterator object whose
 * sources are read with promise callbacks: no suspended frame keeps a SET it has passed on (see
 * `PullIterator`).
 */
export function mergeSourcesInto(
  box: LatestByKey<SourceName, PodSetUpdate>,
  sources: readonly PodSource[],
  signal: AbortSignal,
): PullIterator<PodSetUpdate> {
  return relay(() => {
    const stop = linked(signal);
    let failure: PodConfigError | undefined;
    // `then`: an updates() that throws at once fails like one whose iteration throws.
    const pumps = sources.map((source) =>
      Promise.resolve()
        .then(() => forEachValue(source.updates(stop.signal), (update) => box.put(source.name, update)))
        .catch((err: unknown) => {
          if (stop.signal.aborted) return;
          failure = PodConfigError.is(err)
            ? err
            : new PodConfigError('PODCONFIG_INTERNAL', `pod source "${source.name}" failed`, { cause: err });
          stop.abort(failure);
        }),
    );
    return {
      source: box.drain(stop.signal),
      finish: async (how) => {
        stop.abort();
        stop.dispose();
        await Promise.all(pumps);
        if (how === 'ended' && failure !== undefined) throw failure;
      },
    };
  });
}
