import { describe, expect, it } from 'vitest';
import { isLoopbackIp } from './loopback.js';

describe(isLoopbackIp.name, () => {
  it('takes 127.0.0.0/8 and ::1 however spelt, an IPv4-mapped loopback too; nothing else', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::FFFF:127.9.9.9']) expect([a, isLoopbackIp(a)]).toEqual([a, true]);
    for (const a of ['0.0.0.0', '::', '10.0.0.1', '::ffff:10.0.0.1', 'fe80::1', 'localhost', '[::1]', '127.0.0.1.example', '']) {
      expect([a, isLoopbackIp(a)]).toEqual([a, false]);
    }
  });
});
