import { hash } from 'node:crypto';
import { PodConfigError, errorMessage, jsonEqual, podKey, type Pod } from '@podconfig/core';
import { decodeManifestOffThread, hasLaterYamlDocuments } from '@podconfig/manifest';
import type { ScannedEntry } from './scan-manifest-path.js';

/** A pod in the set and the file it came from. */
export interface ManifestPod {
  readonly key: string;
  readonly file: string;
  readonly pod: Pod;
}

/** A manifest that failed to read or decode. `kept`: its last good pod is still in the set (D4). */
export interface InvalidManifest {
  readonly file: string;
  readonly error: PodConfigError;
  readonly kept: boolean;
}

/** A file whose pod lost to an earlier file with the same `namespace/name` (D1). */
export interface ShadowedManifest {
  readonly file: string;
  readonly shadowedBy: string;
  readonly pod: string;
  /** The UID of the file's own pod (ignored): it changes with the file's content. */
  readonly uid: string;
}

/**
 * A winning file whose pod has the UID of an earlier winning file's pod (a `metadata.uid` written in both): its pod
 * is left out of the set, the first file in byte order wins (D14, in the order D1 uses for names). Left to the
 * merger, the pod with the smaller `namespace/name` would win, which may be the later file's.
 */
export interface DuplicateUidManifest {
  readonly file: string;
  readonly uid: string;
  /** The first file, in byte order, with that UID. */
  readonly firstFile: string;
}

/** An entry the scan did not read (filtered name, sub-directory, non-regular file). */
export type SkippedEntry = Extract<ScannedEntry, { kind: 'skipped' }>;

export interface ManifestSet {
  /** The winning pods, in the byte order of their files: one per `namespace/name` (D1) and one per UID (D14). */
  readonly pods: readonly ManifestPod[];
  /** Whether an invalid file kept its last good pod in this build (D4; `'drop'` keeps it for a single file only). */
  readonly keepsLastGood: boolean;
  readonly invalid: readonly InvalidManifest[];
  readonly shadowed: readonly ShadowedManifest[];
  readonly duplicateUids: readonly DuplicateUidManifest[];
  readonly skipped: readonly SkippedEntry[];
  /** Files that decoded and hold more YAML documents after the first, which are not read (as by the kubelet). */
  readonly laterDocuments: readonly string[];
}

export interface ManifestSetBuilderOptions {
  readonly nodeName: string;
  /**
   * D4: `'keep'` keeps a file's last good pod while the file is invalid; `'drop'` drops it in directory mode (the
   * kubelet's relist), and keeps it in single-file mode as `'keep'` does (the kubelet keeps the last good pod of a
   * single file that turns invalid: spec §2.2, checklist 26).
   */
  readonly invalidManifest: 'keep' | 'drop';
}

export interface BuildOptions {
  /** What the scan read: a directory's entries (default) or the single file of a single-file path. */
  readonly mode?: 'directory' | 'file';
  /** Aborts the build: it rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
}

type Decoded = { readonly pod: Pod; readonly laterDocuments: boolean } | { readonly error: PodConfigError };

/**
 * Turns one scan's entries into the source's pod set: decodes each manifest (reusing the previous
 * result when the bytes are unchanged, so an unchanged file yields the very same `Pod` object),
 * applies per-file last-known-good (D4) and first-file-wins for duplicate keys (D1) and UIDs (D14).
 * Entries are consumed one at a time and their bytes are not kept (only a SHA-256 per file and the
 * decoded result), so a build holds no more files' bytes than the scan reads ahead.
 * State is per file path and lives as long as the source.
 */
export class ManifestSetBuilder {
  readonly #o: ManifestSetBuilderOptions;
  readonly #decoded = new Map<string, { readonly digest: string; readonly result: Decoded }>();
  readonly #lastGood = new Map<string, Pod>();

  constructor(options: ManifestSetBuilderOptions) {
    this.#o = options;
  }

