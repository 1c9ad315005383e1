import type { ServerResponse } from 'node:http';

/**
 * Writes each line as its own HTTP chunk, as the API server writes a watch event, corked so that the group goes
 * out in one `writev`. Returns what the last `write()` did: false means wait for `'drain'`.
 */
export function writeLinesAsChunks(res: ServerResponse, lines: readonly (string | Buffer)[]): boolean {
  res.cork();
  let ok = true;
  for (const line of lines) ok = res.write(line);
  res.uncork();
  return ok;
}
