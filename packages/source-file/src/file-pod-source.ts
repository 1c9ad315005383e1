import { resolve } from 'node:path';
import type { Logger } from 'pino';
import {
  ConfigInvalidError,
  checkNodeName,
  FILE_SOURCE,
  PodConfigError,
  PodSnapshot,
  errorMessage,
  exponentialBackoff,
  raceSignal,
  SourceUnavailableError,
  type Clock,
  podSetUpdate,
  type PodSetUpdate,
  type PodSource,
  type SourceName,
  type SourceStatus,
  type StatusReporter,
} from '@podconfig/core';
import { ManifestSetBuilder, samePods, withPreviousPods, type InvalidManifest, type ManifestPod, type ManifestSet } from './manifest-set-builder.js';
import { ManifestWatch, type ChokidarWatch } from './manifest-watch.js';
import { manifestNameFilter, type IgnoreReason } from './manifest-name-filter.js';
import { OncePerChange } from './once-per-change.js';
import { ScanScheduler, type ScanReason } from './scan-scheduler.js';
import { scanManifestPath, type SkipReason } from './scan-manifest-path.js';
import { relevantTo, watchPlan } from './watch-plan.js';

export interface FilePodSourceOptions {
  /**
   * Directory or single file (symlinks followed). A relative path is resolved against `process.cwd()` once, in
   * the constructor; trailing separators go. Status, logs and errors name the absolute path.
   */
  readonly path: string;
  readonly nodeName: string;
  readonly logger: Logger;
  readonly clock: Clock;
  /** fileCheckFrequency: fixed-rate full re-scan, the safety net under the watch. Default 20 000. */
  readonly periodMs?: number;
  /** Quiet period after filesystem events before the re-scan (D3). Default 100. */
  readonly debounceMs?: number;
  /**
   * D4: `'keep'` (default) keeps a file's last good pod while it is invalid; `'drop'` is the kubelet's behaviour: an
   * invalid file's pod goes in directory mode, and a single file keeps its last good pod (as with `'keep'`).
   */
  readonly invalidManifest?: 'keep' | 'drop';
  /** D2: `'default'` skips editor artefacts; `'none'` reads every non-dot file. */
  readonly manifestFilter?: 'default' | 'none';
  /** Optional allow-list of extensions, e.g. `['.yaml', '.yml', '.json']`. */
  readonly extensions?: readonly string[];
  /**
   * Most directory entries one scan reads (names that pass the filter). Beyond it the scan fails:
   * an error in status, and the previous set stays (D18). Default 10 000.
   */
  readonly maxManifests?: number;
  /** chokidar's `watch`; a test seam (tests inject watcher failures through it). Default: chokidar's. */
  readonly watch?: ChokidarWatch;
}

type Mode = 'directory' | 'file' | 'missing' | 'other' | 'error' | 'unknown';

/** What one scan decided: the set to publish (absent: keep the last one) and whether the path is a directory. */
interface ScanOutcome {
  readonly set: ManifestSet | undefined;
  readonly directory: boolean;
}

/** The set of a path that is unusable at the first scan. */
const NO_MANIFESTS: ManifestSet = { pods: [], keepsLastGood: false, invalid: [], shadowed: [], duplicateUids: [], skipped: [], laterDocuments: [] };

/** Default bound on the directory entries one scan reads (`maxManifests`). */
const MAX_MANIFESTS = 10_000;
const WATCH_RETRY = { initialMs: 1_000, maxMs: 20_000, resetAfterMs: 40_000 } as const; // kubelet file_linux.go
const MAX_DEBOUNCE_FACTOR = 10;

/** `details.ignoredFiles` lists this many entries at most (`ignored` counts them all). */
const MAX_LISTED_IGNORED = 50;

const SKIP_MESSAGES: Readonly<Record<SkipReason, string>> = {
  'dot-file': 'ignoring dot-file',
  'editor-artefact': 'ignoring editor artefact',
  extension: 'ignoring file: extension not allowed',
  directory: 'not recursing into sub-directory',
  'not-regular': 'ignoring non-regular file',
  'name-not-utf8': 'ignoring file: its name is not valid UTF-8, which Node.js cannot open; rename it',
};

