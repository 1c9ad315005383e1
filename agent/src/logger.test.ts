import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createRootLogger } from './logger.js';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _enc, done) { chunks.push(chunk.toString()); done(); } });
  return { stream, text: () => chunks.join('') };
}

describe('createRootLogger()', () => {
  it('writes JSON lines with the node name, component and ISO time', () => {
    const out = capture();
    const logger = createRootLogger({ level: 'info', nodeName: 'node-a', destination: out.stream, pretty: false });
    logger.child({ component: 'source.file' }).info({ pods: 2 }, 'manifest applied');
    const line = JSON.parse(out.text().trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, node: 'node-a', component: 'source.file', pods: 2, msg: 'manifest applied' });
    expect(String(line['time'])).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('shows a cause\'s message once when the error quotes it already, and appends the causes it does not quote', () => {
    const out = capture();
    const logger = createRootLogger({ level: 'info', nodeName: 'n', destination: out.stream, pretty: false });
    const root = new Error('ENOENT: no such file');
    const quoted = new Error(`kubeconfig ./kc: does not exist (${root.message})`, { cause: root });
    const outer = new Error(`--kubeconfig ./kc: ${quoted.message}`, { cause: quoted });
    logger.error({ err: outer }, 'invalid configuration');
    logger.error({ err: new Error('cannot start the plugin', { cause: new Error('permission denied') }) }, 'failed');
    const [first, second] = out.text().trim().split('\n').map((l) => JSON.parse(l) as { err: { message: string; stack: string } });
    expect(first!.err.message).toBe('--kubeconfig ./kc: kubeconfig ./kc: does not exist (ENOENT: no such file)');
    expect(first!.err.stack).toContain('caused by: Error: ENOENT: no such file');
    expect(second!.err.message).toBe('cannot start the plugin: permission denied');
  });

  it('appends causes that are only error-like, and short ones the message merely contains', () => {
    const out = capture();
    const logger = createRootLogger({ level: 'info', nodeName: 'n', destination: out.stream, pretty: false });
    logger.error({ err: new Error('cannot sync', { cause: { message: 'EACCES: permission denied', code: 'EACCES' } }) }, 'a');
    logger.error({ err: new Error('webhook http://127.0.0.1:8080/hook failed', { cause: new Error('8080') }) }, 'b');
    const [first, second] = out.text().trim().split('\n').map((l) => JSON.parse(l) as { err: { message: string } });
    expect(first!.err.message).toBe('cannot sync: EACCES: permission denied');
    expect(second!.err.message).toBe('webhook http://127.0.0.1:8080/hook failed: 8080');
  });

  it('redacts credentials wherever a logging mistake would put them', () => {
    const out = capture();
    const logger = createRootLogger({ level: 'info', nodeName: 'n', destination: out.stream, pretty: false });
    logger.info({ headers: { authorization: 'Bearer s3cr3t' }, request: { headers: { authorization: 'Basic c2Vj' } }, token: 'tok3n', user: { password: 'pw' } }, 'oops');
    const text = out.text();
    for (const secret of ['s3cr3t', 'c2Vj', 'tok3n', '"pw"']) expect(text).not.toContain(secret);
    expect(text.match(/\[REDACTED\]/g)).toHaveLength(4);
  });

  it('redacts a kubeconfig client-key-data, top-level and one level down (a user entry logged by mistake)', () => {
    const out = capture();
    const logger = createRootLogger({ level: 'info', nodeName: 'n', destination: out.stream, pretty: false });
    logger.info({ 'client-key-data': 'LS0tdG9wLWtleQ==' }, 'top');
    logger.info({ user: { 'client-key-data': 'LS0tbmVzdGVkLWtleQ==', 'client-certificate-data': 'cert' } }, 'nested');
    const [top, nested] = out.text().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(top!['client-key-data']).toBe('[REDACTED]');
    expect(nested!['user']).toEqual({ 'client-key-data': '[REDACTED]', 'client-certificate-data': 'cert' });
  });

  it('writes human-readable lines in pretty mode (used when stdout is a TTY)', () => {
    const out = capture();
    const logger = createRootLogger({ level: 'info', nodeName: 'n', destination: out.stream, pretty: true });
    logger.info({ component: 'agent' }, 'agent started');
    const text = out.text();
    expect(text).toContain('agent started');
    expect(() => JSON.parse(text.trim()) as unknown).toThrow();
  });

  it('honours the level', () => {
    const out = capture();
    createRootLogger({ level: 'warn', nodeName: 'n', destination: out.stream, pretty: false }).info({}, 'hidden');
    expect(out.text()).toBe('');
  });
});
