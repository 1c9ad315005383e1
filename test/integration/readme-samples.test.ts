import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino, type LoggerOptions } from 'pino';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as core from '@podconfig/core';
import * as merge from '@podconfig/merge';
import * as reconcile from '@podconfig/reconcile';
import * as sourceFile from '@podconfig/source-file';
import { podManifestYaml, tempDir } from '@podconfig/testing';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The READMEs whose code samples are type-checked: the root one, the agent's and every package's. */
const READMES = [
  'README.md',
  'agent/README.md',
  ...readdirSync(join(ROOT, 'packages')).map((p) => `packages/${p}/README.md`).filter((p) => existsSync(join(ROOT, p))),
];

/**
 * A fenced `ts`, `typescript`, `js` or `mjs` block of a README, with what the comment right before it says:
 * `<!-- sample: not compiled (why) -->` leaves it out; `<!-- sample-context … -->` gives declarations
 * (`declare const logger: Logger;`) and imports the block assumes but does not show.
 */
interface Sample {
  readonly readme: string;
  /** 1-based line of the block's first code line in the README. */
  readonly line: number;
  readonly code: string;
  readonly context: string;
  readonly compiled: boolean;
}

function samples(readme: string): Sample[] {
  const text = readFileSync(join(ROOT, readme), 'utf8');
  const found: Sample[] = [];
  const fence = /^```(ts|typescript|js|javascript|mjs)\n([\s\S]*?)^```$/gm;
  for (let m = fence.exec(text); m !== null; m = fence.exec(text)) {
    const before = text.slice(0, m.index).trimEnd();
    const comment = before.endsWith('-->') ? before.slice(before.lastIndexOf('<!--')) : '';
    const context = /^<!-- sample-context\n([\s\S]*?)-->$/.exec(comment)?.[1] ?? '';
    found.push({
      readme,
      line: text.slice(0, m.index).split('\n').length + 1,
      code: m[2] ?? '',
      context,
      compiled: !comment.startsWith('<!-- sample: not compiled'),
    });
  }
  return found;
}

/** Type-checks the samples as ES modules beside this test, under the repo's strict options; returns one line per error. */
function typeCheck(list: readonly Sample[]): string[] {
  const base = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.base.json'), {}, {
    ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); },
  });
  if (base === undefined) throw new Error('cannot read tsconfig.base.json');
  const options: ts.CompilerOptions = {
    ...base.options, noEmit: true, composite: false, declaration: false, declarationMap: false, sourceMap: false,
    // As the tests' tsconfig: the packages' sources, so a stale dist cannot hide a drift.
    customConditions: ['@podconfig/source'],
  };
  const files = new Map<string, { sample: Sample; text: string; offset: number }>();
  list.forEach((sample, i) => {
    const text = `${sample.context}\n${sample.code}\nexport {};\n`;
    files.set(join(ROOT, 'test/integration', `readme-sample-${i}.mts`), { sample, text, offset: sample.context.split('\n').length });
  });
  const disk = ts.createCompilerHost(options);
  const host: ts.CompilerHost = {
    ...disk,
    fileExists: (f) => files.has(f) || disk.fileExists(f),
    readFile: (f) => files.get(f)?.text ?? disk.readFile(f),
    getSourceFile: (f, language, ...rest) => {
      const virtual = files.get(f);
      return virtual === undefined ? disk.getSourceFile(f, language, ...rest) : ts.createSourceFile(f, virtual.text, language, true);
    },
  };
  const program = ts.createProgram([...files.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    const virtual = d.file === undefined ? undefined : files.get(d.file.fileName);
    if (d.file === undefined || d.start === undefined || virtual === undefined) return `TS${d.code}: ${message}`;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    const where = line < virtual.offset
      ? `${virtual.sample.readme} (sample-context of the block at line ${virtual.sample.line})`
      : `${virtual.sample.readme}:${virtual.sample.line + line - virtual.offset}`;
    return `${where}: TS${d.code}: ${message}`;
  });
}

describe('README code samples', () => {
  const all = READMES.flatMap(samples);

  it('finds the samples of the root README, the agent and the packages', () => {
    expect(all.filter((s) => s.compiled).map((s) => s.readme)).toEqual(expect.arrayContaining([
      'README.md', 'agent/README.md', 'packages/kube-client/README.md', 'packages/source-file/README.md',
      'packages/source-apiserver/README.md',
    ]));
  });

  it('type-check under the repo\'s strict settings (exactOptionalPropertyTypes, noUncheckedIndexedAccess), unless marked not compiled', () => {
    expect(typeCheck(all.filter((s) => s.compiled))).toEqual([]);
  }, 60_000);

  it('say why a sample is not compiled', () => {
    for (const readme of READMES) {
      const text = readFileSync(join(ROOT, readme), 'utf8');
      for (const marker of text.matchAll(/<!-- sample: not compiled(.*?)-->/g)) {
        expect(marker[1]?.trim(), `${readme}: "${marker[0]}" needs a reason`).not.toBe('');
      }
    }
  });

  it('reports an error in a sample at its README line (the check is live)', () => {
    const broken: Sample = { readme: 'X.md', line: 10, code: "const n: number = 'a';\n", context: '', compiled: true };
    expect(typeCheck([broken])).toEqual([expect.stringMatching(/^X\.md:10: TS2322: /)]);
  }, 60_000);
});

/** The fenced code block right after `<!-- example: NAME -->` in a Markdown text, or undefined. */
function exampleBlock(markdown: string, name: string): string | undefined {
  const marker = markdown.indexOf(`<!-- example: ${name} -->`);
  if (marker < 0) return undefined;
  return /^```[a-z]*\n([\s\S]*?)^```$/m.exec(markdown.slice(marker))?.[1];
}

