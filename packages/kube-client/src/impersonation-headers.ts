import type { Impersonation } from './cluster-config.js';

/** RFC 7230 `tchar`: the bytes a header name may hold (Go's `isTokenTable`). */
const TOKEN_BYTE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/;

/**
 * client-go's `headerKeyEscape` (transport/round_trippers.go): percent-encodes, as `%XX` in upper
 * case, every UTF-8 byte of `key` that is not legal in a header name, and `%` itself (the API
 * server's `url.PathUnescape` needs every `%` to start an escape). `a/b(c)` → `a%2Fb%28c%29`.
 */
export function headerKeyEscape(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && c !== '%' && TOKEN_BYTE.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Why `value` cannot be a header value (Go's `httpguts.ValidHeaderFieldValue`: no control
 * characters but tab), or `undefined` when it can. Never quotes the value.
 */
export function headerValueProblem(value: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  return /[\x00-\x08\x0a-\x1f\x7f]/.test(value) ? 'holds a control character, which an HTTP header cannot carry' : undefined;
}

/**
 * A header value as Go sends it: its UTF-8 bytes. undici writes header strings as latin1, so the
 * bytes are handed over as a latin1 string (ASCII stays as it is).
 */
export function headerValue(value: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(value) ? value : Buffer.from(value, 'utf8').toString('latin1');
}

/**
 * client-go's impersonation headers (`transport.NewImpersonatingRoundTripper`): `Impersonate-User`,
 * `-Uid`, one `Impersonate-Group` per group and one `Impersonate-Extra-<escaped key>` per value.
 */
export function impersonationHeaders(imp: Impersonation | undefined): Record<string, string | string[]> {
  if (imp === undefined) return {};
  const headers: Record<string, string | string[]> = { 'impersonate-user': headerValue(imp.user) };
  if (imp.uid !== undefined) headers['impersonate-uid'] = headerValue(imp.uid);
  if (imp.groups.length > 0) headers['impersonate-group'] = imp.groups.map(headerValue);
  for (const [key, values] of Object.entries(imp.extra)) {
    const name = `impersonate-extra-${headerKeyEscape(key)}`;
    headers[name] = [...(Array.isArray(headers[name]) ? headers[name] : []), ...values.map(headerValue)];
  }
  return headers;
}

/** Which impersonation field cannot be sent as a header (`as-groups[1]`), and why; `undefined` when all can. */
export function impersonationProblem(imp: Impersonation | undefined): string | undefined {
  if (imp === undefined) return undefined;
  const fields: [string, string][] = [
    ['as', imp.user],
    ...(imp.uid === undefined ? [] : [['as-uid', imp.uid] as [string, string]]),
    ...imp.groups.map((g, i): [string, string] => [`as-groups[${i}]`, g]),
    ...Object.entries(imp.extra).flatMap(([key, values]) => values.map((v, i): [string, string] => [`as-user-extra "${key}"[${i}]`, v])),
  ];
  for (const [field, value] of fields) {
    const problem = headerValueProblem(value);
    if (problem !== undefined) return `${field} ${problem}`;
  }
  return undefined;
}
