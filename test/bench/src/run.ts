/**
 * The podconfig benchmark suite: `pnpm bench` (full) or `pnpm bench:ci` (`--tiny`: checks that it runs).
 *
 *   node test/bench/dist/run.js [--tiny] [--runs N] [--only id,id] [--clients podconfig,limit,…] [--out DIR]
 *                               [--node-args='--cpu-prof --cpu-prof-dir=DIR']
 *
 * One workload server process on 127.0.0.1 serves every API scenario; each client runs as its own
 * process, one at a time, the runs interleaved (podconfig, peer, limit, client-go, podconfig, …). The
 * table goes to stdout, the JSON to DIR (default .bench-results/) as latest.json and bench-<time>.json.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { cpus, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ChildProcessLines } from './child-process-lines.js';
import type { ClientArgs, ClientReport } from './client-report.js';
import { stealMeter } from './cpu-steal.js';
import { ensurePeerInstalled } from './peer-install.js';
import { formatReport, type ScenarioResult } from './report-table.js';
import { scenarios, type ApiScenario, type ClientName, type FileScenario } from './scenarios.js';
import { median, percentile } from './stats.js';
import { wallNow } from './wall-clock.js';
import { WorkloadProcess, type WorkloadStats } from './workload-process.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const CLIENTGO = '/opt/realapi/bin/peer-clientgo';
const CLIENT_TIMEOUT_MS = 300_000;

export interface RunMetrics {
  readonly ttfsMs?: number;
  readonly eventsPerSec?: number;
  readonly peakRssMb?: number;
  readonly cpuMs?: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly latencySamples?: number;
  readonly editMs?: number;
  /** VM steal while the client ran: the share (%) of all vCPUs' time the hypervisor gave elsewhere (see cpu-steal.ts). */
  readonly stealPct?: number;
  readonly extra?: Readonly<Record<string, number>>;
  readonly error?: string;
}

