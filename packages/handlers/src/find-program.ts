import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Why `command` cannot be run, or undefined when it can: the file spawn() would run (a name with a `/` is a path,
 * relative to `cwd`; a bare name is looked up in `path`, as execvp does) exists, is a regular file and is
 * executable. Checked once at start, so a mistyped program stops the agent there instead of failing every call.
 */
export function programProblem(command: string, path: string | undefined, cwd: string = process.cwd()): string | undefined {
  if (command.includes('/')) return fileProblem(isAbsolute(command) ? command : resolve(cwd, command));
  // Without a PATH, execvp (and so spawn) looks in the system's default path.
  for (const dir of (path ?? '/usr/bin:/bin').split(delimiter)) {
    // An empty entry of PATH is the working directory, as for execvp.
    if (fileProblem(join(dir === '' ? cwd : resolve(cwd, dir), command)) === undefined) return undefined;
  }
  return 'not found in PATH';
}

function fileProblem(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return 'not a regular file';
    accessSync(file, constants.X_OK);
    return undefined;
  } catch (err: unknown) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    return code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not executable (EACCES)' : `not usable (${code ?? 'unknown error'})`;
  }
}
