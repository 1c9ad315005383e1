import { describe, expect, it } from 'vitest';
import { ShutdownSignalError } from './shutdown-signal-error.js';

describe(ShutdownSignalError.name, () => {
  it('is an Error named AbortError whose message and `signal` name the OS signal', () => {
    const err = new ShutdownSignalError('SIGTERM');
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: 'AbortError', signal: 'SIGTERM', message: 'podconfig-agent received SIGTERM: shutting down' });
  });

  it('is what throwIfAborted() throws once the agent\'s root signal aborted with it', () => {
    const root = new AbortController();
    const reason = new ShutdownSignalError('SIGINT');
    root.abort(reason);
    expect(() => root.signal.throwIfAborted()).toThrow(reason);
    // AbortSignal.any(), which the handler loader gives factories, passes the reason on.
    expect(AbortSignal.any([root.signal]).reason).toBe(reason);
  });
});
