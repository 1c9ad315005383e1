import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const TEST_DIR = fileURLToPath(new URL('..', import.meta.url));

/** A module resolution hook that writes every URL it resolves to stderr, one per line. */
const HOOK = `export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  process.stderr.write('resolved ' + r.url + '\\n');
  return r;
}`;
const REGISTER = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));`;

/**
 * What a fresh Node.js process loads while it imports `packages` (their built entry points) and nothing else: the
 * distinct URLs it resolves, and the built-in modules it loaded (`process.moduleLoadList`, which sees `require` too).
 */
async function loadedWhileImporting(packages: readonly string[]): Promise<{ urls: string[]; builtins: string[] }> {
  const program = [
    ...packages.map((p) => `await import(${JSON.stringify(p)});`),
    'process.stdout.write(JSON.stringify(process.moduleLoadList));',
  ].join('\n');
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--input-type=module', '-e', program],
    { cwd: TEST_DIR, timeout: 60_000 },
  );
  // A module is resolved once per importer: each URL once.
  const urls = [...new Set(stderr.split('\n').filter((l) => l.startsWith('resolved ')).map((l) => l.slice('resolved '.length)))];
  const builtins = (JSON.parse(stdout) as string[]).filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length));
  return { urls, builtins };
}

describe('what a process loads at start-up', () => {
  it('the apiserver pipeline takes only the YAML reader from @podconfig/manifest (for kubeconfigs), no file watcher and no node:child_process', async () => {
    const { urls, builtins } = await loadedWhileImporting([
      '@podconfig/kube-client', '@podconfig/cache', '@podconfig/source-apiserver', '@podconfig/merge', '@podconfig/reconcile',
    ]);
    expect(urls.some((u) => u.includes('/packages/source-apiserver/'))).toBe(true);
    const manifest = urls.filter((u) => u.includes('/packages/manifest/')).map((u) => u.slice(u.lastIndexOf('/') + 1)).sort();
    // The entry, the reader, its two halves (the token walk and the scalar rules) and the library's loader: no decoding,
    // schema or validation.
    expect(manifest).toEqual(['go-yaml-common.js', 'go-yaml-entry.js', 'go-yaml-scalar.js', 'go-yaml.js', 'yaml-library.js']);
    // The yaml library's ES module build, not its Node.js entry (yaml-library.ts says why).
    expect(urls.some((u) => /\/yaml\/browser\/dist\/parse\/parser\.js$/.test(u))).toBe(true);
    expect(urls.filter((u) => /\/yaml\/dist\//.test(u))).toEqual([]);
    expect(urls.filter((u) => u.includes('chokidar'))).toEqual([]);
    // core spawns exec credential plugins and hooks on first use only (builtins-on-first-use.ts).
    expect(builtins).not.toContain('child_process');
    expect(builtins).toContain('net'); // what undici loads: the list is read
  }, 60_000);

  it('the file source loads the manifest decoding at import, but not chokidar (loaded when its watch is first armed)', async () => {
    const { urls } = await loadedWhileImporting(['@podconfig/source-file']);
    expect(urls.some((u) => u.endsWith('/packages/manifest/dist/decode-file-pod.js'))).toBe(true);
    expect(urls.filter((u) => u.includes('chokidar'))).toEqual([]);
  }, 60_000);
});
