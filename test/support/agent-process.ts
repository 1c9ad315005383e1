import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

export const AGENT_BIN = fileURLToPath(new URL('../../agent/dist/bin/podconfig-agent.js', import.meta.url));

/** One JSON log line of the agent. */
export type LogLine = { readonly level: number; readonly msg: string; readonly component?: string } & Readonly<Record<string, unknown>>;

export interface StartAgentOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** How long to wait for the status server to listen (default 20 s). */
  readonly startTimeoutMs?: number;
}

/**
 * The built agent as a real child process, with its status server on a free loopback port.
 * Every stdout line is parsed as a JSON log line; tests wait on log events or on the status API.
 */
export class AgentProcess {
  readonly logs: LogLine[] = [];
  readonly stderr: string[] = [];
  #waiters: { pred: (l: LogLine) => boolean; resolve: (l: LogLine) => void }[] = [];
  #exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  baseUrl = '';

  private constructor(readonly child: ChildProcess) {
    this.#exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let parsed: LogLine;
      try {
        parsed = JSON.parse(line) as LogLine;
      } catch {
        parsed = { level: 0, msg: line };
      }
      this.logs.push(parsed);
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.pred(parsed)) return true;
        w.resolve(parsed);
        return false;
      });
    });
    createInterface({ input: child.stderr! }).on('line', (line) => this.stderr.push(line));
  }

  static async start(args: readonly string[], o: StartAgentOptions = {}): Promise<AgentProcess> {
    const child = spawn(process.execPath, [AGENT_BIN, '--status-address', '127.0.0.1:0', ...args], {
      cwd: o.cwd, env: { ...process.env, KUBECONFIG: '', ...o.env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const agent = new AgentProcess(child);
    try {
      const listening = await agent.waitForLog((l) => l.msg === 'status server listening', o.startTimeoutMs ?? 20_000);
      agent.baseUrl = `http://127.0.0.1:${String(listening['port'])}`;
    } catch (err: unknown) {
      await agent.kill();
      throw new Error(`agent did not start: ${(err as Error).message}\nstderr: ${agent.stderr.join('\n')}\nlogs: ${agent.logs.map((l) => JSON.stringify(l)).join('\n')}`);
    }
    return agent;
  }

  /** Resolves with the first log line (already seen or future) that matches. */
  waitForLog(pred: (l: LogLine) => boolean, timeoutMs = 15_000): Promise<LogLine> {
    const seen = this.logs.find(pred);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching log line within ${timeoutMs} ms`)), timeoutMs);
      this.#waiters.push({ pred, resolve: (l) => { clearTimeout(timer); resolve(l); } });
      void this.#exited.then((e) => { clearTimeout(timer); reject(new Error(`agent exited (${String(e.code ?? e.signal)}) while waiting for a log line`)); });
    });
  }

  /** GET `path` from the status server, or from another of the agent's listeners at `base` (the metrics server). */
  async get(path: string, base = this.baseUrl): Promise<{ status: number; body: string }> {
    const res = await request(`${base}${path}`);
    return { status: res.statusCode, body: await res.body.text() };
  }

  async getJSON<T = Record<string, unknown>>(path: string): Promise<T> {
    const { status, body } = await this.get(path);
    if (status !== 200) throw new Error(`GET ${path}: ${status} ${body}`);
    return JSON.parse(body) as T;
  }

  /** Pod names in GET /pods (`namespace/name`, sorted). */
  async podNames(): Promise<string[]> {
    const list = await this.getJSON<{ items: { metadata: { namespace: string; name: string } }[] }>('/pods');
    return list.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort();
  }

  /** Sends `signal` and resolves with how the process ended. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.#exited;
  }

  /** `stop()`, then SIGKILL if the process is still there after `graceMs`: clean-up hooks must end. */
  async stopWithin(graceMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const timer = setTimeout(() => void this.kill(), graceMs);
    try {
      return await this.stop();
    } finally {
      clearTimeout(timer);
    }
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.#exited;
  }

  get exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.#exited;
  }
}

/**
 * Re-evaluates `check` (e.g. a GET on the status server) until it returns a value that is not
 * undefined, or fails after `timeoutMs`. This waits for an observable condition; it is not a
 * sleep standing in for one.
 */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err: unknown) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms${last === undefined ? '' : `: ${last instanceof Error ? last.message : JSON.stringify(last)}`}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
