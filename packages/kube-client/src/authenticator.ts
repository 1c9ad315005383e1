import { PodConfigError, type Clock } from '@podconfig/core';
import type { Logger } from 'pino';
import type { ClientCertificate, ClusterConfig } from './cluster-config.js';
import { ExecCredentialPlugin, type ExecCredentials } from './exec-credential-plugin.js';
import { headerValueProblem } from './impersonation-headers.js';
import { keyPairProblem } from './pem.js';
import { PolledFile } from './polled-file.js';
import { Secret } from './secret.js';

/** A client certificate and key (PEM) to present in the TLS handshake. */
export interface TlsIdentity {
  readonly cert: string;
  readonly key: Secret;
}

/** What one request carries. A new object whenever anything in it changed. */
export interface RequestCredentials {
  /** The `Authorization` header value. */
  readonly authorization: string | undefined;
  readonly clientCertificate: TlsIdentity | undefined;
}

export interface AuthenticatorOptions {
  readonly config: ClusterConfig;
  readonly clock: Clock;
  /** Already a `kube.client` child. */
  readonly logger: Logger;
}

/** client-go re-reads a token file every minute (`NewCachedFileTokenSource`). */
export const TOKEN_FILE_PERIOD_MS = 60_000;
/** client-go checks client certificate files every 5 minutes (`CertCallbackRefreshDuration`). */
export const CERT_FILE_PERIOD_MS = 5 * 60_000;

/**
 * The credentials for each request, kept fresh: a token file is re-read when it changes
 * (checked at most once a minute, and after a 401); client certificate files when they change
 * (checked every 5 minutes); an exec plugin's output until it expires (and after a 401). A
 * file that cannot be re-read keeps the previous credentials, with a warning (client-go).
 */
export class Authenticator {
  readonly #o: AuthenticatorOptions;
  readonly #tokenFile: PolledFile | undefined;
  readonly #certFile: PolledFile | undefined;
  readonly #keyFile: PolledFile | undefined;
  readonly #exec: ExecCredentialPlugin | undefined;
  #token: Secret | undefined;
  #basic: string | undefined;
  #cert: TlsIdentity | undefined;
  #execUsed: ExecCredentials | undefined;
  #current: RequestCredentials;

  constructor(options: AuthenticatorOptions) {
    this.#o = options;
    const { auth, tls } = options.config;
    const clock = options.clock;
    if (auth.type === 'token') {
      this.#token = auth.token;
      if (auth.tokenFile !== undefined) this.#tokenFile = new PolledFile({ path: auth.tokenFile, periodMs: TOKEN_FILE_PERIOD_MS, clock });
    } else if (auth.type === 'basic') {
      this.#basic = `Basic ${Buffer.from(`${auth.username}:${auth.password.reveal()}`).toString('base64')}`;
    } else if (auth.type === 'exec') {
      this.#exec = new ExecCredentialPlugin({ config: auth.exec, clock, logger: options.logger });
    }
    const cert: ClientCertificate | undefined = tls.clientCertificate;
    if (cert !== undefined) {
      this.#cert = { cert: cert.cert, key: cert.key };
      if (cert.certFile !== undefined) this.#certFile = new PolledFile({ path: cert.certFile, periodMs: CERT_FILE_PERIOD_MS, clock });
      if (cert.keyFile !== undefined) this.#keyFile = new PolledFile({ path: cert.keyFile, periodMs: CERT_FILE_PERIOD_MS, clock });
    }
    this.#current = this.#build();
  }

