import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

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
