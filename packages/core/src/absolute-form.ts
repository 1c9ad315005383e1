/** What an absolute-form rewrite needs of a request (undici's dispatch options, structurally). */
export interface AbsoluteFormRequest {
  /** The origin the request is for: `http://host:port`. */
  readonly origin?: string | URL | undefined;
  /** Origin-relative: `/path?query`, starting with `/`. */
  readonly path: string;
  /** A flat `[name, value, …]` list, an object of names, or an iterable of pairs (undici takes all three). */
  readonly headers?: unknown;
}

/**
 * A plain-http request as it goes to a proxy, as Go's transport sends it: the request target in absolute form,
 * the origin and the path joined as they are (`http://host//pods` stays that; resolving `//pods` as a URL would
 * name another host), the headers as a flat list with every value of a repeated name, and `authorization` (the
 * proxy URL's credentials) as `Proxy-Authorization` unless the headers set it already.
 */
export function toAbsoluteForm<T extends AbsoluteFormRequest>(request: T, authorization: string | undefined): T & { path: string; headers: string[] } {
  const origin = request.origin === undefined ? '' : new URL(request.origin).origin;
  const headers = flatHeaders(request.headers);
  const configured = headers.some((value, i) => i % 2 === 0 && value.toLowerCase() === 'proxy-authorization');
  if (authorization !== undefined && !configured) headers.push('proxy-authorization', authorization);
  return { ...request, path: `${origin}${request.path}`, headers };
}

function flatHeaders(headers: unknown): string[] {
  if (headers === null || headers === undefined) return [];
  // A flat list as it is; a list of [name, value] pairs is an iterable of pairs, like a Map's entries.
  if (Array.isArray(headers) && headers.every((h) => typeof h === 'string')) return [...headers] as string[];
  const pairs: [string, unknown][] = typeof headers === 'object' && Symbol.iterator in headers
    ? [...(headers as Iterable<[string, unknown]>)]
    : Object.entries(headers);
  return pairs.flatMap(([name, value]) => (value === undefined ? [] : (Array.isArray(value) ? value : [value]).flatMap((v) => [name, String(v)])));
}
