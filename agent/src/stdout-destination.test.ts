import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

const DESTINATION = new URL('../dist/stdout-destination.js', import.meta.url).href;

/**
 * A process whose stdout is a pipe its parent does not read: it writes `lines` lines of ~110 bytes through a
 * StdoutDestination with a backlog of `backlog` bytes, says on stderr whether it is blocked and whether its event
 * loop still runs, then writes `last` once stdout takes lines again.
 */
const WRITER = `
import { StdoutDestination } from ${JSON.stringify(DESTINATION)};
const [lines, backlog] = process.argv.slice(1).map(Number);
const d = new StdoutDestination({ maxBacklogBytes: backlog });
d.onDropped = (n) => d.write('dropped ' + n + '\\n');
for (let i = 0; i < lines; i++) d.write('line ' + i + ' ' + 'x'.repeat(100) + '\\n');
process.stderr.write('blocked ' + d.blocked + '\\n');
setTimeout(() => process.stderr.write('timer ran\\n'), 10);
const wait = setInterval(() => { if (!d.blocked) { clearInterval(wait); d.write('last\\n'); } }, 20);
`;

async function runWriter(lines: number, backlog: number): Promise<{ stderr: string[]; stdout: string[] }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER, String(lines), String(backlog)], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    child.stdout.pause();
    const stderr: string[] = [];
    const errLines = createInterface({ input: child.stderr });
    // stdout is read only once the writer has found it full and its loop has run a timer since.
    await new Promise<void>((resolve) => errLines.on('line', (line) => {
      stderr.push(line);
      if (line === 'timer ran') resolve();
    }));
    const stdout: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => stdout.push(line));
    child.stdout.resume();
    const [code] = await once(child, 'exit') as [number | null];
    expect(code).toBe(0);
    return { stderr, stdout };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

describe('StdoutDestination', () => {
  it('keeps the event loop running while stdout takes nothing, queues the lines in order and writes them once it does', async () => {
    // 2,000 lines (~220 KB) fill any pipe; an 8 MiB backlog holds them all.
    const { stderr, stdout } = await runWriter(2000, 8 * 1024 * 1024);
    expect(stderr).toEqual(['blocked true', 'timer ran']);
    expect(stdout).toHaveLength(2001);
    expect(stdout.slice(0, 2000).map((l) => Number(l.split(' ')[1]))).toEqual([...Array(2000).keys()]);
    expect(stdout.at(-1)).toBe('last');
  });

  it('drops what passes the backlog, counts it, and reports the count before the next line once stdout takes lines', async () => {
    const { stdout } = await runWriter(5000, 64 * 1024);
    const report = stdout.filter((l) => l.startsWith('dropped '));
    expect(report).toHaveLength(1);
    const kept = stdout.filter((l) => l.startsWith('line '));
    expect(kept.length + Number(report[0]?.split(' ')[1])).toBe(5000);
    // The lines kept are the first ones, in order, then the report, then the next line.
    expect(kept.map((l) => Number(l.split(' ')[1]))).toEqual([...Array(kept.length).keys()]);
    expect(stdout.slice(-2)).toEqual([report[0], 'last']);
  });
});