/** What a sample may import, by module specifier. */
type SampleModules = Readonly<Record<string, Readonly<Record<string, unknown>>>>;
/** The part of `process` a sample may use: its signal handlers are the test's to call. */
interface SampleProcess {
  once(event: string, listener: () => void): void;
}

/**
 * A README's ES-module sample as an async function of its imports and `process`: the test runs the very text a
 * reader copies, its `import { a, b as c } from 'm'` lines bound to the modules this test loaded (the packages'
 * sources, as vitest resolves them), without writing a module where Node.js could not resolve `@podconfig/*`.
 */
function sampleFunction(code: string, modules: SampleModules): (process: SampleProcess) => Promise<void> {
  const missing: string[] = [];
  const body = code.replace(/^import \{([^}]*)\} from '([^']+)';$/gm, (_line, names: string, from: string) => {
    if (modules[from] === undefined) missing.push(from);
    return `const {${names.replace(/\bas\b/g, ':')}} = modules[${JSON.stringify(from)}];`;
  });
  if (missing.length > 0) throw new Error(`the sample imports ${missing.join(', ')}, which the test does not provide`);
  if (/^\s*import\b/m.test(body)) throw new Error('the sample has an import the test cannot bind (only `import { … } from \'…\';`)');
  type Body = (modules: SampleModules, process: SampleProcess) => Promise<void>;
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...params: string[]) => Body;
  const run = new AsyncFunction('modules', 'process', body);
  return (process) => run(modules, process);
}

type LogLine = Readonly<Record<string, unknown>>;

/** The JSON lines a pino logger writes, with a wait for the first one that matches. */
class LogLines {
  readonly lines: LogLine[] = [];
  readonly #waiters = new Set<{ match: (l: LogLine) => boolean; resolve: (l: LogLine) => void; reject: (e: Error) => void }>();
  #ended: Error | undefined;
  #partial = '';
  readonly stream = new Writable({
    write: (chunk: Buffer | string, _encoding, done) => {
      const text = this.#partial + String(chunk);
      const complete = text.split('\n');
      this.#partial = complete.pop() ?? '';
      for (const line of complete) if (line !== '') this.#add(JSON.parse(line) as LogLine);
      done();
    },
  });

  /** The first line, logged already or later, that `match`es; rejects if the writer ends first (no wait by the clock). */
  next(match: (l: LogLine) => boolean): Promise<LogLine> {
    const found = this.lines.find(match);
    if (found !== undefined) return Promise.resolve(found);
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => this.#waiters.add({ match, resolve, reject }));
  }

  /** No more lines will come (the sample ended): waits still pending fail with `reason`. */
  end(reason: unknown): void {
    const error = reason instanceof Error ? reason : new Error(`the sample failed: ${String(reason)}`);
    this.#ended = error;
    for (const w of this.#waiters) w.reject(error);
    this.#waiters.clear();
  }

  #add(line: LogLine): void {
    this.lines.push(line);
    for (const w of this.#waiters) {
      if (!w.match(line)) continue;
      this.#waiters.delete(w);
      w.resolve(line);
    }
  }
}

describe('README "Library API": the packages wired by hand', () => {
  /** The path the sample reads, replaced by a temp directory: the test must not depend on the host's manifests. */
  const MANIFESTS = '/etc/kubernetes/manifests';
  let tmp: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    tmp = await tempDir('podconfig-readme-wired-');
  });
  afterEach(async () => {
    await tmp.cleanup();
  });

  it('runs: a manifest\'s pod reaches the handler, a deleted file kills it, and SIGTERM ends it', async () => {
    const code = exampleBlock(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'wired-by-hand');
    expect(code, 'README.md has no "wired-by-hand" example').toBeDefined();
    expect(code?.split(`'${MANIFESTS}'`).length, `the sample names '${MANIFESTS}' once`).toBe(2);
    const manifests = join(tmp.path, 'manifests');
    await mkdir(manifests);
    await writeFile(join(manifests, 'web.yaml'), podManifestYaml('web'));

    const logs = new LogLines();
    const sample = sampleFunction((code ?? '').replace(`'${MANIFESTS}'`, JSON.stringify(manifests)), {
      // The sample's own logger, writing here instead of stdout: its lines are what the test observes.
      pino: { pino: Object.assign((options?: LoggerOptions) => pino(options ?? {}, logs.stream), { stdSerializers: pino.stdSerializers }) },
      '@podconfig/core': core,
      '@podconfig/source-file': sourceFile,
      '@podconfig/merge': merge,
      '@podconfig/reconcile': reconcile,
    });
    const signals = new Map<string, () => void>();
    const run = sample({ once: (event, listener) => void signals.set(event, listener) });
    void run.then(() => logs.end(new Error('the sample returned before SIGTERM')), (err: unknown) => logs.end(err));
    try {
      expect(await logs.next((l) => l['msg'] === 'pod synced')).toMatchObject({ op: 'create', pod: 'default/web-node-a' });
      await rm(join(manifests, 'web.yaml'));
      expect(await logs.next((l) => l['msg'] === 'pod killed')).toMatchObject({ reason: 'removed', pod: 'default/web-node-a' });
    } finally {
      // Stop it whatever failed, so that no watcher outlives the test and the temp dir can go.
      signals.get('SIGTERM')?.();
      await run;
    }
    expect([...signals.keys()]).toEqual(['SIGTERM']);
    expect(logs.lines.filter((l) => typeof l['level'] === 'number' && l['level'] >= 40)).toEqual([]);
  });
});
