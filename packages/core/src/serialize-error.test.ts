import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { PodConfigError, StatusError } from './errors.js';
import { serializeErrorWith } from './serialize-error.js';

const serializeError = serializeErrorWith(pino.stdSerializers.err);

/** The JSON lines a pino logger with `serializers` wrote for `log`. */
function lines(serializers: pino.LoggerOptions['serializers'], log: (logger: pino.Logger) => void): Record<string, Record<string, unknown>>[] {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _enc, done) { chunks.push(chunk.toString()); done(); } });
  log(pino({ level: 'info', ...(serializers === undefined ? {} : { serializers }) }, stream));
  return chunks.join('').trim().split('\n').map((l) => JSON.parse(l) as Record<string, Record<string, unknown>>);
}

describe(serializeErrorWith.name, () => {
  it('says a cause the message quotes once, where pino\'s own serializer says it twice', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const err = new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', `http://127.0.0.1:1/pods.yaml: request failed: ${refused.message}`, { cause: refused });
    const [plain] = lines(undefined, (l) => l.warn({ err }, 'poll failed'));
    const [ours] = lines({ err: serializeError }, (l) => l.warn({ err }, 'poll failed'));
    expect(plain!['err']!['message']).toBe(`${err.message}: ${refused.message}`);
    expect(ours!['err']).toMatchObject({ type: 'PodConfigError', message: err.message, code: 'PODCONFIG_SOURCE_UNAVAILABLE' });
    expect(ours!['err']!['stack']).toContain('caused by: Error: connect ECONNREFUSED');
  });

  it('leaves the stack out for a failure of the outside (a rejected manifest, a Status, a retryable error), and keeps it for other errors', () => {
    const rejected = Object.assign(new Error('/m/web.yaml: strict decoding error: unknown field "spec.containerz"'), { code: 'PODCONFIG_MANIFEST_INVALID' });
    const status = new StatusError(403, 'Forbidden', 'pods is forbidden: User "x" cannot list resource "pods"');
    const refused = new PodConfigError('PODCONFIG_SOURCE_UNAVAILABLE', 'GET /api/v1/pods failed: connect ECONNREFUSED 127.0.0.1:6443', { retryable: true });
    const internal = new PodConfigError('PODCONFIG_INTERNAL', 'handler 3 was not loaded');
    const notYet = new PodConfigError('PODCONFIG_CONFIG_INVALID', '--kubeconfig: kubeconfig /k: does not exist', { retryable: true });
    const logged = lines({ err: serializeError }, (l) => {
      for (const err of [rejected, status, refused, internal, notYet, Object.assign(new Error('watch failed'), { code: 'PODCONFIG_WATCH_FAILED' })]) l.warn({ err }, 'x');
    });
    expect(logged[0]!['err']).toEqual({ type: 'Error', message: rejected.message, code: 'PODCONFIG_MANIFEST_INVALID' });
    expect(logged.map((l) => 'stack' in l['err']!)).toEqual([false, false, false, true, true, true]);
    expect(logged[2]!['err']).toMatchObject({ type: 'PodConfigError', message: refused.message, code: 'PODCONFIG_SOURCE_UNAVAILABLE', retryable: true });
  });

  it('passes what is not an Error through as pino does', () => {
    const [line] = lines({ err: serializeError }, (l) => l.warn({ err: 'a string' }, 'odd'));
    expect(line!['err']).toBe('a string');
  });
});
