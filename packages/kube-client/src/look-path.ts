import { access, constants, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * Go's `exec.LookPath`, as `exec.Command` calls it for a name without a slash: the first directory of `path` (the
 * caller's `PATH`, not the one the program will be given) holding an executable regular file of that name, as a
 * path; `undefined` when none does or `path` is unset. An empty or relative entry is skipped: Go refuses what one
 * finds (`exec.ErrDot`, since Go 1.19) rather than run a program picked by the working directory.
 */
export async function lookPath(name: string, path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const file = join(dir, name);
    try {
      if (!(await stat(file)).isFile()) continue;
      await access(file, constants.X_OK);
      return file;
    } catch {
      // Not there, or not executable: the next directory.
    }
  }
  return undefined;
}
