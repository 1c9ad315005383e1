import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * `address` is a loopback IP address, however it is spelt (`127.1.2.3`, `0:0:0:0:0:0:0:1`, an IPv4-mapped
 * `::ffff:127.0.0.1`, as Go's `net.IP.IsLoopback` reads it); a host name, bracketed or not, is not. For the status
 * server's bind address, the proxy rules (never a proxy for loopback) and the webhook handler's cleartext warning.
 */
export function isLoopbackIp(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped !== undefined) return LOOPBACK.check(mapped, 'ipv4');
  const family = isIP(address);
  return family === 6 ? LOOPBACK.check(address, 'ipv6') : family === 4 && LOOPBACK.check(address, 'ipv4');
}