interface ClientgoLine { readonly t: number; readonly pods: number; readonly marker: string | null; readonly final?: boolean }

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Extra Node.js options for the clients (`--node-args`, after the runner's own, so they win): a profile of a client in a real run, for one. */
let clientNodeArgs: readonly string[] = [];

function spawnClient(name: Exclude<ClientName, 'clientgo'> | 'file-podconfig' | 'file-limit', args: ClientArgs): ChildProcessLines {
  const script = join(here, 'clients', `${name}-client.js`);
  return new ChildProcessLines(process.execPath, ['--max-old-space-size=8192', ...clientNodeArgs, script, JSON.stringify(args)], { spawnedAt: wallNow() });
}

/** Reads client-go lines until the final push, translated into first/done reports. */
async function clientgoReports(p: ChildProcessLines, events: number, maxStreamMs: number | undefined): Promise<{ first: ClientReport; done: ClientReport }> {
  let first: (ClientReport & { kind: 'first' }) | undefined;
  const seqTimes = new Map<number, number>();
  let maxSeq = 0;
  for (;;) {
    const left = first === undefined || maxStreamMs === undefined ? CLIENT_TIMEOUT_MS : first.t + maxStreamMs - wallNow();
    let line: ClientgoLine;
    try {
      line = (await p.next(Math.max(1, left))) as ClientgoLine;
    } catch (err: unknown) {
      // Waited until maxStreamMs after the first set: the client is stopped and credited with the events it
      // got through. Not `wallNow() < deadline`: next()'s timer (whole milliseconds of Date.now()) once woke
      // before wallNow() reached it, and a good run was counted as failed. Only an exit is a failure.
      if (first === undefined || maxStreamMs === undefined || p.hasExited) throw err;
      return { first, done: { kind: 'done', t: wallNow(), extra: { partialSeq: maxSeq } } };
    }
    const t = line.t / 1e6;
    first ??= { kind: 'first', t, pods: line.pods };
    if (line.marker !== null) {
      const seq = Number(line.marker);
      if (seq > 0 && seq <= events && !seqTimes.has(seq)) seqTimes.set(seq, t);
      maxSeq = Math.max(maxSeq, seq);
    }
    if (line.final === true) return { first, done: { kind: 'done', t, seqTimes: [...seqTimes] } };
    if (maxStreamMs !== undefined && t > first.t + maxStreamMs) return { first, done: { kind: 'done', t, extra: { partialSeq: maxSeq } } };
  }
}

async function runApiClient(
  client: ClientName, s: ApiScenario, server: WorkloadProcess, kubeconfig: string,
): Promise<RunMetrics> {
  await server.call('arm', { rate: s.rate, settleMs: s.settleMs ?? 0 });
  const args: ClientArgs = {
    kubeconfig, server: server.url, events: s.events, latency: s.rate > 0,
    ...(s.maxStreamMs === undefined ? {} : { maxStreamMs: s.maxStreamMs }),
    ...(s.nodeName === undefined ? {} : { nodeName: s.nodeName }),
    ...(client === 'podconfig' && s.slowHandlerMs !== undefined ? { slowHandlerMs: s.slowHandlerMs } : {}),
    ...(client === 'podconfig' && s.keepManagedFields === true ? { keepManagedFields: true } : {}),
  };
  const p = client === 'clientgo'
    ? new ChildProcessLines(CLIENTGO, ['--kubeconfig', kubeconfig, '--node', s.nodeName ?? '*', '--content-type', 'application/json',
      '--marker-annotation', 'bench/seq', '--final-annotation', 'bench/final'], { spawnedAt: wallNow() })
    : spawnClient(client, args);
  try {
    let first: ClientReport;
    let done: ClientReport;
    if (client === 'clientgo') {
      ({ first, done } = await clientgoReports(p, s.events, s.maxStreamMs));
    } else {
      let f: ClientReport | undefined;
      let d: ClientReport | undefined;
      while (f === undefined || d === undefined) {
        const r = (await p.next(CLIENT_TIMEOUT_MS)) as ClientReport;
        if (r.kind === 'error') throw new Error(r.message);
        if (r.kind === 'first') f = r;
        else if (r.kind === 'done') d = r;
      }
      first = f;
      done = d;
    }
    const usage = p.usage();
    const stats: WorkloadStats = await server.stats();
    if (first.kind !== 'first' || done.kind !== 'done') throw new Error('out of step');
    const latencies: number[] = [];
    if (s.rate > 0) {
      for (const [seq, t] of done.seqTimes ?? []) {
        const sent = stats.sendTimes[seq - 1];
        if (sent !== undefined) latencies.push(t - sent);
      }
    }
    // Paced events start settleMs after the initial set: count from the first one sent.
    const eventsFrom = Math.max(first.t, stats.sendTimes[0] ?? first.t);
    return {
      ttfsMs: first.t - (stats.firstRequestAt ?? p.spawnedAt),
      // A client stopped at maxStreamMs counts the events it got through.
      // Undefined when the marker overtook the initial set (a slow handler: everything coalesced meanwhile).
      ...(done.t > eventsFrom ? { eventsPerSec: (done.extra?.partialSeq ?? s.events) / ((done.t - eventsFrom) / 1000) } : {}),
      peakRssMb: usage.peakRssMb,
      cpuMs: usage.cpuMs,
      ...(latencies.length > 0 ? { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), latencySamples: latencies.length } : {}),
      ...(done.extra === undefined ? {} : { extra: done.extra }),
    };
  } catch (err: unknown) {
    return { error: err instanceof Error ? err.message : String(err) };
  } finally {
    await p.stop();
  }
}

async function writeManifests(dir: string, count: number): Promise<string> {
  const template = await readFile(join(root, 'fixtures', 'bench', 'static-pod.yaml.tmpl'), 'utf8');
  const body = template.split('\n').filter((l) => !l.startsWith('#')).join('\n');
  const render = (i: number, seq: number): string => body
    .replaceAll('NAME', `static-${String(i).padStart(4, '0')}`)
    .replaceAll('INDEX', String(i))
    .replace('ANNOTATIONS', seq > 0 ? `    bench/seq: "${seq}"` : '    bench/seq: "0"');
  await Promise.all(Array.from({ length: count }, (_, i) => writeFile(join(dir, `static-${i}.yaml`), render(i, 0))));
  return body;
}

