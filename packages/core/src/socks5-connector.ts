import { connect as netConnect, isIP, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type * as Socks from 'socks';
import type { ConnectCallback, ConnectTarget } from './http-proxy-connector.js';
import { tlsConnect } from './builtins-on-first-use.js';
import { withGoServerVerification } from './go-server-verification.js';

/**
 * The `socks` package, loaded on first use: it takes ~25 ms to import, which every process that imports core (a
 * file-source agent, say) would otherwise pay at start-up without ever meeting a socks5 proxy.
 */
let socksModule: Promise<typeof Socks> | undefined;
const loadSocks = (): Promise<typeof Socks> => (socksModule ??= import('socks'));

/** Default time to reach the proxy and finish the SOCKS5 and TLS handshakes (undici's connect timeout). */
const DEFAULT_TIMEOUT_MS = 10_000;

export interface Socks5ConnectorOptions {
  /**
   * TLS towards an `https:` origin through the tunnel: CA, client certificate, `servername` (SNI and the name
   * checked); the server verified as Go verifies it (core's `withGoServerVerification`).
   */
  readonly tls?: ConnectionOptions;
  /** Reaching the proxy, the SOCKS5 handshake and the origin's TLS handshake together. Default 10 s. */
  readonly timeoutMs?: number;
}

/** A SOCKS5 failure: `code` `ERR_SOCKS5`, a message that names the proxy by host only (never its credentials). */
export class Socks5Error extends Error {
  readonly code = 'ERR_SOCKS5';
}

/**
 * A proxy URL for {@link socks5Connector}: `socks5:` or `socks5h:`. Go's transport takes both and hands the origin's
 * host name to the proxy for either; so does this connector, so the `h` ("the proxy resolves the name", as curl
 * reads it) changes nothing.
 */
export function isSocks5Proxy(proxy: URL): boolean {
  return proxy.protocol === 'socks5:' || proxy.protocol === 'socks5h:';
}

/**
 * A connector in undici's `connect` shape, like core's `SocketConnector`; it returns no socket when it fails before
 * opening one.
 */
export type Socks5SocketConnector = (target: ConnectTarget, callback: ConnectCallback) => Socket | undefined;

/**
 * An undici connector that reaches each origin through a SOCKS5 proxy (the `socks` package: RFC
 * 1928, user/password auth from the proxy URL as in RFC 1929; host names resolved by the proxy, as
 * Go's `x/net/proxy` does) and then speaks TLS to `https` origins with `tls`. It exists because
 * undici's `Socks5ProxyAgent` sends the origin's host as the TLS server name (SNI) even when it is
 * an IP address: here SNI is `tls.servername` when given (`tls-server-name`), else the origin's
 * host name, and none for an IP address (RFC 6066; the certificate is still checked against the IP).
 */
export function socks5Connector(proxy: URL, options: Socks5ConnectorOptions = {}): Socks5SocketConnector {
  const tls = withGoServerVerification(options.tls ?? {});
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const userId = decodeURIComponent(proxy.username);
  const password = decodeURIComponent(proxy.password);
  const failure = (reason: string): Socks5Error => new Socks5Error(`SOCKS5 proxy ${proxy.host}: ${reason}`);
  const socks = loadSocks();
  socks.catch(() => undefined); // a failure is reported by the connect that needs it
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    // `socks` writes these lengths as one byte without checking: a longer one would throw outside any promise.
    if (Buffer.byteLength(userId) > 255 || Buffer.byteLength(password) > 255) {
      callback(failure('user name or password too long'), null);
      return;
    }
    // performance.now(): a duration, which a wall-clock step (NTP) must not cut to nothing or stretch.
    const deadline = performance.now() + timeoutMs;
    const proxyHost = proxy.hostname.replace(/^\[|\]$/g, '');
    const proxyPort = Number(proxy.port) || 1080;
    // Our own socket to the proxy, returned at once: the pool's ConnectingSockets can end it at close(), which a
    // socket made inside the `socks` package would escape until its handshake timeout.
    const raw = netConnect({ host: proxyHost, port: proxyPort });
    let settled = false;
    const done: ConnectCallback = (...args) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      callback(...args);
    };
    const timer = setTimeout(() => {
      raw.destroy();
      done(failure('handshake timed out'), null);
    }, timeoutMs);
    const onConnectError = (err: Error): void => done(failure(err.message), null);
    raw.once('error', onConnectError);
    raw.once('connect', () => void socks.then(({ SocksClient }) => {
      if (settled) return; // failed or timed out meanwhile
      raw.off('error', onConnectError);
      SocksClient.createConnection({
        proxy: { host: proxyHost, port: proxyPort, type: 5, userId, password },
        command: 'connect',
        destination: { host, port },
        timeout: Math.max(deadline - performance.now(), 1),
        existing_socket: raw,
      }).then(
        ({ socket }) => {
          if (opts.protocol !== 'https:') return void done(null, socket);
          secure(socket, host, deadline, done);
        },
        // A `SocksClientError` carries its options, the password among them: only its message goes on.
        (err: unknown) => {
          raw.destroy();
          done(failure(socksReason(err, password)), null);
        },
      );
    }, (err: unknown) => {
      raw.destroy();
      done(failure(`the socks package did not load: ${err instanceof Error ? err.message : String(err)}`), null);
    }));
    return raw;
  };

  /** TLS over the tunnel; the certificate is checked against `servername`, else `host` (an IP address as one). */
  function secure(raw: Socket, host: string, deadline: number, callback: ConnectCallback): void {
    const options: ConnectionOptions = { ...tls, socket: raw, host };
    const serverName = tls.servername ?? (isIP(host) === 0 ? host : undefined);
    if (serverName === undefined) delete options.servername;
    else options.servername = serverName;
    const socket = tlsConnect(options);
    raw.on('error', () => undefined); // the TLS socket reports what goes wrong from here on
    const timer = setTimeout(() => socket.destroy(failure('TLS handshake timed out')), Math.max(deadline - performance.now(), 1));
    const onError = (err: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      raw.destroy();
      callback(err, null);
    };
    socket.once('error', onError);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.off('error', onError); // undici's own listeners take over
      callback(null, socket);
    });
  }
}

/** Why the `socks` handshake failed: our words for the failures a user can act on, the password masked in any other. */
function socksReason(err: unknown, password: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (message === 'Socks5 Authentication failed') return 'user name or password refused';
  if (message === 'Proxy connection timed out') return 'handshake timed out';
  return password === '' ? message : message.replaceAll(password, '***');
}
