import { ConfigInvalidError, PodConfigError } from '@podconfig/core';
import { describe, expect, it } from 'vitest';
import { parseManifestUrlHeaders } from './parse-manifest-url-headers.js';

describe('parseManifestUrlHeaders()', () => {
  it('keeps the order of pairs and of repeated names across flag values', () => {
    expect(parseManifestUrlHeaders(['a:1,a:2', 'b:3', 'a:4'])).toEqual([
      ['a', '1'],
      ['a', '2'],
      ['b', '3'],
      ['a', '4'],
    ]);
  });

  it('splits at the first colon, trims name and value, and skips empty pairs', () => {
    expect(parseManifestUrlHeaders([' Authorization : Bearer x:y:z ,,x-empty:', ''])).toEqual([
      ['Authorization', 'Bearer x:y:z'],
      ['x-empty', ''],
    ]);
  });

  it('returns no pairs for no values', () => {
    expect(parseManifestUrlHeaders([])).toEqual([]);
  });

  it('throws ConfigInvalidError naming the entry, without its content, when a pair has no colon', () => {
    const parse = (): unknown => parseManifestUrlHeaders(['a:1', 'b:2,s3cr3t-token']);
    expect(parse).toThrow(ConfigInvalidError);
    expect(parse).toThrow('--manifest-url-header value 2, entry 2: malformed pair, expected name:value');
    try {
      parse();
    } catch (err: unknown) {
      expect(PodConfigError.is(err, 'PODCONFIG_CONFIG_INVALID')).toBe(true);
      expect(String((err as Error).message)).not.toContain('s3cr3t');
    }
  });

  it('throws when a header name is empty or not a token', () => {
    expect(() => parseManifestUrlHeaders([':value'])).toThrow('value 1, entry 1: the header name is empty or not a valid token');
    expect(() => parseManifestUrlHeaders(['bad name:value'])).toThrow('not a valid token');
  });

  it('throws naming a header the HTTP client owns, such as Host', () => {
    expect(() => parseManifestUrlHeaders(['a:1,Host:manifests.internal'])).toThrow(
      "--manifest-url-header value 1, entry 2: the header 'Host' is set by the HTTP client and cannot be configured",
    );
    expect(() => parseManifestUrlHeaders(['Expect:100-continue'])).toThrow(ConfigInvalidError);
  });

  it('accepts non-ASCII values (sent as UTF-8) but not a lone surrogate', () => {
    expect(parseManifestUrlHeaders(['x-note:café €'])).toEqual([['x-note', 'café €']]);
    expect(() => parseManifestUrlHeaders(['x-note:a\uD800b'])).toThrow("the value of header 'x-note' is not well-formed Unicode");
  });

  it('accepts a tab inside a value (Go allows it), but no other control character', () => {
    expect(parseManifestUrlHeaders(['x-list:a\tb'])).toEqual([['x-list', 'a\tb']]);
    expect(() => parseManifestUrlHeaders(['x-list:a\u000bb'])).toThrow('contains control characters');
  });

  it('throws naming the header, not the value, when a value holds control characters', () => {
    const parse = (): unknown => parseManifestUrlHeaders(['x-token:s3cr3t\u0000more']);
    expect(parse).toThrow("the value of header 'x-token' contains control characters");
    expect(parse).not.toThrow(/s3cr3t/);
  });
});
