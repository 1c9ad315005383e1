const NEWLINE = 0x0a;
const DASH = 0x2d;
const DOT = 0x2e;
const HASH = 0x23;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Whether a manifest holds YAML documents with content after the first one: the decoding reads only the first,
 * as the kubelet does, so a second pod in the file is never seen. Only a `---` at the start of a line followed by
 * white space or the line's end starts a document (inside a scalar it cannot stand there); a document counts when
 * any of its lines holds more than white space, a comment, or a marker (`---`, `...`). JSON text (starting with
 * `{`) is one value. Reads the bytes without decoding them.
 */
export function hasLaterYamlDocuments(data: Uint8Array): boolean {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let start = bytes.subarray(0, 3).equals(BOM) ? 3 : 0;
  while (start < bytes.length && isBlank(bytes[start])) start++;
  if (bytes[start] === 0x7b) return false; // `{`: JSON
  let documents = 0;
  let region = start;
  for (let from = start; ;) {
    const at = bytes.indexOf('\n---', from);
    const next = at < 0 ? -1 : at + 1;
    if (next >= 0 && !isMarkerAt(bytes, next)) {
      from = next + 3;
      continue;
    }
    if (hasContent(bytes, region, next < 0 ? bytes.length : next)) documents++;
    if (documents > 1) return true;
    if (next < 0) return false;
    region = next;
    from = next + 3;
  }
}

const isBlank = (b: number | undefined): boolean => b === 0x20 || b === 0x09 || b === 0x0d || b === NEWLINE;

/** `---` at `at`, followed by white space or the end. */
function isMarkerAt(bytes: Buffer, at: number): boolean {
  return bytes[at] === DASH && bytes[at + 1] === DASH && bytes[at + 2] === DASH && (at + 3 >= bytes.length || isBlank(bytes[at + 3]));
}

/** Any line in `[from, to)` with more than white space, a comment, or a document marker (`---`, `...`) alone. */
function hasContent(bytes: Buffer, from: number, to: number): boolean {
  let line = from;
  while (line < to) {
    const end = bytes.indexOf(NEWLINE, line);
    const stop = end < 0 || end > to ? to : end;
    let i = line;
    // A marker may be followed by content on its own line (`--- {a: 1}`): skip the marker, look at the rest.
    if (isMarkerAt(bytes, i) || (bytes[i] === DOT && bytes[i + 1] === DOT && bytes[i + 2] === DOT && (i + 3 >= bytes.length || isBlank(bytes[i + 3])))) i += 3;
    while (i < stop && isBlank(bytes[i])) i++;
    if (i < stop && bytes[i] !== HASH) return true;
    line = stop + 1;
  }
  return false;
}
