/** Stable error codes: match on these, never on messages. */
export type PodConfigErrorCode =
  | 'PODCONFIG_CONFIG_INVALID'
  | 'PODCONFIG_MANIFEST_INVALID'
  | 'PODCONFIG_MANIFEST_TOO_LARGE'
  | 'PODCONFIG_MANIFEST_FORBIDDEN_REFERENCE'
  | 'PODCONFIG_SOURCE_UNAVAILABLE'
  | 'PODCONFIG_HTTP_STATUS'
  | 'PODCONFIG_BODY_TOO_LARGE'
  | 'PODCONFIG_FILE_TOO_LARGE'
  | 'PODCONFIG_TIMEOUT'
  | 'PODCONFIG_REDIRECT'
  | 'PODCONFIG_KUBECONFIG_INVALID'
  | 'PODCONFIG_AUTH_FAILED'
  | 'PODCONFIG_TLS'
  | 'PODCONFIG_API_STATUS'
  | 'PODCONFIG_WATCH_EXPIRED'
  | 'PODCONFIG_WATCH_DECODE'
  | 'PODCONFIG_WATCH_SHORT'
  | 'PODCONFIG_HANDLER_FAILED'
  | 'PODCONFIG_HANDLER_TIMEOUT'
  | 'PODCONFIG_PLUGIN_LOAD'
  | 'PODCONFIG_INTERNAL';

const brand: unique symbol = Symbol.for('podconfig.PodConfigError');

/**
 * The one base error. `is()` checks a `Symbol.for` brand so it survives duplicate package
 * copies. Subclass only to carry data. Messages never contain secrets (tokens, header values,
 * URL userinfo or query strings): they end up in logs and `/sources`.
 */
export class PodConfigError extends Error {
  readonly [brand] = true;
  readonly code: PodConfigErrorCode;
  readonly retryable: boolean;

  constructor(code: PodConfigErrorCode, message: string, options: ErrorOptions & { retryable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
  }

  static is(value: unknown, code?: PodConfigErrorCode): value is PodConfigError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [brand]?: unknown })[brand] === true &&
      (code === undefined || (value as PodConfigError).code === code)
    );
  }
}

/** A source could not be reached or answered badly; it retries with backoff. */
export class SourceUnavailableError extends PodConfigError {
  constructor(message: string, options: ErrorOptions = {}) {
    super('PODCONFIG_SOURCE_UNAVAILABLE', message, { ...options, retryable: true });
  }
}

/** The agent's configuration (flags, config file, environment) is invalid: exit non-zero. */
export class ConfigInvalidError extends PodConfigError {
  /**
   * `retryable`: the setting is right but what it names is not there yet (a status port still taken, a
   * kubeconfig file not yet written): trying again later may succeed, where a bad value never will.
   */
  constructor(message: string, options: ErrorOptions & { retryable?: boolean } = {}) {
    super('PODCONFIG_CONFIG_INVALID', message, options);
  }
}

/** Turns anything thrown into a one-line message (for `/sources` and status fields). */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** A cause from a Kubernetes `Status` (`details.causes[]`). */
export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/**
 * A Kubernetes API error, decoded from a `Status` response or watch ERROR event.
 * `410 Gone` / reason `Expired` has code `PODCONFIG_WATCH_EXPIRED`; everything else `PODCONFIG_API_STATUS`.
 * Lives in core so the client that throws it and the reflector that classifies it share one type.
 */
export class StatusError extends PodConfigError {
  readonly statusCode: number;
  readonly reason: string;
  readonly causes: readonly StatusCause[];
  /** From `Retry-After` or `details.retryAfterSeconds`, when given. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    statusCode: number,
    reason: string,
    message: string,
    options: ErrorOptions & { causes?: readonly StatusCause[]; retryAfterSeconds?: number } = {},
  ) {
    const expired = statusCode === 410 || reason === 'Expired' || reason === 'Gone';
    super(expired ? 'PODCONFIG_WATCH_EXPIRED' : 'PODCONFIG_API_STATUS', message, {
      ...(options.cause === undefined ? {} : { cause: options.cause }),
      retryable: statusCode === 429 || statusCode >= 500,
    });
    this.statusCode = statusCode;
    this.reason = reason;
    this.causes = options.causes ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The "too large resource version" condition (cause `ResourceVersionTooLarge` or the legacy message). */
  get isResourceVersionTooLarge(): boolean {
    return this.causes.some((c) => c.reason === 'ResourceVersionTooLarge') || /too large resource version/i.test(this.message);
  }
}