  /**
   * Decodes each entry before asking for the next one; a large file (YAML or JSON) is decoded on the manifest
   * package's worker thread, off the event loop. Rejects with `signal.reason` if `signal` aborts meanwhile.
   */
  async build(entries: AsyncIterable<ScannedEntry> | Iterable<ScannedEntry>, options: BuildOptions = {}): Promise<ManifestSet> {
    const { mode = 'directory', signal } = options;
    // D4: 'drop' is the kubelet's directory relist; its single-file mode keeps the last good pod, as 'keep' does.
    const keepsLastGood = this.#o.invalidManifest === 'keep' || mode === 'file';
    const present = new Set<string>();
    const candidates: ManifestPod[] = [];
    const invalid: InvalidManifest[] = [];
    const skipped: SkippedEntry[] = [];
    const laterDocuments: string[] = [];
    for await (const entry of entries) {
      if (entry.kind === 'skipped') {
        skipped.push(entry);
        continue;
      }
      present.add(entry.file);
      const result = entry.kind === 'manifest' ? await this.#decode(entry.file, entry.data, signal) : { error: entry.error };
      if ('pod' in result) {
        if (result.laterDocuments) laterDocuments.push(entry.file);
        this.#lastGood.set(entry.file, result.pod);
        candidates.push({ key: podKey(result.pod), file: entry.file, pod: result.pod });
        continue;
      }
      const last = keepsLastGood ? this.#lastGood.get(entry.file) : undefined;
      if (last === undefined) this.#lastGood.delete(entry.file);
      else candidates.push({ key: podKey(last), file: entry.file, pod: last });
      invalid.push({ file: entry.file, error: result.error, kept: last !== undefined });
    }
    // A file that is gone (or no longer a manifest) takes its last good pod with it.
    for (const file of this.#lastGood.keys()) if (!present.has(file)) this.#lastGood.delete(file);
    for (const file of this.#decoded.keys()) if (!present.has(file)) this.#decoded.delete(file);

    const winners = new Map<string, ManifestPod>();
    const shadowed: ShadowedManifest[] = [];
    for (const candidate of candidates) {
      const winner = winners.get(candidate.key);
      if (winner === undefined) winners.set(candidate.key, candidate);
      else shadowed.push({ file: candidate.file, shadowedBy: winner.file, pod: candidate.key, uid: candidate.pod.metadata?.uid ?? '' });
    }
    const { pods, duplicateUids } = firstPerUid([...winners.values()]);
    return { pods, keepsLastGood, invalid, shadowed, duplicateUids, skipped, laterDocuments };
  }

  /** Forgets everything (the path is gone: every file was deleted). */
  clear(): void {
    this.#decoded.clear();
    this.#lastGood.clear();
  }

  async #decode(file: string, data: Buffer, signal: AbortSignal | undefined): Promise<Decoded> {
    const digest = hash('sha256', data, 'hex');
    const cached = this.#decoded.get(file);
    if (cached?.digest === digest) return cached.result;
    let result: Decoded;
    try {
      // `file` is absolute (the source scans its absolute path): the UID hashes it (spec §1.3, D6).
      const pod = await decodeManifestOffThread(data, 'file', { nodeName: this.#o.nodeName, origin: { kind: 'file', path: file } }, signal);
      result = { pod, laterDocuments: hasLaterYamlDocuments(data) };
    } catch (err: unknown) {
      signal?.throwIfAborted(); // the build's abort, not the file's fault: nothing to remember
      result = {
        error: PodConfigError.is(err) ? err : new PodConfigError('PODCONFIG_MANIFEST_INVALID', errorMessage(err), { cause: err }),
      };
    }
    this.#decoded.set(file, { digest, result });
    return result;
  }
}

/**
 * D14, first wins: the winners (in the byte order of their files) without each one whose pod UID an earlier winner
 * has, and those left out. Only a `metadata.uid` written in the manifest can repeat (D6).
 */
function firstPerUid(winners: readonly ManifestPod[]): { pods: ManifestPod[]; duplicateUids: DuplicateUidManifest[] } {
  const firstFiles = new Map<string, string>();
  const pods: ManifestPod[] = [];
  const duplicateUids: DuplicateUidManifest[] = [];
  for (const winner of winners) {
    const uid = winner.pod.metadata?.uid ?? undefined;
    if (uid !== undefined) {
      const firstFile = firstFiles.get(uid);
      if (firstFile !== undefined) {
        duplicateUids.push({ file: winner.file, uid, firstFile });
        continue;
      }
      firstFiles.set(uid, winner.file);
    }
    pods.push(winner);
  }
  return { pods, duplicateUids };
}

/**
 * True when two sets would give the merger nothing to do: the same keys in the same order with
 * the same pods (see {@link samePod}).
 */
export function samePods(a: readonly ManifestPod[], b: readonly ManifestPod[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => {
    const y = b[i];
    return y !== undefined && x.key === y.key && samePod(x.pod, y.pod);
  });
}

/**
 * `next` with each pod that equals the previous set's pod under the same key replaced by that
 * previous object, so that object identity says which keys changed (the `changes` of a SET, D17)
 * even after a file was rewritten without changing its pod. Returns `next` itself when nothing was
 * replaced.
 */
export function withPreviousPods(previous: readonly ManifestPod[], next: readonly ManifestPod[]): readonly ManifestPod[] {
  const before = new Map(previous.map((p) => [p.key, p.pod] as const));
  let result: ManifestPod[] | undefined;
  next.forEach((p, i) => {
    const pod = before.get(p.key);
    if (pod === undefined || pod === p.pod || !samePod(pod, p.pod)) return;
    result ??= [...next];
    result[i] = { ...p, pod };
  });
  return result ?? next;
}

/**
 * The same pod. Unchanged files give identical objects, so the deep comparison only runs for a
 * rewritten file whose UID did not change (comments, formatting, key order or a default written
 * out, spec §2.6, or a pinned `metadata.uid`). It ignores key order, as the UID hash does:
 * `jsonEqual` walks both pods once and stops at the first difference, without serializing them.
 */
function samePod(a: Pod, b: Pod): boolean {
  return a === b || (a.metadata?.uid === b.metadata?.uid && jsonEqual(a, b));
}
