import { podFullName, podUid, type Pod, type PodSnapshot } from '@podconfig/core';

/** Why a pod of a SET is not accepted (decision D14): its full name or its UID is already taken. */
export type DropReason = 'name' | 'uid';

/** A dropped snapshot key and the key of the pod that won over it. */
export interface DropReport {
  readonly key: string;
  readonly reason: DropReason;
  readonly winner: string;
}

/** What changed in the index through one SET. */
export interface IndexChange {
  /** UIDs whose accepted key or pod may have changed, each once: the merger re-diffs exactly these. */
  readonly uids: Iterable<string>;
  /** Keys that became dropped, or are now dropped for another reason or winner; sorted by key. */
  readonly drops: readonly DropReport[];
  /**
   * The new snapshot's pod for each changed key that has one, as read while applying the change: the
   * merger takes accepted pods from here before asking the snapshot (a lookup in a big immutable map
   * costs about a microsecond). Empty after a rebuild.
   */
  readonly read: ReadonlyMap<string, Pod>;
  /**
   * Every key of the new snapshot is accepted, under its pod's own UID (a rebuild that met no duplicate):
   * the merger may take the snapshot's entries as they are, without a lookup per UID.
   */
  readonly everyKey: boolean;
}

const NOTHING_READ: ReadonlyMap<string, Pod> = new Map();

interface Drop {
  readonly reason: DropReason;
  readonly winner: string;
}

const sameDrop = (a: Drop | undefined, b: Drop | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && a.reason === b.reason && a.winner === b.winner);

/**
 * Keys grouped by full name or UID. Nearly every group has one key, so a group is that key
 * itself until a second one joins (a Set per pod would cost memory and GC time at 100,000 pods).
 */
type Groups = Map<string, string | Set<string>>;

function addTo(groups: Groups, group: string, key: string): void {
  const keys = groups.get(group);
  if (keys === undefined) groups.set(group, key);
  else if (typeof keys === 'string') {
    if (keys !== key) groups.set(group, new Set([keys, key]));
  } else keys.add(key);
}

function removeFrom(groups: Groups, group: string, key: string): void {
  const keys = groups.get(group);
  if (keys === undefined) return;
  if (typeof keys === 'string') {
    if (keys === key) groups.delete(group);
    return;
  }
  keys.delete(key);
  if (keys.size === 1) groups.set(group, keys.values().next().value as string);
}

const membersOf = (keys: string | Set<string> | undefined): Iterable<string> =>
  keys === undefined ? [] : typeof keys === 'string' ? [keys] : keys;

/** The incumbent if it is still a candidate, else the smallest key. */
function pick(keys: string | Set<string> | undefined, incumbent: string | undefined): string | undefined {
  if (keys === undefined || typeof keys === 'string') return keys;
  if (incumbent !== undefined && keys.has(incumbent)) return incumbent;
  let min: string | undefined;
  for (const key of keys) if (min === undefined || key < min) min = key;
  return min;
}

/**
 * The winning key of a group: a group of one key is its own winner, so only groups of several keep
 * theirs in `winners` (a map of every full name and one of every UID cost ~60 ms of a 50,000-pod first SET).
 */
function winnerOf(groups: Groups, winners: Map<string, string>, group: string): string | undefined {
  const keys = groups.get(group);
  return keys === undefined || typeof keys === 'string' ? keys : winners.get(group);
}

/** Records `winner` for `group` as it now stands (the winner of a group of several, or none to keep). */
function setWinner(groups: Groups, winners: Map<string, string>, group: string, winner: string | undefined): void {
  if (winner !== undefined && typeof groups.get(group) === 'object') winners.set(group, winner);
  else winners.delete(group);
}

/** Notes `group`'s winner in `before`, once, before its group changes. */
function noteWinner(before: Map<string, string | undefined>, groups: Groups, winners: Map<string, string>, group: string): void {
  if (!before.has(group)) before.set(group, winnerOf(groups, winners, group));
}

/** Iterates a map's keys, as often as asked. */
const keysOf = (map: Map<string, unknown>): Iterable<string> => ({ [Symbol.iterator]: () => map.keys() });

const SLASH = 47;

/**
 * `key` is its pod's `namespace/name`, and neither holds a `_` (valid names never do): two such keys of one
 * snapshot are two full names, because a `name_namespace` with a single `_` splits one way only. A
 * source keyed like the kubelet's UndeltaStore (the apiserver's) has only such keys. Read without
 * building a string.
 */