async function runFileClient(client: 'podconfig' | 'limit', s: FileScenario, dir: string, template: string, seqBase: number): Promise<RunMetrics> {
  const p = spawnClient(client === 'podconfig' ? 'file-podconfig' : 'file-limit', { dir, pods: s.manifests, nodeName: 'node-a' });
  try {
    const first = (await p.next(CLIENT_TIMEOUT_MS)) as ClientReport;
    if (first.kind !== 'first') throw new Error(first.kind === 'error' ? first.message : `unexpected ${first.kind}`);
    const edits: number[] = [];
    for (let k = 1; k <= s.edits; k++) {
      const seq = seqBase + k;
      const i = (seq * 7919) % s.manifests;
      const text = template.replaceAll('NAME', `static-${String(i).padStart(4, '0')}`).replaceAll('INDEX', String(i))
        .replace('ANNOTATIONS', `    bench/seq: "${seq}"`);
      const tmp = join(dir, `.static-${i}.yaml.tmp`);
      await writeFile(tmp, text);
      const t0 = wallNow();
      await rename(tmp, join(dir, `static-${i}.yaml`));
      for (;;) {
        const r = (await p.next(30_000)) as ClientReport;
        if (r.kind === 'error') throw new Error(r.message);
        if (r.kind === 'edit' && r.seq === seq) {
          edits.push(r.t - t0);
          break;
        }
      }
    }
    const usage = p.usage();
    return { ttfsMs: first.t - p.spawnedAt, editMs: median(edits), peakRssMb: usage.peakRssMb, cpuMs: usage.cpuMs };
  } catch (err: unknown) {
    return { error: err instanceof Error ? err.message : String(err) };
  } finally {
    await p.stop();
  }
}

function withSteal(m: RunMetrics, stealPct: number | undefined): RunMetrics {
  return stealPct === undefined ? m : { ...m, stealPct };
}

const stealText = (m: RunMetrics): string => (m.stealPct === undefined ? '' : `, steal ${m.stealPct.toFixed(1)} %`);

