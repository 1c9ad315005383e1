// The API's rules for paths a manifest gives inside something else: a sub-path in a volume, a file in a
// downwardAPI volume, a checkout directory. Paths are names, not secrets, so they are quoted.

/** validatePathNoBacksteps: no `..` element, so that the path cannot climb out. */
export function validatePathNoBacksteps(path: string, at: string, errors: string[]): void {
  if (path.split('/').includes('..')) errors.push(`${at}: Invalid value: ${JSON.stringify(path)}: must not contain '..'`);
}

/** validateLocalDescendingPath: relative, and without `..`. */
export function validateLocalDescendingPath(path: string, at: string, errors: string[]): void {
  if (path.startsWith('/')) errors.push(`${at}: Invalid value: ${JSON.stringify(path)}: must be a relative path`);
  validatePathNoBacksteps(path, at, errors);
}

/** ValidateLocalNonReservedPath: a descending path that does not start with `..` either (`..data` is the kubelet's). */
export function validateLocalNonReservedPath(path: string, at: string, errors: string[]): void {
  validateLocalDescendingPath(path, at, errors);
  // `../x` has already been refused as a backstep.
  if (path.startsWith('..') && !path.startsWith('../')) errors.push(`${at}: Invalid value: ${JSON.stringify(path)}: must not start with '..'`);
}
