import { connect as netConnect, isIP, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { tlsConnect } from './builtins-on-first-use.js';
import { withGoServerVerification } from './go-server-verification.js';

/** What an HTTP client's connector is asked for (undici's `connect` option's first argument, structurally). */
export interface ConnectTarget {
  /** The origin's host; an IPv6 address may come in brackets. */
  readonly hostname: string;
  readonly protocol: string;
  /** Empty for the scheme's default port. */
  readonly port: string;
}

/** undici's connect callback, structurally: an error, or the socket to speak HTTP on. */
export type ConnectCallback = (...args: [null, Socket] | [Error, null]) => void;

/** A connector in undici's shape; it returns the socket it opened, so that `ConnectingSockets` can end it. */
export type SocketConnector = (target: ConnectTarget, callback: ConnectCallback) => Socket;

export interface HttpProxyConnectorOptions {
  /**
   * TLS towards an `https:` origin through the tunnel: CA, client certificate, `servername` (SNI and the name
   * checked); towards an `https:` proxy as well (with the proxy's name), as Go's transport does. Either server is
   * verified as Go verifies it (core's `withGoServerVerification`: no Common Name fallback, every CA an anchor).
   */
  readonly tls?: ConnectionOptions;
  /** Reaching the proxy, the CONNECT exchange and the origin's TLS handshake together. Default 10 s (undici's connect timeout). */
  readonly timeoutMs?: number;
}

/** A proxy failure: `code` `ERR_HTTP_PROXY`, a message that names the proxy by host only (never its credentials). */
export class HttpProxyError extends Error {
  readonly code = 'ERR_HTTP_PROXY';
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** The proxy's answer to CONNECT, headers included, must fit in this. */
const MAX_RESPONSE_HEAD = 64 * 1024;

/**
 * The socket to an http or https proxy itself: TCP, or TLS with the client's own TLS settings (`tls`: its CA, its
 * client certificate), as Go's transport speaks TLS to an https proxy, the name checked and sent as SNI being the
 * proxy's (none for an IP address, RFC 6066).
 */
function connectToProxy(proxy: URL, tls: ConnectionOptions = {}): Socket {
  const host = bare(proxy.hostname);
  if (proxy.protocol === 'https:') {
    const options: ConnectionOptions = { ...withGoServerVerification(tls), host, port: Number(proxy.port) || 443, ALPNProtocols: ['http/1.1'] };
    if (isIP(host) === 0) options.servername = host;
    else delete options.servername;
    return tlsConnect(options);
  }
  return netConnect({ host, port: Number(proxy.port) || 80 });
}

/**
 * A connector that opens every connection to the proxy itself, whatever origin it is asked for: for requests
 * sent to an http or https proxy in absolute form (`GET http://host/path`), as Go sends plain-http requests
 * through a proxy. Reaching the proxy (and its TLS handshake) has `timeoutMs` (default 10 s).
 */
export function proxySocketConnector(proxy: URL, options: HttpProxyConnectorOptions = {}): SocketConnector {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return (_target, callback) => {
    const socket = connectToProxy(proxy, options.tls);
    const timer = setTimeout(() => socket.destroy(new HttpProxyError(`proxy ${proxy.host}: not reached within ${timeoutMs} ms`)), timeoutMs);
    const onError = (err: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      callback(err, null);
    };
    socket.once('error', onError);
    socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      callback(null, socket);
    });
    return socket;
  };
}

/**
 * A connector that reaches each origin through an HTTP proxy's `CONNECT` tunnel, as Go's transport does for an
 * `https` proxy URL: the proxy URL's userinfo as `Proxy-Authorization: Basic` (a user alone too), only its host
 * and port used (a path is ignored), then TLS to an `https:` origin over the tunnel (SNI `tls.servername`, else
 * the origin's host name, none for an IP address; the certificate still checked). One deadline covers it all,
 * so a proxy that accepts and never answers fails the connect instead of holding the request. It returns the
 * socket to the proxy: destroying it (core's `ConnectingSockets`) fails the connect at once.
 */
