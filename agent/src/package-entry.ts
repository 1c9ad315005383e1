import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

/** The conditions an `import` from Node.js matches, as `import()` would use them. */
const CONDITIONS: ReadonlySet<string> = new Set(['node', 'import', 'default']);

/** Thrown for a package that is installed but does not export what was asked (not "not found"). */
export class PackageEntryError extends Error {}

function splitSpecifier(specifier: string): { name: string; subpath: string } | undefined {
  const parts = specifier.split('/');
  const nameParts = specifier.startsWith('@') ? 2 : 1;
  if (parts.length < nameParts || parts.slice(0, nameParts).some((p) => p === '')) return undefined;
  const rest = parts.slice(nameParts);
  return { name: parts.slice(0, nameParts).join('/'), subpath: rest.length === 0 ? '.' : `./${rest.join('/')}` };
}

/** A conditional exports target, resolved with the import conditions (keys in object order, as Node.js does). */
function conditionalTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const t of target) {
      const found = conditionalTarget(t);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof target === 'object' && target !== null) {
    for (const [condition, value] of Object.entries(target)) {
      if (!CONDITIONS.has(condition)) continue;
      const found = conditionalTarget(value);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function exportsTarget(exportsField: unknown, subpath: string): string | undefined {
  const isSubpathMap = typeof exportsField === 'object' && exportsField !== null && !Array.isArray(exportsField) &&
    Object.keys(exportsField).some((k) => k.startsWith('.'));
  const map: Readonly<Record<string, unknown>> = isSubpathMap ? (exportsField as Record<string, unknown>) : { '.': exportsField };
  if (Object.hasOwn(map, subpath)) return conditionalTarget(map[subpath]);
  // One `*` pattern level (`"./features/*": "./src/features/*.js"`), the longest prefix first.
  const patterns = Object.keys(map).filter((k) => k.includes('*')).sort((a, b) => b.length - a.length);
  for (const pattern of patterns) {
    const [prefix = '', suffix = ''] = pattern.split('*');
    if (!subpath.startsWith(prefix) || !subpath.endsWith(suffix) || subpath.length < prefix.length + suffix.length) continue;
    const matched = subpath.slice(prefix.length, subpath.length - suffix.length);
    return conditionalTarget(map[pattern])?.replaceAll('*', matched);
  }
  return undefined;
}

/**
 * The file an `import(specifier)` of an installed package would load, looked up as Node.js does from
 * `fromDir`: `node_modules/<name>` in `fromDir` and each parent, then the package's `exports` with
 * the import conditions (`node`, `import`, `default`), else `main` / `index.js`. This serves what
 * `createRequire(dir).resolve()` cannot (it matches only `require` / `default`: an ESM-only package is
 * not found) and `import.meta.resolve(specifier, parent)` does not in Node.js 20 without a flag.
 * Undefined when no such package is installed there; throws {@link PackageEntryError} when it is but
 * does not export `specifier`.
 */
export function findPackageEntry(specifier: string, fromDir: string): string | undefined {
  const parsed = splitSpecifier(specifier);
  if (parsed === undefined) return undefined;
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    const packageDir = join(dir, 'node_modules', ...parsed.name.split('/'));
    const manifestPath = join(packageDir, 'package.json');
    if (existsSync(manifestPath)) {
      let manifest: { exports?: unknown; main?: unknown };
      try {
        manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: unknown; main?: unknown };
      } catch (err: unknown) {
        throw new PackageEntryError(`${manifestPath}: not valid JSON`, { cause: err });
      }
      let target: string | undefined;
      if (manifest.exports !== undefined && manifest.exports !== null) {
        target = exportsTarget(manifest.exports, parsed.subpath);
        if (target === undefined) {
          throw new PackageEntryError(`${packageDir} does not export "${parsed.subpath}" for import (its package.json "exports")`);
        }
      } else if (parsed.subpath === '.') {
        target = typeof manifest.main === 'string' ? manifest.main : 'index.js';
      } else {
        target = parsed.subpath;
      }
      const file = resolve(packageDir, target);
      if (file !== packageDir && !file.startsWith(packageDir + sep)) throw new PackageEntryError(`${packageDir}: export target "${target}" leaves the package`);
      return file;
    }
    if (dirname(dir) === dir) return undefined;
  }
}
