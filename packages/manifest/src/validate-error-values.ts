// How field.Error prints a bad value. A Go string is printed with %q, which these files write with
// JSON.stringify (the two agree on what a manifest holds); a value Go holds behind a pointer or as a named
// string type (`*string`, `ResourceName`, `AzureDataDiskCachingMode`) is printed as encoding/json writes it,
// which also escapes `<`, `>`, `&`, U+2028 and U+2029.

const JSON_HTML_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029',
};

/** A string as Go's encoding/json writes it (HTML-safe). */
export function goJsonString(value: string): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => JSON_HTML_ESCAPES[c] ?? c);
}
