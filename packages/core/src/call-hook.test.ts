import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { callHook } from './call-hook.js';

describe('callHook()', () => {
  it('calls the hook, and logs one that throws at warn instead of throwing', () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    let called = 0;
    callHook(log, 'onThing hook', () => { called++; });
    expect(() => callHook(log, 'onThing hook', () => { throw new Error('broke'); })).not.toThrow();
    expect(called).toBe(1);
    expect(lines).toMatchObject([{ level: 40, msg: 'onThing hook threw; ignored', err: { message: 'broke' } }]);
  });
});