function summarize(runs: readonly RunMetrics[]): RunMetrics {
  const ok = runs.filter((r) => r.error === undefined);
  if (ok.length === 0) return { error: runs[0]?.error ?? 'no run' };
  const m = (f: (r: RunMetrics) => number | undefined): number | undefined => {
    const values = ok.map(f).filter((v): v is number => v !== undefined);
    return values.length === 0 ? undefined : median(values);
  };
  const out: Record<string, number> = {};
  for (const key of ['ttfsMs', 'eventsPerSec', 'peakRssMb', 'cpuMs', 'p50Ms', 'p99Ms', 'latencySamples', 'editMs', 'stealPct'] as const) {
    const v = m((r) => r[key]);
    if (v !== undefined) out[key] = v;
  }
  const extraKeys = new Set(ok.flatMap((r) => Object.keys(r.extra ?? {})));
  const extra: Record<string, number> = {};
  for (const key of extraKeys) extra[key] = m((r) => r.extra?.[key]) ?? Number.NaN;
  return { ...out, ...(extraKeys.size > 0 ? { extra } : {}) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tiny: { type: 'boolean' }, runs: { type: 'string' }, only: { type: 'string' }, clients: { type: 'string' }, out: { type: 'string' },
      'node-args': { type: 'string' },
    },
  });
  // NODE_OPTIONS refuses --cpu-prof and would reach the runner and the workload server too.
  clientNodeArgs = values['node-args']?.split(/\s+/).filter((a) => a !== '') ?? [];
  const tiny = values.tiny === true;
  const runs = Number(values.runs ?? (tiny ? 1 : 3));
  const only = values.only?.split(',');
  const wanted = values.clients?.split(',') as ClientName[] | undefined;
  const outDir = values.out ?? join(root, '.bench-results');

  const notes: string[] = [];
  const peerProblem = wanted !== undefined && !wanted.includes('peer') ? 'not requested' : ensurePeerInstalled();
  if (peerProblem !== undefined && peerProblem !== 'not requested') notes.push(`peer skipped: ${peerProblem}`);
  const clientgo = existsSync(CLIENTGO);
  if (!clientgo) notes.push(`client-go peer skipped: ${CLIENTGO} is not built (../shared/realapi/build.sh)`);
  const available = (c: ClientName): boolean =>
    (wanted === undefined || wanted.includes(c)) && (c !== 'peer' || peerProblem === undefined) && (c !== 'clientgo' || clientgo);

  const work = await mkdtemp(join(tmpdir(), 'podconfig-bench-'));
  const server = await new WorkloadProcess(join(root, 'packages', 'testing', 'dist', 'bench', 'workload-server-cli.js')).start();
  const results: ScenarioResult[] = [];
  const started = Date.now();
  try {
    const kubeconfig = join(work, 'kubeconfig');
    await writeFile(kubeconfig, [
      'apiVersion: v1', 'kind: Config', 'current-context: bench',
      'clusters:', '- name: bench', '  cluster:', `    server: ${server.url}`, '    insecure-skip-tls-verify: true',
      'users:', '- name: bench', '  user: {}',
      'contexts:', '- name: bench', '  context:', '    cluster: bench', '    user: bench', '',
    ].join('\n'));
    for (const s of scenarios(tiny)) {
      if (only !== undefined && !only.includes(s.id)) continue;
      log(`== ${s.id}: ${s.title}`);
      const perClient = new Map<string, RunMetrics[]>();
      let workload: Record<string, unknown> = {};
      if (s.kind === 'api') {
        const loaded: Record<string, unknown> = await server.call('load', { pods: s.pods, events: s.events, nodeName: s.nodeName ?? null, seed: 1 });
        workload = { ...loaded, rate: s.rate };
        const clients = s.clients.filter(available);
        for (let r = 0; r < runs; r++) {
          for (const c of clients) {
            const steal = stealMeter();
            const m = withSteal(await runApiClient(c, s, server, kubeconfig), steal());
            log(`   run ${r + 1} ${c.padEnd(9)} ${m.error ?? `first ${m.ttfsMs?.toFixed(1)} ms, ${m.eventsPerSec === undefined ? '–' : Math.round(m.eventsPerSec)} ev/s, ` +
              `rss ${m.peakRssMb?.toFixed(0)} MB, cpu ${m.cpuMs} ms${m.p99Ms === undefined ? '' : `, p50 ${m.p50Ms?.toFixed(2)} p99 ${m.p99Ms.toFixed(2)} ms`}${stealText(m)}`}`);
            perClient.set(c, [...(perClient.get(c) ?? []), m]);
          }
        }
      } else {
        const dir = join(work, s.id);
        await mkdir(dir);
        const template = await writeManifests(dir, s.manifests);
        const clients = (['podconfig', 'limit'] as const).filter((c) => wanted === undefined || wanted.includes(c));
        let seqBase = 0;
        for (let r = 0; r < runs; r++) {
          for (const c of clients) {
            const steal = stealMeter();
            const m = withSteal(await runFileClient(c, s, dir, template, seqBase), steal());
            seqBase += s.edits;
            log(`   run ${r + 1} ${c.padEnd(9)} ${m.error ?? `first ${m.ttfsMs?.toFixed(1)} ms, edit ${m.editMs?.toFixed(1)} ms, rss ${m.peakRssMb?.toFixed(0)} MB${stealText(m)}`}`);
            perClient.set(c, [...(perClient.get(c) ?? []), m]);
          }
        }
      }
      results.push({
        id: s.id, title: s.title, kind: s.kind, workload,
        clients: Object.fromEntries([...perClient].map(([c, rs]) => [c, { median: summarize(rs), runs: rs }])),
      });
    }
  } finally {
    await server.close();
    await rm(work, { recursive: true, force: true });
  }

  const cpu = cpus();
  const machine = {
    cpus: cpu.length, model: cpu[0]?.model ?? 'unknown', memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`, node: process.version, date: new Date().toISOString(),
  };
  const doc = { machine, tiny, runs, seconds: Math.round((Date.now() - started) / 1000), notes, scenarios: results };
  process.stdout.write(`${formatReport(doc)}\n`);
  await mkdir(outDir, { recursive: true });
  const json = `${JSON.stringify(doc, null, 2)}\n`;
  await writeFile(join(outDir, `bench-${machine.date.replace(/[:.]/g, '-')}${tiny ? '-tiny' : ''}.json`), json);
  await writeFile(join(outDir, tiny ? 'latest-tiny.json' : 'latest.json'), json);
  const failed = results.flatMap((r) => Object.entries(r.clients).filter(([, c]) => c.median.error !== undefined).map(([c]) => `${r.id}/${c}`));
  if (failed.length > 0) {
    log(`failed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  log(`bench: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  process.exit(1);
});
