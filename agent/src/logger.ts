import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { serializeErrorWith } from '@podconfig/core';
import { StdoutDestination } from './stdout-destination.js';

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

/** The only root logger: JSON lines with `node` on every line, secrets redacted. */
export function createRootLogger(o: RootLoggerOptions): Logger {
  const options = {
    level: o.level,
    base: { node: o.nodeName },
    serializers: { err: serializeErrorWith(pino.stdSerializers.err) },
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
  if (o.destination !== undefined) return pino(options, o.destination);
  const destination = stdoutDestination();
  const logger = pino(options, destination);
  destination.onDropped = (lines) => logger.warn({ droppedLines: lines }, 'log lines dropped: stdout took none while they were written');
  return logger;
}

let stdout: StdoutDestination | undefined;

/** The process's one stdout destination; at exit it writes what a blocked stdout left queued, if it can. */
function stdoutDestination(): StdoutDestination {
  if (stdout === undefined) {
    const destination = new StdoutDestination();
    process.once('exit', () => destination.flushAtExit());
    stdout = destination;
  }
  return stdout;
}
