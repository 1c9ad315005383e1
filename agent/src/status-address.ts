import { ConfigInvalidError } from '@podconfig/core';
import type { StatusAddress } from './agent-config.js';

/**
 * `host:port`, `[::1]:port`, or `off` to disable. Port 0 picks a free port (tests). An empty value is an error, not "off":
 * a template that renders nothing must not take the probes away without a word.
 */
export function parseStatusAddress(text: string, what: string): StatusAddress | undefined {
  const s = text.trim();
  if (s === 'off' || s === 'none') return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(s);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (m === null || host === undefined || host === '' || !Number.isInteger(port) || port > 65535) {
    throw new ConfigInvalidError(`${what}: invalid address "${text}" (want host:port, e.g. 127.0.0.1:10265, or "off")`);
  }
  return { host, port };
}

