import { PodConfigError, StatusError, type StatusCause } from '@podconfig/core';

const STATUS_CODES_BY_REASON: Readonly<Record<string, number>> = {
  Expired: 410,
  Gone: 410,
  TooManyRequests: 429,
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  Invalid: 422,
  Timeout: 504,
  ServerTimeout: 500,
  InternalError: 500,
  ServiceUnavailable: 503,
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Decodes the `Status` object of a watch ERROR event into core's {@link StatusError} (client-go
 * `apierrors.FromObject`). An object that is not a Status is an undecodable stream (`PODCONFIG_WATCH_DECODE`).
 * `where` (`pods watch`) starts the message, and the status code and reason end it, as other errors name their request.
 */
export function statusErrorFromObject(object: unknown, where?: string): StatusError | PodConfigError {
  const prefix = where === undefined ? '' : `${where}: `;
  if (!isRecord(object) || (object.kind !== undefined && object.kind !== 'Status')) {
    return new PodConfigError('PODCONFIG_WATCH_DECODE', `${prefix}watch ERROR event does not carry a Status object`);
  }
  const reason = str(object.reason) ?? '';
  const code = typeof object.code === 'number' && object.code > 0 ? object.code : (STATUS_CODES_BY_REASON[reason] ?? 500);
  const details = isRecord(object.details) ? object.details : {};
  const causes: StatusCause[] = Array.isArray(details.causes)
    ? details.causes.filter(isRecord).map((c) => {
        const [why, text, field] = [str(c.reason), str(c.message), str(c.field)];
        return {
          ...(why === undefined ? {} : { reason: why }),
          ...(text === undefined ? {} : { message: text }),
          ...(field === undefined ? {} : { field }),
        };
      })
    : [];
  const retryAfter = typeof details.retryAfterSeconds === 'number' ? details.retryAfterSeconds : undefined;
  const status = `${code}${reason === '' ? '' : ` ${reason}`}`;
  const text = str(object.message);
  const message = text === undefined ? `${prefix}watch ended with status ${status}` : where === undefined ? text : `${prefix}${text} (${status})`;
  return new StatusError(code, reason, message, {
    causes,
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
  });
}
