import {
  ConnectingSockets, basicAuthFromUserinfo, httpProxyConnector, isSocks5Proxy, proxySocketConnector, socks5Connector, toAbsoluteForm,
  withGoServerVerification,
} from '@podconfig/core';
import type { Logger } from 'pino';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import type { ClusterConfig } from './cluster-config.js';
import type { TlsIdentity } from './authenticator.js';

export interface ConnectionPoolOptions {
  readonly config: ClusterConfig;
  /** Already a `kube.client` child. */
  readonly logger: Logger;
}

/**
 * One keep-alive pool per cluster (an undici `Agent`; for an http(s) `proxy-url` with core's `httpProxyConnector`,
 * for a socks5 one with {@link socks5Connector}) with
 * the cluster's TLS settings: its CA only (not the system roots) when it has one, every certificate in it a trust
 * anchor, `tls-server-name` as SNI and for the hostname check, which as in Go reads the subjectAltName only, never
 * the Common Name (core's `withGoServerVerification`), no verification at all only for
 * `insecure-skip-tls-verify`. undici takes client certificates per pool, so a new certificate
 * (rotated files, exec plugin) gets a new pool; the old one finishes its requests and closes
 * (client-go closes the old connections too).
 */
export class ConnectionPool {
  readonly #o: ConnectionPoolOptions;
  #current: { readonly identity: TlsIdentity | undefined; readonly dispatcher: Dispatcher } | undefined;
  readonly #retired = new Set<Dispatcher>();
  /** Sockets of every pool still connecting: close() ends them too. */
  readonly #connecting = new ConnectingSockets();

  constructor(options: ConnectionPoolOptions) {
    this.#o = options;
  }

  /** The pool for requests that present `identity` (or none). */
  dispatcher(identity: TlsIdentity | undefined): Dispatcher {
    const current = this.#current;
    if (current !== undefined && sameIdentity(current.identity, identity)) return current.dispatcher;
    const dispatcher = this.#create(identity);
    this.#current = { identity, dispatcher };
    if (current !== undefined) {
      this.#o.logger.info({}, 'client certificate changed; new connections use it');
      this.#retired.add(current.dispatcher);
      current.dispatcher
        .close()
        .catch((err: unknown) => this.#o.logger.debug({ err }, 'closing the previous connection pool failed'))
        .finally(() => this.#retired.delete(current.dispatcher));
    }
    return dispatcher;
  }

  /** Destroys every pool and the sockets still connecting (to a blackholed server, say): requests in flight fail. */
  async close(): Promise<void> {
    const all = [...this.#retired, ...(this.#current === undefined ? [] : [this.#current.dispatcher])];
    this.#current = undefined;
    this.#retired.clear();
    const destroyed = Promise.all(all.map((d) => d.destroy()));
    // undici's destroy() leaves a pending connect (a blackholed server) open until its connect timeout.
    this.#connecting.destroy(new Error('the connection pool is closed'));
    await destroyed;
  }

  #create(identity: TlsIdentity | undefined): Dispatcher {
    const { tls, proxyUrl } = this.#o.config;
    const options = withGoServerVerification({
      ...(tls.ca === undefined ? {} : { ca: tls.ca }),
      rejectUnauthorized: !tls.insecureSkipVerify,
      ...(tls.serverName === undefined ? {} : { servername: tls.serverName }),
      ...(identity === undefined ? {} : { cert: identity.cert, key: identity.key.reveal() }),
    });
    // undici's SOCKS5 agent sends an IP address as SNI (RFC 6066 forbids it): ours sends host names only.
    if (proxyUrl !== undefined && isSocks5Proxy(proxyUrl)) return new Agent({ connect: this.#connecting.wrap(socks5Connector(proxyUrl, { tls: options })) });
    // Our CONNECT, not undici's ProxyAgent: one deadline for the proxy and TLS handshakes (its CONNECT waited up to
    // 300 s on a proxy that never answers), Proxy-Authorization for a user alone too, and a pending connect that
    // close() ends.
    if (proxyUrl !== undefined && this.#o.config.server.protocol === 'http:') {
      // A plain-http server: each request to the proxy in absolute form, as Go's transport sends it (no CONNECT,
      // which proxies commonly allow to port 443 only).
      const authorization = basicAuthFromUserinfo(proxyUrl);
      return new Agent({ connect: this.#connecting.wrap(proxySocketConnector(proxyUrl, { tls: options })) })
        .compose((dispatch) => (opts, handler) => dispatch(toAbsoluteForm(opts, authorization), handler));
    }
    if (proxyUrl !== undefined) return new Agent({ connect: this.#connecting.wrap(httpProxyConnector(proxyUrl, { tls: options })) });
    const connector = this.#connecting.wrap(buildConnector(options));
    const serverName = tls.serverName;
    if (serverName === undefined) return new Agent({ connect: connector });
    // undici prefers the request's Host name over the connector's `servername`; tls-server-name must win.
    return new Agent({ connect: (opts, callback) => connector({ ...opts, servername: serverName }, callback) });
  }
}

function sameIdentity(a: TlsIdentity | undefined, b: TlsIdentity | undefined): boolean {
  if (a === b) return true;
  return a !== undefined && b !== undefined && a.cert === b.cert && a.key.equals(b.key);
}
