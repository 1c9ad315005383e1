import { StatusError, type StatusCause } from '@podconfig/core';

/** apimachinery `NewGenericServerResponse`: the reason for a status code without a `Status` body. */
const REASONS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export interface ResponseFailure {
  readonly statusCode: number;
  /** The response body (possibly truncated); a `Status` object when the apiserver answered. */
  readonly body: string;
  readonly retryAfterSeconds: number | undefined;
  /** `GET /api/v1/pods` (no query: it may hold secrets). */
  readonly describe: string;
  /** Whose credentials were used (`ClusterConfig.identity`), for 401 / 403. */
  readonly identity: string;
  /**
   * Why the request carried no credentials (no `Authorization`, no client certificate), when it carried none: a 401
   * then says so instead of blaming credentials that were never sent.
   */
  readonly noCredentials?: string | undefined;
  /** The response's `Content-Type`: a `text/*` body of a 5xx without a Status is quoted (an excerpt). */
  readonly contentType?: string | undefined;
}

/** Bytes of a 5xx text body quoted in the error (client-go quotes up to 2048; logs need less). */
export const MAX_BODY_EXCERPT_BYTES = 256;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Decodes a non-2xx response into core's {@link StatusError} (client-go `transformResponse`). */
export function statusErrorFromResponse(f: ResponseFailure): StatusError {
  let status: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(f.body);
    if (isRecord(parsed) && parsed.kind === 'Status') status = parsed;
  } catch {
    // Not JSON (a proxy's error page, say): a generic error for the status code.
  }
  const code = typeof status?.code === 'number' && status.code > 0 ? status.code : f.statusCode;
  const reason = str(status?.reason) ?? REASONS[code] ?? 'Unknown';
  const details = isRecord(status?.details) ? status.details : {};
  const causes: StatusCause[] = Array.isArray(details.causes)
    ? details.causes.filter(isRecord).map((c) => {
        const [why, message, field] = [str(c.reason), str(c.message), str(c.field)];
        return {
          ...(why === undefined ? {} : { reason: why }),
          ...(message === undefined ? {} : { message }),
          ...(field === undefined ? {} : { field }),
        };
      })
    : [];
  const retryAfterSeconds =
    f.retryAfterSeconds ?? (typeof details.retryAfterSeconds === 'number' ? details.retryAfterSeconds : undefined);
  let serverMessage = str(status?.message) ?? `the server answered ${f.statusCode}${status === undefined ? ' without a Status' : ''}`;
  if (status === undefined && f.statusCode >= 500 && /^\s*text\//i.test(f.contentType ?? '')) {
    const excerpt = bodyExcerpt(f.body);
    if (excerpt !== '') serverMessage += `: ${JSON.stringify(excerpt)}`;
  }
  let message: string;
  if (code === 401 && f.noCredentials !== undefined) {
    message = `unauthorized: no credentials were sent for ${f.identity}: ${f.noCredentials} (${f.describe}: ${serverMessage})`;
  } else if (code === 401) {
    message = `unauthorized: check the token/credentials of ${f.identity} (${f.describe}: ${serverMessage})`;
  } else if (code === 403) {
    message = `forbidden: ${f.identity} may not do this (${f.describe}: ${serverMessage})`;
  } else {
    message = `${f.describe}: ${serverMessage} (${code} ${reason})`;
  }
  return new StatusError(code, reason, message, {
    causes,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  });
}

/**
 * client-go's `newUnstructuredResponseError` quotes a text error body (a proxy's "upstream connect
 * error"): here its first {@link MAX_BODY_EXCERPT_BYTES} bytes, with control and format characters
 * (line breaks, escapes, bidi overrides) turned into spaces and runs of white space collapsed, so
 * that it cannot forge log lines; `…` marks a cut.
 */
export function bodyExcerpt(body: string): string {
  const bytes = Buffer.from(body, 'utf8');
  const cut = bytes.length > MAX_BODY_EXCERPT_BYTES;
  // A character split by the cut decodes as U+FFFD: drop it.
  const text = (cut ? bytes.subarray(0, MAX_BODY_EXCERPT_BYTES).toString('utf8').replace(/\uFFFD+$/, '') : body)
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text === '' ? '' : `${text}${cut ? '…' : ''}`;
}