function isOwnKey(key: string, pod: Pod): boolean {
  const name = pod.metadata?.name;
  const namespace = pod.metadata?.namespace;
  return typeof name === 'string' && typeof namespace === 'string' &&
    key.length === namespace.length + 1 + name.length && key.charCodeAt(namespace.length) === SLASH &&
    key.startsWith(namespace) && key.endsWith(name) && !name.includes('_') && !namespace.includes('_');
}

/** The full-name groups of a snapshot whose keys are all its pods' own (see isOwnKey): one key each. */
function ownNames(snapshot: PodSnapshot): Groups {
  const names: Groups = new Map();
  for (const [key, pod] of snapshot.entries()) names.set(podFullName(pod), key);
  return names;
}

const at = (snapshot: PodSnapshot, key: string): Pod => {
  const pod = snapshot.get(key);
  if (pod === undefined) throw new Error(`AcceptedPodIndex: key ${key} missing from its snapshot`);
  return pod;
};

/**
 * Which pods of one source's snapshot the merger accepts (decision D14), kept up to date either
 * from scratch ({@link rebuild}, O(N)) or from the changed keys alone ({@link apply},
 * O(changes)); both give the same state.
 *
 * Two stages, like the kubelet's `filterInvalidPods` then its per-UID loop: among the pods with
 * one full name (`name_namespace`) one wins; among those winners, one per UID wins. A snapshot is
 * keyed, not ordered, so "first wins" means: the pod that won before keeps winning while its key
 * still qualifies (a newcomer never displaces a running pod); otherwise the smallest key wins.
 */
export class AcceptedPodIndex {
  /**
   * Full name → every key of the snapshot with that full name. Undefined while every key of the
   * snapshot is its pod's own (see isOwnKey): each full name then has one key, and a map of them would
   * only repeat the snapshot (at 50,000 pods, 15–20 ms of a first SET and ~5 MB kept). Built from the
   * snapshot when a key that is not its pod's own joins.
   */
  #names: Groups | undefined = new Map();
  /** Full name → the winning key (stage 1), for full names of several keys (see winnerOf). */
  #nameWinners = new Map<string, string>();
  /** UID → the stage-1 winners with that UID. */
  #uids: Groups = new Map();
  /** UID → the accepted key (stage 2), for UIDs of several stage-1 winners (see winnerOf). */
  #uidWinners = new Map<string, string>();
  /** Key → why it is not accepted. */
  #dropped = new Map<string, Drop>();

  /** The key of the accepted pod with this UID. */
  acceptedKey(uid: string): string | undefined {
    return winnerOf(this.#uids, this.#uidWinners, uid);
  }

  /** Number of keys of the current snapshot that are dropped as duplicates. */
  get droppedCount(): number {
    return this.#dropped.size;
  }

  /**
   * Recomputes everything for `next`, keeping incumbents. O(N). `previous`: the snapshot the index was
   * last built or moved to (undefined for the first), where the incumbents are read when no map of full
   * names was kept.
   */
  rebuild(next: PodSnapshot, previous: PodSnapshot | undefined): IndexChange {
    const own = this.#rebuildOwnKeys(next);
    let change = typeof own === 'object' ? own : undefined;
    if (own === 'other key') change = this.#rebuildUnique(next);
    return change ?? this.#rebuildGrouped(next, previous);
  }

  /**
   * {@link rebuild} for a snapshot whose keys are all their pods' own (see isOwnKey), so that its full
   * names are distinct, and whose UIDs are distinct: one pass fills the UID map, and no full-name map
   * is built. Otherwise says why not: a key that is not its pod's own, or a UID seen twice (which
   * only the grouped rebuild can settle).
   */
  #rebuildOwnKeys(next: PodSnapshot): IndexChange | 'other key' | 'duplicate uid' {
    const uids: Groups = new Map();
    for (const [key, pod] of next.entries()) {
      if (!isOwnKey(key, pod)) return 'other key';
      // A set that does not grow the map found its key there: one lookup, not a `has` and a `set`.
      const size = uids.size;
      uids.set(podUid(pod), key);
      if (uids.size === size) return 'duplicate uid';
    }
    return this.#unique(undefined, uids);
  }