export function httpProxyConnector(proxy: URL, options: HttpProxyConnectorOptions = {}): SocketConnector {
  const authorization = basicAuthFromUserinfo(proxy);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const failure = (reason: string): HttpProxyError => new HttpProxyError(`proxy ${proxy.host}: ${reason}`);
  return (target, callback) => {
    const host = bare(target.hostname);
    const port = target.port !== '' ? target.port : target.protocol === 'https:' ? '443' : '80';
    const authority = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
    const raw = connectToProxy(proxy, options.tls);
    let done = false;
    const finish = (...args: [null, Socket] | [Error, null]): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      raw.off('data', onData);
      callback(...args);
    };
    const fail = (err: Error): void => {
      raw.destroy();
      finish(err, null);
    };
    const timer = setTimeout(() => fail(failure(`no tunnel to ${authority} within ${timeoutMs} ms`)), timeoutMs);
    // `on`, not `once`: a socket may report a second error while being torn down, and an unheard one would throw.
    raw.on('error', (err: Error) => fail(err));
    raw.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      raw.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${authorization === undefined ? '' : `Proxy-Authorization: ${authorization}\r\n`}\r\n`);
    });
    // A proxy that hangs up before its answer is a failure now, not at the deadline (Go: "proxyconnect tcp: EOF").
    raw.once('close', () => fail(failure(`closed the connection before answering CONNECT ${authority}`)));
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      // The blank line after the headers; lines may end in LF alone, as Go's reader takes them.
      const blank = /\r?\n\r?\n/.exec(head.toString('latin1'));
      if (blank === null) {
        if (head.length > MAX_RESPONSE_HEAD) fail(failure(`its answer to CONNECT ${authority} has headers over ${MAX_RESPONSE_HEAD} bytes`));
        return;
      }
      raw.off('data', onData);
      const end = blank.index;
      const status = /^HTTP\/1\.[01] (\d{3})(?: ([^\r\n]*))?\r?(?:\n|$)/.exec(head.subarray(0, end + 1).toString('latin1'));
      if (status === null) return fail(failure(`its answer to CONNECT ${authority} is not HTTP`));
      if (status[1] !== '200') {
        const reason = (status[2] ?? '').replace(/[^\x20-\x7e]/g, '').slice(0, 100);
        return fail(failure(`CONNECT ${authority} answered ${status[1] ?? ''}${reason === '' ? '' : ` ${reason}`}`));
      }
      if (target.protocol === 'https:') return secure(raw, host, options.tls ?? {}, fail, (socket) => finish(null, socket));
      // Paused, with what came after the headers put back, until the HTTP client reads (undici: on 'readable').
      raw.pause();
      const rest = head.subarray(end + blank[0].length);
      if (rest.length > 0) raw.unshift(rest);
      finish(null, raw);
    };
    raw.on('data', onData);
    return raw;
  };
}

/** TLS over the tunnel; the certificate is checked against `servername`, else `host` (an IP address as one). */
function secure(raw: Socket, host: string, tls: ConnectionOptions, fail: (err: Error) => void, done: (socket: Socket) => void): void {
  const options: ConnectionOptions = { ...withGoServerVerification(tls), socket: raw, host };
  const serverName = tls.servername ?? (isIP(host) === 0 ? host : undefined);
  if (serverName === undefined) delete options.servername;
  else options.servername = serverName;
  const socket = tlsConnect(options);
  const onError = (err: Error): void => {
    socket.destroy();
    fail(err);
  };
  socket.once('error', onError);
  socket.once('secureConnect', () => {
    socket.off('error', onError); // the HTTP client's own listeners take over
    done(socket);
  });
}

/**
 * `Basic base64(user:password)` of a URL's userinfo (percent-decoded, UTF-8; a user alone too), as Go sends a
 * URL's or a proxy URL's credentials; `undefined` without userinfo. Throws `URIError` for a malformed escape.
 */
export function basicAuthFromUserinfo(url: URL): string | undefined {
  if (url.username === '' && url.password === '') return undefined;
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
}

function bare(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
