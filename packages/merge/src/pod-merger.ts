import {
  ANNOTATIONS, callHook, copyWith, deepFreeze, podRef, podUid,
  type Clock, type Pod, type PodSetUpdate, type PodSnapshot, type PodUpdate, type SourceName,
} from '@podconfig/core';
import type { Logger } from 'pino';
import { AcceptedPodIndex, type IndexChange } from './accepted-pod-index.js';
import { checkAndUpdatePod } from './check-and-update-pod.js';
import { sortForEmission, type EmissionOrder } from './emission-order.js';
import { formatSeenTimestamp } from './format-seen-timestamp.js';

export interface PodMergerOptions {
  readonly logger: Logger;
  /** Stamps `config.seen` on first ADD. */
  readonly clock: Clock;
  /**
   * The event the kubelet records on a pod dropped for a duplicate full name (checklist 84), once per drop, for a
   * caller that writes Kubernetes Events (podconfig itself writes nothing to the API server). A hook that throws
   * is logged and ignored.
   */
  readonly onPodEvent?: (event: PodEvent) => void;
}

/** An event about a pod, as the kubelet's recorder would write it (`Warning`, a reason, a message). */
export interface PodEvent {
  readonly type: 'Warning';
  readonly reason: 'FailedValidation';
  /** `Error validating pod <name>_<namespace>(<uid>) from <source> due to duplicate pod name "<name>", ignoring`. */
  readonly message: string;
  /** The dropped pod. */
  readonly pod: Pod;
}

/** One source's counters and sizes. Counters only grow. */
export interface SourceMergeStats {
  /** Pods currently desired from this source. */
  readonly pods: number;
  /** Pods of the last SET currently dropped as duplicates. */
  readonly dropped: number;
  /** Times a pod was dropped because another pod of the SET had its full name (D14). */
  readonly duplicateNames: number;
  /** Times a pod was dropped because another pod of the SET had its UID (D14). */
  readonly duplicateUids: number;
  /** SETs merged. */
  readonly merges: number;
  /** SETs merged through their change keys, in O(changes) (D17). */
  readonly deltaMerges: number;
}

export interface MergerStats {
  readonly sources: Readonly<Partial<Record<SourceName, SourceMergeStats>>>;
}

interface SourceState {
  /** The snapshot last merged: a SET's `changes` apply only if their base is exactly this. */
  snapshot: PodSnapshot | undefined;
  readonly index: AcceptedPodIndex;
  /** The stored pods by UID (the kubelet's `pods[source]`). */
  readonly stored: Map<string, Pod>;
  duplicateNames: number;
  duplicateUids: number;
  merges: number;
  deltaMerges: number;
}

const renamed = (stored: Pod, pod: Pod): boolean =>
  (stored.metadata?.name ?? '') !== (pod.metadata?.name ?? '') ||
  (stored.metadata?.namespace ?? '') !== (pod.metadata?.namespace ?? '');

/**
 * The pod a REMOVE carries: the stored one, brought up to the source's last state of it when the SET says what
 * that was (a watch DELETED's object, same UID). A force delete's `deletionGracePeriodSeconds: 0` then reaches
 * the kill even when the MODIFIED that set it coalesced with the DELETED (D16) and was never merged on its own.
 */
function lastState(stored: Pod, removedByUid: ReadonlyMap<string, Pod> | undefined, source: SourceName): Pod {
  const last = removedByUid?.get(podUid(stored));
  if (last === undefined) return stored;
  const checked = checkAndUpdatePod(stored, last, source);
  return checked.change === 'none' ? stored : checked.pod;
}

/**
 * The kubelet's podStorage (spec §6.2, §6.3) with decisions D14–D17. Synchronous, and pure apart
 * from its own state: it never modifies the pods of the snapshots it is given, but it deep-freezes
 * them, because its stored pods share their subtrees (a source must not modify a pod once pushed;
 * snapshots are immutable anyway).
 *
 * Per source it keeps the stored pods by UID. Each SET is diffed against them (fully, or through
 * its change keys when `changes.base` is the snapshot merged last: D17) and turned into REMOVE,
 * ADD, UPDATE, DELETE, the empty-ADD marker on a source's first SET, and RECONCILE, in that
 * order, sorted per D15. Emitted pods are the stored ones, deep-frozen: the kubelet emits deep copies
 * so that consumers cannot change its state (checklist 85); freezing gives that guarantee without a
 * copy per change, and lets every handler call share the same pod.
 */
