import { execFile, type ExecFileException } from 'node:child_process';
import { PodConfigError, raceSignal, type Clock } from '@podconfig/core';
import { parseGoYaml } from '@podconfig/manifest';
import type { Logger } from 'pino';
import type { ExecPluginConfig } from './cluster-config.js';
import { keyPairProblem } from './pem.js';
import { Secret } from './secret.js';

/** What a plugin run produced: a token, a client certificate, or both. */
export interface ExecCredentials {
  readonly token?: Secret;
  readonly clientCertificate?: { readonly cert: string; readonly key: Secret };
  /** `status.expirationTimestamp` in epoch ms; absent: valid until a 401. */
  readonly expiresAt?: number;
}

export interface ExecCredentialPluginOptions {
  readonly config: ExecPluginConfig;
  readonly clock: Clock;
  /** Already a `kube.client` child. */
  readonly logger: Logger;
  /** A run that takes longer is killed and fails (default 60 s). */
  readonly timeoutMs?: number;
}

const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
/** Characters of a failed run's stderr kept in its debug log line. */
const MAX_LOGGED_STDERR = 4096;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * client-go's exec authenticator (`plugin/pkg/client/auth/exec`): runs the kubeconfig's command
 * (`execFile`, no shell; stdin closed at once) with `KUBERNETES_EXEC_INFO` describing the request (non-interactive,
 * plus the cluster when `provideClusterInfo`), decodes the `ExecCredential` it prints, and
 * caches it until `expirationTimestamp`. Concurrent callers share one run. After a 401,
 * {@link refresh} runs it again unless another caller already did.
 *
 * Errors are `PODCONFIG_AUTH_FAILED` (retryable): they name the command, never its output (stdout
 * or stderr; a failed run's stderr is logged at debug level, apart from the error).
 */
export class ExecCredentialPlugin {
  readonly #o: ExecCredentialPluginOptions;
  readonly #controller = new AbortController();
  #cached: ExecCredentials | undefined;
  #running: Promise<ExecCredentials> | undefined;

  constructor(options: ExecCredentialPluginOptions) {
    this.#o = options;
  }

  /** Cached credentials while they have not expired, else a new run. */
  get(signal: AbortSignal): Promise<ExecCredentials> {
    const cached = this.#cached;
    if (cached !== undefined && !(cached.expiresAt !== undefined && this.#o.clock.now() > cached.expiresAt)) {
      return Promise.resolve(cached);
    }
    return this.#run(signal);
  }

  /** After a 401 with `used`: runs the plugin again, unless the credentials were rotated meanwhile. */
  refresh(used: ExecCredentials, signal: AbortSignal): Promise<ExecCredentials> {
    if (this.#cached !== undefined && this.#cached !== used) return Promise.resolve(this.#cached);
    this.#cached = undefined;
    return this.#run(signal);
  }

  /** Kills a run in progress. */
  close(): void {
    this.#controller.abort();
  }

  #run(signal: AbortSignal): Promise<ExecCredentials> {
    this.#running ??= this.#exec().finally(() => {
      this.#running = undefined;
    });
    return raceSignal(this.#running, signal);
  }

  async #exec(): Promise<ExecCredentials> {
    const c = this.#o.config;
    const info = {
      apiVersion: c.apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false, ...(c.cluster === undefined ? {} : { cluster: c.cluster }) },
    };
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const { name, value } of c.env) env[name] = value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify(info);
    const timeoutMs = this.#o.timeoutMs ?? 60_000;

    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
      const child = execFile(
        c.command,
        [...c.args],
        { env, timeout: timeoutMs, maxBuffer: MAX_OUTPUT_BYTES, signal: this.#controller.signal, encoding: 'utf8', windowsHide: true },
        (err, out, errOut) => {
          if (err === null) resolve({ stdout: out });
          else reject(this.#runError(err, errOut, timeoutMs));
        },
      );
      // client-go hands stdin only to an interactive plugin; podconfig never is one (no terminal),
      // so the plugin reads EOF at once instead of waiting on a pipe nobody writes to.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end();
    });
    const credentials = this.#decode(stdout);
    this.#cached = credentials;
    this.#o.logger.debug(
      {
        command: c.command,
        token: credentials.token !== undefined,
        clientCertificate: credentials.clientCertificate !== undefined,
        ...(credentials.expiresAt === undefined ? {} : { expiresAt: new Date(credentials.expiresAt).toISOString() }),
      },
      'exec credential plugin ran',
    );
    return credentials;
  }

  #runError(err: ExecFileException, stderr: string, timeoutMs: number): PodConfigError {
    const c = this.#o.config;
    // execFile's own message repeats the command line, whose arguments may be secret: build our own.
    let problem: string;
    if (err.code === 'ENOENT') {
      problem = `was not found${c.installHint === undefined ? '' : `: ${c.installHint}`}`;
    } else if (this.#controller.signal.aborted) {
      problem = 'stopped: the client was closed';
    } else if (err.killed === true && err.signal !== undefined && err.signal !== null) {
      problem = `did not finish within ${timeoutMs} ms`;
    } else if (err.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
      problem = `printed more than ${MAX_OUTPUT_BYTES} bytes`;
    } else if (typeof err.code === 'number') {
      problem = `exited with code ${err.code}`;
    } else {
      problem = `failed (${err.signal ?? String(err.code ?? 'error')})`;
    }
    // A plugin may print a token on stderr: it never goes into the error (which reaches logs and
    // /sources), only into a debug log line of its own.
    const printed = stderr.trim();
    if (printed !== '') {
      this.#o.logger.debug({ command: c.command, stderr: printed.slice(0, MAX_LOGGED_STDERR) }, 'exec credential plugin stderr');
    }
    return new PodConfigError(
      'PODCONFIG_AUTH_FAILED',
      `exec credential plugin ${c.command} ${problem}${printed === '' ? '' : ' (its stderr is logged at debug level)'}`,
      { retryable: true },
    );
  }

  #decode(stdout: string): ExecCredentials {
    const c = this.#o.config;
    const fail = (problem: string): PodConfigError =>
      new PodConfigError('PODCONFIG_AUTH_FAILED', `exec credential plugin ${c.command}: ${problem}`, { retryable: true });
    let out: unknown;
    try {
      out = JSON.parse(stdout);
    } catch {
      // Not JSON: client-go's decoder reads YAML too, as sigs.k8s.io/yaml does (so does the kubeconfig's reader).
      try {
        out = parseGoYaml(stdout);
      } catch {
        out = undefined;
      }
    }
    if (!isRecord(out) || out.kind !== 'ExecCredential') throw fail('its output is not an ExecCredential');
    if (out.apiVersion !== c.apiVersion) {
      const got = typeof out.apiVersion === 'string' ? out.apiVersion : 'none';
      throw fail(`is configured to use API version ${c.apiVersion}, plugin returned version ${got}`);
    }
    const status = out.status;
    if (!isRecord(status)) throw fail("didn't return a status field");
    const text = (v: unknown): string => (typeof v === 'string' ? v : '');
    const token = text(status.token);
    const cert = text(status.clientCertificateData);
    const key = text(status.clientKeyData);
    if (token === '' && cert === '' && key === '') throw fail("didn't return a token or cert/key pair");
    if ((cert === '') !== (key === '')) throw fail('returned only certificate or key, not both');
    let expiresAt: number | undefined;
    if (status.expirationTimestamp !== undefined && status.expirationTimestamp !== null) {
      expiresAt = Date.parse(text(status.expirationTimestamp));
      if (Number.isNaN(expiresAt)) throw fail('returned an expirationTimestamp that is not RFC 3339');
    }
    if (cert !== '') {
      const problem = keyPairProblem(cert, key);
      if (problem !== undefined) throw fail(`failed parsing client key/certificate: ${problem}`);
    }
    return {
      ...(token === '' ? {} : { token: new Secret(token) }),
      ...(cert === '' ? {} : { clientCertificate: { cert, key: new Secret(key) } }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
  }
}
