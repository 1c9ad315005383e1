import { ConfigInvalidError } from './errors.js';

/** Kubernetes' `IsDNS1123Subdomain`, which node names must be. */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Whether `name`, lowercased, is a node name: a DNS-1123 subdomain of at most 253 characters. Lowercased because the
 * kubelet lowercases the name it runs under (`GetHostname`) and the static pod names it suffixes with it.
 */
export function isNodeName(name: string): boolean {
  return name.length <= 253 && DNS1123_SUBDOMAIN.test(name.toLowerCase());
}

/**
 * `name` when {@link isNodeName} says it is one; else a `ConfigInvalidError` that starts with `what` (the option or
 * flag) and says what is wrong: empty, only white space, or not a DNS-1123 subdomain.
 */
export function checkNodeName(name: unknown, what: string): string {
  if (typeof name !== 'string' || name === '') throw new ConfigInvalidError(`${what}: the node name is empty`);
  if (name.trim() === '') throw new ConfigInvalidError(`${what}: the node name is empty (only white space)`);
  if (!isNodeName(name)) throw new ConfigInvalidError(`${what}: ${JSON.stringify(name)} is not a valid node name (a DNS-1123 subdomain)`);
  return name;
}
