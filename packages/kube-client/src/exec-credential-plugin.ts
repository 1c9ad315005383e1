import { PodConfigError, raceSignal, runCommand, type Clock, type CommandResult } from '@podconfig/core';
import { parseGoYaml } from '@podconfig/manifest/go-yaml';
import type { Logger } from 'pino';
import type { ExecPluginConfig } from './cluster-config.js';
import { headerValueProblem } from './impersonation-headers.js';
import { lookPath } from './look-path.js';
import { keyPairProblem } from './pem.js';
import { parseRfc3339 } from './rfc3339.js';
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
/** After SIGTERM at a timeout or close(), how long the plugin's process group gets before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** Characters of a failed run's stderr kept in its debug log line. */
const MAX_LOGGED_STDERR = 4096;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * client-go's exec authenticator (`plugin/pkg/client/auth/exec`): runs the kubeconfig's command (a bare name found
 * in the agent's `PATH`, as Go's `exec.Command` finds it, not in the plugin's `env`)
 * (no shell, in its own process group; stdin closed at once) with `KUBERNETES_EXEC_INFO` describing the request (non-interactive,
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
    // Looked up in the agent's PATH at each run, as client-go's exec.Command does; left to spawn(), a bare name would
    // be looked up in the PATH of `env`, which the kubeconfig's `env` may set for the plugin's own use.
    const command = c.command.includes('/') ? c.command : await lookPath(c.command, process.env.PATH);
    if (command === undefined) throw this.#runError("was not found in the agent's PATH", '', { hint: true });

    let result: CommandResult;
    try {
      // Its own process group, killed whole (SIGTERM, then SIGKILL) at the timeout or close(): a plugin that
      // ignores SIGTERM must not hold the client past either. client-go hands stdin only to an interactive plugin;
      // podconfig never is one (no terminal), so the plugin reads EOF at once.
      result = await runCommand({
        command, args: c.args, env, stdin: '', timeoutMs, killGraceMs: KILL_GRACE_MS,
        stdoutLimit: MAX_OUTPUT_BYTES, stderrLimit: MAX_OUTPUT_BYTES,
      }, this.#controller.signal);
    } catch (err: unknown) {
      throw this.#runError(`${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'was not found' : 'could not be started'}`, '', { hint: true });
    }
    const stderr = result.stderr.toString('utf8');
    if (result.aborted) throw this.#runError('stopped: the client was closed', stderr);
    if (result.timedOut) throw this.#runError(`did not finish within ${timeoutMs} ms`, stderr);
    if (result.stdoutDropped > 0) throw this.#runError(`printed more than ${MAX_OUTPUT_BYTES} bytes`, stderr);
    if (result.exitCode !== 0) {
      throw this.#runError(result.exitCode === null ? `failed (${result.exitSignal ?? 'error'})` : `exited with code ${result.exitCode}`, stderr);
    }
    const stdout = result.stdout.toString('utf8');
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

  /** `problem` completes "exec credential plugin <command> …"; `hint`: the kubeconfig's installHint follows. */
  #runError(problem: string, stderr: string, o: { readonly hint?: boolean } = {}): PodConfigError {
    const c = this.#o.config;
    // Never the command line: its arguments may be secret.
    if (o.hint === true && c.installHint !== undefined) problem = `${problem}: ${c.installHint}`;
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
    // Never sendable as a header (undici refuses it, as Go does): the plugin's fault, said as such.
    const tokenProblem = token === '' ? undefined : headerValueProblem(token);
    if (tokenProblem !== undefined) throw fail(`returned a token that ${tokenProblem}`);
    let expiresAt: number | undefined;
    if (status.expirationTimestamp !== undefined && status.expirationTimestamp !== null) {
      expiresAt = parseRfc3339(text(status.expirationTimestamp));
      if (expiresAt === undefined) throw fail('returned an expirationTimestamp that is not RFC 3339');
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