  /**
   * {@link rebuild} for a snapshot whose full names and UIDs are all distinct (a source's usual set,
   * and its first one): every group has one key, which wins, and nothing is dropped, so one pass
   * fills the maps. Undefined at the first full name or UID seen twice: the grouped rebuild decides.
   */
  #rebuildUnique(next: PodSnapshot): IndexChange | undefined {
    const names: Groups = new Map();
    const uids: Groups = new Map();
    for (const [key, pod] of next.entries()) {
      // A set that does not grow a map found its key there: one lookup per map, not a `has` and a `set`.
      const sizes = names.size;
      names.set(podFullName(pod), key);
      uids.set(podUid(pod), key);
      if (names.size === sizes || uids.size === sizes) return undefined;
    }
    return this.#unique(names, uids);
  }

  /** Takes the groups of a snapshot without duplicates (`names` undefined: its keys are its pods' own). */
  #unique(names: Groups | undefined, uids: Groups): IndexChange {
    // Every UID is in a group, so the UIDs to re-diff are those of both; a first SET's are just the new ones.
    let changed: Iterable<string> = keysOf(uids);
    if (this.#uids.size > 0) {
      const both = new Set(uids.keys());
      for (const uid of this.#uids.keys()) both.add(uid);
      changed = both;
    }
    this.#names = names;
    this.#nameWinners = new Map();
    this.#uids = uids;
    this.#uidWinners = new Map();
    this.#dropped = new Map();
    return { uids: changed, drops: [], read: NOTHING_READ, everyKey: true };
  }

  #rebuildGrouped(next: PodSnapshot, previous: PodSnapshot | undefined): IndexChange {
    const names: Groups = new Map();
    // Each key's UID, read once: the snapshot's lookups cost more than a Map's.
    const uidOf = new Map<string, string>();
    for (const [key, pod] of next.entries()) {
      addTo(names, podFullName(pod), key);
      uidOf.set(key, podUid(pod));
    }
    const dropped = new Map<string, Drop>();
    const nameWinners = new Map<string, string>();
    const uids: Groups = new Map();
    // Who won before: O(N) to build when it was left to the snapshot, as this whole rebuild is.
    const before: Groups = this.#names ?? (previous === undefined ? new Map<string, string>() : ownNames(previous));
    for (const [name, keys] of names) {
      const winner = pick(keys, winnerOf(before, this.#nameWinners, name));
      if (winner === undefined) continue;
      addTo(uids, uidOf.get(winner) ?? '', winner);
      if (typeof keys === 'string') continue;
      nameWinners.set(name, winner);
      for (const key of keys) if (key !== winner) dropped.set(key, { reason: 'name', winner });
    }
    const uidWinners = new Map<string, string>();
    const changed = new Set<string>();
    for (const [uid, keys] of uids) {
      const winner = pick(keys, winnerOf(this.#uids, this.#uidWinners, uid));
      if (winner === undefined) continue;
      changed.add(uid);
      if (typeof keys === 'string') continue;
      uidWinners.set(uid, winner);
      for (const key of keys) if (key !== winner) dropped.set(key, { reason: 'uid', winner });
    }
    for (const uid of this.#uids.keys()) changed.add(uid);
    const drops: DropReport[] = [];
    for (const [key, drop] of dropped) {
      if (!sameDrop(this.#dropped.get(key), drop)) drops.push({ key, ...drop });
    }
    this.#names = names;
    this.#nameWinners = nameWinners;
    this.#uids = uids;
    this.#uidWinners = uidWinners;
    this.#dropped = dropped;
    return { uids: changed, drops: drops.sort(byKey), read: NOTHING_READ, everyKey: false };
  }

  /**
   * Moves the index from `base` (the snapshot it was last built for) to `next`, given the keys
   * that may differ between them. Touches only those keys and the groups they are in.
   */
  apply(base: PodSnapshot, next: PodSnapshot, keys: Iterable<string>): IndexChange {
    const before = new Map<string, Drop | undefined>();
    const touch = (key: string): void => {
      if (!before.has(key)) before.set(key, this.#dropped.get(key));
    };
    const setDrop = (key: string, drop: Drop): void => {
      touch(key);
      this.#dropped.set(key, drop);
    };
    const clearDrop = (key: string): void => {
      if (!this.#dropped.has(key)) return;
      touch(key);
      this.#dropped.delete(key);
    };

    // UIDs the merger re-diffs; `regroup`'s, those of them whose groups or winners may have changed.
    const uids = new Set<string>();
    const read = new Map<string, Pod>();
    // The keys whose pod moves in or out of a full name's group: a new pod, a removed one, or another
    // full name or UID under the key.
    const moved: (readonly [string, Pod | undefined, Pod | undefined])[] = [];
    let ownKeys = this.#names === undefined;
    for (const key of keys) {
      const old = base.get(key);
      const pod = next.get(key);
      if (old === pod) continue;
      if (pod !== undefined) read.set(key, pod);
      if (old !== undefined && pod !== undefined && samePlace(old, pod)) {
        // The common watch event: a new version of a pod with its full name and UID. Which keys win
        // depends only on the groups' members and who won before, so nothing here changes, only the
        // pod: the merger re-diffs its UID (whichever key that UID's accepted pod is under), and stage 2
        // need not look at it (unless another key of the batch moves in or out of its group).
        uids.add(podUid(pod));
        continue;
      }
      if (ownKeys && pod !== undefined && !isOwnKey(key, pod)) ownKeys = false;
      moved.push([key, old, pod]);
    }
    // A key that is not its pod's own joins: the full names get their map, once (O(N), like a rebuild).
    if (this.#names === undefined && !ownKeys) this.#names = ownNames(base);
    const nameGroups = this.#names;

    // Full names and UIDs whose groups change, with their winners before (read before a group changes: a
    // group of one is its own winner). Without a map of full names, a full name is named by its only key.
    const names = new Map<string, string | undefined>();
    const regroup = new Map<string, string | undefined>();
    for (const [key, old, pod] of moved) {
      if (nameGroups === undefined) {
        names.set(key, old === undefined ? undefined : key);
        if (pod === undefined) clearDrop(key);
        continue;
      }
      if (old !== undefined) {
        const name = podFullName(old);
        noteWinner(names, nameGroups, this.#nameWinners, name);
        removeFrom(nameGroups, name, key);
      }
      if (pod === undefined) {
        clearDrop(key);
      } else {
        const name = podFullName(pod);
        noteWinner(names, nameGroups, this.#nameWinners, name);
        addTo(nameGroups, name, key);
      }
    }

    // Stage 1: full names. Membership changes of the UID groups are applied removals first, so a
    // key that moves between two full names under one UID ends up in its group.
    const leaving: [string, string][] = [];
    const joining: [string, string][] = [];
    for (const [name, previous] of names) {
      const members = nameGroups === undefined ? (read.has(name) ? name : undefined) : nameGroups.get(name);
      const winner = pick(members, previous);
      if (previous !== undefined && (previous !== winner || base.get(previous) !== next.get(previous))) {
        leaving.push([podUid(at(base, previous)), previous]);
      }
      if (nameGroups !== undefined) setWinner(nameGroups, this.#nameWinners, name, winner);
      if (winner === undefined) continue;
      if (previous !== winner || base.get(winner) !== next.get(winner)) joining.push([podUid(at(next, winner)), winner]);
      for (const key of membersOf(members)) if (key !== winner) setDrop(key, { reason: 'name', winner });
      // A new winner joins a UID group below, which sets or clears its record.
    }
    for (const [uid, key] of leaving) {
      noteWinner(regroup, this.#uids, this.#uidWinners, uid);
      removeFrom(this.#uids, uid, key);
    }
    for (const [uid, key] of joining) {
      noteWinner(regroup, this.#uids, this.#uidWinners, uid);
      addTo(this.#uids, uid, key);
    }

    // Stage 2: UIDs whose groups changed.
    for (const [uid, previous] of regroup) {
      uids.add(uid);
      const members = this.#uids.get(uid);
      const winner = pick(members, previous);
      setWinner(this.#uids, this.#uidWinners, uid, winner);
      if (winner === undefined) continue;
      for (const key of membersOf(members)) if (key !== winner) setDrop(key, { reason: 'uid', winner });
      clearDrop(winner);
    }

    const drops: DropReport[] = [];
    for (const [key, old] of before) {
      const drop = this.#dropped.get(key);
      if (drop !== undefined && !sameDrop(old, drop)) drops.push({ key, ...drop });
    }
    return { uids, drops: drops.sort(byKey), read, everyKey: false };
  }
}

/** `pod` has `old`'s UID and full name: its key stays in the same groups. */
const samePlace = (old: Pod, pod: Pod): boolean =>
  podUid(pod) === podUid(old) && pod.metadata?.name === old.metadata?.name && pod.metadata?.namespace === old.metadata?.namespace;

const byKey = (a: DropReport, b: DropReport): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
