#!/usr/bin/env node
/**
 * Runs a {@link WorkloadServer} as its own process, for the benchmark suite (test/bench).
 *
 *   workload-server [--port N]
 *
 * Prints `{"url":"http://127.0.0.1:N"}` when ready, then answers JSON-line commands on stdin, one
 * line each on stdout (`{"id":…,"ok":true,"result":…}`):
 *   {"op":"load","pods":N,"events":E,"nodeName":"node-a"|null,"seed":1}   → sizes and resourceVersions
 *   {"op":"arm","rate":0,"settleMs":0}   a new session (rate > 0: events per second, with send times
 *                             recorded, the first one settleMs after the initial set)
 *   {"op":"stats"}            the session's WorkloadSessionStats
 *   {"op":"close"}
 * Exits when stdin ends, on `close`, or on SIGTERM / SIGINT.
 */
import { parseArgs } from 'node:util';
import { BenchWorkload } from './bench-workload.js';
import { WorkloadServer } from './workload-server.js';
import { serveJsonLineCommands, type JsonLineCommand } from '../json-line-commands.js';

type Command = JsonLineCommand;

const num = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string' } } });
  const server = await new WorkloadServer(values.port === undefined ? {} : { port: Number(values.port) }).start();
  const out = (value: unknown): void => {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  };
  out({ url: server.url });
  let closing: Promise<void> | undefined;
  const shutdown = (): Promise<void> => (closing ??= server.close());
  const onSignal = (): void => {
    void shutdown().finally(() => process.exit(0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);

  const execute = (c: Command): unknown => {
    switch (c.op) {
      case 'load': {
        const w = new BenchWorkload({
          pods: num(c.pods, 110),
          events: num(c.events, 1000),
          nodeName: typeof c.nodeName === 'string' ? c.nodeName : undefined,
          seed: num(c.seed, 1),
        });
        server.load(w);
        return {
          listResourceVersion: w.listResourceVersion,
          finalResourceVersion: w.finalResourceVersion,
          initialBytes: w.initialBytes,
          eventBytes: w.eventBytes,
          meanPodBytes: Math.round(w.initialBytes / Math.max(1, w.initialObjects.length)),
        };
      }
      case 'arm':
        server.arm({ rate: num(c.rate, 0), settleMs: num(c.settleMs, 0) });
        return null;
      case 'stats':
        return server.stats();
      default:
        throw new Error(`unknown op: ${c.op}`);
    }
  };

  await serveJsonLineCommands(execute);
  await shutdown();
}

main().catch((err: unknown) => {
  process.stderr.write(`workload-server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
