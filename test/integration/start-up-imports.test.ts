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

/** The distinct URLs a fresh Node.js process resolves while it imports `packages` (their built entry points) and nothing else. */
async function resolvedWhileImporting(packages: readonly string[]): Promise<string[]> {
  const program = packages.map((p) => `await import(${JSON.stringify(p)});`).join('\n');
  const { stderr } = await promisify(execFile)(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--input-type=module', '-e', program],
    { cwd: TEST_DIR, timeout: 60_000 },
  );
  // A module is resolved once per importer: each URL once.
  return [...new Set(stderr.split('\n').filter((l) => l.startsWith('resolved ')).map((l) => l.slice('resolved '.length)))];
}

describe('what a process loads at start-up', () => {
  it('the apiserver pipeline takes only the YAML reader from @podconfig/manifest (for kubeconfigs), and no file watcher', async () => {
    const urls = await resolvedWhileImporting([
      '@podconfig/kube-client', '@podconfig/cache', '@podconfig/source-apiserver', '@podconfig/merge', '@podconfig/reconcile',
    ]);
    expect(urls.some((u) => u.includes('/packages/source-apiserver/'))).toBe(true);
    const manifest = urls.filter((u) => u.includes('/packages/manifest/')).map((u) => u.slice(u.lastIndexOf('/') + 1)).sort();
    // The entry, the reader and its two halves (the token walk and the scalar rules): no decoding, schema or validation.
    expect(manifest).toEqual(['go-yaml-common.js', 'go-yaml-entry.js', 'go-yaml-scalar.js', 'go-yaml.js']);
    expect(urls.filter((u) => u.includes('chokidar'))).toEqual([]);
  }, 60_000);

  it('the file source loads the manifest decoding, and chokidar only when its watch is armed', async () => {
    const urls = await resolvedWhileImporting(['@podconfig/source-file']);
    expect(urls.some((u) => u.endsWith('/packages/manifest/dist/decode-file-pod.js'))).toBe(true);
    expect(urls.filter((u) => u.includes('chokidar'))).toEqual([]);
  }, 60_000);
});
