import { PodConfigError, StatusError } from '@podconfig/core';
import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error.js';
import { statusErrorFromObject } from './status-error-from-object.js';

describe('statusErrorFromObject()', () => {
  it('names the watch and ends with the status code and reason when told where it came from', () => {
    const err = statusErrorFromObject({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' }, 'pods watch');
    expect(err.message).toBe('pods watch: too old resource version: 1 (5) (410 Expired)');
    expect(err.code).toBe('PODCONFIG_WATCH_EXPIRED');
    expect(statusErrorFromObject({ kind: 'Status', code: 500 }, 'nodes watch').message).toBe('nodes watch: watch ended with status 500');
    expect(statusErrorFromObject({ kind: 'Status', code: 500, reason: 'InternalError', message: 'Too large resource version' }, 'pods watch'))
      .toMatchObject({ isResourceVersionTooLarge: true });
  });

  it('decodes a 410 Status into a PODCONFIG_WATCH_EXPIRED StatusError', () => {
    const err = statusErrorFromObject({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' });
    expect(err).toBeInstanceOf(StatusError);
    expect(err).toMatchObject({ code: 'PODCONFIG_WATCH_EXPIRED', statusCode: 410, reason: 'Expired', message: 'too old resource version: 1 (5)' });
  });

  it('keeps causes and retryAfterSeconds, and infers the code from the reason when it is missing', () => {
    const err = statusErrorFromObject({
      kind: 'Status',
      reason: 'Timeout',
      message: 'Too large resource version',
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'x' }, 'junk'], retryAfterSeconds: 1 },
    }) as StatusError;
    expect(err.statusCode).toBe(504);
    expect(err.causes).toEqual([{ reason: 'ResourceVersionTooLarge', message: 'x' }]);
    expect(err.retryAfterSeconds).toBe(1);
    expect(err.isResourceVersionTooLarge).toBe(true);
    expect(err.retryable).toBe(true);
  });

  it('infers the code of every reason client-go knows when the Status has none: Expired is 410, so a relist', () => {
    const codes = Object.fromEntries(['Expired', 'Gone', 'TooManyRequests', 'BadRequest', 'Unauthorized', 'Forbidden', 'NotFound', 'Invalid',
      'Timeout', 'ServerTimeout', 'InternalError', 'ServiceUnavailable', 'SomethingNew'].map((reason) => {
      const err = statusErrorFromObject({ kind: 'Status', reason, message: 'm' }) as StatusError;
      return [reason, err.statusCode];
    }));
    expect(codes).toEqual({
      Expired: 410, Gone: 410, TooManyRequests: 429, BadRequest: 400, Unauthorized: 401, Forbidden: 403, NotFound: 404, Invalid: 422,
      Timeout: 504, ServerTimeout: 500, InternalError: 500, ServiceUnavailable: 503, SomethingNew: 500,
    });
    expect(classifyError(statusErrorFromObject({ kind: 'Status', reason: 'Expired', message: 'too old resource version' }))).toBe('expired');
  });

  it('turns an ERROR object that is not a Status into PODCONFIG_WATCH_DECODE', () => {
    for (const object of [{ kind: 'Pod' }, 'boom', null]) {
      const err = statusErrorFromObject(object);
      expect(err).not.toBeInstanceOf(StatusError);
      expect(PodConfigError.is(err, 'PODCONFIG_WATCH_DECODE')).toBe(true);
    }
  });
});