/**
 * The static pod path source (`staticPodPath`, spec §2). Every chokidar event only wakes a
 * debounced full re-scan, and every scan yields the whole set (D3); a fixed-rate periodic re-scan
 * is the safety net. See README.md for the decisions it implements (D1–D5, D18).
 */
export class FilePodSource implements PodSource, StatusReporter {
  readonly name: SourceName = FILE_SOURCE;
  /** The path resolved once, at construction: scans, status, logs and errors name it, whatever the cwd later. */
  readonly #path: string;
  readonly #nodeName: string;
  readonly #clock: Clock;
  readonly #periodMs: number;
  readonly #debounceMs: number;
  readonly #invalidManifest: 'keep' | 'drop';
  readonly #maxManifests: number;
  readonly #filter: (name: string) => IgnoreReason | undefined;
  readonly #watch: ChokidarWatch | undefined;
  readonly #log: Logger;

  // Status, as of the last scan.
  #seen = false;
  /** Seen only through the placeholder SET of a path unusable at the first scan: see {@link SourceStatus.provisional}. */
  #provisional = false;
  /**
   * Invalid manifests without a last good pod that may be a pod's manifest with a mistake in it, in D4's `keep`
   * mode: files that have not decoded since the source started. A handler may run such a file's pod from before a
   * restart (last good pods live in memory only), so the source is provisional while there are any: a typo must
   * not get that pod killed as an orphan (D18). A file that cannot have defined a pod (notes, an empty file, a
   * list, another kind) holds nothing: it would hold every orphan kill on the node for as long as it lies there.
   */
  #holdingOrphanKills: string[] = [];
  #healthy = false;
  #pods = 0;
  #mode: Mode = 'unknown';
  #lastSuccessTime: Date | undefined;
  #lastError: { message: string; code?: string; time: Date } | undefined;
  #invalid: { file: string; error: string }[] = [];
  #shadowed: { file: string; shadowedBy: string; pod: string }[] = [];
  #duplicateUids: { file: string; uid: string; firstFile: string }[] = [];
  #ignored = 0;
  /** The entries not read that an operator may have meant as manifests (not dot-files), at most MAX_LISTED_IGNORED. */
  #ignoredFiles: { file: string; reason: string }[] = [];
  #watchState: 'none' | 'active' | 'retrying' = 'none';
  readonly #counters = { scans: 0, sets: 0, errors: 0, invalid_files: 0, shadowed_files: 0, duplicate_uid_files: 0, watch_errors: 0 };

  // Once-per-change logging.
  #pathState = '';
  #lastWatchError = '';
  #lastEntryError = '';
  readonly #invalidSeen = new OncePerChange();
  readonly #shadowedSeen = new OncePerChange();
  readonly #duplicateUidsSeen = new OncePerChange();
  readonly #skippedSeen = new OncePerChange();
  readonly #laterDocumentsSeen = new OncePerChange();
  #laterDocuments: string[] = [];

