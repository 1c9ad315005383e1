import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every package with an entry point (`src/index.ts`), the agent included: the house style's "one `src/index.ts` naming its exports". */
const PACKAGES = [
  'agent',
  ...readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && ts.sys.fileExists(join(ROOT, 'packages', d.name, 'src/index.ts')))
    .map((d) => `packages/${d.name}`),
];

/** The names each entry point exports, values and types alike, as the compiler sees them (re-exports followed). */
function exportedNames(packages: readonly string[]): Map<string, string[]> {
  const entries = packages.map((p) => join(ROOT, p, 'src/index.ts'));
  const program = ts.createProgram(entries, {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    customConditions: ['@podconfig/source'], noEmit: true, skipLibCheck: true, types: ['node'],
  });
  const checker = program.getTypeChecker();
  return new Map(packages.map((p, i) => {
    const file = program.getSourceFile(entries[i]!);
    const module = file === undefined ? undefined : checker.getSymbolAtLocation(file);
    if (module === undefined) throw new Error(`${p}: cannot read src/index.ts`);
    return [p, checker.getExportsOfModule(module).map((s) => s.name).sort()];
  }));
}

/**
 * The names a README does not mention in code: an inline code span (`` `Name` ``, `` `Name(o)` ``,
 * `` `new Name(…)` ``) or a fenced block. A name in prose alone does not count.
 */
function undocumented(readme: string, names: readonly string[]): string[] {
  const code = [...readme.matchAll(/^```[^\n]*\n[\s\S]*?^```$|`[^`\n]+`/gm)].map((m) => m[0]).join('\n');
  return names.filter((name) => !new RegExp(`(^|[^\\w$])${name.replace(/\$/g, '\\$')}($|[^\\w$])`, 'm').test(code));
}

describe('package READMEs', () => {
  it('document every exported name of their package (style.md: a README documents its public surface)', () => {
    const missing: Record<string, string[]> = {};
    for (const [pkg, names] of exportedNames(PACKAGES)) {
      expect(names.length, `${pkg} exports nothing?`).toBeGreaterThan(0);
      const gaps = undocumented(readFileSync(join(ROOT, pkg, 'README.md'), 'utf8'), names);
      if (gaps.length > 0) missing[pkg] = gaps;
    }
    expect(missing).toEqual({});
  }, 60_000);

  it('count a name only in code, not in prose or as part of a longer name', () => {
    const readme = 'The Reflector runs.\n\n| `ReflectorSink<T>` | … |\n\n```ts\nnew UndeltaStore({ sink })\n```\n';
    expect(undocumented(readme, ['Reflector', 'ReflectorSink', 'UndeltaStore', 'sink', 'Store'])).toEqual(['Reflector', 'Store']);
  });
});
