import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, open, readFile, readdir, readlink, rename, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { pino, type Logger } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigInvalidError, systemClock, type Clock, type PodSetUpdate } from '@podconfig/core';
import { decodeFilePod, MAX_MANIFEST_BYTES } from '@podconfig/manifest';
import { InstantClock, podManifestYaml, tempDir } from '@podconfig/testing';
import { watch as chokidarWatch } from 'chokidar';
import { FilePodSource, type FilePodSourceOptions } from './file-pod-source.js';
import type { ChokidarWatch } from './manifest-watch.js';

const NODE = 'Node-A';
const HOUR = 3_600_000;
const key = (name: string, namespace = 'default'): string => `${namespace}/${name}-node-a`;

// ---------------------------------------------------------------------------------------------
// Helpers: a log recorder to wait on, a runner that owns the iterator, temp-dir bookkeeping.

type LogLine = Record<string, unknown> & { level: number; msg: string };

interface LogRecorder {
  readonly logger: Logger;
  readonly lines: LogLine[];
  /** The lines as written (JSON.parse keeps one of two equal keys: a repeat shows only here). */
  readonly raw: string[];
  /** Resolves with the first line from index `from` on that satisfies `pred` (now or later). */
  waitFor(pred: (l: LogLine) => boolean, from?: number): Promise<LogLine>;
}

function logRecorder(): LogRecorder {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const waiters: { pred: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];
  const logger = pino(
    { level: 'trace' },
    {
      write(s: string) {
        raw.push(s);
        const line = JSON.parse(s) as LogLine;
        lines.push(line);
        for (const w of [...waiters]) {
          if (!w.pred(line)) continue;
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      },
    },
  );
  return {
    logger,
    lines,
    raw,
    waitFor: (pred, from = 0) => {
      const hit = lines.slice(from).find(pred);
      return hit === undefined ? new Promise((resolve) => waiters.push({ pred, resolve })) : Promise.resolve(hit);
    },
  };
}

const DEBUG = 20;
const INFO = 30;
const WARN = 40;
/** The scan after the watcher became ready: from here on, every change produces a watch event. */
const watchArmed = (l: LogLine): boolean => l.msg === 'manifest path scanned' && l.reason === 'watch-armed';
const msgs = (lines: LogLine[], msg: string): LogLine[] => lines.filter((l) => l.msg === msg);

class Run {
  readonly controller = new AbortController();
  readonly iterator: AsyncGenerator<PodSetUpdate, void, undefined>;
  constructor(readonly source: FilePodSource) {
    this.iterator = source.updates(this.controller.signal);
  }
  async next(): Promise<PodSetUpdate> {
    const r = await this.iterator.next();
    if (r.done === true) throw new Error('the source ended');
    return r.value;
  }
  /** Reads SETs until `pred` holds; returns that one and the ones before it. */
  async until(pred: (u: PodSetUpdate) => boolean): Promise<{ last: PodSetUpdate; before: PodSetUpdate[] }> {
    const before: PodSetUpdate[] = [];
    for (;;) {
      const u = await this.next();
      if (pred(u)) return { last: u, before };
      before.push(u);
    }
  }
  async stop(): Promise<void> {
    this.controller.abort();
    await this.iterator.return(undefined);
  }
}

const runs: Run[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const run of runs.splice(0)) await run.stop();
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * A directory of its own inside a temporary one: a source watches its path's parent too (D5), and with the
 * temporary directory itself as the path that parent would be the system's, where the whole suite's files come
 * and go (each event there has chokidar look at every entry again).
 */
async function makeDir(): Promise<string> {
  const dir = await tempDir('podconfig-file-');
  cleanups.push(dir.cleanup);
  const path = join(dir.path, 'd');
  await mkdir(path);
  return path;
}

/** A `manifests` directory (inside a temporary one, so it can be removed and made again) holding a.yaml. */
async function manifestsDirWithA(): Promise<string> {
  const dir = join(await makeDir(), 'manifests');
  await mkdir(dir);
  await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
  return dir;
}

function start(
  options: Partial<FilePodSourceOptions> & { path: string },
): { source: FilePodSource; run: Run; log: LogRecorder } {
  const log = logRecorder();
  const source = new FilePodSource({ nodeName: NODE, logger: log.logger, clock: systemClock, periodMs: HOUR, ...options });
  const run = new Run(source);
  runs.push(run);
  return { source, run, log };
}

const keys = (u: PodSetUpdate): string[] => [...u.pods.keys()].sort();
const uid = (u: PodSetUpdate, k: string): string | undefined => u.pods.get(k)?.metadata?.uid;
const expectedUid = (content: string, path: string): string | undefined =>
  decodeFilePod(content, { nodeName: NODE, origin: { kind: 'file', path } }).metadata?.uid;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resumes a run paused at a SET and lets its source scan `count` more times, then waits 300 ms more for a SET:
 * says what came. A SET ends the wait at once (the source then pauses again, and its scans stop).
 */
async function quietScans(run: Run, source: FilePodSource, count: number): Promise<string> {
  const scans = (): number => source.status().counters['scans'] ?? 0;
  const target = scans() + count;
  let came: string | undefined;
  run.iterator.next().then(
    (r) => void (came ??= r.done === true ? 'the end of the run' : `a SET of ${r.value.pods.size} pods`),
    (err: unknown) => void (came ??= `an error: ${String(err)}`),
  );
  const deadline = Date.now() + 10_000;
  while (came === undefined && scans() < target && Date.now() < deadline) await sleep(10);
  if (came === undefined) await sleep(300);
  if (came !== undefined) return came;
  const ran = scans() - target + count;
  return ran >= count ? `no SET in ${count} scans and 300 ms` : `only ${ran} scans`;
}

/** Listens on a unix socket at `path`; the returned function closes it (which removes the socket file if still there). */
async function listenUnix(path: string): Promise<() => Promise<void>> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  let closed: Promise<void> | undefined;
  return () => (closed ??= new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))));
}

/** The inotify watches this process holds: "inotify wd:" lines in the fdinfo of its inotify fds (Linux). */
async function inotifyWatches(): Promise<number> {
  let watches = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    try {
      if (!(await readlink(`/proc/self/fd/${fd}`)).includes('inotify')) continue;
      const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8');
      watches += info.split('\n').filter((line) => line.startsWith('inotify wd:')).length;
    } catch {
      // the fd closed while we looked (readdir's own fd among them)
    }
  }
  return watches;
}

const INVALID_YAML = 'apiVersion: v1\nkind: Pod\nmetadata: {name: "broken\n';

// ---------------------------------------------------------------------------------------------

