import { ConfigInvalidError } from '@podconfig/core';
import type { StatusAddress } from './agent-config.js';

/**
 * `host:port`, `[::1]:port`, or `off` to disable. Port 0 picks a free port (tests). An empty value is an error, not "off":
 * a template that renders nothing must not take the probes away without a word. `example` is the address an error
 * suggests (`--status-address`'s default unless given).
 */
export function parseStatusAddress(text: string, what: string, example = '127.0.0.1:10265'): StatusAddress | undefined {
  const s = text.trim();
  if (s === 'off' || s === 'none') return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(s);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (m === null || host === undefined || host === '' || !Number.isInteger(port) || port > 65535) {
    throw new ConfigInvalidError(`${what}: invalid address "${text}" (want host:port, e.g. ${example}, or "off")`);
  }
  return { host, port };
}

/** `host:port` as it was given: an IPv6 host in brackets (`[::1]:10265`). */
export function formatStatusAddress(address: StatusAddress): string {
  return `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}

/** An address that takes its port on every interface (`0.0.0.0`, `::`): any other on that port collides with it. */
function isUnspecified(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || /^(0{0,4}:){2,7}0{0,4}$/.test(host);
}

/**
 * Whether two listeners' addresses take the same port: the same host, or either on every interface. Port 0 (a free
 * port each) never collides.
 */
export function addressesCollide(a: StatusAddress, b: StatusAddress): boolean {
  if (a.port === 0 || a.port !== b.port) return false;
  return a.host.toLowerCase() === b.host.toLowerCase() || isUnspecified(a.host) || isUnspecified(b.host);
}
