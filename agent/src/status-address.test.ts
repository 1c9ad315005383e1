import { describe, expect, it } from 'vitest';
import { addressesCollide, formatStatusAddress, parseStatusAddress } from './status-address.js';

describe('parseStatusAddress()', () => {
  it('reads host:port and [v6]:port, "off" as none, and refuses the rest naming the flag', () => {
    expect(parseStatusAddress('127.0.0.1:10265', '--status-address')).toEqual({ host: '127.0.0.1', port: 10265 });
    expect(parseStatusAddress('[::1]:0', '--status-address')).toEqual({ host: '::1', port: 0 });
    expect(parseStatusAddress('off', '--status-address')).toBeUndefined();
    expect(() => parseStatusAddress('', '--status-address')).toThrow('--status-address: invalid address ""');
    expect(() => parseStatusAddress('127.0.0.1', '--status-address')).toThrow('want host:port');
  });

  it('suggests the example it is given', () => {
    expect(() => parseStatusAddress('x', '--metrics-bind-address', '0.0.0.0:10266')).toThrow('(want host:port, e.g. 0.0.0.0:10266, or "off")');
  });
});

describe('formatStatusAddress()', () => {
  it('writes host:port, an IPv6 host in brackets', () => {
    expect(formatStatusAddress({ host: '127.0.0.1', port: 10265 })).toBe('127.0.0.1:10265');
    expect(formatStatusAddress({ host: '::1', port: 0 })).toBe('[::1]:0');
  });
});

describe('addressesCollide()', () => {
  it.each<[string, string, string, boolean]>([
    ['the same address', '127.0.0.1:10265', '127.0.0.1:10265', true],
    ['every IPv4 interface and loopback', '0.0.0.0:10265', '127.0.0.1:10265', true],
    ['loopback and every interface', '[::1]:10265', '[::]:10265', true],
    ['every interface, spelt out', '[0:0:0:0:0:0:0:0]:10265', '10.0.0.1:10265', true],
    ['two ports', '0.0.0.0:10266', '127.0.0.1:10265', false],
    ['two hosts', '10.0.0.1:10265', '127.0.0.1:10265', false],
    ['port 0 twice (a free port each)', '0.0.0.0:0', '127.0.0.1:0', false],
  ])('%s: %s and %s → %s', (_what, a, b, collide) => {
    expect(addressesCollide(parseStatusAddress(a, 'a')!, parseStatusAddress(b, 'b')!)).toBe(collide);
  });
});
