import { describe, expect, it } from 'vitest';
import { validateHandler, validatePortNumOrName } from './validate-probe-handler.js';

type Handler = Parameters<typeof validateHandler>[0];

const run = (handler: Handler, gracePeriod: number | null = 30): string[] => {
  const errors: string[] = [];
  validateHandler(handler, gracePeriod ?? undefined, 'probe', errors);
  return errors;
};
const port = (value: number | string | undefined): string[] => {
  const errors: string[] = [];
  validatePortNumOrName(value, 'port', errors);
  return errors;
};

describe(validateHandler.name, () => {
  it('accepts the httpGet probes kubeadm writes (a host, a port number, HTTPS) and a named port', () => {
    expect(run({ httpGet: { host: '127.0.0.1', path: '/livez', port: 6443, scheme: 'HTTPS' } })).toEqual([]);
    expect(run({ httpGet: { path: '/healthz', port: 'metrics', scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: 'a b: c' }] } })).toEqual([]);
    expect(run({ tcpSocket: { port: 2379 } })).toEqual([]);
    expect(run({ grpc: { port: 9090 } })).toEqual([]);
  });

  it('requires a command for exec, without showing one', () => {
    expect(run({ exec: {} })).toEqual(['probe.exec.command: Required value']);
    expect(run({ exec: { command: [] } })).toEqual(['probe.exec.command: Required value']);
    expect(run({ exec: { command: ['cat', '/tmp/healthy'] } })).toEqual([]);
  });

  it('checks an httpGet port, path, scheme and header names, never header values', () => {
    const errors = run({ httpGet: {
      path: '', port: 0, scheme: 'FTP', httpHeaders: [{ name: 'X Bad', value: 'SECRET-TOKEN' }, { name: 'Authorization', value: 'Bearer x' }],
    } });
    expect(errors).toEqual([
      'probe.httpGet.path: Required value',
      'probe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'probe.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"',
      'probe.httpGet.httpHeaders[0].name: Invalid value: "X Bad": a valid HTTP header must consist of alphanumeric characters or \'-\' (e.g. \'X-Header-Name\', regex used for validation is \'[-A-Za-z0-9]+\')',
    ]);
    expect(errors.join()).not.toContain('SECRET-TOKEN');
  });

  it('reads a scheme or port left out as Go\'s zero value', () => {
    expect(run({ httpGet: { path: '/' } as unknown as NonNullable<Handler['httpGet']> })).toEqual([
      'probe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'probe.httpGet.scheme: Unsupported value: "": supported values: "HTTP", "HTTPS"',
    ]);
  });

  it('checks tcpSocket and grpc ports', () => {
    expect(run({ tcpSocket: { port: 65536 } })).toEqual(['probe.tcpSocket.port: Invalid value: 65536: must be between 1 and 65535, inclusive']);
    expect(run({ tcpSocket: { port: 'Metrics' } })[0]).toMatch(/^probe\.tcpSocket\.port: Invalid value: "Metrics": /);
    expect(run({ grpc: { port: 0 } })).toEqual(['probe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive']);
  });

  it('bounds a sleep by the pod\'s grace period, allowing 0 (PodLifecycleSleepActionAllowZero)', () => {
    expect(run({ sleep: { seconds: 0 } })).toEqual([]);
    expect(run({ sleep: { seconds: 30 } })).toEqual([]);
    expect(run({ sleep: { seconds: 31 } })).toEqual(['probe.sleep: Invalid value: 31: must be non-negative and less than terminationGracePeriodSeconds (30)']);
    expect(run({ sleep: { seconds: -1 } }, 5)).toEqual(['probe.sleep: Invalid value: -1: must be non-negative and less than terminationGracePeriodSeconds (5)']);
    // Without a grace period (itself refused elsewhere), no second error.
    expect(run({ sleep: { seconds: 31 } }, null)).toEqual([]);
  });

  it('counts the first action and refuses each later one at its own path', () => {
    expect(run({})).toEqual(['probe: Required value: must specify a handler type']);
    expect(run({ httpGet: { path: '/', port: 0, scheme: 'HTTP' }, exec: { command: ['true'] } })).toEqual([
      'probe.httpGet: Forbidden: may not specify more than 1 handler type',
    ]);
  });
});

describe(validatePortNumOrName.name, () => {
  it('takes a number 1-65535 or an IANA service name, and no number written as a string', () => {
    expect(port(1)).toEqual([]);
    expect(port(65535)).toEqual([]);
    expect(port('https')).toEqual([]);
    expect(port(undefined)).toEqual(['port: Invalid value: 0: must be between 1 and 65535, inclusive']);
    expect(port('8080')).toEqual(['port: Invalid value: "8080": must contain at least one letter (a-z)']);
    expect(port('a'.repeat(16))).toEqual(['port: Invalid value: "aaaaaaaaaaaaaaaa": must be no more than 15 characters']);
  });
});
