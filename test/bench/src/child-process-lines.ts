import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** A child process whose stdout is JSON lines, read into a queue; stderr is kept (last 4 KiB) for error messages. */
export class ChildProcessLines {
  readonly child: ChildProcess;
  readonly spawnedAt: number;
  readonly #lines: unknown[] = [];
  #waiter: (() => void) | undefined;
  #exited = false;
  #stderr = '';
  readonly exited: Promise<void>;

  constructor(command: string, args: readonly string[], o: { env?: NodeJS.ProcessEnv; spawnedAt: number; stdin?: boolean }) {
    this.spawnedAt = o.spawnedAt;
    this.child = spawn(command, args, { stdio: [o.stdin === true ? 'pipe' : 'ignore', 'pipe', 'pipe'], env: o.env ?? process.env });
    children.add(this.child);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', () => {
        this.#exited = true;
        children.delete(this.child);
        this.#wake();
        resolve();
      });
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (s: string) => {
      this.#stderr = (this.#stderr + s).slice(-4096);
    });
    const rl = createInterface({ input: this.child.stdout!, crlfDelay: Infinity });
    rl.on('line', (line) => {
      if (line.trim() === '') return;
      try {
        this.#lines.push(JSON.parse(line));
      } catch {
        this.#stderr = `${this.#stderr}\n[stdout] ${line}`.slice(-4096);
        return;
      }
      this.#wake();
    });
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** True once the process has exited. */
  get hasExited(): boolean {
    return this.#exited;
  }

  /** The next line; rejects when the process exits first or after `timeoutMs`. */
  async next(timeoutMs: number): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    while (this.#lines.length === 0) {
      if (this.#exited) throw new Error(`process exited (code ${this.child.exitCode ?? this.child.signalCode}): ${this.#stderr.trim().slice(-600)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no output within ${timeoutMs} ms: ${this.#stderr.trim().slice(-600)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.#lines.shift();
  }

  /** Peak RSS (VmHWM) and CPU time (user + system) of the process so far, from /proc. */
  usage(): { peakRssMb: number; cpuMs: number } {
    const pid = this.child.pid!;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return { peakRssMb: Number(hwm?.[1] ?? 0) / 1024, cpuMs: ticks * 10 };
  }

  async stop(): Promise<void> {
    if (this.#exited) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }
}
