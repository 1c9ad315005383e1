import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, parseStatusAddress } from './status-address.js';

describe('parseStatusAddress()', () => {
  it('reads host:port and [v6]:port, "off" as none, and refuses the rest naming the flag', () => {
    expect(parseStatusAddress('127.0.0.1:10265', '--status-address')).toEqual({ host: '127.0.0.1', port: 10265 });
    expect(parseStatusAddress('[::1]:0', '--status-address')).toEqual({ host: '::1', port: 0 });
    expect(parseStatusAddress('off', '--status-address')).toBeUndefined();
    expect(() => parseStatusAddress('', '--status-address')).toThrow('--status-address: invalid address ""');
    expect(() => parseStatusAddress('127.0.0.1', '--status-address')).toThrow('want host:port');
  });
});

describe('isLoopbackAddress()', () => {
  it('is true for 127.0.0.0/8, ::1 and their IPv4-mapped form, false for any address that reaches beyond the host', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect([a, isLoopbackAddress(a)]).toEqual([a, true]);
    for (const a of ['0.0.0.0', '::', '10.0.0.1', '::ffff:10.0.0.1', 'fe80::1']) expect([a, isLoopbackAddress(a)]).toEqual([a, false]);
  });
});
