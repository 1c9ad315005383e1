import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { ConfigInvalidError } from './errors.js';
import { isLoopbackIp } from './loopback.js';

/** The default port of each scheme a target or proxy URL may have, as Go's `canonicalAddr` fills it in. */
const DEFAULT_PORTS: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443', 'socks5:': '1080', 'socks5h:': '1080' };
/** Go's `parseProxy` schemes; `socks5h` is `socks5` to Go's transport (the proxy resolves the name either way). */
const PROXY_SCHEMES = new Set(['http:', 'https:', 'socks5:', 'socks5h:']);

/** A proxy variable as set, its value not yet read as a URL. */
interface ProxyVariable {
  readonly variable: string;
  readonly value: string;
}

/** What {@link EnvironmentProxy.proxyFor} returns: the proxy, and the variable it came from. */
interface ProxyFromVariable {
  readonly url: URL;
  readonly variable: string;
}

interface NoProxyEntry {
  /** An IP address (canonical form), or a domain suffix with its leading dot. */
  readonly ip?: string;
  readonly domain?: string;
  /** The domain entry had no leading dot: it matches the name itself too (`foo.com` matches `foo.com`). */
  readonly matchHost?: boolean;
  /** Empty: any port. */
  readonly port: string;
}

/**
 * The proxy settings of an environment, read as Go's `net/http` reads them (`http.ProxyFromEnvironment`, the
 * rules of golang.org/x/net/http/httpproxy), which is what the kubelet and client-go do when nothing else names a
 * proxy: `HTTPS_PROXY` for `https:` URLs, `HTTP_PROXY` for `http:` ones (each also lowercase; the uppercase one
 * wins), a value without a scheme taken as `http://host:port`, `socks5h://` as `socks5://`; never for `localhost`
 * or a loopback address; `NO_PROXY` a comma-separated list of IP addresses, CIDR ranges, domain names (`foo.com`
 * matches it and its subdomains, `.foo.com` and `*.foo.com` only subdomains), each optionally with `:port`, or `*`
 * for none at all.
 *
 * A proxy variable is read as a URL only when a request would use it, as Go reads it: `HTTP_PROXY` never for an
 * https target, `HTTPS_PROXY` never for an http one, neither for a target that `NO_PROXY` or loopback sends direct.
 * So a stray value in a variable podconfig does not use cannot stop it. Unlike Go, which ignores a value it cannot
 * parse (and sends the requests direct), a used value that is unusable is a configuration error naming the
 * variable: a proxy that is silently bypassed is worse than one that stops the agent.
 */
export class EnvironmentProxy {
  readonly #httpProxy: ProxyVariable | undefined;
  readonly #httpsProxy: ProxyVariable | undefined;
  /** Each variable's URL once read: every call for it returns the same one. */
  readonly #parsed = new Map<ProxyVariable, ProxyFromVariable>();
  readonly #noProxy: readonly NoProxyEntry[] | 'all';
  readonly #noProxyRanges = new BlockList();

