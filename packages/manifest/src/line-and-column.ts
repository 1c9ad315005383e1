/** `line L, column C` (1-based) of a character offset in `text`, for messages that must not quote the text. */
export function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, Math.min(offset, text.length));
  const line = before.split('\n').length;
  return `line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}