export class PodMerger {
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #onPodEvent: ((event: PodEvent) => void) | undefined;
  readonly #sources = new Map<SourceName, SourceState>();

  constructor(options: PodMergerOptions) {
    this.#log = options.logger.child({ component: 'merge' });
    this.#clock = options.clock;
    this.#onPodEvent = options.onPodEvent;
  }

  /** Diffs one SET against that source's previous state; returns the operations in emission order (may be empty). */
  merge(update: PodSetUpdate): PodUpdate[] {
    const { source, pods: next, changes } = update;
    let state = this.#sources.get(source);
    const firstSet = state === undefined;
    if (state === undefined) {
      state = {
        snapshot: undefined, index: new AcceptedPodIndex(), stored: new Map(),
        duplicateNames: 0, duplicateUids: 0, merges: 0, deltaMerges: 0,
      };
      this.#sources.set(source, state);
    }
    const base = state.snapshot;
    const delta = changes !== undefined && base !== undefined && changes.base === base;
    const change = delta ? state.index.apply(base, next, changes.keys) : state.index.rebuild(next, base);
    state.snapshot = next;
    state.merges++;
    if (delta) state.deltaMerges++;
    this.#reportDrops(source, state, next, change);

    // One config.seen per merge (its resolution is the clock's millisecond anyway).
    let seen: string | undefined;
    const firstSeen = (): string => (seen ??= formatSeenTimestamp(this.#clock.now()));
    const removes: Pod[] = [];
    const adds: Pod[] = [];
    const updates: Pod[] = [];
    const deletes: Pod[] = [];
    const reconciles: Pod[] = [];
    if (change.everyKey && state.stored.size === 0) {
      // A first SET (or the first after an empty one) without duplicates: every pod is new. Taken from the
      // snapshot's values, not looked up by UID (at 50,000 pods two lookups each in maps of every pod).
      for (const pod of next.values()) {
        const added = this.#adopt(pod, source, firstSeen());
        state.stored.set(podUid(pod), added);
        adds.push(added);
      }
    } else {
      for (const uid of change.uids) {
        const key = state.index.acceptedKey(uid);
        const pod = key === undefined ? undefined : (change.read.get(key) ?? next.get(key));
        const stored = state.stored.get(uid);
        if (pod === undefined) {
          if (stored !== undefined) {
            removes.push(lastState(stored, update.removed, source));
            state.stored.delete(uid);
          }
          continue;
        }
        if (stored === undefined || renamed(stored, pod)) {
          // D14: a name or namespace change under the same UID is REMOVE + ADD.
          if (stored !== undefined) removes.push(stored);
          const added = this.#adopt(pod, source, firstSeen());
          state.stored.set(uid, added);
          adds.push(added);
          continue;
        }
        const checked = checkAndUpdatePod(stored, pod, source);
        if (checked.change === 'none') continue;
        state.stored.set(uid, checked.pod);
        switch (checked.change) {
          case 'update': updates.push(checked.pod); break;
          case 'delete': deletes.push(checked.pod); break;
          case 'reconcile': reconciles.push(checked.pod); break;
        }
      }
    }

    const out: PodUpdate[] = [];
    const emit = (op: PodUpdate['op'], pods: Pod[], order: EmissionOrder = 'full-name'): void => {
      if (pods.length > 0) out.push({ source, op, pods: sortForEmission(pods, order) });
    };
    emit('REMOVE', removes);
    emit('ADD', adds, 'creation');
    emit('UPDATE', updates);
    emit('DELETE', deletes);
    if (firstSet && adds.length === 0 && updates.length === 0 && deletes.length === 0) {
      out.push({ source, op: 'ADD', pods: [] });
    }
    emit('RECONCILE', reconciles);
    this.#log.debug(
      {
        source, delta, pods: state.stored.size, removed: removes.length, added: adds.length,
        updated: updates.length, deleted: deletes.length, reconciled: reconciles.length,
      },
      'pod set merged',
    );
    return out;
  }

  /** Sources that have delivered at least one SET. */
  seenSources(): ReadonlySet<SourceName> {
    return new Set(this.#sources.keys());
  }

  /** Current desired pods (the stored, frozen objects), per source or all. */
  pods(source?: SourceName): Pod[] {
    if (source !== undefined) return [...(this.#sources.get(source)?.stored.values() ?? [])];
    const all: Pod[] = [];
    for (const state of this.#sources.values()) all.push(...state.stored.values());
    return all;
  }

  /** Counters for metrics and /sources: duplicates dropped (by full name, by UID), per source. */
  stats(): MergerStats {
    const sources: Partial<Record<SourceName, SourceMergeStats>> = {};
    for (const [source, state] of this.#sources) {
      sources[source] = {
        pods: state.stored.size,
        dropped: state.index.droppedCount,
        duplicateNames: state.duplicateNames,
        duplicateUids: state.duplicateUids,
        merges: state.merges,
        deltaMerges: state.deltaMerges,
      };
    }
    return { sources };
  }

  /**
   * The stored version of a pod new to its source: `config.source` and `config.seen`, deep-
   * frozen. Its top-level, `metadata` and `annotations` objects are its own; everything below is
   * shared with (and freezes) the snapshot's pod.
   */
  #adopt(pod: Pod, source: SourceName, seen: string): Pod {
    // copyWith, not spreads: a pod's metadata may lack annotations, and its annotations lack these keys;
    // copies made with spreads would each get a V8 map of their own (see copyWith).
    const annotations = copyWith(pod.metadata?.annotations, {
      [ANNOTATIONS.configSource]: source,
      [ANNOTATIONS.configSeen]: seen,
    });
    const metadata = copyWith(pod.metadata, { annotations });
    const adopted = copyWith(pod, { metadata });
    if (!Object.isFrozen(pod)) return deepFreeze(adopted);
    // A frozen snapshot pod is frozen all the way down (deepFreeze's precondition; the apiserver source
    // freezes what it decodes): only the three new objects are not. At 50,000 pods, walking every member
    // of the copies again cost ~40 ms of the first SET.
    Object.freeze(annotations);
    Object.freeze(metadata);
    return Object.freeze(adopted);
  }

  #reportDrops(source: SourceName, state: SourceState, next: PodSnapshot, change: IndexChange): void {
    for (const drop of change.drops) {
      const pod = next.get(drop.key);
      const winner = next.get(drop.winner);
      if (drop.reason === 'name') state.duplicateNames++;
      else state.duplicateUids++;
      // The kubelet's event for a duplicate full name (its only duplicate check), word for word, in the log too.
      const event = drop.reason === 'name' && pod !== undefined ? failedValidation(pod, source) : undefined;
      this.#log.warn(
        {
          source,
          pod: pod === undefined ? drop.key : podRef(pod),
          uid: pod === undefined ? undefined : podUid(pod),
          winner: winner === undefined ? drop.winner : podRef(winner),
          winnerUid: winner === undefined ? undefined : podUid(winner),
          reason: drop.reason === 'name' ? 'duplicate full name' : 'duplicate UID',
          ...(event === undefined ? {} : { event: { reason: event.reason, message: event.message } }),
        },
        'duplicate pod dropped',
      );
      const onPodEvent = this.#onPodEvent;
      if (event !== undefined && onPodEvent !== undefined) callHook(this.#log, 'onPodEvent hook', () => onPodEvent(event));
    }
  }
}

/** The kubelet's `FailedValidation` event for a pod dropped for its duplicate full name (`format.Pod`: name_namespace(uid)). */
function failedValidation(pod: Pod, source: SourceName): PodEvent {
  const name = pod.metadata?.name ?? '';
  const message = `Error validating pod ${name}_${pod.metadata?.namespace ?? ''}(${podUid(pod)}) from ${source} due to duplicate pod name ${JSON.stringify(name)}, ignoring`;
  return { type: 'Warning', reason: 'FailedValidation', message, pod };
}