describe(FilePodSource.name, () => {
  describe('constructor', () => {
    it('rejects invalid options with ConfigInvalidError and does no I/O', () => {
      const logger = pino({ level: 'silent' });
      const base = { nodeName: NODE, logger, clock: systemClock };
      expect(() => new FilePodSource({ ...base, path: '' })).toThrow(ConfigInvalidError);
      expect(() => new FilePodSource({ ...base, path: '/nonexistent/x', periodMs: 0 })).toThrow(ConfigInvalidError);
      expect(() => new FilePodSource({ ...base, path: '/nonexistent/x', debounceMs: -1 })).toThrow(ConfigInvalidError);
      expect(() => new FilePodSource({ ...base, path: '/nonexistent/x', extensions: [] })).toThrow(ConfigInvalidError);
      // An entry that matches no file name would silently ignore every manifest.
      for (const bad of ['', '.', 'a/b', '.x\\y']) {
        expect(() => new FilePodSource({ ...base, path: '/nonexistent/x', extensions: ['.yaml', bad] })).toThrow(`file source: extensions: ${JSON.stringify(bad)} is not an extension`);
      }
      expect(() => new FilePodSource({ ...base, path: '/nonexistent/x', extensions: ['.yaml', 'json'] })).not.toThrow();
      expect(() => new FilePodSource({ ...base, path: '/nonexistent/x', maxManifests: 0 })).toThrow(ConfigInvalidError);
      expect(() => new FilePodSource({ ...base, path: '/nonexistent/x', maxManifests: 1.5 })).toThrow(ConfigInvalidError);
    });

    it('rejects an empty, blank, invalid or missing nodeName and an undocumented invalidManifest or manifestFilter, naming the option', () => {
      const logger = pino({ level: 'silent' });
      const base = { path: '/nonexistent/x', logger, clock: systemClock };
      // Untyped callers (JavaScript) get here too: every manifest would otherwise be blamed ("etcd-").
      const loose = base as unknown as FilePodSourceOptions;
      const cases: [Partial<Record<string, unknown>>, string][] = [
        [{ nodeName: '' }, 'nodeName'],
        [{ nodeName: '  ' }, 'file source: nodeName: the node name is empty (only white space)'],
        [{ nodeName: 'node_a' }, 'file source: nodeName: "node_a" is not a valid node name'],
        [{}, 'nodeName'],
        [{ nodeName: 42 }, 'nodeName'],
        [{ nodeName: NODE, invalidManifest: 'nope' }, 'invalidManifest'],
        [{ nodeName: NODE, manifestFilter: 'all' }, 'manifestFilter'],
      ];
      for (const [extra, option] of cases) {
        const build = (): FilePodSource => new FilePodSource({ ...loose, ...extra });
        expect(build, JSON.stringify(extra)).toThrow(ConfigInvalidError);
        expect(build, JSON.stringify(extra)).toThrow(option);
      }
    });

    it('accepts the documented invalidManifest and manifestFilter values', () => {
      const logger = pino({ level: 'silent' });
      const base = { nodeName: NODE, logger, clock: systemClock };
      for (const invalidManifest of ['keep', 'drop'] as const) {
        for (const manifestFilter of ['default', 'none'] as const) {
          expect(() => new FilePodSource({ ...base, path: '/nonexistent/x', invalidManifest, manifestFilter })).not.toThrow();
        }
      }
      const source = new FilePodSource({ ...base, path: '/nonexistent/x' });
      expect(source.name).toBe('file');
      expect(source.status()).toMatchObject({ seen: false, pods: 0, counters: { scans: 0 } });
    });
  });

  describe('updates()', () => {
    it('reads names without an extension and skips dot-files (#20)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'visible'), podManifestYaml('visible'));
      await writeFile(join(dir, '.hidden.yaml'), podManifestYaml('hidden'));
      const { run, source } = start({ path: dir });
      const first = await run.next();
      expect(keys(first)).toEqual([key('visible')]);
      expect(first.source).toBe('file');
      expect(first.op).toBe('SET');
      expect(source.status().details).toMatchObject({ mode: 'directory', ignored: 1, invalid: [] });
    });

    it('logs a skipped dot-file at trace and a name the filters refused at info', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      await writeFile(join(dir, '.hidden.yaml'), podManifestYaml('hidden'));
      await writeFile(join(dir, 'a.yaml.bak'), podManifestYaml('backup'));
      const { run, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      expect(msgs(log.lines, 'ignoring dot-file')).toMatchObject([{ level: 10, file: join(dir, '.hidden.yaml'), reason: 'dot-file' }]);
      expect(msgs(log.lines, 'ignoring editor artefact')).toMatchObject([{ level: INFO, file: join(dir, 'a.yaml.bak') }]);
    });

    it('hashes the absolute file path into the UID, so a relative path gives the same UIDs (spec §1.3, D6)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'web.yaml'), podManifestYaml('web'));
      const relativePath = relative(process.cwd(), dir);
      expect(relativePath.startsWith('/')).toBe(false);
      const absolute = await start({ path: dir }).run.next();
      const fromRelative = await start({ path: relativePath }).run.next();
      expect(uid(fromRelative, key('web'))).toBe(expectedUid(podManifestYaml('web'), join(dir, 'web.yaml')));
      expect(uid(fromRelative, key('web'))).toBe(uid(absolute, key('web')));
    });

    it('resolves a relative path once, at construction: status, logs and errors name the absolute path, whatever the cwd later', async () => {
      const base = await makeDir();
      await mkdir(join(base, 'manifests'));
      await writeFile(join(base, 'manifests', 'web.yaml'), podManifestYaml('web'));
      await writeFile(join(base, 'manifests', 'bad.yaml'), INVALID_YAML);
      const cwd = process.cwd();
      let here: string;
      let present: ReturnType<typeof start>;
      let missing: ReturnType<typeof start>;
      process.chdir(base);
      try {
        here = process.cwd(); // as the process sees it (a symlinked temp dir resolves)
        present = start({ path: 'manifests/' });
        missing = start({ path: join('x', 'missing') });
      } finally {
        process.chdir(cwd); // before the first scan: a path resolved later would name nothing here
      }
      const dir = join(here, 'manifests');
      expect(relative(process.cwd(), dir)).not.toBe('manifests');

      const first = await present.run.next();
      expect(keys(first)).toEqual([key('web')]);
      // The UID input is the absolute file name, as for an absolute path (D6): unchanged by the resolution.
      expect(uid(first, key('web'))).toBe(expectedUid(podManifestYaml('web'), join(dir, 'web.yaml')));
      const status = present.source.status();
      expect(status.details).toMatchObject({ path: dir, mode: 'directory', invalid: [{ file: join(dir, 'bad.yaml') }] });
      expect(status.lastError?.message.startsWith(`${join(dir, 'bad.yaml')}: `)).toBe(true);
      expect(msgs(present.log.lines, 'file source started')).toMatchObject([{ path: dir }]);
      expect(msgs(present.log.lines, 'manifest path found')).toMatchObject([{ path: dir, mode: 'directory' }]);
      expect(msgs(present.log.lines, 'manifest invalid')).toMatchObject([{ path: dir, file: join(dir, 'bad.yaml') }]);

      const gone = join(here, 'x', 'missing');
      expect((await missing.run.next()).pods.size).toBe(0);
      expect(missing.source.status()).toMatchObject({
        details: { path: gone, mode: 'missing' },
        lastError: { message: `manifest path ${gone} does not exist`, code: 'PODCONFIG_SOURCE_UNAVAILABLE' },
      });
      expect(msgs(missing.log.lines, 'manifest path does not exist')).toMatchObject([{ level: WARN, path: gone }]);
    });

    it('skips a sub-directory with a "not recursing" log and ignores its contents (#21)', async () => {
      const dir = await makeDir();
      await mkdir(join(dir, 'sub'));
      await writeFile(join(dir, 'sub', 'inner.yaml'), podManifestYaml('inner'));
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      const { run, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      const line = await log.waitFor((l) => l.msg === 'not recursing into sub-directory');
      expect(line).toMatchObject({ file: join(dir, 'sub'), level: 30 });
    });

    it('yields one empty SET for an existing empty directory and is seen (#22)', async () => {
      const dir = await makeDir();
      const { run, source } = start({ path: dir });
      const first = await run.next();
      expect(first.pods.size).toBe(0);
      expect(first.changes).toBeUndefined();
      expect(source.status()).toMatchObject({ seen: true, healthy: true, pods: 0, details: { mode: 'directory' } });
    });

    it('yields one empty SET for a missing path, logs it once, and picks up the directory once created (D5, #23)', async () => {
      const base = await makeDir();
      const dir = join(base, 'x', 'y', 'manifests'); // three levels missing: the watch walks up to `base`
      const { run, source, log } = start({ path: dir });
      const first = await run.next();
      expect(first.pods.size).toBe(0);
      // Unhealthy with the reason, as the kubelet's scan fails: a mistyped path shows; the empty SET still counts (D5).
      expect(source.status()).toMatchObject({
        seen: true, provisional: false, healthy: false, details: { mode: 'missing' },
        lastError: { message: `manifest path ${dir} does not exist`, code: 'PODCONFIG_SOURCE_UNAVAILABLE' },
      });
      expect(source.status().lastSuccessTime).toBeUndefined();
      expect(source.status().counters.errors).toBeGreaterThan(0);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      // periodMs is an hour: only the re-armed watch can explain this SET, and no empty SET repeats before it.
      expect(keys(await run.next())).toEqual([key('a')]);
      expect(msgs(log.lines, 'manifest path does not exist')).toMatchObject([{ level: 40, path: dir }]);
      // Once: the component logger already carries `path` (a repeated key, which some log stores refuse).
      expect(log.raw.filter((s) => s.includes('manifest path does not exist')).map((s) => s.split('"path":').length - 1)).toEqual([1]);
      expect(source.status()).toMatchObject({ healthy: true, details: { mode: 'directory', watch: 'active' } });
      expect(source.status().lastSuccessTime).toBeInstanceOf(Date);
    });

    it('yields the valid pods and reports the invalid file (#24)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      await writeFile(join(dir, 'c.yaml'), INVALID_YAML);
      const { run, source, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a'), key('b')]);
      const status = source.status();
      expect(status.healthy).toBe(false);
      expect(status.counters.invalid_files).toBe(1);
      expect(status.details.invalid).toEqual([{ file: join(dir, 'c.yaml'), error: expect.any(String) }]);
      expect(status.lastError).toMatchObject({ message: expect.stringContaining(join(dir, 'c.yaml')) });
      const warn = await log.waitFor((l) => l.msg === 'manifest invalid');
      expect(warn).toMatchObject({ level: WARN, file: join(dir, 'c.yaml'), keptLastGood: false, holdsOrphanKills: true });
    });

    it('reads the first YAML document of a file, and says when later ones hold something (a second pod would vanish)', async () => {
      const dir = await makeDir();
      const multi = join(dir, 'multi.yaml');
      await writeFile(multi, `${podManifestYaml('a')}---\n${podManifestYaml('b')}`);
      await writeFile(join(dir, 'c.yaml'), `---\n${podManifestYaml('c')}---\n# nothing more\n`);
      const { run, source, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a'), key('c')]);
      expect(source.status().details.laterDocuments).toEqual([multi]);
      const warn = await log.waitFor((l) => l.msg === 'manifest has YAML documents after the first; only the first is read (one pod per file)');
      expect(warn).toMatchObject({ level: WARN, file: multi });
      await writeFile(multi, podManifestYaml('a', { image: 'registry.k8s.io/pause:3.9' }));
      await run.next();
      expect(source.status().details.laterDocuments).toEqual([]);
      expect(msgs(log.lines, warn.msg)).toHaveLength(1);
    });

    it('keeps the last good pod while a manifest is invalid, and removes it only with the file (D4, #25)', async () => {
      const dir = await makeDir();
      const a = join(dir, 'a.yaml');
      await writeFile(a, podManifestYaml('a'));
      const { run, source, log } = start({ path: dir });
      const first = await run.next();
      const uidA = uid(first, key('a'));
      const pending = run.next(); // the source scans while someone waits for its next SET
      await writeFile(a, INVALID_YAML);
      await log.waitFor((l) => l.msg === 'manifest invalid');
      await writeFile(join(dir, 'sentinel.yaml'), podManifestYaml('sentinel'));
      const next = await pending; // the invalid edit yielded nothing: the first SET after it is the sentinel's
      expect(keys(next)).toEqual([key('a'), key('sentinel')]);
      expect(uid(next, key('a'))).toBe(uidA);
      expect(source.status().details.invalid).toEqual([{ file: a, error: expect.any(String) }]);
      expect(msgs(log.lines, 'manifest invalid')).toHaveLength(1);
      await unlink(a);
      expect(keys(await run.next())).toEqual([key('sentinel')]);
      expect(source.status().details.invalid).toEqual([]);
    });

    it('says once at info when an invalid manifest is valid again, and only at debug when it is deleted', async () => {
      const dir = await makeDir();
      const a = join(dir, 'a.yaml');
      const b = join(dir, 'b.yaml');
      await writeFile(a, podManifestYaml('a'));
      await writeFile(b, INVALID_YAML);
      const { run, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      await log.waitFor((l) => l.msg === 'manifest invalid' && l.file === b);
      await writeFile(b, podManifestYaml('b'));
      expect(keys(await run.next())).toEqual([key('a'), key('b')]);
      expect(msgs(log.lines, 'manifest valid again')).toEqual([expect.objectContaining({ level: INFO, path: dir, file: b })]);
      // Invalid, then deleted: its pod goes without a word above debug.
      const pending = run.next();
      await writeFile(a, INVALID_YAML);
      await log.waitFor((l) => l.msg === 'manifest invalid' && l.file === a);
      await unlink(a);
      expect(keys(await pending)).toEqual([key('b')]);
      expect(await log.waitFor((l) => l.msg === 'invalid manifest gone')).toMatchObject({ level: DEBUG, file: a });
      expect(msgs(log.lines, 'manifest valid again').map((l) => l.file)).toEqual([b]);
    });

    it("removes the pod when its manifest becomes invalid with invalidManifest 'drop' (D4 flag, #25)", async () => {
      const dir = await makeDir();
      const a = join(dir, 'a.yaml');
      await writeFile(a, podManifestYaml('a'));
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      const { run, source } = start({ path: dir, invalidManifest: 'drop' });
      expect(keys(await run.next())).toEqual([key('a'), key('b')]);
      await writeFile(a, INVALID_YAML);
      expect(keys(await run.next())).toEqual([key('b')]);
      expect(source.status().details.invalid).toEqual([{ file: a, error: expect.any(String) }]);
      await writeFile(a, podManifestYaml('a'));
      expect(keys(await run.next())).toEqual([key('a'), key('b')]);
    });

    it('keeps the pod when the single file becomes invalid (D4, #26)', async () => {
      const dir = await makeDir();
      const file = join(dir, 'pod.yaml');
      await writeFile(file, podManifestYaml('web'));
      const { run, source, log } = start({ path: file });
      const first = await run.next();
      expect(keys(first)).toEqual([key('web')]);
      const pending = run.next();
      await writeFile(file, INVALID_YAML);
      await log.waitFor((l) => l.msg === 'manifest invalid');
      expect(source.status()).toMatchObject({ healthy: false, pods: 1, details: { mode: 'file' } });
      await writeFile(file, podManifestYaml('web', { image: 'registry.k8s.io/pause:3.9' }));
      const next = await pending; // the first SET after the invalid edit is the fixed content
      expect(keys(next)).toEqual([key('web')]);
      expect(uid(next, key('web'))).not.toBe(uid(first, key('web')));
    });

    it("keeps the single file's last good pod with invalidManifest 'drop' too, as the kubelet does (D4 flag, #26)", async () => {
      const dir = await makeDir();
      const file = join(dir, 'pod.yaml');
      await writeFile(file, podManifestYaml('web'));
      const { run, source, log } = start({ path: file, invalidManifest: 'drop' });
      const first = await run.next();
      expect(keys(first)).toEqual([key('web')]);
      const pending = run.next(); // the source scans while someone waits for its next SET
      await writeFile(file, INVALID_YAML);
      const warn = await log.waitFor((l) => l.msg === 'manifest invalid');
      expect(warn).toMatchObject({ level: WARN, file, keptLastGood: true });
      expect(source.status()).toMatchObject({ healthy: false, pods: 1, details: { mode: 'file', invalid: [{ file }] } });
      const fixed = podManifestYaml('web', { image: 'registry.k8s.io/pause:3.9' });
      await writeFile(file, fixed);
      const next = await pending; // no empty SET in between: the first SET after the invalid edit is the new content's
      expect(keys(next)).toEqual([key('web')]);
      expect(uid(next, key('web'))).toBe(expectedUid(fixed, file));
      expect(uid(next, key('web'))).not.toBe(uid(first, key('web')));
      expect(source.status().counters.sets).toBe(2);
    });

    it('yields an empty SET for a single file that is invalid at start, so readiness is not blocked (D4/D5, #27)', async () => {
      const dir = await makeDir();
      const file = join(dir, 'pod.yaml');
      await writeFile(file, INVALID_YAML);
      const { run, source } = start({ path: file });
      const first = await run.next();
      expect(first.pods.size).toBe(0);
      // Seen, but provisional: orphan kills wait for the file to decode once (D4), as in a directory.
      expect(source.status()).toMatchObject({ seen: true, provisional: true, healthy: false, details: { mode: 'file', holdingOrphanKills: [file] } });
      await writeFile(file, podManifestYaml('web'));
      expect(keys(await run.next())).toEqual([key('web')]);
      expect(source.status()).toMatchObject({ provisional: false, details: { holdingOrphanKills: [] } });
    });

    it('ignores a .bak copy by default (D2, #28)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'web.yaml'), podManifestYaml('web'));
      await writeFile(join(dir, 'web.yaml.bak'), podManifestYaml('web', { image: 'old:1' }));
      const { run, source } = start({ path: dir });
      const first = await run.next();
      expect(uid(first, key('web'))).toBe(expectedUid(podManifestYaml('web'), join(dir, 'web.yaml')));
      expect(source.status().details).toMatchObject({ shadowed: [], ignored: 1 });
    });

    it('drops the pod of a later file with the UID of an earlier file, whatever the pod names, and names it in details and a warning once (D14)', async () => {
      const dir = await makeDir();
      const pinned = (name: string): string => podManifestYaml(name).replace('metadata:\n', 'metadata:\n  uid: same\n');
      const a = join(dir, 'a.yaml');
      const b = join(dir, 'b.yaml');
      await writeFile(a, pinned('zzz'));
      await writeFile(b, pinned('aaa')); // the smaller key, which the merger would keep: the source decides first
      const { run, source, log } = start({ path: dir });
      const first = await run.next();
      expect(keys(first)).toEqual([key('zzz')]);
      expect(uid(first, key('zzz'))).toBe('same');
      const expected = { file: b, uid: 'same', firstFile: a };
      expect(source.status().details.duplicateUids).toEqual([expected]);
      expect(source.status().counters.duplicate_uid_files).toBe(1);
      const isDuplicate = (l: LogLine): boolean => l.msg.startsWith('manifest has the pod UID of an earlier file');
      const warn = await log.waitFor(isDuplicate);
      expect(warn).toMatchObject({ level: WARN, ...expected });
      expect(warn.msg).toContain('dropped');

      // Its own UID again: its pod comes in, and the warning is not repeated.
      await writeFile(b, podManifestYaml('aaa'));
      expect(keys(await run.next())).toEqual([key('aaa'), key('zzz')]);
      expect(source.status().details.duplicateUids).toEqual([]);
      expect(log.lines.filter(isDuplicate)).toHaveLength(1);
      // The UID once more, then the first file goes: the later file's pod takes the UID over.
      await writeFile(b, pinned('aaa'));
      expect(keys(await run.next())).toEqual([key('zzz')]);
      expect(source.status().counters.duplicate_uid_files).toBe(2);
      await unlink(a);
      const last = await run.next();
      expect(keys(last)).toEqual([key('aaa')]);
      expect(uid(last, key('aaa'))).toBe('same');
      expect(source.status().details.duplicateUids).toEqual([]);
      expect(log.lines.filter(isDuplicate)).toHaveLength(2);
    });

    it('lets the first file in byte order win a duplicate, reports the shadow, and keeps the pod when the shadow goes (D1, #28)', async () => {
      const dir = await makeDir();
      const web = join(dir, 'web.yaml');
      const bak = join(dir, 'web.yaml.bak');
      await writeFile(web, podManifestYaml('web'));
      await writeFile(bak, podManifestYaml('web', { image: 'old:1' }));
      const { run, source, log } = start({ path: dir, manifestFilter: 'none' });
      const first = await run.next();
      expect(keys(first)).toEqual([key('web')]);
      expect(uid(first, key('web'))).toBe(expectedUid(podManifestYaml('web'), web));
      const bakUid = expectedUid(podManifestYaml('web', { image: 'old:1' }), bak);
      expect(source.status().details.shadowed).toEqual([{ file: bak, shadowedBy: web, pod: key('web'), uid: bakUid }]);
      expect(source.status().counters.shadowed_files).toBe(1);
      const warn = await log.waitFor((l) => l.msg === 'manifest shadowed by an earlier file');
      expect(warn).toMatchObject({ level: WARN, file: bak, shadowedBy: web, pod: key('web') });

      // An edit of the shadow has no effect on the pod, and is told again: it is easy to edit the wrong file.
      const resumed = run.next();
      await writeFile(bak, podManifestYaml('web', { image: 'old:2' }));
      await vi.waitFor(() => expect(msgs(log.lines, 'manifest shadowed by an earlier file')).toHaveLength(2), { timeout: 10_000 });
      expect(source.status().details.shadowed).toEqual([{ file: bak, shadowedBy: web, pod: key('web'), uid: expectedUid(podManifestYaml('web', { image: 'old:2' }), bak) }]);
      expect(source.status().counters.shadowed_files).toBe(2);

      await unlink(bak);
      await writeFile(join(dir, 'z.yaml'), podManifestYaml('z'));
      const next = await resumed; // neither the shadow's edit nor its deletion yielded anything
      expect(keys(next)).toEqual([key('web'), key('z')]);
      expect(uid(next, key('web'))).toBe(uid(first, key('web')));
      expect(source.status().details.shadowed).toEqual([]);
      expect(msgs(log.lines, 'manifest shadowed by an earlier file')).toHaveLength(2);
    });

    it('removes the pod promptly when its file is deleted (#29)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      const { run } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a'), key('b')]);
      await unlink(join(dir, 'a.yaml'));
      expect(keys(await run.next())).toEqual([key('b')]);
    });

    it('adds a new file without waiting for the periodic re-scan (#30)', async () => {
      const dir = await makeDir();
      const { run } = start({ path: dir });
      expect((await run.next()).pods.size).toBe(0);
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      expect(keys(await run.next())).toEqual([key('a')]);
    });

    it('yields the new UID after a content change, with the changed key relative to the last SET (#31, D17)', async () => {
      const dir = await makeDir();
      const a = join(dir, 'a.yaml');
      await writeFile(a, podManifestYaml('a'));
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      const { run } = start({ path: dir });
      const first = await run.next();
      const edited = podManifestYaml('a', { image: 'registry.k8s.io/pause:3.9' });
      await writeFile(a, edited);
      const next = await run.next();
      expect(uid(next, key('a'))).toBe(expectedUid(edited, a));
      expect(uid(next, key('a'))).not.toBe(uid(first, key('a')));
      expect(next.pods.get(key('b'))).toBe(first.pods.get(key('b'))); // unchanged file: the same object
      expect(next.changes?.base).toBe(first.pods);
      expect([...(next.changes?.keys ?? [])]).toEqual([key('a')]);
      // The first SET (no changes) and the next have one object shape (podSetUpdate).
      expect(Object.keys(next)).toEqual(Object.keys(first));
    });

    it('yields nothing for a touch (#32)', async () => {
      const dir = await makeDir();
      const a = join(dir, 'a.yaml');
      await writeFile(a, podManifestYaml('a'));
      const { run, log } = start({ path: dir });
      const first = await run.next();
      const pending = run.next();
      await log.waitFor(watchArmed);
      const mark = log.lines.length;
      const later = new Date(Date.now() + 60_000);
      await utimes(a, later, later);
      const scanned = await log.waitFor((l) => l.msg === 'manifest path scanned' && l.reason === 'change', mark);
      expect(scanned.changed).toBe(false); // the touch woke a scan, and the scan found nothing to say
      await writeFile(join(dir, 'sentinel.yaml'), podManifestYaml('sentinel'));
      const next = await pending; // so the first SET after the touch is the sentinel's
      expect(keys(next)).toEqual([key('a'), key('sentinel')]);
      expect(next.pods.get(key('a'))).toBe(first.pods.get(key('a')));
    });

    it('ends at once when stopped while a scan waits for a file system call (every thread of libuv\'s pool busy)', async () => {
      const dir = await makeDir();
      const a = join(dir, 'a.yaml');
      await writeFile(a, podManifestYaml('a'));
      const { run, log } = start({ path: dir });
      await run.next();
      const pending = run.next();
      await log.waitFor(watchArmed);
      // Opening a FIFO for reading waits in a pool thread until a writer comes: four of them take the whole pool.
      const fifos = join(await makeDir(), 'held');
      await mkdir(fifos);
      const held: string[] = [];
      for (let i = 0; i < 4; i++) {
        held.push(join(fifos, `f${i}`));
        execFileSync('mkfifo', [held[i]!]);
      }
      const holders = held.map((f) => open(f, 'r'));
      try {
        writeFileSync(a, podManifestYaml('a-v2')); // sync: not through the pool
        await new Promise((resolve) => setTimeout(resolve, 500)); // the watch event, the quiet period, a scan waiting
        run.controller.abort();
        const stopped = await Promise.race([
          run.iterator.return(undefined).then(() => 'returned'),
          new Promise((resolve) => setTimeout(() => resolve('still waiting for the pool'), 10_000)),
        ]);
        expect(stopped).toBe('returned');
        expect(await pending.then(() => 'a SET', (err: unknown) => (err as Error).message)).toBe('the source ended');
      } finally {
        // A writer on each FIFO frees the pool.
        for (const f of held) closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
        for (const h of await Promise.all(holders)) await h.close();
      }
    });

    it('yields nothing for an edit that only reorders keys or writes out a default (same UID, spec §2.6)', async () => {
      const dir = await makeDir();
      const a = join(dir, 'a.yaml');
      await writeFile(a, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels: {app: a, tier: fe}\nspec:\n  containers:\n  - {name: main, image: nginx}\n');
      const { run, log } = start({ path: dir });
      const first = await run.next();
      const pending = run.next();
      await log.waitFor(watchArmed);
      for (const content of [
        'kind: Pod\napiVersion: v1\nmetadata:\n  labels: {tier: fe, app: a}\n  name: a\nspec:\n  containers:\n  - {image: nginx, name: main}\n',
        'kind: Pod\napiVersion: v1\nmetadata:\n  labels: {tier: fe, app: a}\n  name: a\nspec:\n  containers:\n  - {image: nginx, name: main}\n  restartPolicy: Always\n',
      ]) {
        const mark = log.lines.length;
        await writeFile(a, content);
        const scanned = await log.waitFor((l) => l.msg === 'manifest path scanned' && l.reason === 'change', mark);
        expect(scanned.changed).toBe(false);
        expect(uid(first, key('a'))).toBe(expectedUid(content, a));
      }
      await writeFile(join(dir, 'sentinel.yaml'), podManifestYaml('sentinel'));
      const next = await pending; // so the first SET after the edits is the sentinel's
      expect(keys(next)).toEqual([key('a'), key('sentinel')]);
      expect([...(next.changes?.keys ?? [])]).toEqual([key('sentinel')]);
    });

    it('keeps the previous pod while a file is written in chunks, then applies the final content (#33)', async () => {
      const dir = await makeDir();
      const a = join(dir, 'a.yaml');
      await writeFile(a, podManifestYaml('a'));
      const { run, log } = start({ path: dir });
      const first = await run.next();
      const pending = run.until((u) => u.pods.has(key('a-v2')));
      const handle = await open(a, 'w');
      try {
        await handle.write('apiVersion: v1\nkind: Pod\nmetadata: {name: "a');
        await handle.sync();
        // Wait until a scan has really seen a half-written file.
        const warn = await log.waitFor((l) => l.msg === 'manifest invalid' && l.file === a);
        expect(warn.keptLastGood).toBe(true);
        await handle.write('-v2"}\nspec:\n  containers:\n  - name: main\n    image: registry.k8s.io/pause:3.10\n');
      } finally {
        await handle.close();
      }
      const { last, before } = await pending;
      expect(before).toEqual([]); // no SET dropped or changed the old pod in between
      expect(keys(last)).toEqual([key('a-v2')]);
      expect(first.pods.has(key('a'))).toBe(true);
    });

    it('waits a quiet period of 100 ms by default after a change before it scans (D3)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      const sleeps: number[] = [];
      const clock: Clock = {
        now: () => systemClock.now(),
        monotonic: () => systemClock.monotonic(),
        sleep: (ms, signal) => (sleeps.push(ms), systemClock.sleep(ms, signal)),
      };
      const { run, log } = start({ path: dir, clock });
      expect(keys(await run.next())).toEqual([key('a')]);
      const pending = run.next();
      await log.waitFor(watchArmed);
      const before = sleeps.length;
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      expect(keys(await pending)).toEqual([key('a'), key('b')]);
      expect(sleeps.slice(before)).toContain(100);
    });

    it('restarts the pod exactly once for an atomic replace through a dot-temp file (D3, #34)', async () => {
      const dir = await makeDir();
      const web = join(dir, 'web.yaml');
      await writeFile(web, podManifestYaml('web'));
      const { run, log } = start({ path: dir });
      const first = await run.next();
      const pending = run.next();
      await log.waitFor(watchArmed);
      const edited = podManifestYaml('web', { image: 'registry.k8s.io/pause:3.9' });
      await writeFile(join(dir, '.web.yaml.tmp'), edited);
      await rename(join(dir, '.web.yaml.tmp'), web);
      const next = await pending;
      expect(keys(next)).toEqual([key('web')]);
      expect(uid(next, key('web'))).toBe(expectedUid(edited, web));
      expect(uid(next, key('web'))).not.toBe(uid(first, key('web')));
      await writeFile(join(dir, 'sentinel.yaml'), podManifestYaml('sentinel'));
      const after = await run.next(); // no second restart came between
      expect(uid(after, key('web'))).toBe(uid(next, key('web')));
    });

    it('restarts the pod at most once for an atomic replace through a non-dot temp file (D3, #35)', async () => {
      const dir = await makeDir();
      const web = join(dir, 'web.yaml');
      const tmp = join(dir, 'tmp-web'); // sorts before web.yaml: if a scan saw it, it would win (D1) and restart the pod
      await writeFile(web, podManifestYaml('web'));
      const { run, log } = start({ path: dir });
      const first = await run.next();
      const edited = podManifestYaml('web', { image: 'registry.k8s.io/pause:3.9' });
      const newUid = expectedUid(edited, web);
      const pending = run.until((u) => uid(u, key('web')) === newUid);
      await log.waitFor(watchArmed);
      await writeFile(tmp, edited);
      await rename(tmp, web);
      const { last, before } = await pending;
      for (const u of before) expect(uid(u, key('web'))).toBe(uid(first, key('web')));
      expect(keys(last)).toEqual([key('web')]);
      await writeFile(join(dir, 'sentinel.yaml'), podManifestYaml('sentinel'));
      const after = await run.next();
      expect(uid(after, key('web'))).toBe(newUid);
    });

    it('yields nothing for an atomic replace with unchanged content (D3)', async () => {
      const dir = await makeDir();
      const web = join(dir, 'web.yaml');
      await writeFile(web, podManifestYaml('web'));
      const { run, log } = start({ path: dir });
      const first = await run.next();
      const pending = run.next();
      await log.waitFor(watchArmed);
      const mark = log.lines.length;
      await writeFile(join(dir, 'web.yaml.new'), podManifestYaml('web'));
      await rename(join(dir, 'web.yaml.new'), web);
      await writeFile(join(dir, '.web.yaml.swp'), podManifestYaml('web'));
      await rename(join(dir, '.web.yaml.swp'), web);
      const scanned = await log.waitFor((l) => l.msg === 'manifest path scanned' && l.reason === 'change', mark);
      expect(scanned.changed).toBe(false);
      await writeFile(join(dir, 'sentinel.yaml'), podManifestYaml('sentinel'));
      const next = await pending; // the renames yielded nothing: the first SET after them is the sentinel's
      expect(keys(next)).toEqual([key('sentinel'), key('web')]);
      expect(uid(next, key('web'))).toBe(uid(first, key('web')));
    });

    it('converges on the full set after a burst of creates, never losing a pod on the way (#36)', async () => {
      const dir = await makeDir();
      const { run } = start({ path: dir });
      expect((await run.next()).pods.size).toBe(0);
      const names = Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')}`);
      await Promise.all(names.map((n) => writeFile(join(dir, `${n}.yaml`), podManifestYaml(n))));
      const { last, before } = await run.until((u) => u.pods.size === names.length);
      let size = 0;
      for (const u of before) {
        expect(u.pods.size).toBeGreaterThanOrEqual(size);
        size = u.pods.size;
      }
      expect(keys(last)).toEqual(names.map((n) => key(n)));
    });

    it('picks up a change the watch missed at the next periodic re-scan (#37: the relist repairs missed events)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      // A watcher that misses every change (as after an inotify queue overflow): real chokidar, its events dropped.
      const dropped: string[] = [];
      let sawDrop: () => void = () => undefined;
      const firstDrop = new Promise<void>((resolve) => (sawDrop = resolve));
      const watch: ChokidarWatch = (paths, options) => {
        const watcher = chokidarWatch(paths, options);
        const emit = watcher.emit.bind(watcher);
        watcher.emit = ((event: string, ...args: unknown[]) => {
          if (event === 'ready' || event === 'error') return (emit as (event: string, ...args: unknown[]) => boolean)(event, ...args);
          dropped.push(event);
          sawDrop();
          return true;
        }) as typeof watcher.emit;
        return watcher;
      };
      // The periodic wait ends when the test moves this clock an hour on; shorter ones (the debounce) run on the system clock.
      let skipped = 0;
      let endPeriod: () => void = () => undefined;
      const clock: Clock = {
        now: () => systemClock.now() + skipped,
        monotonic: () => systemClock.monotonic() + skipped,
        sleep: (ms, signal) => ms < HOUR / 2 // the period, shortened by the scan's time (a fixed rate), is still more
          ? systemClock.sleep(ms, signal)
          : new Promise<void>((resolve) => {
            endPeriod = () => {
              skipped += ms;
              resolve();
            };
            signal.addEventListener('abort', () => resolve(), { once: true });
          }),
      };
      const { run, log } = start({ path: dir, clock, watch });
      expect(keys(await run.next())).toEqual([key('a')]);
      const pending = run.next(); // the source arms its watch once the first SET is taken
      await log.waitFor((l) => l.msg === 'manifest path scanned' && l.reason === 'watch-armed');
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      await firstDrop; // the watcher saw b.yaml, and dropped it
      endPeriod();
      expect(keys(await pending)).toEqual([key('a'), key('b')]);
      expect(msgs(log.lines, 'manifest path scanned').map((l) => l.reason)).toEqual(['start', 'watch-armed', 'period']);
    });

    it('goes on scanning when the watch fails while it is set up and never becomes ready (EMFILE), and re-arms it with backoff', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      // Out of file descriptors while chokidar sets up: it reports the error and never says `ready`. Before, the
      // source waited for that `ready` for good: no re-scan, periodic or not, until a restart.
      const emfile = Object.assign(new Error(`EMFILE: too many open files, watch '${dir}'`), { code: 'EMFILE', syscall: 'watch', path: dir });
      let failing = true;
      const watch: ChokidarWatch = (paths, options) => {
        const watcher = chokidarWatch(paths, options);
        if (!failing) return watcher;
        failing = false;
        const emit = watcher.emit.bind(watcher) as (event: string, ...args: unknown[]) => boolean;
        watcher.emit = ((event: string, ...args: unknown[]) => (event === 'ready' ? true : emit(event, ...args))) as typeof watcher.emit;
        setImmediate(() => emit('error', emfile));
        return watcher;
      };
      const inner = new InstantClock({ maxSleeps: 100_000 });
      const clock: Clock = {
        now: () => inner.now(),
        monotonic: () => inner.monotonic(),
        // The backoff and the debounce pass at once in virtual time; the hour-long period never elapses.
        sleep: (ms, signal) => (ms >= HOUR / 2 ? new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })) : inner.sleep(ms, signal)),
      };
      const { run, source, log } = start({ path: dir, clock, watch });
      expect(keys(await run.next())).toEqual([key('a')]);
      const pending = run.next();
      await log.waitFor((l) => l.msg === 'manifest watch armed' && source.status().details['watch'] === 'active');
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      expect(keys(await pending)).toEqual([key('a'), key('b')]);
      expect(msgs(log.lines, 'manifest watch failed')[0]).toMatchObject({ err: { code: 'EMFILE' }, retryInMs: 1_000 });
    });

    it('logs a watcher error and re-creates the watcher with backoff 1 s doubling to 20 s, whatever the wall clock does (#37)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      // A failure of the watch on the directory itself, as fs.watch reports it when the inotify watch
      // limit is reached. No entry can cause one (see the symlink-loop test), and root cannot be denied
      // the directory, so the error is injected through the `watch` seam, on real chokidar watchers.
      let failing = true;
      const enospc = Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${dir}'`), {
        code: 'ENOSPC',
        syscall: 'watch',
        path: dir,
      });
      const watch: ChokidarWatch = (paths, options) => {
        const watcher = chokidarWatch(paths, options);
        if (failing) watcher.once('ready', () => watcher.emit('error', enospc));
        return watcher;
      };
      const inner = new InstantClock({ maxSleeps: 100_000 });
      const schedule = [1_000, 2_000, 4_000, 8_000, 16_000, 20_000, 20_000];
      let reached: () => void = () => undefined;
      const reachedSchedule = new Promise<void>((resolve) => (reached = resolve));
      // Short sleeps (backoff, debounce) pass at once in virtual time; the hour-long periodic wait
      // never elapses, so only the watch and its retries drive the loop. The wall clock steps an hour ahead
      // at every reading: retry times are monotonic, so the schedule does not change.
      const clock: Clock = {
        now: () => (inner.stepWall(HOUR), inner.now()),
        monotonic: () => inner.monotonic(),
        sleep: (ms, signal) => {
          if (ms >= HOUR / 2) return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          const p = inner.sleep(ms, signal);
          if (inner.sleeps.length >= schedule.length) reached();
          return p;
        },
      };
      const { run, source, log } = start({ path: dir, clock, watch });
      expect(keys(await run.next())).toEqual([key('a')]);
      const pending = run.next();
      await reachedSchedule;
      expect(inner.sleeps.slice(0, schedule.length)).toEqual(schedule);
      const failures = msgs(log.lines, 'manifest watch failed');
      expect(failures.filter((l) => l.level === WARN)).toHaveLength(1); // repeats of the same error go to debug
      expect(failures[0]).toMatchObject({ retryInMs: 1_000 });
      expect(source.status().counters.watch_errors).toBeGreaterThanOrEqual(schedule.length);

      failing = false; // the next re-created watcher is healthy and sees new files
      await log.waitFor((l) => l.msg === 'manifest watch armed' && source.status().details.watch === 'active');
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      expect(keys(await pending)).toEqual([key('a'), key('b')]);
    });

    it.runIf(process.platform === 'linux')(
      'holds one inotify watch for the directory and one for its parent, however many manifests it holds (spec §2.3)',
      async () => {
        const before = await inotifyWatches();
        const held: number[] = [];
        for (const count of [1, 1_000]) {
          const base = await makeDir();
          const dir = join(base, 'manifests');
          await mkdir(dir);
          for (let i = 0; i < count; i++) await writeFile(join(dir, `p${i}.yaml`), podManifestYaml(`p${i}`));
          await writeFile(join(base, 'sibling.yaml'), podManifestYaml('sibling')); // in the parent: no watch either
          const { run, log } = start({ path: dir });
          expect((await run.next()).pods.size).toBe(count);
          const pending = run.next();
          await log.waitFor(watchArmed);
          held.push((await inotifyWatches()) - before);
          await writeFile(join(dir, 'new.yaml'), podManifestYaml('new')); // and the directory's watch sees its entries
          expect((await pending).pods.size).toBe(count + 1);
          await run.stop();
        }
        expect(held).toEqual([2, 2]);
        expect(await inotifyWatches()).toBe(before); // closed with the run
      },
    );

    it('keeps the watch on a directory holding symlink loops, and reports the loops as invalid files (spec §2.2)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      await symlink(join(dir, 'loop2'), join(dir, 'loop1'));
      await symlink(join(dir, 'loop1'), join(dir, 'loop2'));
      await symlink(join(dir, 'self.yaml'), join(dir, 'self.yaml'));
      const { run, source, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      const pending = run.next();
      await log.waitFor(watchArmed);
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b')); // periodMs is an hour: only the watch sees this
      expect(keys(await pending)).toEqual([key('a'), key('b')]);
      const status = source.status();
      expect(status.details).toMatchObject({ watch: 'active' });
      expect(status.counters).toMatchObject({ watch_errors: 0, invalid_files: 3 });
      expect(status.details.invalid).toEqual(
        ['loop1', 'loop2', 'self.yaml'].map((name) => ({ file: join(dir, name), error: expect.stringContaining('ELOOP') })),
      );
      expect(msgs(log.lines, 'manifest watch failed')).toEqual([]);
    });

    it('keeps the watch when a single-file path is a symlink loop, and picks up the file that replaces it', async () => {
      const dir = await makeDir();
      const file = join(dir, 'pod.yaml');
      await symlink(file, file); // chokidar, which follows the path itself in single-file mode, gets ELOOP
      const { run, source, log } = start({ path: file });
      expect((await run.next()).pods.size).toBe(0);
      expect(source.status().lastError?.message).toContain('ELOOP');
      const pending = run.next();
      await log.waitFor(watchArmed);
      expect(msgs(log.lines, 'manifest watch skipped an entry')[0]?.err).toMatchObject({ code: 'ELOOP', path: file });
      await writeFile(join(dir, '.pod.yaml.tmp'), podManifestYaml('web'));
      await rename(join(dir, '.pod.yaml.tmp'), file); // periodMs is an hour: only the watch sees this
      expect(keys(await pending)).toEqual([key('web')]);
      expect(source.status()).toMatchObject({ counters: { watch_errors: 0 }, details: { watch: 'active', mode: 'file' } });
      expect(msgs(log.lines, 'manifest watch failed')).toEqual([]);
    });

    it('yields one empty SET when the directory is removed, and the pods through the re-armed watch when it is back (D5, #38)', async () => {
      const dir = await manifestsDirWithA();
      const { run, source, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      await rm(dir, { recursive: true });
      const empty = await run.next();
      expect(empty.pods.size).toBe(0);
      expect(source.status()).toMatchObject({ seen: true, details: { mode: 'missing' } });
      await mkdir(dir);
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      expect(keys(await run.next())).toEqual([key('b')]); // periodMs is an hour: the watch re-armed
      await writeFile(join(dir, 'c.yaml'), podManifestYaml('c')); // and it watches the new directory's entries
      expect(keys(await run.next())).toEqual([key('b'), key('c')]);
      expect(msgs(log.lines, 'manifest path does not exist')).toHaveLength(1);
    });

    it('yields the empty SET of a missing path once, not once per scan, with a short period (D5, #23)', async () => {
      const path = join(await makeDir(), 'absent');
      const { run, source, log } = start({ path, periodMs: 20 });
      expect((await run.next()).pods.size).toBe(0);
      expect(await quietScans(run, source, 10)).toBe('no SET in 10 scans and 300 ms');
      expect(msgs(log.lines, 'manifest path does not exist')).toHaveLength(1);
      expect(source.status()).toMatchObject({ seen: true, provisional: false, pods: 0, counters: { sets: 1 }, details: { mode: 'missing' } });
    });

    it('yields one empty SET when a directory that had pods is removed, not one per scan, with a short period (D5, #38)', async () => {
      const dir = await manifestsDirWithA();
      const { run, source, log } = start({ path: dir, periodMs: 20 });
      expect(keys(await run.next())).toEqual([key('a')]);
      await rm(dir, { recursive: true });
      expect((await run.next()).pods.size).toBe(0);
      expect(await quietScans(run, source, 10)).toBe('no SET in 10 scans and 300 ms');
      expect(msgs(log.lines, 'manifest path does not exist')).toHaveLength(1);
      expect(source.status()).toMatchObject({ seen: true, provisional: false, pods: 0, counters: { sets: 2 }, details: { mode: 'missing' } });
    });

    it('reports the invalid file by its reason in details, and names the file in lastError', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      await writeFile(join(dir, 'b.yaml'), INVALID_YAML);
      await symlink(join(dir, 'nowhere'), join(dir, 'c.yaml'));
      const { run, source } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      const { details, lastError } = source.status();
      expect(details.invalid).toEqual([
        { file: join(dir, 'b.yaml'), error: expect.any(String) },
        { file: join(dir, 'c.yaml'), error: 'dangling symlink' },
      ]);
      expect((details.invalid as { error: string }[])[0]!.error).not.toContain(dir);
      // The last invalid file reported: a plain error message gets the file in front.
      expect(lastError).toMatchObject({ code: 'PODCONFIG_MANIFEST_INVALID', message: `${join(dir, 'c.yaml')}: dangling symlink` });
    });

    it('names the ignored entries an operator may have meant as manifests, and logs a filtered name once at info', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      await writeFile(join(dir, 'a.yaml.bak'), podManifestYaml('a'));
      await writeFile(join(dir, 'b.txt'), podManifestYaml('b'));
      await writeFile(join(dir, '.hidden.yaml'), podManifestYaml('hidden'));
      await mkdir(join(dir, 'sub.yaml'));
      const { run, source, log } = start({ path: dir, extensions: ['.yaml', '.bak'], periodMs: 50 });
      expect(keys(await run.next())).toEqual([key('a')]);
      expect(source.status().details).toMatchObject({
        ignored: 4,
        ignoredFiles: [
          { file: join(dir, 'a.yaml.bak'), reason: 'editor-artefact' },
          { file: join(dir, 'b.txt'), reason: 'extension' },
          { file: join(dir, 'sub.yaml'), reason: 'directory' },
        ],
      });
      void run.iterator.next(); // resumes the source: later scans change nothing, and log nothing again
      await log.waitFor((l) => l.msg === 'manifest path scanned' && l.reason === 'period');
      const infos = log.lines.filter((l) => l.level === INFO && String(l.msg).startsWith('ignoring'));
      expect(infos.map((l) => [l.msg, l.file])).toEqual([
        ['ignoring editor artefact', join(dir, 'a.yaml.bak')],
        ['ignoring file: extension not allowed', join(dir, 'b.txt')],
      ]);
    });

    it('reports no ignored entries once the path is gone', async () => {
      const dir = await manifestsDirWithA();
      await writeFile(join(dir, '.hidden.yaml'), podManifestYaml('hidden'));
      const { run, source } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      expect(source.status().details).toMatchObject({ ignored: 1 });
      await rm(dir, { recursive: true });
      expect((await run.next()).pods.size).toBe(0);
      expect(source.status().details).toMatchObject({ mode: 'missing', ignored: 0, ignoredFiles: [], invalid: [], shadowed: [] });
    });

    it('forgets the last good pods when the path goes: a manifest invalid in the new directory keeps none (D4, D5)', async () => {
      const dir = await manifestsDirWithA();
      const { run, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      await rm(dir, { recursive: true });
      expect((await run.next()).pods.size).toBe(0);
      await mkdir(dir);
      await writeFile(join(dir, 'a.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: "a');
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      const { last } = await run.until((u) => u.pods.has(key('b')));
      expect(keys(last)).toEqual([key('b')]);
      const warn = await log.waitFor((l) => l.msg === 'manifest invalid' && l.file === join(dir, 'a.yaml'));
      expect(warn.keptLastGood).toBe(false);
    });

    it('re-arms the watch when the directory is replaced between two scans (D5)', async () => {
      const dir = await manifestsDirWithA();
      const { run, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      const pending = run.until((u) => keys(u).join() === key('b'));
      await log.waitFor(watchArmed);
      await rm(dir, { recursive: true }); // no await between these: one debounce window, maybe the same inode
      await mkdir(dir);
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      await pending;
      await writeFile(join(dir, 'c.yaml'), podManifestYaml('c')); // only a re-armed watch sees this (periodMs: 1 h)
      expect(keys(await run.next())).toEqual([key('b'), key('c')]);
    });

    it('re-arms the watch when another directory is renamed into the path, and then sees its entries (D5)', async () => {
      const base = await makeDir();
      const dir = join(base, 'manifests');
      for (const version of ['v1', 'v2']) {
        await mkdir(join(base, version));
        await writeFile(join(base, version, 'a.yaml'), podManifestYaml('a')); // the same pods: the swap changes no SET
      }
      await rename(join(base, 'v1'), dir);
      const { run, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      const pending = run.until((u) => keys(u).includes(key('b')));
      await log.waitFor(watchArmed);
      const armed = log.lines.filter(watchArmed).length;
      // In one step, as `mv` from a script does: chokidar sees a directory at the path before and after.
      renameSync(dir, join(base, 'v1'));
      renameSync(join(base, 'v2'), dir);
      await log.waitFor(() => log.lines.filter(watchArmed).length > armed); // periodMs is an hour: an event woke it
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b')); // only a watch on the new directory sees this
      expect(keys((await pending).last)).toEqual([key('a'), key('b')]);
    });

    it('reads symlinked files, skips a symlinked directory, and reports a dangling symlink (#39)', async () => {
      const base = await makeDir();
      const dir = join(base, 'manifests');
      const elsewhere = join(base, 'elsewhere');
      await mkdir(dir);
      await mkdir(elsewhere);
      await writeFile(join(elsewhere, 'real.yaml'), podManifestYaml('linked'));
      await symlink(join(elsewhere, 'real.yaml'), join(dir, 'link.yaml'));
      await symlink(join(base, 'nowhere.yaml'), join(dir, 'dangling.yaml'));
      await symlink(elsewhere, join(dir, 'dirlink'));
      const { run, source, log } = start({ path: dir });
      const first = await run.next();
      expect(keys(first)).toEqual([key('linked')]);
      expect(uid(first, key('linked'))).toBe(expectedUid(podManifestYaml('linked'), join(dir, 'link.yaml')));
      expect(source.status().details.invalid).toEqual([{ file: join(dir, 'dangling.yaml'), error: 'dangling symlink' }]);
      await log.waitFor((l) => l.msg === 'manifest invalid' && l.file === join(dir, 'dangling.yaml'));
      await log.waitFor((l) => l.msg === 'not recursing into sub-directory' && l.file === join(dir, 'dirlink'));
    });

    it('follows a symlinked manifest path (#39)', async () => {
      const base = await makeDir();
      const real = join(base, 'real');
      await mkdir(real);
      await writeFile(join(real, 'a.yaml'), podManifestYaml('a'));
      await symlink(real, join(base, 'link'));
      const { run } = start({ path: join(base, 'link') });
      const first = await run.next();
      expect(keys(first)).toEqual([key('a')]);
      expect(uid(first, key('a'))).toBe(expectedUid(podManifestYaml('a'), join(base, 'link', 'a.yaml')));
      await writeFile(join(real, 'b.yaml'), podManifestYaml('b'));
      expect(keys(await run.next())).toEqual([key('a'), key('b')]);
    });

    it('follows a symlinked path when the link is atomically re-pointed (D5)', async () => {
      const base = await makeDir();
      for (const [version, name] of [['v1', 'a'], ['v2', 'b']] as const) {
        await mkdir(join(base, version));
        await writeFile(join(base, version, `${name}.yaml`), podManifestYaml(name));
      }
      const link = join(base, 'current');
      await symlink(join(base, 'v1'), link);
      const { run, log } = start({ path: link });
      expect(keys(await run.next())).toEqual([key('a')]);
      const pending = run.next();
      await log.waitFor(watchArmed);
      await symlink(join(base, 'v2'), join(base, '.current.tmp'));
      await rename(join(base, '.current.tmp'), link); // the Kubernetes `..data` swap
      expect(keys(await pending)).toEqual([key('b')]);
      await writeFile(join(base, 'v2', 'c.yaml'), podManifestYaml('c')); // the watch now covers v2
      expect(keys(await run.next())).toEqual([key('b'), key('c')]);
    });

    it("picks up a ConfigMap volume's update (the AtomicWriter `..data` swap) from the watch, not the periodic scan", async () => {
      // The kubelet's AtomicWriter layout: `a.yaml -> ..data/a.yaml`, `..data -> ..<timestamp>`.
      const dir = await makeDir();
      const version = async (stamp: string, image: string): Promise<void> => {
        await mkdir(join(dir, stamp));
        await writeFile(join(dir, stamp, 'a.yaml'), podManifestYaml('a', { image }));
      };
      await version('..2026_11_23_00_00_00.1', 'registry.k8s.io/pause:3.9');
      await symlink('..2026_11_23_00_00_00.1', join(dir, '..data'));
      await symlink(join('..data', 'a.yaml'), join(dir, 'a.yaml'));
      const { run, log } = start({ path: dir }); // periodMs is an hour: only the watch can see the update
      const image = (u: PodSetUpdate): string | undefined => u.pods.get(key('a'))?.spec?.containers[0]?.image;
      expect(image(await run.next())).toBe('registry.k8s.io/pause:3.9');
      const pending = run.next();
      await log.waitFor(watchArmed);
      await version('..2026_11_23_00_01_00.2', 'registry.k8s.io/pause:3.10');
      await symlink('..2026_11_23_00_01_00.2', join(dir, '..data_tmp'));
      await rename(join(dir, '..data_tmp'), join(dir, '..data'));
      await rm(join(dir, '..2026_11_23_00_00_00.1'), { recursive: true });
      expect(image(await pending)).toBe('registry.k8s.io/pause:3.10');
    });

    it("ignores emacs's auto-save file, which would win under D1 while the edit is unsaved", async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      const { run, log } = start({ path: dir });
      const first = await run.next();
      const pending = run.next();
      await log.waitFor(watchArmed);
      await writeFile(join(dir, '#a.yaml#'), podManifestYaml('a', { image: 'registry.k8s.io/pause:half-typed' }));
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      const next = await pending;
      expect(keys(next)).toEqual([key('a'), key('b')]);
      expect(uid(next, key('a'))).toBe(uid(first, key('a')));
    });

    /**
     * Runs a source over a directory holding one manifest on a clock whose every wake-up comes `lateMs` late,
     * until it has slept `sleeps` times; the first SET must come before any wait.
     */
    async function periodicScans(o: { periodMs?: number; lateMs: number; sleeps: number }): Promise<{ sleeps: number[]; reasons: unknown[] }> {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      const inner = new InstantClock();
      const controller = new AbortController();
      const clock: Clock = {
        now: () => inner.now(),
        monotonic: () => inner.monotonic(),
        sleep: async (ms, signal) => {
          await inner.sleep(ms, signal);
          inner.advance(o.lateMs);
          if (inner.sleeps.length >= o.sleeps) controller.abort();
        },
      };
      const log = logRecorder();
      const options: FilePodSourceOptions = { path: dir, nodeName: NODE, logger: log.logger, clock, ...(o.periodMs === undefined ? {} : { periodMs: o.periodMs }) };
      const iterator = new FilePodSource(options).updates(controller.signal);
      try {
        expect((await iterator.next()).done).toBe(false);
        expect(inner.sleeps).toEqual([]); // the first SET came before any wait
        expect((await iterator.next()).done).toBe(true); // nothing changed; the source returns on abort
      } finally {
        await iterator.return(undefined);
      }
      return { sleeps: inner.sleeps, reasons: msgs(log.lines, 'manifest path scanned').map((l) => l.reason) };
    }

    it('re-scans at a fixed rate, the first scan at t≈0 (#40)', async () => {
      // Every wake-up comes 7 ms late: a fixed-rate ticker shortens the next wait, a sliding one would not.
      const { sleeps, reasons } = await periodicScans({ periodMs: 20_000, lateMs: 7, sleeps: 4 });
      expect(sleeps).toEqual([20_000, 19_993, 19_993, 19_993]);
      expect(reasons).toEqual(['start', 'watch-armed', 'period', 'period', 'period']);
    });

    it('re-scans every 20 s unless told otherwise: the kubelet\'s fileCheckFrequency (spec §8, #40)', async () => {
      const { sleeps, reasons } = await periodicScans({ lateMs: 0, sleeps: 2 });
      expect(sleeps).toEqual([20_000, 20_000]);
      expect(reasons).toEqual(['start', 'watch-armed', 'period']);
    });

    it('replaces a renamed pod at once, without the old and new pods side by side (D3, #41)', async () => {
      const dir = await makeDir();
      const a = join(dir, 'a.yaml');
      await writeFile(a, podManifestYaml('old'));
      const { run } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('old')]);
      await writeFile(a, podManifestYaml('new'));
      expect(keys(await run.next())).toEqual([key('new')]);
    });

    it('ignores editor artefacts by default and reads them with manifestFilter none (D2)', async () => {
      const dir = await makeDir();
      const artefacts = ['a.yaml~', 'a.yaml.swp', 'a.yaml.swx', 'a.yaml.bak', 'a.yaml.orig', 'a.yaml.tmp', 'a.yaml.dpkg-new',
        'a.yaml.dpkg-old', 'a.yaml.dpkg-dist', 'a.yaml.rpmnew', 'a.yaml.rpmsave', '4913', 'A.YAML.BAK'];
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      await writeFile(join(dir, '.a.yaml.swp'), podManifestYaml('hidden'));
      await Promise.all(artefacts.map((name, i) => writeFile(join(dir, name), podManifestYaml(`art${i}`))));
      const byDefault = start({ path: dir });
      expect(keys(await byDefault.run.next())).toEqual([key('a')]);
      expect(byDefault.source.status().details.ignored).toBe(artefacts.length + 1);
      const none = start({ path: dir, manifestFilter: 'none' });
      const all = await none.run.next();
      expect(all.pods.size).toBe(artefacts.length + 1);
      expect(all.pods.has(key('hidden'))).toBe(false);
      expect(none.source.status().details.ignored).toBe(1);
    });

    it('reads only allowed extensions when an allow-list is set (D2)', async () => {
      const dir = await makeDir();
      for (const [file, name] of [['a.yaml', 'a'], ['b.JSON', 'b'], ['c.yml', 'c'], ['d', 'd'], ['.yaml', 'e']] as const) {
        await writeFile(join(dir, file), podManifestYaml(name));
      }
      const { run } = start({ path: dir, extensions: ['.yaml', 'json'] });
      expect(keys(await run.next())).toEqual([key('a'), key('b')]);
    });

    it('follows a single file through an atomic replace, a delete and a re-create (D5)', async () => {
      const dir = await makeDir();
      const file = join(dir, 'pod.yaml');
      await writeFile(file, podManifestYaml('web'));
      await writeFile(join(dir, 'other.yaml'), podManifestYaml('other')); // a sibling: never read
      const { run, source, log } = start({ path: file });
      const first = await run.next();
      expect(keys(first)).toEqual([key('web')]);
      expect(source.status().details.mode).toBe('file');
      const pending = run.next();
      await log.waitFor(watchArmed);
      const edited = podManifestYaml('web', { image: 'registry.k8s.io/pause:3.9' });
      await writeFile(join(dir, '.pod.yaml.tmp'), edited);
      await rename(join(dir, '.pod.yaml.tmp'), file);
      const replaced = await pending;
      expect(uid(replaced, key('web'))).toBe(expectedUid(edited, file));
      await unlink(file);
      expect((await run.next()).pods.size).toBe(0);
      expect(source.status().details.mode).toBe('missing');
      await writeFile(file, podManifestYaml('web'));
      expect(uid(await run.next(), key('web'))).toBe(uid(first, key('web')));
    });

    it('yields one empty SET when the path is a socket at start, and surfaces the error', async () => {
      const dir = await makeDir();
      const path = join(dir, 'pods.sock');
      const stopListening = await listenUnix(path);
      let closed = false;
      const close = async (): Promise<void> => {
        closed = true;
        await stopListening();
      };
      cleanups.push(async () => {
        if (!closed) await stopListening(); // the test failed before it closed the socket itself
      });
      const { run, source, log } = start({ path });
      expect((await run.next()).pods.size).toBe(0);
      const status = source.status();
      expect(status).toMatchObject({ seen: true, healthy: false, pods: 0, details: { mode: 'other' } });
      expect(status.lastError?.code).toBe('PODCONFIG_SOURCE_UNAVAILABLE');
      expect(msgs(log.lines, 'manifest path unusable')).toHaveLength(1);
      await close(); // removes the socket: the path is missing now, the same (empty) set
      await writeFile(path, podManifestYaml('web'));
      expect(keys(await run.next())).toEqual([key('web')]);
      expect(source.status()).toMatchObject({ healthy: true, details: { mode: 'file' } });
    });

    it('keeps the pods yielded before when the path becomes a socket: no empty SET (D18)', async () => {
      const dir = await makeDir();
      const path = join(dir, 'pods.yaml');
      await writeFile(path, podManifestYaml('a'));
      const { run, source, log } = start({ path });
      expect(keys(await run.next())).toEqual([key('a')]);
      const pending = run.next();
      await log.waitFor(watchArmed);
      const socket = join(dir, '.pods.sock');
      cleanups.push(await listenUnix(socket));
      const unusable = log.lines.length;
      await rename(socket, path);
      await log.waitFor((l) => l.msg === 'manifest path unusable', unusable);
      expect(source.status()).toMatchObject({ seen: true, healthy: false, pods: 1, details: { mode: 'other' } });
      const next = join(dir, '.pods.yaml.new');
      await writeFile(next, podManifestYaml('b'));
      await rename(next, path);
      expect(keys(await pending)).toEqual([key('b')]); // straight from a to b: the socket dropped nothing
    });

    it('keeps the previous set when the directory grows past maxManifests, and reports it (D18)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      await writeFile(join(dir, '.ignored.yaml'), podManifestYaml('x')); // filtered names do not count
      const { run, source, log } = start({ path: dir, maxManifests: 2 });
      expect(keys(await run.next())).toEqual([key('a'), key('b')]);
      const pending = run.next();
      await log.waitFor(watchArmed);
      const from = log.lines.length;
      await writeFile(join(dir, 'c.yaml'), podManifestYaml('c'));
      const line = await log.waitFor((l) => l.msg === 'manifest path unusable', from);
      expect(line).toMatchObject({ level: WARN, err: { message: 'manifest directory has 3 entries to read, more than the limit of 2' } });
      expect(source.status()).toMatchObject({ seen: true, healthy: false, pods: 2, lastError: { code: 'PODCONFIG_SOURCE_UNAVAILABLE' } });
      await unlink(join(dir, 'c.yaml'));
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b', { image: 'other:1' }));
      const next = await pending; // straight from the old set to the new one: the cap dropped nothing
      expect(keys(next)).toEqual([key('a'), key('b')]);
      expect(next.changes?.keys).toEqual(new Set([key('b')]));
      expect(source.status()).toMatchObject({ healthy: true, details: { mode: 'directory' } });
    });

    it('yields one empty SET when the directory holds more than maxManifests at start', async () => {
      const dir = await makeDir();
      for (const name of ['a', 'b', 'c']) await writeFile(join(dir, `${name}.yaml`), podManifestYaml(name));
      const { run, source } = start({ path: dir, maxManifests: 2 });
      expect((await run.next()).pods.size).toBe(0);
      // A placeholder, not an answer: the directory's pods are unknown, so orphan kills wait (D18).
      expect(source.status()).toMatchObject({ seen: true, provisional: true, healthy: false, details: { mode: 'error' } });
      await unlink(join(dir, 'c.yaml'));
      expect(keys(await run.next())).toEqual([key('a'), key('b')]);
      expect(source.status()).toMatchObject({ provisional: false, healthy: true, details: { mode: 'directory' } });
    });

    it('ends the provisional state with the first scan that reads the path, even when its set is empty too', async () => {
      const dir = await makeDir();
      for (const name of ['a', 'b', 'c']) await writeFile(join(dir, `${name}.yaml`), podManifestYaml(name));
      // One re-scan, after the three unlinks (a 500 ms quiet period; no periodic scan): a scan between two of them
      // would read two manifests, a SET the test does not take, and the source would wait on it.
      const { run, source } = start({ path: dir, maxManifests: 2, debounceMs: 500 });
      expect((await run.next()).pods.size).toBe(0);
      expect(source.status().provisional).toBe(true);
      void run.iterator.next(); // resumes the source; no second SET comes (empty again is no change)
      for (const name of ['a', 'b', 'c']) await unlink(join(dir, `${name}.yaml`));
      await vi.waitFor(() => expect(source.status()).toMatchObject({ seen: true, provisional: false, healthy: true, pods: 0 }), { timeout: 10_000 });
    });

    it('is never provisional with a missing path or a first set read (D5: missing is an answer)', async () => {
      const dir = await makeDir();
      const missing = start({ path: join(dir, 'absent') });
      expect((await missing.run.next()).pods.size).toBe(0);
      expect(missing.source.status()).toMatchObject({ seen: true, provisional: false, details: { mode: 'missing' } });
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      const found = start({ path: dir });
      expect(keys(await found.run.next())).toEqual([key('a')]);
      expect(found.source.status().provisional).toBe(false);
    });

    it('is provisional while a manifest is invalid without a last good pod (its pod may run from before a restart, D4, D18)', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      await writeFile(join(dir, 'b.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: [oops\n');
      const { run, source } = start({ path: dir, periodMs: 50 });
      expect(keys(await run.next())).toEqual([key('a')]);
      expect(source.status()).toMatchObject({ seen: true, provisional: true, healthy: false, details: { holdingOrphanKills: [join(dir, 'b.yaml')] } });
      // It decodes: not provisional. It turns invalid again: its last good pod stays, and it is not provisional either.
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      expect(keys(await run.next())).toEqual([key('a'), key('b')]);
      expect(source.status()).toMatchObject({ provisional: false, healthy: true });
      void run.iterator.next(); // resumes the source; no SET comes while b keeps its last good pod
      await writeFile(join(dir, 'b.yaml'), 'not: [a pod');
      await vi.waitFor(() => expect(source.status()).toMatchObject({ healthy: false, details: { invalid: [{ file: join(dir, 'b.yaml') }] } }), { timeout: 10_000 });
      expect(source.status().provisional).toBe(false);
      // A new file that never decoded makes it provisional; deleting that file ends it.
      await writeFile(join(dir, 'c.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: c}\nspec: {containerz: []}\n');
      await vi.waitFor(() => expect(source.status()).toMatchObject({ provisional: true, details: { holdingOrphanKills: [join(dir, 'c.yaml')] } }), { timeout: 10_000 });
      await unlink(join(dir, 'c.yaml'));
      await vi.waitFor(() => expect(source.status()).toMatchObject({ provisional: false, details: { holdingOrphanKills: [] } }), { timeout: 10_000 });
    });

    it('is not provisional for invalid files that never defined a pod: notes, empty files, lists, other kinds, huge files', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      await writeFile(join(dir, 'NOTES.txt'), 'notes about this directory\n');
      await writeFile(join(dir, 'empty.yaml'), '');
      await writeFile(join(dir, 'comments.yaml'), '# nothing yet\n');
      await writeFile(join(dir, 'list.yaml'), 'apiVersion: v1\nkind: PodList\nitems: []\n');
      await writeFile(join(dir, 'deploy.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n');
      await writeFile(join(dir, 'huge.yaml'), Buffer.alloc(MAX_MANIFEST_BYTES + 1, 0x20));
      const { run, source, log } = start({ path: dir });
      expect(keys(await run.next())).toEqual([key('a')]);
      const status = source.status();
      expect(status.details?.['invalid']).toHaveLength(6);
      expect(status).toMatchObject({ seen: true, provisional: false, healthy: false, details: { holdingOrphanKills: [] } });
      await log.waitFor(() => msgs(log.lines, 'manifest invalid').length === 6);
      expect(msgs(log.lines, 'manifest invalid').filter((l) => l.holdsOrphanKills !== undefined)).toEqual([]);
    });

    it("is not provisional for an invalid manifest in 'drop' mode (the kubelet's: no pod by choice)", async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'b.yaml'), 'not: [a pod');
      const { run, source } = start({ path: dir, invalidManifest: 'drop' });
      expect((await run.next()).pods.size).toBe(0);
      expect(source.status()).toMatchObject({ seen: true, provisional: false, healthy: false });
    });

    it("is provisional for a single file invalid at start in 'drop' mode too: a single file keeps its pod in either mode (D4, #27)", async () => {
      const file = join(await makeDir(), 'pod.yaml');
      await writeFile(file, INVALID_YAML);
      const { run, source } = start({ path: file, invalidManifest: 'drop' });
      expect((await run.next()).pods.size).toBe(0);
      expect(source.status()).toMatchObject({ seen: true, provisional: true, healthy: false, details: { mode: 'file', holdingOrphanKills: [file] } });
    });

    it('counts a scan of an unusable path as an error', async () => {
      const dir = await makeDir();
      for (const name of ['a', 'b', 'c']) await writeFile(join(dir, `${name}.yaml`), podManifestYaml(name));
      const { run, source } = start({ path: dir, maxManifests: 2 });
      expect((await run.next()).pods.size).toBe(0);
      // The generator is paused at the first SET: exactly one scan has run.
      expect(source.status().counters).toMatchObject({ scans: 1, errors: 1, watch_errors: 0, invalid_files: 0 });
    });

    it('trims trailing separators from the path', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      const { run, source } = start({ path: `${dir}//` });
      const first = await run.next();
      expect(uid(first, key('a'))).toBe(expectedUid(podManifestYaml('a'), join(dir, 'a.yaml')));
      expect(source.status().details.path).toBe(dir);
    });

    it('returns without error when the signal aborts, and closes the watcher', async () => {
      const dir = await makeDir();
      const { run, source } = start({ path: dir });
      await run.next();
      const pending = run.iterator.next();
      run.controller.abort();
      expect((await pending).done).toBe(true);
      expect(source.status().details.watch).toBe('none');
    });
  });

  describe('status()', () => {
    it('reports counters, the last success and the watch state', async () => {
      const dir = await makeDir();
      await writeFile(join(dir, 'a.yaml'), podManifestYaml('a'));
      const { run, source } = start({ path: dir });
      await run.next();
      await writeFile(join(dir, 'b.yaml'), podManifestYaml('b'));
      await run.next();
      const status = source.status();
      expect(status).toMatchObject({ seen: true, healthy: true, pods: 2, details: { path: dir, mode: 'directory', watch: 'active' } });
      expect(status.lastSuccessTime).toBeInstanceOf(Date);
      expect(status.lastError).toBeUndefined();
      expect(status.counters).toMatchObject({ sets: 2, errors: 0, invalid_files: 0, shadowed_files: 0, watch_errors: 0 });
      expect(status.counters.scans).toBeGreaterThanOrEqual(2);
      expect(JSON.parse(JSON.stringify(status.details))).toEqual(status.details); // JSON-serialisable
    });
  });
});
