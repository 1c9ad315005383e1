/**
 * True when `text` is a JSON value cut off before its end: well-formed as far as it goes, but incomplete.
 * Go's JSON decoder tells the two failures of a stream's last bytes apart the same way: a cut-off value is
 * `io.ErrUnexpectedEOF`, anything malformed a `SyntaxError`. False for a complete value (with or without
 * trailing bytes), for blank text and for anything malformed.
 */
export function isJsonPrefix(text: string): boolean {
  /** Open containers, innermost last: `{` or `[`. */
  const open: string[] = [];
  /** What may come next. */
  let want: 'value' | 'value-or-end' | 'key' | 'key-or-end' | 'colon' | 'comma-or-end' = 'value';
  let i = 0;
  let started = false;
  const n = text.length;
  const skipSpace = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  for (;;) {
    skipSpace();
    const complete = open.length === 0 && want === 'comma-or-end';
    if (i >= n) return started && !complete;
    if (complete) return false; // a complete value, then more bytes
    started = true;
    const c = text[i] ?? '';
    if (want === 'colon') {
      if (c !== ':') return false;
      i++;
      want = 'value';
      continue;
    }
    if (want === 'comma-or-end') {
      const container = open[open.length - 1];
      if (c === ',') {
        i++;
        want = container === '{' ? 'key' : 'value';
      } else if ((c === '}' && container === '{') || (c === ']' && container === '[')) {
        i++;
        open.pop();
        want = 'comma-or-end'; // after a value: a comma or the container's end (at the top level: nothing)
      } else {
        return false;
      }
      continue;
    }
    if ((want === 'key-or-end' && c === '}') || (want === 'value-or-end' && c === ']')) {
      i++;
      open.pop();
      want = 'comma-or-end'; // after a value: a comma or the container's end (at the top level: nothing)
      continue;
    }
    if (want === 'key' || want === 'key-or-end') {
      if (c !== '"') return false;
      const end = stringEnd(text, i);
      if (end === 'bad') return false;
      if (end === 'cut') return true;
      i = end;
      want = 'colon';
      continue;
    }
    // A value.
    if (c === '{' || c === '[') {
      open.push(c);
      i++;
      want = c === '{' ? 'key-or-end' : 'value-or-end';
      continue;
    }
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === 'bad') return false;
      if (end === 'cut') return true;
      i = end;
      want = 'comma-or-end'; // after a value: a comma or the container's end (at the top level: nothing)
      continue;
    }
    const literal = /^(?:true|false|null)/.exec(text.slice(i, i + 5));
    if (literal !== null) {
      i += literal[0].length;
      want = 'comma-or-end'; // after a value: a comma or the container's end (at the top level: nothing)
      continue;
    }
    if (c === 't' || c === 'f' || c === 'n') {
      const rest = text.slice(i);
      return ['true', 'false', 'null'].some((word) => word.startsWith(rest));
    }
    const number = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/.exec(text.slice(i));
    if (number === null || number[0].length === 0) {
      // Only a number cut off early (`-`, `1.`, `1e`, `1e+`) is left.
      return /^-?(?:(?:0|[1-9][0-9]*)(?:\.(?:[0-9]+)?)?(?:[eE][-+]?)?)?$/.test(text.slice(i));
    }
    i += number[0].length;
    if (i >= n) return true; // the number may go on
    // `1.` or `1e` / `1e+` at the very end: a number cut off before its fraction's or exponent's digits; only
    // where the number has no fraction (for `.`) and no exponent yet (`1.5.` or `1e5e` are malformed).
    const rest = text.slice(i);
    const hasExponent = /[eE]/.test(number[0]);
    if (rest === '.') return !number[0].includes('.') && !hasExponent;
    if (/^[eE][-+]?$/.test(rest)) return !hasExponent;
    want = 'comma-or-end'; // after a value: a comma or the container's end (at the top level: nothing)
  }
}

/** The index after the string starting at `start` (a `"`), `'cut'` if the text ends inside it, `'bad'` if malformed. */
function stringEnd(text: string, start: number): number | 'cut' | 'bad' {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return 'bad';
    if (c === 0x5c) {
      const e = text[i + 1];
      if (e === undefined) return 'cut';
      if (e === 'u') {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]*$/.test(hex)) return 'bad';
        if (hex.length < 4) return 'cut';
        i += 6;
        continue;
      }
      if (!'"\\/bfnrt'.includes(e)) return 'bad';
      i += 2;
      continue;
    }
    i++;
  }
  return 'cut';
}