  async credentials(signal: AbortSignal): Promise<RequestCredentials> {
    if (this.#tokenFile !== undefined) await this.#readToken(false);
    if (this.#certFile !== undefined || this.#keyFile !== undefined) await this.#readCert();
    if (this.#exec !== undefined) this.#execUsed = await this.#exec.get(signal);
    return this.#update();
  }

  /**
   * After a 401 for a request sent with `used`: refreshes what can be refreshed (token file,
   * exec plugin). True when the credentials are now different, so one retry makes sense.
   */
  async refreshAfterUnauthorized(used: RequestCredentials, signal: AbortSignal): Promise<boolean> {
    if (used !== this.#current) return true;
    if (this.#tokenFile !== undefined) await this.#readToken(true);
    if (this.#exec !== undefined && this.#execUsed !== undefined) this.#execUsed = await this.#exec.refresh(this.#execUsed, signal);
    return this.#update() !== used;
  }

  /** Stops an exec plugin run in progress. */
  close(): void {
    this.#exec?.close();
  }

  async #readToken(force: boolean): Promise<void> {
    const file = this.#tokenFile!;
    let content: Buffer | undefined;
    try {
      content = await file.changed(force);
    } catch (err: unknown) {
      if (this.#token === undefined) {
        throw new PodConfigError('PODCONFIG_AUTH_FAILED', `token file ${file.path} cannot be read`, { cause: err, retryable: true });
      }
      this.#o.logger.warn({ err, tokenFile: file.path }, 'token file cannot be read; keeping the previous token');
      return;
    }
    if (content === undefined) return;
    const token = content.toString('utf8').trim();
    if (token === '') {
      this.#o.logger.warn({ tokenFile: file.path }, 'token file is empty; keeping the previous token');
      return;
    }
    // Never sendable (undici refuses the header, as Go does): said here, naming the file, instead of a transport
    // error per request. Its words name the problem, never the characters.
    const problem = headerValueProblem(token);
    if (problem !== undefined) {
      if (this.#token === undefined) throw new PodConfigError('PODCONFIG_AUTH_FAILED', `the token in token file ${file.path} ${problem}`, { retryable: true });
      this.#o.logger.warn({ tokenFile: file.path, problem }, 'token file holds a token that cannot be sent; keeping the previous token');
      return;
    }
    if (!new Secret(token).equals(this.#token)) {
      this.#token = new Secret(token);
      this.#o.logger.debug({ tokenFile: file.path }, 'token file changed');
    }
  }

  async #readCert(): Promise<void> {
    let cert: string | undefined;
    let key: string | undefined;
    try {
      const certChanged = await this.#certFile?.changed(false);
      const keyChanged = await this.#keyFile?.changed(false);
      if (certChanged === undefined && keyChanged === undefined) return;
      // One changed: read the other too, so a pair written in two steps is seen whole.
      cert = (certChanged ?? (await this.#certFile?.changed(true)))?.toString('utf8');
      key = (keyChanged ?? (await this.#keyFile?.changed(true)))?.toString('utf8');
    } catch (err: unknown) {
      this.#o.logger.warn({ err }, 'client certificate files cannot be read; keeping the previous certificate');
      return;
    }
    const next = { cert: cert ?? this.#cert!.cert, key: key === undefined ? this.#cert!.key : new Secret(key) };
    if (next.cert === this.#cert!.cert && next.key.equals(this.#cert!.key)) return;
    const problem = keyPairProblem(next.cert, next.key.reveal());
    if (problem !== undefined) {
      // Typically the certificate was written and the key not yet: the next check picks up both.
      this.#o.logger.warn({ problem }, 'client certificate files changed but do not form a usable pair; keeping the previous one');
      return;
    }
    this.#cert = next;
    this.#o.logger.info({ certFile: this.#certFile?.path, keyFile: this.#keyFile?.path }, 'client certificate reloaded');
  }

  #build(): RequestCredentials {
    const exec = this.#execUsed;
    const token = exec !== undefined ? exec.token : this.#token;
    const authorization = token !== undefined ? `Bearer ${token.reveal()}` : this.#basic;
    // A static client certificate wins; otherwise the plugin's (client-go: cert auth turns the plugin off).
    return { authorization, clientCertificate: this.#cert ?? exec?.clientCertificate };
  }

  /** Rebuilds the credentials, keeping the same object when nothing changed (callers compare identity). */
  #update(): RequestCredentials {
    const next = this.#build();
    const cur = this.#current;
    const sameCert =
      next.clientCertificate === cur.clientCertificate ||
      (next.clientCertificate !== undefined &&
        cur.clientCertificate !== undefined &&
        next.clientCertificate.cert === cur.clientCertificate.cert &&
        next.clientCertificate.key.equals(cur.clientCertificate.key));
    if (next.authorization !== cur.authorization || !sameCert) this.#current = next;
    return this.#current;
  }
}