  constructor(options: FilePodSourceOptions) {
    if (options.path === '') throw new ConfigInvalidError('file source: path must not be empty');
    // Absolute, against the working directory at construction (`resolve` also drops trailing separators): an
    // operator reading /sources or a log line learns which directory a relative `--pod-manifest-path` named, and
    // a later chdir moves nothing. File names, and so the UIDs (spec §1.3, D6), are under it.
    this.#path = resolve(options.path);
    // The node name suffixes every pod name: without a valid one, every manifest would be reported invalid.
    this.#nodeName = checkNodeName(options.nodeName, 'file source: nodeName');
    this.#clock = options.clock;
    this.#periodMs = options.periodMs ?? 20_000;
    this.#debounceMs = options.debounceMs ?? 100;
    if (!(this.#periodMs > 0)) throw new ConfigInvalidError('file source: periodMs must be positive');
    if (!(this.#debounceMs >= 0)) throw new ConfigInvalidError('file source: debounceMs must not be negative');
    if (options.extensions?.length === 0) throw new ConfigInvalidError('file source: extensions must not be empty when set');
    // An empty entry (or a path) would match no file name, and every manifest would be silently ignored.
    const notExtension = options.extensions?.find((e) => !/^\.?[^./\\]+$/.test(e));
    if (notExtension !== undefined) {
      throw new ConfigInvalidError(`file source: extensions: ${JSON.stringify(notExtension)} is not an extension (.yaml or yaml)`);
    }
    this.#maxManifests = options.maxManifests ?? MAX_MANIFESTS;
    if (!Number.isSafeInteger(this.#maxManifests) || this.#maxManifests < 1) {
      throw new ConfigInvalidError('file source: maxManifests must be a positive integer');
    }
    this.#invalidManifest = options.invalidManifest ?? 'keep';
    if (this.#invalidManifest !== 'keep' && this.#invalidManifest !== 'drop') {
      throw new ConfigInvalidError("file source: invalidManifest must be 'keep' or 'drop'");
    }
    if (options.manifestFilter !== undefined && options.manifestFilter !== 'default' && options.manifestFilter !== 'none') {
      throw new ConfigInvalidError("file source: manifestFilter must be 'default' or 'none'");
    }
    this.#filter = manifestNameFilter({ manifestFilter: options.manifestFilter ?? 'default', extensions: options.extensions });
    this.#watch = options.watch;
    this.#log = options.logger.child({ component: 'source.file', path: this.#path });
  }

  /**
   * Yields a SET after the first scan (even an empty one, also when the path is unusable) and then
   * whenever the set changes. Returns when `signal` aborts.
   */
  async *updates(signal: AbortSignal): AsyncGenerator<PodSetUpdate, void, undefined> {
    const clock = this.#clock;
    const builder = new ManifestSetBuilder({ nodeName: this.#nodeName, invalidManifest: this.#invalidManifest });
    const scheduler = new ScanScheduler(
      { clock, periodMs: this.#periodMs, debounceMs: this.#debounceMs, maxDebounceMs: MAX_DEBOUNCE_FACTOR * this.#debounceMs },
      clock.monotonic(),
    );
    const backoff = exponentialBackoff({ ...WATCH_RETRY, clock });
    let retryAt = 0;
    const watch = new ManifestWatch({
      relevant: relevantTo(this.#path, this.#filter),
      onChange: () => scheduler.touch(),
      onError: (err) => {
        const wait = backoff.next();
        retryAt = clock.monotonic() + wait; // a due time: a wall-clock step must not hurry or stall the re-arm
        scheduler.wakeAt(retryAt);
        this.#watchState = 'retrying';
        this.#counters.watch_errors++;
        this.#counters.errors++;
        this.#setError(err);
        const message = errorMessage(err);
        const level = message === this.#lastWatchError ? 'debug' : 'warn';
        this.#lastWatchError = message;
        this.#log[level]({ err, retryInMs: wait }, 'manifest watch failed');
      },
      // Not a watch failure: the scan reports the entry (a symlink loop is an invalid file, spec §2.2).
      onEntryError: (err) => {
        const message = errorMessage(err);
        const level = message === this.#lastEntryError ? 'trace' : 'debug';
        this.#lastEntryError = message;
        this.#log[level]({ err }, 'manifest watch skipped an entry');
      },
      ...(this.#watch === undefined ? {} : { watch: this.#watch }),
    });
    let last: { pods: readonly ManifestPod[]; snapshot: PodSnapshot } | undefined;
    let reason: ScanReason | 'start' | 'watch-armed' = 'start';
    this.#log.info({ periodMs: this.#periodMs, debounceMs: this.#debounceMs }, 'file source started');
    try {
      while (!signal.aborted) {
        // File I/O cannot be cancelled, and it waits for a thread of libuv's pool (4 by default): on a slow or hung
        // file system a stop would wait for it. Raced with the signal, the run ends at once; the abandoned reads
        // finish on their own and their results are dropped.
        const outcome = await raceSignal(this.#scan(builder, signal), signal);
        if (signal.aborted) return;
        // Every source yields one early SET: a path unusable at the first scan gives an empty one
        // (nothing to drop yet); later, an unusable path keeps the last SET (D18). The empty one is a
        // placeholder, not an answer: the pods a handler runs from an earlier life may still be in that
        // directory, so orphan kills wait for a scan that reads it (provisional, as the http source's grace SET).
        if (outcome.set !== undefined) this.#provisional = false;
        else if (last === undefined) this.#provisional = true;
        const set = outcome.set ?? (last === undefined ? NO_MANIFESTS : undefined);
        // A rewritten file whose pod is the same (key order, a default written out) keeps the last
        // SET's object, so `changes` names only pods that differ.
        const pods = set === undefined || last === undefined ? set?.pods : withPreviousPods(last.pods, set.pods);
        const changed = pods !== undefined && (last === undefined || !samePods(last.pods, pods));
        this.#log.trace({ reason, mode: this.#mode, pods: pods?.length, changed }, 'manifest path scanned');
        if (changed) {
          const update = toUpdate(this.name, pods, last?.snapshot);
          last = { pods, snapshot: update.pods };
          this.#seen = true;
          this.#pods = update.pods.size;
          this.#counters.sets++;
          this.#log.debug({ pods: update.pods.size }, 'manifest set changed');
          yield update;
          if (signal.aborted) return;
        }

        const plan = await raceSignal(watchPlan(this.#path, outcome.directory), signal);
        // Re-arm at once when the path changed identity or a watched directory went away (D5);
        // after a failure, when the backoff says so.
        if (watch.key !== plan.key || watch.stale || (watch.failed && clock.monotonic() >= retryAt)) {
          await watch.arm(plan, signal);
          if (!watch.failed) this.#watchState = 'active';
          this.#log.debug({ targets: plan.targets }, 'manifest watch armed');
          reason = 'watch-armed';
          continue; // re-scan: changes made while the watcher was starting are caught here
        }
        const next = await scheduler.next(signal);
        if (next === undefined) return;
        reason = next;
      }
    } catch (err: unknown) {
      if (signal.aborted) return;
      throw err;
    } finally {
      this.#watchState = 'none';
      await watch.close();
    }
  }

  status(): SourceStatus {
    return {
      seen: this.#seen,
      provisional: this.#provisional || this.#holdingOrphanKills.length > 0,
      healthy: this.#healthy,
      pods: this.#pods,
      ...(this.#lastSuccessTime === undefined ? {} : { lastSuccessTime: this.#lastSuccessTime }),
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
      counters: { ...this.#counters },
      details: {
        path: this.#path,
        mode: this.#mode,
        invalid: this.#invalid.map((i) => ({ ...i })),
        holdingOrphanKills: [...this.#holdingOrphanKills],
        laterDocuments: [...this.#laterDocuments],
        shadowed: this.#shadowed.map((s) => ({ ...s })),
        duplicateUids: this.#duplicateUids.map((d) => ({ ...d })),
        ignored: this.#ignored,
        ignoredFiles: this.#ignoredFiles.map((e) => ({ ...e })),
        watch: this.#watchState,
      },
    };
  }

  /** One full scan: updates status and logs; `set` is undefined when the path is unusable (keep the last SET). */
  async #scan(builder: ManifestSetBuilder, signal: AbortSignal): Promise<ScanOutcome> {
    // The absolute path: file names (and so the UIDs, spec §1.3) do not depend on the working directory.
    const result = await scanManifestPath(this.#path, { filter: this.#filter, maxEntries: this.#maxManifests }, signal);
    this.#counters.scans++;
    if (result.mode === 'error') {
      this.#mode = result.other ? 'other' : 'error';
      this.#healthy = false;
      this.#counters.errors++;
      this.#setError(result.error);
      this.#pathChanged(`error:${result.error.message}`, () => this.#log.warn({ err: result.error }, 'manifest path unusable'));
      return { set: undefined, directory: result.directory };
    }
    if (result.mode === 'missing') {
      builder.clear();
      this.#mode = 'missing';
      // Unhealthy, as the kubelet's scan fails with "path does not exist": a mistyped path must show on
      // podconfig_source_healthy and in /sources. The empty SET is still a definitive answer (D5): the
      // source is seen, not provisional, and its pods go.
      this.#healthy = false;
      this.#counters.errors++;
      this.#setError(new SourceUnavailableError(`manifest path ${this.#path} does not exist`));
      this.#invalid = [];
      this.#holdingOrphanKills = [];
      this.#shadowed = [];
      this.#duplicateUids = [];
      this.#ignored = 0;
      this.#ignoredFiles = [];
      this.#invalidSeen.update(new Map());
      this.#shadowedSeen.update(new Map());
      this.#duplicateUidsSeen.update(new Map());
      this.#skippedSeen.update(new Map());
      this.#laterDocuments = [];
      this.#laterDocumentsSeen.update(new Map());
      // A warning, once per state change (the kubelet logs an error every scan, P12).
      this.#pathChanged('missing', () => this.#log.warn({}, 'manifest path does not exist'));
      return { set: NO_MANIFESTS, directory: false };
    }
    this.#lastSuccessTime = new Date(this.#clock.now());
    this.#mode = result.mode;
    this.#pathChanged(result.mode, () => this.#log.info({ mode: result.mode }, 'manifest path found'));
    const set = await builder.build(result.entries, { mode: result.mode, signal });
    this.#report(set);
    return { set, directory: result.mode === 'directory' };
  }

  #report(set: ManifestSet): void {
    // Where an invalid file loses its pod by choice (`drop` in a directory, the kubelet's), there is nothing to hold.
    const holding = new Set(set.keepsLastGood ? set.invalid.filter(mayHoldAPod).map((i) => i.file) : []);
    const invalidStates = new Map(set.invalid.map((i) => [i.file, `${i.kept}:${i.error.message}`]));
    for (const file of this.#invalidSeen.update(invalidStates)) {
      const item = set.invalid.find((i) => i.file === file);
      if (item === undefined) continue;
      this.#counters.invalid_files++;
      this.#setError(item.error, file);
      // holdsOrphanKills: it has not decoded since start, and a pod it defined before a restart may still run.
      this.#log.warn({ file, err: item.error, keptLastGood: item.kept, ...(holding.has(file) ? { holdsOrphanKills: true } : {}) }, 'manifest invalid');
    }
    // The UID is the content's: an edit of a shadowed file, which has no effect, is told again.
    const shadowStates = new Map(set.shadowed.map((s) => [s.file, `${s.shadowedBy}:${s.pod}:${s.uid}`]));
    for (const file of this.#shadowedSeen.update(shadowStates)) {
      const item = set.shadowed.find((s) => s.file === file);
      if (item === undefined) continue;
      this.#counters.shadowed_files++;
      this.#log.warn({ file, shadowedBy: item.shadowedBy, pod: item.pod }, 'manifest shadowed by an earlier file');
    }
    for (const file of this.#duplicateUidsSeen.update(new Map(set.duplicateUids.map((d) => [d.file, `${d.firstFile}:${d.uid}`])))) {
      const item = set.duplicateUids.find((d) => d.file === file);
      if (item === undefined) continue;
      this.#counters.duplicate_uid_files++;
      this.#log.warn({ file, firstFile: item.firstFile, uid: item.uid }, 'manifest has the pod UID of an earlier file; its pod is dropped (the first file wins)');
    }
    // The kubelet drops them without a word; a second pod written into a manifest would vanish without a trace.
    for (const file of this.#laterDocumentsSeen.update(new Map(set.laterDocuments.map((f) => [f, ''])))) {
      this.#log.warn({ file }, 'manifest has YAML documents after the first; only the first is read (one pod per file)');
    }
    this.#laterDocuments = [...set.laterDocuments];
    const skipped = set.skipped;
    for (const file of this.#skippedSeen.update(new Map(skipped.map((e) => [e.file, e.reason])))) {
      const item = skipped.find((e) => e.file === file);
      if (item === undefined) continue;
      // A name the filters refused may be a manifest an operator meant (the kubelet reads `web.yaml.bak`), and a
      // sub-directory may be one replaced by a directory (the kubelet logs it as an error at every scan): said once
      // at info. Dot-files (never read, as by the kubelet) and non-regular files are routine.
      const level = item.reason === 'dot-file' ? 'trace' : item.reason === 'not-regular' ? 'debug' : item.reason === 'name-not-utf8' ? 'warn' : 'info';
      this.#log[level]({ file, reason: item.reason }, SKIP_MESSAGES[item.reason]);
    }
    this.#toldValidAgain(set, invalidStates);
    this.#invalid = set.invalid.map((i) => ({ file: i.file, error: reasonOf(i.error) }));
    this.#holdingOrphanKills = [...holding];
    this.#shadowed = set.shadowed.map((s) => ({ ...s }));
    this.#duplicateUids = set.duplicateUids.map((d) => ({ ...d }));
    this.#ignored = skipped.length;
    this.#ignoredFiles = skipped.filter((e) => e.reason !== 'dot-file').slice(0, MAX_LISTED_IGNORED).map((e) => ({ file: e.file, reason: e.reason }));
    this.#healthy = set.invalid.length === 0;
  }

  /**
   * Tells of each file that was invalid at the last scan and is not now: at info when it decoded (its
   * `manifest invalid` warning is over, as the HTTP source's `manifest URL recovered`), at debug when it is
   * gone (deleted, renamed, or no longer read as a manifest), which takes its pod with it.
   */
  #toldValidAgain(set: ManifestSet, invalidNow: ReadonlyMap<string, string>): void {
    const left = this.#invalid.filter((i) => !invalidNow.has(i.file));
    if (left.length === 0) return;
    const decoded = new Set([...set.pods.map((p) => p.file), ...set.shadowed.map((s) => s.file), ...set.duplicateUids.map((d) => d.file)]);
    for (const { file } of left) {
      if (decoded.has(file)) this.#log.info({ file }, 'manifest valid again');
      else this.#log.debug({ file }, 'invalid manifest gone');
    }
  }

  #pathChanged(state: string, log: () => void): void {
    if (state === this.#pathState) return;
    this.#pathState = state;
    log();
  }

  #setError(err: unknown, file?: string): void {
    const message = file === undefined ? errorMessage(err) : `${file}: ${reasonOf(err)}`;
    this.#lastError = {
      message,
      ...(PodConfigError.is(err) ? { code: err.code } : {}),
      time: new Date(this.#clock.now()),
    };
  }
}

function toUpdate(source: SourceName, pods: readonly ManifestPod[], base: PodSnapshot | undefined): PodSetUpdate {
  const snapshot = PodSnapshot.fromEntries(pods.map((p) => [p.key, p.pod] as const));
  if (base === undefined) return podSetUpdate(source, snapshot);
  // D17: tell the merger which keys differ from the previous SET, so it need not diff them all.
  const keys = new Set<string>();
  for (const [key, pod] of snapshot.entries()) if (base.get(key) !== pod) keys.add(key);
  for (const key of base.keys()) if (!snapshot.has(key)) keys.add(key);
  return podSetUpdate(source, snapshot, { base, keys });
}

/**
 * An invalid file without a last good pod that may be a pod's manifest with a mistake in it: not one the manifest
 * decoding says never defined a pod (`ManifestInvalidError.mayDefinePod`). A file that could not be read may.
 */
const mayHoldAPod = (invalid: InvalidManifest): boolean =>
  !invalid.kept && (invalid.error as { readonly mayDefinePod?: unknown }).mayDefinePod !== false;

/** A manifest error without the file path its message starts with (`ManifestInvalidError.reason`). */
function reasonOf(err: unknown): string {
  const reason = typeof err === 'object' && err !== null ? (err as { reason?: unknown }).reason : undefined;
  return typeof reason === 'string' ? reason : errorMessage(err);
}