  /** Takes `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` (or their lowercase forms) from `env` once; never throws. */
  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#httpProxy = firstSet(env, 'HTTP_PROXY');
    this.#httpsProxy = firstSet(env, 'HTTPS_PROXY');
    this.#noProxy = this.#parseNoProxy(firstSet(env, 'NO_PROXY')?.value ?? '');
  }

  /**
   * The proxy for a request to `target`, or `undefined` to connect directly. The proxy URL may carry
   * userinfo (its credentials): quote it only through `safeUrl()`. `variable` names where it came from. Throws
   * `ConfigInvalidError` naming the variable (never quoting it) when the one `target` would use is not a proxy URL.
   */
  proxyFor(target: URL): ProxyFromVariable | undefined {
    const proxy = target.protocol === 'https:' ? this.#httpsProxy : target.protocol === 'http:' ? this.#httpProxy : undefined;
    if (proxy === undefined || !this.#useProxy(target)) return undefined;
    let parsed = this.#parsed.get(proxy);
    if (parsed === undefined) {
      parsed = { url: proxyUrl(proxy), variable: proxy.variable };
      this.#parsed.set(proxy, parsed);
    }
    return parsed;
  }

  #useProxy(target: URL): boolean {
    const host = unbracket(target.hostname);
    if (host === 'localhost') return false;
    const ip = canonicalIp(host);
    if (ip !== undefined && isLoopbackIp(ip)) return false;
    if (this.#noProxy === 'all') return false;
    const port = target.port !== '' ? target.port : (DEFAULT_PORTS[target.protocol] ?? '');
    if (ip !== undefined && this.#noProxyRanges.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4')) return false;
    for (const entry of this.#noProxy) {
      if (entry.port !== '' && entry.port !== port) continue;
      if (entry.ip !== undefined) {
        if (entry.ip === ip) return false;
      } else if (entry.domain !== undefined && (host.endsWith(entry.domain) || (entry.matchHost === true && host === entry.domain.slice(1)))) {
        return false;
      }
    }
    return true;
  }

  #parseNoProxy(value: string): readonly NoProxyEntry[] | 'all' {
    const entries: NoProxyEntry[] = [];
    for (const raw of value.split(',')) {
      const p = raw.trim().toLowerCase();
      if (p === '') continue;
      if (p === '*') return 'all';
      const slash = p.indexOf('/');
      if (slash >= 0) {
        // A CIDR range (any port); a malformed one is ignored, as Go ignores what it cannot parse in NO_PROXY.
        const address = canonicalIp(p.slice(0, slash));
        const bits = p.slice(slash + 1);
        const family = address === undefined ? 0 : isIP(address);
        if (address !== undefined && /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32)) {
          this.#noProxyRanges.addSubnet(address, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
        }
        continue;
      }
      const split = splitHostPort(p);
      const host = split === undefined ? p : split[0];
      const port = split === undefined ? '' : split[1];
      if (host === '') continue;
      const ip = canonicalIp(host);
      if (ip !== undefined) {
        entries.push({ ip, port });
        continue;
      }
      let domain = host.startsWith('*.') ? host.slice(1) : host;
      const matchHost = !domain.startsWith('.');
      if (matchHost) domain = `.${domain}`;
      // The target's host name is in its ASCII (punycode) form: so must the entry be.
      const ascii = isAscii(domain) ? '' : domainToASCII(domain.slice(1));
      entries.push({ domain: ascii === '' ? domain : `.${ascii}`, matchHost, port });
    }
    return entries;
  }
}

function firstSet(env: NodeJS.ProcessEnv, name: string): ProxyVariable | undefined {
  for (const variable of [name, name.toLowerCase()]) {
    const value = env[variable];
    if (value !== undefined && value !== '') return { variable, value };
  }
  return undefined;
}

function proxyUrl(set: ProxyVariable): URL {
  const url = parseProxy(set.value);
  // Never quote the value: it may hold the proxy's password.
  if (url === undefined) {
    throw new ConfigInvalidError(
      `${set.variable}: not a proxy URL (http://host:port, https://host:port, socks5://host:port or socks5h://host:port, or host:port)`,
    );
  }
  try {
    // The proxy connectors decode the userinfo at each connection: a bad escape is refused here, once.
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw new ConfigInvalidError(`${set.variable}: its user:password has a malformed percent escape or is not UTF-8`);
  }
  return url;
}

/**
 * Go's `parseProxy`: a URL with a proxy scheme, else the value read as `http://<value>` (`proxy:3128`); an
 * explicit other scheme (`ftp://…`) is unusable, not `http://ftp//…`.
 */
function parseProxy(value: string): URL | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value);
  if (scheme !== null && !PROXY_SCHEMES.has(`${scheme[1]?.toLowerCase() ?? ''}:`)) return undefined;
  const asIs = URL.canParse(value) ? new URL(value) : undefined;
  if (asIs !== undefined && PROXY_SCHEMES.has(asIs.protocol) && asIs.hostname !== '') return asIs;
  if (scheme !== null) return undefined;
  const withScheme = URL.canParse(`http://${value}`) ? new URL(`http://${value}`) : undefined;
  return withScheme !== undefined && withScheme.hostname !== '' ? withScheme : undefined;
}

/** Go's `net.SplitHostPort` for a NO_PROXY entry: `host:port` or `[v6]:port`; `undefined` without a port. */
function splitHostPort(s: string): readonly [string, string] | undefined {
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    return end > 0 && s[end + 1] === ':' ? [s.slice(1, end), s.slice(end + 2)] : undefined;
  }
  const colon = s.lastIndexOf(':');
  if (colon < 0 || s.slice(0, colon).includes(':')) return undefined;
  return [s.slice(0, colon), s.slice(colon + 1)];
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The address in one spelling (`::ffff:127.0.0.1` as `127.0.0.1`, IPv6 compressed), or `undefined` for a name. */
function canonicalIp(host: string): string | undefined {
  const family = isIP(host);
  if (family === 4) return host;
  if (family !== 6) return undefined;
  const v6 = new URL(`http://[${host}]`).hostname.slice(1, -1);
  // An IPv4-mapped address is that IPv4 address, as Go's net.IP compares them.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (mapped === null) return v6;
  const [hi, lo] = [parseInt(mapped[1] ?? '0', 16), parseInt(mapped[2] ?? '0', 16)];
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

