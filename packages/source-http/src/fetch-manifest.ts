import type { IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { PodConfigError, REDIRECT_STATUSES, SourceUnavailableError, errorMessage, raceSignal, redirectTarget, safeUrl, tlsFailure, tlsFailureText, withTimeout } from '@podconfig/core';
import { request, type Dispatcher } from 'undici';

/** One GET of the manifest URL, redirects included. */
export interface ManifestRequest {
  /** Without userinfo (see {@link stripCredentials}); credentials come as `basicAuth`. */
  readonly url: URL;
  /** `Authorization` value built from the URL's userinfo, sent unless a configured header sets `Authorization`. */
  readonly basicAuth: string | undefined;
  /** Configured headers, in order, values already in wire form; repeated names are sent as repeated header lines. */
  readonly headers: readonly (readonly [string, string])[];
  /** Validators of the last applied response (decision D7); `undefined` for an unconditional request. */
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
  /** The dispatcher for each hop's URL (the environment's proxy may differ between a URL and its redirect's). */
  readonly dispatcher: (url: URL) => Dispatcher;
  /** For the whole exchange: every redirect hop and the complete body. */
  readonly timeoutMs: number;
  /** Cap of the (decompressed) body. */
  readonly maxBytes: number;
  /** Redirects followed per poll; Go's default policy follows 9 (it stops when 10 requests were sent). */
  readonly maxRedirects: number;
  /** Which CAs are trusted, named in a TLS error whose chain leads to none of them. */
  readonly trusted: string;
  /** `User-Agent`, unless a configured header sets one. */
  readonly userAgent: string;
  /** Told the final response's status before its body is read (a body that fails to read still had a status). */
  readonly onStatus?: (statusCode: number) => void;
}

/** The final response. `body` is read (capped, gunzipped) only for a 200; other bodies are discarded. */
export interface ManifestResponse {
  readonly statusCode: number;
  readonly body: Buffer | undefined;
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
  /** The `Retry-After` header, as sent. */
  readonly retryAfter: string | undefined;
}

// A discarded (non-200 or redirect) body is read up to this much so the connection can be reused.
const DISCARD_LIMIT = 64 * 1024;
// What gzip may add to an incompressible body (header, trailer, 5 bytes per stored block): the
// compressed read is capped at maxBytes plus this, the decompressed body at maxBytes.
const GZIP_OVERHEAD = 64 * 1024;
const gunzipAsync = promisify(gunzip);

/**
 * GETs the manifest URL, following up to `maxRedirects` redirects (http→https allowed, https→http
 * refused), within one overall deadline, reading a 200 body up to `maxBytes` (after gunzip when the
 * server sent `Content-Encoding: gzip`). Throws a {@link PodConfigError}: `PODCONFIG_TIMEOUT`,
 * `PODCONFIG_BODY_TOO_LARGE`, `PODCONFIG_REDIRECT`, `PODCONFIG_TLS`, `PODCONFIG_MANIFEST_INVALID`
 * (a gzip body that does not decompress, an unknown `Content-Encoding`) or
 * `PODCONFIG_SOURCE_UNAVAILABLE` (any other transport failure). When `signal` aborts it rejects
 * with its reason (or whatever undici threw first): callers check `signal.aborted`. Messages name URLs through
 * `safeUrl()` only and never contain header values.
 */
export async function fetchManifest(req: ManifestRequest, signal: AbortSignal): Promise<ManifestResponse> {
  const deadline = withTimeout(signal, req.timeoutMs);
  const original = req.url;
  let url = original;
  try {
    let headers = requestHeaders(req, true);
    for (let redirects = 0; ; redirects++) {
      // raceSignal: undici 7 ignores the signal while the TCP/TLS connect is pending (a blackholed https URL held
      // shutdown and the deadline for the connect timeout). The abandoned request ends when the dispatcher's owner
      // destroys its connecting sockets, or at the connect timeout.
      const res = await raceSignal(
        request(url, {
          method: 'GET',
          headers: headers.flat(),
          dispatcher: req.dispatcher(url),
          signal: deadline.signal,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        }),
        deadline.signal,
      );
      const location = header(res.headers, 'location');
      if (!REDIRECT_STATUSES.has(res.statusCode) || location === undefined) {
        req.onStatus?.(res.statusCode);
        return {
          statusCode: res.statusCode,
          body: res.statusCode === 200 ? await readBody(res, req.maxBytes, url) : await discard(res, deadline.signal),
          etag: header(res.headers, 'etag'),
          lastModified: header(res.headers, 'last-modified'),
          retryAfter: header(res.headers, 'retry-after'),
        };
      }
      await discard(res, deadline.signal);
      const next = redirectTarget(url, location, { redirectsFollowed: redirects, maxRedirects: req.maxRedirects, describe: safeUrl(original) });
      // Go's client drops only Authorization, WWW-Authenticate and cookies on a redirect to another host, and sends
      // the other headers on: a token in `X-Auth-Token` or `PRIVATE-TOKEN` would reach any host the manifest's server
      // redirects to. Here no configured header, and no userinfo credential, leaves the manifest URL's origin.
      if (next.origin !== url.origin) headers = requestHeaders(req, next.origin === original.origin);
      url = next;
    }
  } catch (err: unknown) {
    if (signal.aborted) throw err;
    throw classify(err, url, req, deadline.signal.aborted);
  } finally {
    deadline.dispose();
  }
}

/** A copy of `url` without userinfo and fragment: what is requested, and the http pods' identity URL. */
export function stripCredentials(url: URL): URL {
  const out = new URL(url.href);
  out.username = '';
  out.password = '';
  out.hash = '';
  return out;
}

/** The request's headers: with the configured ones and the userinfo's credential only for the manifest URL's origin. */
function requestHeaders(req: ManifestRequest, manifestOrigin: boolean): (readonly [string, string])[] {
  const headers = manifestOrigin ? [...req.headers] : [];
  const has = (name: string): boolean => headers.some(([n]) => n.toLowerCase() === name);
  if (manifestOrigin && req.basicAuth !== undefined && !has('authorization')) headers.push(['authorization', req.basicAuth]);
  if (!has('user-agent')) headers.push(['user-agent', req.userAgent]);
  // Go's transport asks for gzip unless the request names an encoding itself.
  if (!has('accept-encoding')) headers.push(['accept-encoding', 'gzip']);
  // RFC 9110 §13.1.3: a server ignores If-Modified-Since when If-None-Match is present, so an
  // ETag alone decides; If-Modified-Since is only sent when the server gave no ETag.
  if (req.etag !== undefined) {
    if (!has('if-none-match')) headers.push(['if-none-match', req.etag]);
  } else if (req.lastModified !== undefined && !has('if-modified-since')) {
    headers.push(['if-modified-since', req.lastModified]);
  }
  return headers;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Reads a 200 body: capped, and gunzipped when `Content-Encoding` says gzip (Go's transport does the same). */
async function readBody(res: Dispatcher.ResponseData, maxBytes: number, url: URL): Promise<Buffer> {
  const encoding = (header(res.headers, 'content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'identity' && encoding !== '') {
    abandon(res);
    throw new PodConfigError(
      'PODCONFIG_MANIFEST_INVALID',
      `${safeUrl(url)}: unsupported Content-Encoding (only gzip is decoded)`,
      { retryable: true },
    );
  }
  if (encoding !== 'gzip' && encoding !== 'x-gzip') return readCapped(res, maxBytes, url, maxBytes);
  const compressed = await readCapped(res, maxBytes + GZIP_OVERHEAD, url, maxBytes);
  // An empty gzip body reads as an empty body, as with Go's transport (its gzip reader hits EOF).
  if (compressed.length === 0) return compressed;
  try {
    return await gunzipAsync(compressed, { maxOutputLength: maxBytes });
  } catch (err: unknown) {
    if ((err as { code?: unknown } | null)?.code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(url, maxBytes);
    throw new PodConfigError('PODCONFIG_MANIFEST_INVALID', `${safeUrl(url)}: the gzip-encoded body does not decompress: ${errorMessage(err)}`, {
      retryable: true,
      cause: err,
    });
  }
}

function tooLarge(url: URL, maxBytes: number): PodConfigError {
  return new PodConfigError('PODCONFIG_BODY_TOO_LARGE', `${safeUrl(url)}: response body exceeds ${maxBytes} bytes`, {
    retryable: true,
  });
}

/** Reads at most `limit` bytes of the body; more is `PODCONFIG_BODY_TOO_LARGE` naming `maxBytes`. */
async function readCapped(res: Dispatcher.ResponseData, limit: number, url: URL, maxBytes: number): Promise<Buffer> {
  const declared = Number(header(res.headers, 'content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    abandon(res);
    throw tooLarge(url, maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      abandon(res);
      throw tooLarge(url, maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Drops a body we refuse. undici's body emits an 'error' (RequestAbortedError) when destroyed after the whole
 * response had arrived: without a listener, that is an uncaught exception that ends the process.
 */
function abandon(res: Dispatcher.ResponseData): void {
  res.body.on('error', ignoreError);
  res.body.destroy();
}

function ignoreError(): void {}

async function discard(res: Dispatcher.ResponseData, signal: AbortSignal): Promise<undefined> {
  await res.body.dump({ limit: DISCARD_LIMIT, signal });
  return undefined;
}

function classify(err: unknown, url: URL, req: ManifestRequest, deadlinePassed: boolean): PodConfigError {
  if (PodConfigError.is(err)) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const where = safeUrl(url);
  const timeoutMs = req.timeoutMs;
  if (deadlinePassed || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new PodConfigError('PODCONFIG_TIMEOUT', `${where}: no complete response within ${timeoutMs} ms`, {
      retryable: true,
      ...(deadlinePassed ? {} : { cause: err }),
    });
  }
  const tls = tlsFailure(err);
  if (tls !== undefined) {
    return new PodConfigError('PODCONFIG_TLS', `${where}: TLS failure: ${tlsFailureText(tls, req.trusted)}`, { cause: err });
  }
  return new SourceUnavailableError(`${where}: request failed: ${errorMessage(err)}`, { cause: err });
}
