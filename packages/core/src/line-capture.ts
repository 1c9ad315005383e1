/**
 * Collects a child's output stream up to `limit` bytes and reports each complete line (without
 * the newline) to `onLine` as it arrives. Bytes past the limit are counted, not kept.
 */
export class LineCapture {
  readonly #limit: number;
  readonly #onLine: ((line: string) => void) | undefined;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  #dropped = 0;
  /** Start of the current incomplete line within the kept bytes. */
  #partial: Buffer[] = [];

  constructor(options: { limit: number; onLine?: (line: string) => void }) {
    this.#limit = options.limit;
    this.#onLine = options.onLine;
  }

  /** Bytes received past the limit. */
  get dropped(): number {
    return this.#dropped;
  }

  push(chunk: Buffer): void {
    const room = this.#limit - this.#kept;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, Math.max(0, room));
    this.#dropped += chunk.length - kept.length;
    if (kept.length === 0) return;
    this.#chunks.push(kept);
    this.#kept += kept.length;
    if (this.#onLine === undefined) return;
    let rest = kept;
    for (let nl = rest.indexOf(0x0a); nl !== -1; nl = rest.indexOf(0x0a)) {
      const line = Buffer.concat([...this.#partial, rest.subarray(0, nl)]);
      this.#partial = [];
      this.#onLine(stripCr(line.toString('utf8')));
      rest = rest.subarray(nl + 1);
    }
    if (rest.length > 0) this.#partial.push(rest);
  }

  /** Reports the last line if it had no newline; returns everything kept. */
  end(): Buffer {
    if (this.#onLine !== undefined && this.#partial.length > 0) {
      this.#onLine(stripCr(Buffer.concat(this.#partial).toString('utf8')));
    }
    this.#partial = [];
    return Buffer.concat(this.#chunks);
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
