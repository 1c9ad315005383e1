import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Yaml from 'yaml';

/** Which of the `yaml` package's builds {@link yaml} is: its ES module build, or its Node.js entry (the fallback). */
export type YamlBuild = 'esm' | 'node';

/**
 * The `yaml` library, from the ES module build its package ships in `browser/dist` (what it serves where the
 * `node` export condition does not apply). Its Node.js build is the same code compiled to CommonJS, with one
 * addition: the parser reads `process.env.LOG_TOKENS`, a debugging switch, for every lexeme, and every read of the
 * environment is a call into C++. Reading 1,000 static pod manifests of ~5 KB, that read was about a tenth of the
 * time to the first set (~110 ms; see test/bench/PROFILING.md's twenty-first pass). Should the package no longer
 * have that build where version 2 has it, its own entry is used.
 */
async function load(): Promise<{ readonly library: typeof Yaml; readonly build: YamlBuild }> {
  try {
    const require = createRequire(import.meta.url);
    const url = pathToFileURL(join(dirname(require.resolve('yaml/package.json')), 'browser', 'dist', 'index.js'));
    return { library: (await import(url.href)) as typeof Yaml, build: 'esm' };
  } catch {
    return { library: await import('yaml'), build: 'node' };
  }
}

const loaded = await load();

export const yaml: typeof Yaml = loaded.library;
export const YAML_BUILD: YamlBuild = loaded.build;
