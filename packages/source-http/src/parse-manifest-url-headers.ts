import { ConfigInvalidError } from '@podconfig/core';

// RFC 9110 token characters: what a header name may contain.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Control characters (tab aside): what Go's httpguts.ValidHeaderFieldValue refuses. Anything from
// U+0080 up is fine: it is sent as its UTF-8 bytes, as Go does (see headerWireValue()).
// eslint-disable-next-line no-control-regex -- looking for exactly these
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
// With the u flag a surrogate pair is one code point, so only an unpaired half matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/**
 * Headers the HTTP client owns: Go never sends `Header["Host"]` (nor Content-Length,
 * Transfer-Encoding, Trailer) from the map, and undici refuses the rest or manages them itself.
 */
const MANAGED = new Set(['host', 'connection', 'keep-alive', 'upgrade', 'expect', 'transfer-encoding', 'content-length', 'trailer']);

/**
 * Parses the kubelet's `--manifest-url-header` flag values (`'a:hello,b:again,c:world'`, the flag
 * repeatable) into ordered `[name, value]` pairs, the way the kubelet's
 * `ColonSeparatedMultimapStringString` does: pairs are split on `,`, empty pairs are skipped, each
 * pair is split at its first `:`, and name and value are trimmed. A repeated name keeps every value,
 * in order. Throws {@link ConfigInvalidError} naming the bad entry by position (and by header name
 * when that is well-formed); header values never appear in the message, because they are secrets.
 * `what` names where the values were given (default `--manifest-url-header`; a config file's field).
 */
export function parseManifestUrlHeaders(values: readonly string[], what = '--manifest-url-header'): [string, string][] {
  const out: [string, string][] = [];
  values.forEach((value, v) => {
    value.split(',').forEach((pair, p) => {
      if (pair.length === 0) return;
      const where = `${what} value ${v + 1}, entry ${p + 1}`;
      const colon = pair.indexOf(':');
      if (colon < 0) throw new ConfigInvalidError(`${where}: malformed pair, expected name:value`);
      const header: [string, string] = [pair.slice(0, colon).trim(), pair.slice(colon + 1).trim()];
      checkHeader(header, where);
      out.push(header);
    });
  });
  return out;
}

/**
 * Checks one configured header: a valid token as name, not one the HTTP client manages (`Host`,
 * `Connection`, `Keep-Alive`, `Upgrade`, `Expect`, `Transfer-Encoding`, `Content-Length`,
 * `Trailer`), and a value without control characters that is well-formed Unicode. Throws
 * {@link ConfigInvalidError}; the message names `where` and, for a bad value, the header name only.
 */
export function checkHeader(header: readonly [string, string], where: string): void {
  const [name, value] = header;
  if (!TOKEN.test(name)) throw new ConfigInvalidError(`${where}: the header name is empty or not a valid token`);
  if (MANAGED.has(name.toLowerCase())) {
    throw new ConfigInvalidError(`${where}: the header '${name}' is set by the HTTP client and cannot be configured`);
  }
  if (CONTROL.test(value)) {
    throw new ConfigInvalidError(`${where}: the value of header '${name}' contains control characters`);
  }
  if (LONE_SURROGATE.test(value)) {
    throw new ConfigInvalidError(`${where}: the value of header '${name}' is not well-formed Unicode (a lone surrogate)`);
  }
}

/**
 * A configured value as undici must be given it so the wire carries its UTF-8 bytes, as Go sends
 * them: undici writes header strings as latin1, one byte per code unit.
 */
export function headerWireValue(value: string): string {
  return Buffer.from(value, 'utf8').toString('latin1');
}
