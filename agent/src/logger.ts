import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import sonicBoom from 'sonic-boom';
import { errorMessageWithCauses } from '@podconfig/core';

/**
 * Paths pino censors wherever they appear (one or two levels deep). Libraries never log these on
 * purpose; this is the net under the rope.
 */
export const REDACT_PATHS: readonly string[] = [
  'headers.authorization', 'headers.Authorization', '*.headers.authorization', '*.headers.Authorization',
  'headers.cookie', '*.headers.cookie',
  'token', '*.token', 'bearerToken', '*.bearerToken', 'password', '*.password',
  'clientKey', '*.clientKey', 'client-key-data', '*.client-key-data',
];

export interface RootLoggerOptions {
  readonly level: string;
  readonly nodeName: string;
  /** Human-readable output (pino-pretty); default: when stdout is a TTY. */
  readonly pretty?: boolean;
  /** Where to write (tests); default stdout. */
  readonly destination?: DestinationStream;
}

/**
 * A rejected manifest is the input's fault, and its message names the file or URL and what is wrong where: a stack
 * (1 KB of the decoder's frames) would only bury that in every warn line an operator's typo causes.
 */
const isManifestRejection = (err: Error): boolean => {
  const code = (err as { readonly code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('PODCONFIG_MANIFEST_');
};

/**
 * pino's `err` serializer (type, stack with the causes' stacks, own fields), with {@link errorMessageWithCauses};
 * no stack for a rejected manifest.
 */
function serializeError(err: Error): ReturnType<typeof pino.stdSerializers.err> {
  const out = pino.stdSerializers.err(err);
  if (!(err instanceof Error) || typeof out !== 'object' || out === null) return out;
  out.message = errorMessageWithCauses(err);
  if (isManifestRejection(err)) delete (out as { stack?: string }).stack;
  return out;
}

/** The only root logger: JSON lines with `node` on every line, secrets redacted. */
export function createRootLogger(o: RootLoggerOptions): Logger {
  const options = {
    level: o.level,
    base: { node: o.nodeName },
    serializers: { err: serializeError },
    redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const usePretty = o.pretty ?? (o.destination === undefined && process.stdout.isTTY === true);
  if (usePretty) {
    return pino(options, pretty({
      colorize: o.destination === undefined, sync: true, ignore: 'pid,hostname',
      ...(o.destination === undefined ? {} : { destination: o.destination }),
    }));
  }
  return pino(options, o.destination ?? stdoutDestination());
}

/**
 * stdout, written synchronously as the kubelet's klog writes: lines keep their order (pino's asynchronous default
 * wrote the last ones out of order at exit) and none waits in a buffer when the process ends. A reader that has
 * gone away (EPIPE: `| head`, a log forwarder that died) drops the lines, as pino drops them, instead of holding the
 * exit: sonic-boom 4, pino 10's, retried that write for good, deaf to every later signal; this one is 5, ours
 * whatever pino depends on.
 */
function stdoutDestination(): DestinationStream {
  const stream = new sonicBoom.SonicBoom({ fd: process.stdout.fd || 1, sync: true });
  let gone = false;
  const isBrokenPipe = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 'EPIPE';
  stream.on('error', (err: unknown) => {
    if (!isBrokenPipe(err)) throw err;
    gone = true;
  });
  return {
    write: (line: string) => {
      if (!gone) stream.write(line);
    },
  };
}
