/** The bytes of JSON's structure, for the scans that read watch lines without decoding them. */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;

/** Whether bytes [start, end) of `buf` are `text`'s. */
export function sameBytes(buf: Buffer, start: number, end: number, text: Buffer): boolean {
  if (end - start !== text.length) return false;
  for (let i = 0; i < text.length; i++) if (buf[start + i] !== text[i]) return false;
  return true;
}
