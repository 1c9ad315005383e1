import type * as ChildProcess from 'node:child_process';
import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import type * as Tls from 'node:tls';

/**
 * Node.js modules that core needs only for some work, loaded when that work first comes: each costs ~10 ms of
 * start-up (with the modules it loads in turn), and most processes never connect through a proxy or run a command.
 * An ES import of a built-in loads it whole at start-up; `require` loads it here, once, on the first call.
 */
const require = createRequire(import.meta.url);

/** `tls.connect`, loading `node:tls` on the first connection. */
export function tlsConnect(options: Tls.ConnectionOptions): Tls.TLSSocket {
  return (require('node:tls') as typeof Tls).connect(options);
}

/** Node.js's own `tls.checkServerIdentity`, loading `node:tls` on the first check. */
export function nodeCheckServerIdentity(hostname: string, cert: Tls.PeerCertificate): Error | undefined {
  return (require('node:tls') as typeof Tls).checkServerIdentity(hostname, cert);
}

/** `child_process.spawn` with stdio pipes, loading `node:child_process` on the first command. */
export function spawnPiped(
  command: string,
  args: readonly string[],
  options: ChildProcess.SpawnOptionsWithStdioTuple<ChildProcess.StdioPipe, ChildProcess.StdioPipe, ChildProcess.StdioPipe>,
): ChildProcess.ChildProcessByStdio<Writable, Readable, Readable> {
  return (require('node:child_process') as typeof ChildProcess).spawn(command, args, options);
}
