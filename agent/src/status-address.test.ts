import { describe, expect, it } from 'vitest';
import { parseStatusAddress } from './status-address.js';

describe('parseStatusAddress()', () => {
  it('reads host:port and [v6]:port, "off" as none, and refuses the rest naming the flag', () => {
    expect(parseStatusAddress('127.0.0.1:10265', '--status-address')).toEqual({ host: '127.0.0.1', port: 10265 });
    expect(parseStatusAddress('[::1]:0', '--status-address')).toEqual({ host: '::1', port: 0 });
    expect(parseStatusAddress('off', '--status-address')).toBeUndefined();
    expect(() => parseStatusAddress('', '--status-address')).toThrow('--status-address: invalid address ""');
    expect(() => parseStatusAddress('127.0.0.1', '--status-address')).toThrow('want host:port');
  });
});
