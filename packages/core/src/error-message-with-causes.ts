/**
 * An error's message and those of its causes that it does not quote already: what went wrong, then why, on one
 * line (`state-dir: cannot write /x for pod a: EACCES: permission denied, open '/x'`). pino's `err` serializer
 * appends every cause's message; podconfig's errors often quote their cause (`cannot load module: <why>`),
 * which then showed twice.
 */
export function errorMessageWithCauses(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  let text = err.message;
  const seen = new Set<unknown>([err]);
  // Error-like causes as pino takes them: anything with a string `message`, an Error or not.
  for (let cause = errorLike(err.cause); cause !== undefined && !seen.has(cause); cause = errorLike(cause.cause)) {
    seen.add(cause);
    if (cause.message !== '' && !quotes(text, cause.message) && !namesCode(text, cause)) text += `: ${cause.message}`;
  }
  return text;
}

function errorLike(value: unknown): { readonly message: string; readonly cause?: unknown; readonly code?: unknown } | undefined {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string'
    ? (value as { message: string; cause?: unknown; code?: unknown })
    : undefined;
}

/**
 * `text` names the cause by its code in parentheses (`cannot be read (ENOENT)`, or core's `fileReadProblem`'s
 * `(ENOENT: no such file or directory)`), and the cause's message starts with it (`ENOENT: no such file or
 * directory, open '/x'`): said already, and the wrapper names the file.
 */
function namesCode(text: string, cause: { readonly message: string; readonly code?: unknown }): boolean {
  const code = cause.code;
  return typeof code === 'string' && code !== '' && (text.includes(`(${code})`) || text.includes(`(${code}: `)) && cause.message.startsWith(`${code}:`);
}

/**
 * `text` quotes `message` as a wrapper does: after `: `, in parentheses, or at its end (not just anywhere); or
 * a `subject: problem` message (`/x: larger than the limit of 16 bytes`) is said by a text that names the
 * subject and quotes the problem (`--config /x: cannot read (larger than the limit of 16 bytes)`).
 */
function quotes(text: string, message: string): boolean {
  const quoted = (m: string): boolean => text.endsWith(m) || text.includes(`: ${m}`) || text.includes(`(${m})`);
  if (quoted(message)) return true;
  const colon = message.indexOf(': ');
  return colon > 0 && text.includes(message.slice(0, colon)) && quoted(message.slice(colon + 2));
}
